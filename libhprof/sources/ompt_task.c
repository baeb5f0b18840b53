/*
 * ompt_task.c - explicit tasks in the OMPT tool (hp_ompt_task.h).  A
 * task's execution is an open node on the thread that runs it, and the
 * tasks it runs at its scheduling points nest inside it: a tied task from
 * its first schedule to its completion; an untied one, which may resume
 * on another thread, per fragment (switched in to switched out), counted
 * once, by the fragment that completes it (hp_event_task_suspend).
 *
 * libomp (14 and later) runs an untied task in parts.  A part ends at a
 * scheduling point where the task queues itself again: libomp reports it
 * switched out then, before another thread can take it.  The last part
 * ends the task, but libomp reports the completion from the thread whose
 * part is the last to finish by its count of parts: when an earlier part,
 * on thread A, is still finishing (after its switch-out) as the last part
 * ends on thread B, B gets no callback at all and A reports "complete".
 * So the tool does not rely on the order of the reports:
 *  - when a thread's callback names the task it runs (the prior task of
 *    a schedule, the encountering task of a creation, the task of a wait
 *    or construct: hp_ompt_running), the tasks open above it in the
 *    thread's books ended unreported - an untied task's last part, so
 *    the task completed - and close as ended, counted there;
 *  - a completion reported on a thread where the task is not open counts
 *    nothing: its last part, open on another thread, does.
 * An untied task switched out because its thread runs another task on its
 * stack (parked) resumes on that thread when that task ends, reported or
 * not.  A task switched in while another thread has it open cannot be
 * attributed: such switches are counted and reported at the end of the
 * run (hp_ompt_task_report), never silently.
 */
#include "config.h"

#ifdef HAVE_OMPT
#include <assert.h>
#include <stdatomic.h>
#include "hp_log.h"
#include "hp_ompt_codeptr.h"
#include "hp_ompt_task.h"

__thread etask *hp_ompt_open_tasks __attribute__((tls_model("initial-exec")));

/* Switches in of a task open on another thread (not attributed). */
static _Atomic uint64_t unattributed;

/* Whether e is open on this thread (NULL: the bottom, always). */
static int open_here(const etask *e)
{
    const etask *x = hp_ompt_open_tasks;
    while (x && x != e)
        x = x->below;
    return x == e;
}

void hp_ompt_tasks_close_above_slow(etask *base)
{
    hp_thread *t = hp_tls_self;
    if (!t || !open_here(base))
        return;
    while (hp_ompt_open_tasks != base) {
        etask *x = hp_ompt_open_tasks;
        assert(atomic_load(&x->state) == E_OPEN && x->owner == t);
        hp_ompt_scopes_cut(x->scope_base);
        hp_ompt_open_tasks = x->below;
        hp_event_task_end(t, &x->run);
        atomic_store(&x->state, E_CLOSED);
        if (atomic_fetch_add(&x->claims, 1) == 1)
            hp_ompt_free(x, sizeof *x);   /* its completion was reported already */
    }
}

static void task_open(etask *e)
{
    hp_thread *t = hp_thread_self();
    if (!t)
        return;
    int state = atomic_load(&e->state);
    if (state != E_NEW) {
        if (state == E_CLOSED || e->owner != t)
            atomic_fetch_add(&unattributed, 1);
        return;   /* a tied task open here runs on */
    }
    e->owner = t;
    e->parked = 0;
    e->scope_base = hp_ompt_scope_depth();
    hp_event_task_resume(t, &e->run, e->site, e->id);
    e->below = hp_ompt_open_tasks;
    hp_ompt_open_tasks = e;
    atomic_store(&e->state, E_OPEN);
}

/* Closes e, open on this thread (done: completed, else an untied task
 * switched out) and, first, the tasks open above it (ended unreported). */
static int task_close(etask *e, int done)
{
    hp_thread *t = hp_tls_self;
    if (!t || atomic_load(&e->state) != E_OPEN || e->owner != t || !open_here(e))
        return 0;
    hp_ompt_tasks_close_above(e);
    hp_ompt_scopes_cut(e->scope_base);   /* constructs it leaves open (untied, switched out) */
    hp_ompt_open_tasks = e->below;
    if (done)
        hp_event_task_end(t, &e->run);
    else
        hp_event_task_suspend(t, &e->run);
    atomic_store(&e->state, done ? E_CLOSED : E_NEW);
    return 1;
}

void hp_ompt_task_running_slow(etask *e)
{
    hp_thread *t = hp_tls_self;
    if (!t || e->owner != t)
        return;
    int state = atomic_load(&e->state);
    if (state == E_OPEN) {
        hp_ompt_tasks_close_above(e);
    } else if (state == E_NEW && e->parked && open_here(e->below)) {
        /* back from the task it ran, which ended unreported */
        hp_ompt_tasks_close_above(e->below);
        task_open(e);
    }
}

/* After an untied task left this thread for next: whether next runs on
 * its stack (a task it starts at a scheduling point), else the task
 * queued itself and its thread went back to the task below (or to its
 * implicit task). */
static int runs_on_top(const etask *next)
{
    if (!next || open_here(next))
        return 0;
    return !(atomic_load(&next->state) == E_NEW && next->parked && next->owner == hp_tls_self);
}

/* p completed: its last fragment closes if it runs here (counted); if it
 * ran on another thread, that one counts it.  Freed by the last of the
 * two when another thread has it open. */
static void task_complete(ompt_data_t *prior, etask *p)
{
    hp_ompt_task_running(p);   /* resumes it if parked here */
    int closed = task_close(p, 1);
    prior->ptr = NULL;
    if (closed || atomic_load(&p->state) == E_NEW || atomic_fetch_add(&p->claims, 1) == 1)
        hp_ompt_free(p, sizeof *p);
}

static void on_task_schedule(ompt_data_t *prior, ompt_task_status_t status,
                             ompt_data_t *next)
{
    etask *p = hp_ompt_etask(prior);
    int done = status == ompt_task_complete || status == ompt_task_cancel ||
               status == ompt_task_detach;
    if (p && p == hp_ompt_etask(next) && !done) {
        /* an untied task's next part run at once (its queue was full),
         * or that part queuing the task again */
        if (!task_close(p, 0))
            task_open(p);
        return;
    }
    if (p && done) {
        task_complete(prior, p);
    } else {
        hp_ompt_running(prior);
        if (p && !p->tied && task_close(p, 0))
            p->parked = runs_on_top(hp_ompt_etask(next));
    }
    etask *n = hp_ompt_etask(next);
    if (n)
        task_open(n);
}

static void on_task_create(ompt_data_t *enc_data, const ompt_frame_t *enc_frame,
                           ompt_data_t *new_data, int flags, int has_dependences,
                           const void *ra)
{
    (void)enc_frame;
    (void)has_dependences;
    new_data->ptr = NULL;
    if (!(flags & ompt_task_explicit))
        return;
    hp_thread *t = hp_thread_self();
    if (!t)
        return;
    hp_ompt_running(enc_data);
    if (hp_ompt_taskloop_ra && hp_ompt_in_runtime(ra))
        ra = hp_ompt_taskloop_ra;   /* a task of the running taskloop */
    etask *e = hp_ompt_alloc(sizeof *e);
    if (!e)
        return;
    *e = (etask){.type = HP_OMPT_EXPLICIT, .tied = !(flags & ompt_task_untied), .ra = ra,
                 .site = hp_ompt_site(t, ra, HP_OMP_TASK), .id = hp_event_task_new_id(t)};
    new_data->ptr = e;
    if (hp_collecting)   /* a callback: no duration of the program's to time */
        hp_event_task_created_untimed(t, hp_ompt_site(t, ra, HP_OMP_TASK_CREATE), e->id);
}

void hp_ompt_task_callbacks(ompt_set_callback_t set)
{
    set(ompt_callback_task_create, (ompt_callback_t)(void (*)(void))on_task_create);
    set(ompt_callback_task_schedule, (ompt_callback_t)(void (*)(void))on_task_schedule);
}

void hp_ompt_task_report(void)
{
    uint64_t n = atomic_load(&unattributed);
    if (n)
        hp_warn("OMPT: %llu task switches not attributed (a task the runtime switched in "
                "while another thread ran it): task counts may be off",
                (unsigned long long)n);
}
#endif
