/*
 * hp_ompt.h - what the files of the OMPT tool share (ompt.c: regions,
 * waits, worksharing and tasks; ompt_mutex.c: critical sections, locks,
 * ordered blocks, atomics and flushes).  Not used outside the tool.
 *
 * A construct with a body (a loop, single, masked, sections, a critical
 * section's or an ordered block's hold) is an open frame of the event
 * boundary from its begin callback to its end callback, so the records
 * made in its body (user regions, probes, nested constructs, tasks the
 * thread runs meanwhile) lie below it; waits and holds without a body
 * (barriers, taskwaits, lock holds, atomics) are leaves.
 */
#ifndef HP_OMPT_H
#define HP_OMPT_H

#include <stddef.h>
#include <stdint.h>
#include HP_OMPT_HEADER
#include "hp_omp.h"

/* The first int of what a task_data or parallel_data pointer of the tool
 * points to. */
enum { HP_OMPT_IMPLICIT = 1, HP_OMPT_EXPLICIT = 2, HP_OMPT_LEAGUE = 3 };

/* The site of construct `what` at code address ra (hp_omp_site, through
 * a per-thread memo: ompt_site.c). */
uint32_t hp_ompt_site(hp_thread *t, const void *ra, int what);

/* The tool's state of a region or task: from per-thread free lists
 * (ompt_pool.c); freed with its size, on any thread. */
void *hp_ompt_alloc(size_t size);
void hp_ompt_free(void *obj, size_t size);

/* The thread's records when collecting, else NULL. */
static inline hp_thread *hp_ompt_rec_thread(void)
{
    return hp_collecting ? hp_thread_self() : NULL;
}

/* One completed occurrence of construct `what` at code address ra. */
static inline void hp_ompt_record(hp_thread *t, const void *ra, int what, uint64_t ticks)
{
    hp_event_leaf(t, hp_ompt_site(t, ra, what), ticks);
}

/* Opens construct `what` at ra as a frame f of this thread (HP_FRAME_OFF
 * when not collecting). */
static inline void hp_ompt_frame_open(hprof_frame *f, const void *ra, int what)
{
    hp_thread *t = hp_ompt_rec_thread();
    if (!t) {
        f->node = HP_FRAME_OFF;
        return;
    }
    hp_event_enter(t, f, hp_ompt_site(t, ra, what), 0);
}

/* Closes f on this thread, the one that opened it (collecting or not:
 * the frames above must be closed in order). */
static inline void hp_ompt_frame_close(hprof_frame *f)
{
    hp_thread *t = hp_tls_self;
    if (t)
        hp_event_exit(t, f);
    f->node = HP_FRAME_OFF;
}

/* The hold of a critical section or ordered block `what` at ra, of
 * mutex `key`, begins: an open frame on this thread's scope stack
 * (ompt.c), which the thread's task closes first if it is switched out
 * inside it. */
void hp_ompt_hold_open(uint64_t key, const void *ra, int what);
/* The hold of mutex `key` ends: its frame closes, if it is still this
 * thread's innermost scope of the running task (1), else it was closed
 * already (0). */
int hp_ompt_hold_close(uint64_t key);

/* The scope stack of this thread (ompt.c): its depth, and the scopes
 * above the first base ended (their frames close, in order). */
uint32_t hp_ompt_scope_depth(void);
void hp_ompt_scopes_cut(uint32_t base);

/* libomp names the task this thread runs, td (a schedule's prior task, a
 * creation's encountering task, a wait's or a construct's task): the
 * thread's books catch up with what ended unreported (ompt_task.c). */
void hp_ompt_running(ompt_data_t *td);

/* The user code address of the taskloop this thread runs, NULL if none
 * (libomp 14 reports its tasks' creation inside itself). */
extern __thread const void *hp_ompt_taskloop_ra __attribute__((tls_model("initial-exec")));

/* The regions this thread forked and has not ended (ompt_forked.c): each
 * parallel-begin pushes its region's state (NULL if none), each
 * parallel-end pops the innermost (NULL if it was not kept).  libomp's
 * parallel-end names a team it may have given to another thread's region
 * already. */
void hp_ompt_forked_push(void *region);
void *hp_ompt_forked_pop(void);

/* Registers the mutex and flush callbacks (ompt_mutex.c). */
void hp_ompt_mutex_callbacks(ompt_set_callback_t set);

#endif
