/*
 * task.c - explicit tasks (hp_task.h): their execution as open
 * calling-context nodes and the per-thread ring of timeline events.
 */
#include <assert.h>
#include <stdlib.h>
#include "hp_task.h"
#include "hp_config.h"
#include "hp_format.h"
#include "hp_omp.h"

typedef struct hp_task_event {
    uint64_t id, parent, t0, t1;
    uint32_t site, kind, team;
} hp_task_event;

struct hp_task_trace {
    uint64_t written;     /* events ever written; the ring keeps the last cap */
    uint32_t cap;
    int failed;           /* no memory: tracing is off for this thread */
    hp_task_event ev[];
};

static struct hp_task_trace *trace_of(hp_thread *t)
{
    if (__builtin_expect(t->trace != NULL, 1))
        return t->trace->failed ? NULL : t->trace;
    if (!hp_cfg.task_trace)
        return NULL;
    struct hp_task_trace *tr =
        calloc(1, sizeof *tr + (size_t)hp_cfg.task_trace * sizeof(hp_task_event));
    static struct hp_task_trace no_memory = {.failed = 1};
    if (!tr) {
        t->trace = &no_memory;
        return NULL;
    }
    tr->cap = hp_cfg.task_trace;
    t->trace = tr;
    return tr;
}

static void trace_add(hp_thread *t, uint32_t kind, uint32_t site, uint32_t team,
                      uint64_t id, uint64_t parent, uint64_t t0, uint64_t t1)
{
    struct hp_task_trace *tr = trace_of(t);
    if (!tr)
        return;
    hp_task_event *e = &tr->ev[tr->written++ % tr->cap];
    *e = (hp_task_event){id, parent, t0, t1, site, kind, team};
}

void hp_event_task_created_n(hp_thread *t, uint32_t create_site, uint64_t id,
                       const hp_task_clock *c, uint64_t tasks)
{
    uint64_t t1 = hp_ticks();
    uint64_t ran = t->task_acc - c->mark, ticks = t1 - c->t0;
    assert(tasks >= 1);
    uint32_t ctx = t->task_fold ? t->task_fold : t->current;
    hp_node *n = hp_node_at(t, hp_cct_child(t, ctx, create_site));
    if (ctx == t->current) {
        hp_node_add(n, ticks > ran ? ticks - ran : 0);
        n->count += tasks - 1;
    } else {
        /* A folded run inside nodes opened since its construct's node,
         * which hold its time: its creations count there, untimed. */
        n->count += tasks;
    }
    if (hp_cfg.task_trace)
        trace_add(t, HP_TASKEV_CREATE, create_site, t->team, id, t->task_cur, c->t0, t1);
}

void hp_event_task_created(hp_thread *t, uint32_t create_site, uint64_t id, const hp_task_clock *c)
{
    hp_event_task_created_n(t, create_site, id, c, 1);
}

void hp_event_task_created_untimed(hp_thread *t, uint32_t create_site, uint64_t id)
{
    uint32_t ctx = t->task_fold ? t->task_fold : t->current;
    hp_node_at(t, hp_cct_child(t, ctx, create_site))->count++;
    if (hp_cfg.task_trace) {
        uint64_t now = hp_ticks();
        trace_add(t, HP_TASKEV_CREATE, create_site, t->team, id, t->task_cur, now, now);
    }
}

void hp_event_task_begin(hp_thread *t, hp_task_run *r, uint32_t site, uint64_t id)
{
    r->id = id;
    r->outer = t->task_cur;
    r->site = site;
    r->outer_fold = t->task_fold;
    r->outer_acc = t->task_acc;
    r->suspended = 0;
    r->before = 0;
    r->before_on = NULL;
    t->task_cur = id;
    t->task_fold = 0;
    t->task_acc = 0;
    if (!hp_collecting) {
        r->f.node = HP_FRAME_OFF;
        r->start = r->first = hp_ticks();
        return;
    }
    hp_event_enter(t, &r->f, site, 0);
    if (r->f.node == HP_FRAME_FOLDED)
        t->task_fold = t->active[site].node;
    /* the run starts when its node does: one clock read, not two */
    r->start = r->first = r->f.node < HP_FRAME_FOLDED && r->f.start ? r->f.start : hp_ticks();
}

/* Closes r's node and restores t's task state; a completed run (final)
 * leaves its RUN event, from the task's first start. */
static void run_close(hp_thread *t, hp_task_run *r, int final)
{
    int opened = r->f.node != HP_FRAME_OFF;
    uint64_t end = hp_ticks();   /* the node's end too: one clock read */
    hp_event_exit_at(t, &r->f, end);
    t->task_cur = r->outer;
    t->task_fold = r->outer_fold;
    t->task_acc = r->outer_acc + (end - r->start);
    if (final && opened && hp_cfg.task_trace)
        trace_add(t, HP_TASKEV_RUN, r->site, t->team, r->id, 0, r->first, end);
}

/* The node r's run is timed at, HP_FRAME_OFF when it is not timed
 * (not collecting, folded into an outer run, throttled). */
static uint32_t timed_node(const hp_task_run *r)
{
    return r->f.node != HP_FRAME_OFF && r->f.node != HP_FRAME_FOLDED && r->f.start
               ? r->f.node : HP_FRAME_OFF;
}

void hp_event_task_end(hp_thread *t, hp_task_run *r)
{
    uint32_t node = timed_node(r);
    uint64_t ticks = node != HP_FRAME_OFF ? hp_node_at(t, node)->ticks : 0;
    run_close(t, r, 1);
    if (node == HP_FRAME_OFF || !r->before || r->before_on != t || r->before_node != node)
        return;
    /* a task run in fragments, here: its longest is the whole task */
    hp_node *n = hp_node_at(t, node);
    uint64_t whole = r->before + (n->ticks - ticks);
    if (whole > n->max)
        n->max = whole;
}

void hp_event_task_suspend(hp_thread *t, hp_task_run *r)
{
    int folded = r->f.node == HP_FRAME_FOLDED;
    uint32_t node = folded ? t->active[r->f.site].node : r->f.node;
    uint32_t timed = timed_node(r);
    uint64_t acc = t->task_acc;
    uint64_t ticks = timed != HP_FRAME_OFF ? hp_node_at(t, timed)->ticks : 0;
    /* Switched out from before its node closes: the time between lies in
     * the fragment, never in a wait that leaves out the time the task was
     * switched out (hp_event_task_resume), even if the thread is
     * preempted in between. */
    r->suspended = hp_ticks();
    run_close(t, r, 0);
    r->acc = acc;
    if (node == HP_FRAME_OFF)
        return;
    hp_node *n = hp_node_at(t, node);
    assert(n->count > 0);
    n->count--;
    if (timed != HP_FRAME_OFF) {
        assert(n->timed > 0);
        n->timed--;
        if (r->before_on != t || r->before_node != node) {
            r->before = 0;   /* fragments elsewhere are another node's */
            r->before_on = t;
            r->before_node = node;
        }
        r->before += n->ticks - ticks;
    }
}

void hp_event_task_resume(hp_thread *t, hp_task_run *r, uint32_t site, uint64_t id)
{
    uint64_t suspended = r->suspended, acc = r->acc, first = r->first, before = r->before;
    const hp_thread *before_on = r->before_on;
    uint32_t before_node = r->before_node;
    hp_event_task_begin(t, r, site, id);
    if (!suspended)
        return;   /* its first run */
    /* back from after its node opened (see hp_event_task_suspend) */
    t->task_acc = acc + (hp_ticks() - suspended);
    r->first = first;
    r->before = before;
    r->before_on = before_on;
    r->before_node = before_node;
}

uint32_t hp_task_trace_count(const hp_thread *t)
{
    const struct hp_task_trace *tr = t->trace;
    if (!tr || tr->failed)
        return 0;
    return tr->written < tr->cap ? (uint32_t)tr->written : tr->cap;
}

static double since(uint64_t ticks, uint64_t ticks0)
{
    return ticks >= ticks0 ? hp_ticks_to_sec(ticks - ticks0) : -hp_ticks_to_sec(ticks0 - ticks);
}

uint32_t hp_task_trace_copy(const hp_thread *t, uint32_t thread_index, uint64_t ticks0,
                            hp_task_rec *out)
{
    uint32_t n = hp_task_trace_count(t);
    const struct hp_task_trace *tr = t->trace;
    uint64_t first = tr && n ? tr->written - n : 0;
    for (uint32_t i = 0; i < n; i++) {
        const hp_task_event *e = &tr->ev[(first + i) % tr->cap];
        out[i] = (hp_task_rec){thread_index, e->kind, e->site, e->team, e->id, e->parent,
                               since(e->t0, ticks0), since(e->t1, ticks0)};
    }
    return n;
}

void hp_task_trace_clear(struct hp_task_trace *tr)
{
    if (tr && !tr->failed)
        tr->written = 0;
}

void hp_task_trace_free(struct hp_task_trace *tr)
{
    if (tr && !tr->failed)
        free(tr);
}
