/*
 * pomp2_scope.c - the POMP2 source's per-thread stack of open constructs
 * (hp_stack.h: as deep as tasks nest), the constructs timed from enter to
 * exit, and the waits at barriers and taskwaits:
 *  - Implicit_barrier_enter/exit: "implicit barrier" (opari2 makes every
 *    implicit barrier an explicit one after a nowait); Barrier_enter/exit:
 *    "barrier".
 */
#include <stdlib.h>
#include "hp_pomp2.h"
#include "hp_stack.h"

__thread p2_tls *hp_p2_tls __attribute__((tls_model("initial-exec")));

p2_tls *hp_p2_tls_get(void)
{
    p2_tls *g = hp_p2_tls;
    if (__builtin_expect(!g, 0))
        g = hp_p2_tls = calloc(1, sizeof *g);
    return g;
}

/* Opens construct `what` of r on this thread. */
p2_scope *hp_p2_scope_push(p2_region *r, int what, uint64_t now)
{
    p2_tls *g = hp_p2_tls_get();
    if (!g)
        return NULL;
    uint32_t i = g->nscope++;   /* past scope_cap: an overflowed entry */
    if (i > g->scope_cap || !hp_stack_room((void **)&g->scope, &g->scope_cap, i, sizeof *g->scope))
        return NULL;
    p2_scope *s = &g->scope[i];
    s->r = r;
    s->what = what;
    s->t = r ? recorder() : NULL;
    s->start = now;
    s->f.node = HP_FRAME_OFF;   /* constructs with a body: opened by the caller */
    s->mark = hp_event_wait_mark(s->t);
    s->old_task = g->task;
    s->task = 0;            /* tasks and creations: set by the caller */
    return s;
}

/* Is s construct `what` of r in the thread's current task?  A task's own
 * scope carries its id; every other one the task that opened it (an
 * untied task's continuation on another thread matches nothing there). */
static int scope_is(const p2_scope *s, const p2_tls *g, p2_region *r, int what)
{
    return s->r == r && s->what == what &&
           (what == HP_OMP_TASK ? s->task : s->old_task) == g->task;
}

/* Closes what a scope left open on this thread: a task's execution (an
 * untied task that went on elsewhere), a construct's frame. */
static void scope_drop(p2_scope *x)
{
    if (!x->t || x->t != hp_tls_self)
        return;
    if (x->what == HP_OMP_TASK)
        hp_event_task_end(x->t, &x->run);
    else
        hp_event_exit(x->t, &x->f);
}

/* Closes the innermost open construct `what` of r in the current task:
 * the popped copy in *out, 0 if it is not open.  Scopes above it are
 * dropped, and what they left open closed on this thread, innermost
 * first. */
int hp_p2_scope_pop(p2_region *r, int what, p2_scope *out)
{
    p2_tls *g = hp_p2_tls;
    if (!g || !g->nscope)
        return 0;
    uint32_t n = g->nscope < g->scope_cap ? g->nscope : g->scope_cap;
    for (uint32_t i = n; i-- > 0;) {
        if (!scope_is(&g->scope[i], g, r, what))
            continue;
        for (uint32_t k = n; k-- > i + 1;)
            scope_drop(&g->scope[k]);
        *out = g->scope[i];
        g->nscope = i;
        return 1;
    }
    if (g->nscope > g->scope_cap)
        g->nscope--;  /* an overflowed entry */
    return 0;
}

/* Task scheduling points: the thread may run tasks while it waits there. */
static int is_wait(int what)
{
    return what == HP_OMP_BARRIER || what == HP_OMP_IMPLICIT_BARRIER ||
           what == HP_OMP_TASKWAIT;
}

/* Constructs with a body (a loop, single, master, a critical or ordered
 * block's hold): an open frame from enter to exit, so what the body
 * records lies below them.  The others (waits, atomic, flush) are one
 * leaf recorded at exit. */
static int has_body(int what)
{
    return what == HP_OMP_LOOP || what == HP_OMP_SINGLE || what == HP_OMP_MASTER ||
           what == HP_OMP_CRITICAL || what == HP_OMP_ORDERED;
}

void hp_p2_timed_enter(POMP2_Region_handle *h, const char *ctc, int what)
{
    uint64_t now = hp_ticks();
    p2_region *r = region_of(h, ctc);
    p2_scope *s = r ? hp_p2_scope_push(r, what, now) : NULL;
    if (s && s->t && has_body(what))
        hp_event_enter(s->t, &s->f, hp_p2_region_site(r, what), 0);
}

uint64_t hp_p2_timed_exit(POMP2_Region_handle *h, int what)
{
    uint64_t now = hp_ticks();
    p2_region *r = region_of(h, NULL);
    p2_scope s;
    if (!r || !hp_p2_scope_pop(r, what, &s))
        return 0;
    uint64_t d = now - s.start;
    if (!s.t || s.t != hp_tls_self)
        return d;
    if (has_body(what)) {
        hp_event_exit(s.t, &s.f);
        return d;
    }
    if (!hp_collecting)
        return d;
    uint32_t site = hp_p2_region_site(r, what);
    if (is_wait(what))
        hp_event_wait(s.t, site, d, s.mark);
    else
        hp_event_leaf(s.t, site, d);
    return d;
}

/* ------------------------------------------------------------- barriers */

/* A worksharing construct's implicit barrier (opari2 puts it before the
 * construct's exit event) ends the construct's work: its frame is closed
 * there, so the wait lies beside the construct, under the region, as the
 * other sources record it.  The frame is closed before the wait's start
 * is taken: the two intervals must not overlap, or whatever stalls the
 * thread in between (a preemption, an interrupt) counts in both and the
 * region's children exceed it (invariant a). */
static void end_work_before_barrier(p2_tls *g, p2_region *r)
{
    if (!g->nscope || g->nscope > g->scope_cap)
        return;
    p2_scope *s = &g->scope[g->nscope - 1];
    if (s->r != r || !has_body(s->what) || !s->t || s->t != hp_tls_self)
        return;
    hp_event_exit(s->t, &s->f);
    s->f.node = HP_FRAME_OFF;
}

void hp_p2_barrier_enter(POMP2_Region_handle *h, POMP2_Task_handle *old_task,
                          const char *ctc, int what)
{
    p2_region *r = region_of(h, ctc);
    p2_tls *g = hp_p2_tls_get();
    if (g && old_task)
        *old_task = g->task;
    if (g && r && what == HP_OMP_IMPLICIT_BARRIER)
        end_work_before_barrier(g, r);
    uint64_t now = hp_ticks();   /* after the work's end: no overlap */
    if (r)
        hp_p2_scope_push(r, what, now);
}

void hp_p2_barrier_exit(POMP2_Region_handle *h, POMP2_Task_handle old_task, int what)
{
    p2_tls *g = hp_p2_tls;
    if (g)
        g->task = old_task;   /* first: the wait's scope is the task's */
    hp_p2_timed_exit(h, what);
}

API void POMP2_Barrier_enter(POMP2_Region_handle *h, POMP2_Task_handle *old_task,
                             const char ctc_string[])
{
    hp_p2_barrier_enter(h, old_task, ctc_string, HP_OMP_BARRIER);
}

API void POMP2_Barrier_exit(POMP2_Region_handle *h, POMP2_Task_handle old_task)
{
    hp_p2_barrier_exit(h, old_task, HP_OMP_BARRIER);
}

API void POMP2_Implicit_barrier_enter(POMP2_Region_handle *h, POMP2_Task_handle *old_task)
{
    hp_p2_barrier_enter(h, old_task, NULL, HP_OMP_IMPLICIT_BARRIER);
}

API void POMP2_Implicit_barrier_exit(POMP2_Region_handle *h, POMP2_Task_handle old_task)
{
    hp_p2_barrier_exit(h, old_task, HP_OMP_IMPLICIT_BARRIER);
}
