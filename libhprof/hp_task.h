/*
 * hp_task.h - explicit OpenMP tasks, shared by the event sources (GOMP,
 * OMPT, POMP2): instance ids, a task's execution as an open node of the
 * calling-context tree, and the optional task timeline.
 *
 * A task's execution opens its "task" node under the executing thread's
 * current context, so whatever the task does - the tasks it creates, its
 * taskwaits, its MPI calls, tasks run nested in its taskwait - is
 * recorded below it.  The parent-child counts per (parent construct, child
 * construct) are thus the "task create" nodes under a "task" node (or
 * under a "parallel" node: created by an implicit task); recursion
 * folding keeps a recursive task construct at one node per context and
 * its time counted once.  A folded execution (task a run inside a b run
 * inside an a run on one thread) records the tasks it creates directly
 * under its construct's open node, so the nearest "task" above a "task
 * create" is always the creating construct; their time stays in the nodes
 * opened since (the b run), so there they are counted, not timed.
 *
 * Times, per thread: a task node's time is inclusive (it contains the
 * tasks the thread ran nested in it, which are its child nodes, counted
 * once); a creation's and a wait's time leave out the tasks the thread ran
 * meanwhile (task_acc: an undeferred or included task runs inside its
 * creation).  An untied task that may move between threads (OMPT) is an
 * open node per fragment, counted once, by the fragment that completes it.
 *
 * With HPROF_TASK_TRACE=N every thread keeps its last N task events in a
 * ring (bounded memory whatever the run length): a CREATE per task made
 * and a RUN per task executed, written to the TASK section of the file.
 */
#ifndef HP_TASK_H
#define HP_TASK_H

#include "hp_enter.h"

/* One execution in progress, on the executing thread's stack. */
typedef struct hp_task_run {
    hprof_frame f;
    uint64_t id;        /* the task */
    uint64_t outer;     /* the task this one interrupts on its thread, 0: none */
    uint32_t site;
    uint32_t outer_fold;  /* the thread's task_fold to restore */
    uint64_t outer_acc;   /* the thread's task_acc to restore, plus this run */
    uint64_t start;
    uint64_t first;       /* the task's first start (its RUN event's begin) */
    uint64_t acc;         /* suspended: the task's task_acc then */
    uint64_t suspended;   /* suspended at, 0: never (zeroed, for hp_task_resume) */
} hp_task_run;

/* A new task instance id for a task t creates (never 0). */
static inline uint64_t hp_task_new_id(hp_thread *t)
{
    return (uint64_t)(t->id + 1) << 40 | (++t->task_seq & ((1ull << 40) - 1));
}

/* The start of a task creation by t: its clock and the thread's ticks of
 * tasks run so far (hp_omp_wait_mark).  A creation may run the task, or
 * others, at once (an undeferred or included task, a full queue, a
 * taskloop's group): the "task create" time leaves out those executions,
 * recorded as "task" nodes, so nested creations are never counted twice. */
typedef struct hp_task_clock {
    uint64_t t0, mark;
} hp_task_clock;

static inline hp_task_clock hp_task_create_start(const hp_thread *t)
{
    return (hp_task_clock){hp_ticks(), t ? t->task_acc : 0};
}

/* t created task `id` at create_site since c: its "task create" record,
 * and a CREATE event whose parent is the task t runs. */
void hp_task_created(hp_thread *t, uint32_t create_site, uint64_t id, const hp_task_clock *c);
/* The same for `tasks` tasks made in one call since c (a taskloop): one
 * timed creation counting `tasks`, one CREATE event. */
void hp_task_created_n(hp_thread *t, uint32_t create_site, uint64_t id,
                       const hp_task_clock *c, uint64_t tasks);

/* t starts executing task `id` of construct `site` (the "task" site); r
 * stays on the caller's stack until hp_task_end.  Not collecting: only
 * the current task id is kept. */
void hp_task_begin(hp_thread *t, hp_task_run *r, uint32_t site, uint64_t id);
void hp_task_end(hp_thread *t, hp_task_run *r);

/* Closes r like hp_task_end for a task that will resume later, maybe on
 * another thread (an untied task switched out): its time so far is
 * recorded, its execution is counted by the run that completes it. */
void hp_task_suspend(hp_thread *t, hp_task_run *r);
/* hp_task_begin for a task that may have been suspended: its waits go on
 * leaving out what ran meanwhile, the time it was switched out included
 * (a taskwait it was suspended in: the thread ran other tasks). */
void hp_task_resume(hp_thread *t, hp_task_run *r, uint32_t site, uint64_t id);

/* Timeline events of thread t, oldest first, into out[0..n); returns n
 * (at most the ring's size).  ticks0 is the rank's start. */
struct hp_task_rec;
uint32_t hp_task_trace_count(const hp_thread *t);
uint32_t hp_task_trace_copy(const hp_thread *t, uint32_t thread_index, uint64_t ticks0,
                            struct hp_task_rec *out);

#endif
