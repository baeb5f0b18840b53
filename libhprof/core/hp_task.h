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

#include "hp_thread.h"

/* Timeline events of thread t, oldest first, into out[0..n); returns n
 * (at most the ring's size).  ticks0 is the rank's start. */
struct hp_task_rec;
uint32_t hp_task_trace_count(const hp_thread *t);
uint32_t hp_task_trace_copy(const hp_thread *t, uint32_t thread_index, uint64_t ticks0,
                            struct hp_task_rec *out);

#endif
