/*
 * pomp2_task.c - the POMP2 source's tasks:
 *  - Task_create_begin/end: "task create"; Task_begin/end: "task", the
 *    execution as an open node (hp_task.h); Untied_task_begin/end: one
 *    "task" execution too (see task_begin);
 *    Taskwait_begin/end: "taskwait".  Task handles are hprof's instance
 *    ids, so the task timeline links a task to its creator.
 *  - taskgroup: hprof-instrument's own pair around the wait at its end.
 */
#include "hp_pomp2.h"

/* ---------------------------------------------------------------- tasks */

API void POMP2_Task_create_begin(POMP2_Region_handle *h, POMP2_Task_handle *new_task,
                                 POMP2_Task_handle *old_task, int pomp2_if,
                                 const char ctc_string[])
{
    (void)pomp2_if;
    p2_tls *g = hp_p2_tls_get();
    hp_thread *t = recorder();
    POMP2_Task_handle id = t ? (POMP2_Task_handle)hp_event_task_new_id(t)
                             : POMP2_Get_new_task_handle();
    if (old_task)
        *old_task = g ? g->task : 0;
    if (new_task)
        *new_task = id;
    uint64_t now = hp_ticks();
    p2_region *r = region_of(h, ctc_string);
    p2_scope *s = r ? hp_p2_scope_push(r, HP_OMP_TASK_CREATE, now) : NULL;
    if (s)
        s->task = id;
}

API void POMP2_Task_create_end(POMP2_Region_handle *h, POMP2_Task_handle old_task)
{
    p2_region *r = region_of(h, NULL);
    p2_tls *g = hp_p2_tls;
    if (g)
        g->task = old_task;   /* first: the creation's scope is the task's */
    p2_scope s;
    if (r && hp_p2_scope_pop(r, HP_OMP_TASK_CREATE, &s) && s.t && hp_collecting &&
        s.t == hp_tls_self)
        hp_event_task_created(s.t, hp_p2_region_site(r, HP_OMP_TASK_CREATE), (uint64_t)s.task,
                        &(hp_task_clock){s.start, s.mark});
}

/* A task's execution is an open node on the thread that begins it
 * (hp_task.h), untied ones too: libgomp runs them tied.  An untied task
 * that goes on on another thread (libomp) ends nowhere: its scope matches
 * nothing there, and the thread it began on closes it when it leaves the
 * construct that ran it (hp_p2_scope_pop). */
static void task_begin(POMP2_Region_handle *h, POMP2_Task_handle task)
{
    uint64_t now = hp_ticks();
    p2_region *r = region_of(h, NULL);
    p2_scope *s = r ? hp_p2_scope_push(r, HP_OMP_TASK, now) : NULL;
    p2_tls *g = hp_p2_tls_get();
    if (g)
        g->task = task;
    if (!s)
        return;
    s->task = task;
    s->run.f.node = HP_FRAME_OFF;
    if (s->t)
        hp_event_task_begin(s->t, &s->run, hp_p2_region_site(r, HP_OMP_TASK), (uint64_t)task);
}

static void task_end(POMP2_Region_handle *h)
{
    p2_region *r = region_of(h, NULL);
    p2_scope s;
    if (!r || !hp_p2_scope_pop(r, HP_OMP_TASK, &s))
        return;
    hp_p2_tls->task = s.old_task;
    if (s.t && s.t == hp_tls_self)
        hp_event_task_end(s.t, &s.run);
}

API void POMP2_Task_begin(POMP2_Region_handle *h, POMP2_Task_handle task)
{
    task_begin(h, task);
}

API void POMP2_Task_end(POMP2_Region_handle *h)
{
    task_end(h);
}

API void POMP2_Untied_task_create_begin(POMP2_Region_handle *h,
                                        POMP2_Task_handle *new_task,
                                        POMP2_Task_handle *old_task, int pomp2_if,
                                        const char ctc_string[])
{
    POMP2_Task_create_begin(h, new_task, old_task, pomp2_if, ctc_string);
}

API void POMP2_Untied_task_create_end(POMP2_Region_handle *h, POMP2_Task_handle old_task)
{
    POMP2_Task_create_end(h, old_task);
}

API void POMP2_Untied_task_begin(POMP2_Region_handle *h, POMP2_Task_handle task)
{
    task_begin(h, task);
}

API void POMP2_Untied_task_end(POMP2_Region_handle *h)
{
    task_end(h);
}

API void POMP2_Taskwait_begin(POMP2_Region_handle *h, POMP2_Task_handle *old_task,
                              const char ctc_string[])
{
    hp_p2_barrier_enter(h, old_task, ctc_string, HP_OMP_TASKWAIT);
}

API void POMP2_Taskwait_end(POMP2_Region_handle *h, POMP2_Task_handle old_task)
{
    hp_p2_barrier_exit(h, old_task, HP_OMP_TASKWAIT);
}

/* ----------------------------------------------------------- taskgroup */
/* opari2 2.0.7 has no POMP2 call for taskgroup (it leaves the construct as
 * it is).  hprof-instrument brackets the wait at a taskgroup's end with
 * this pair, in hprof's namespace so that it can never collide with a later
 * POMP2 version: wait_begin after the block's last statement, wait_end
 * once the construct is left.  The wait is recorded as "taskwait" at the
 * taskgroup's site, like a taskwait's. */

API void hprof_pomp2_taskgroup_wait_begin(POMP2_Region_handle *h, POMP2_Task_handle *old_task,
                                          const char ctc_string[])
{
    hp_p2_barrier_enter(h, old_task, ctc_string, HP_OMP_TASKWAIT);
}

API void hprof_pomp2_taskgroup_wait_end(POMP2_Region_handle *h, POMP2_Task_handle old_task)
{
    hp_p2_barrier_exit(h, old_task, HP_OMP_TASKWAIT);
}
