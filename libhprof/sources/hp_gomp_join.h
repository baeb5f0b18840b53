/*
 * hp_gomp_join.h - the end of a thread's part of a GOMP parallel region
 * without a barrier of hprof's own (gomp_join.c).
 *
 * libgomp's end-of-region barrier cannot be timed per thread: a worker
 * goes from it straight to its dock, and is back in hprof's code only
 * when it serves the team's next region.  So each thread, when its part
 * of the region ends, stamps its arrival and leaves the region node open
 * (the tasks libgomp runs in that barrier go under it); the master, once
 * the region has ended, takes the release (the last arrival, or the end
 * of the last task run in the barrier, whichever is later) and publishes
 * it to each thread of the team; each thread closes its own records at
 * its next region ("implicit barrier" = arrival -> release less the tasks
 * it ran meanwhile; the region node ending at the release), at its exit,
 * or, idle at the end of the run, when the profile is taken.
 * For teams forked at level 0 only (their workers are libgomp's pool
 * threads, which live on until the master's next fork); a nested team
 * keeps hprof's own barrier (gomp_parallel.c).
 */
#ifndef HP_GOMP_JOIN_H
#define HP_GOMP_JOIN_H

#include <stdatomic.h>
#include <stdint.h>
#include "hp_gomp.h"

/* Threads of a team beyond this many close their part at their arrival
 * (their implicit-barrier wait is not recorded). */
#define HP_GOMP_JOIN_SLOTS 512

typedef struct hp_gomp_part hp_gomp_part;

/* One region's team, on the master's stack: a slot per thread that ended
 * its part (in arrival order). */
typedef struct hp_gomp_join {
    _Atomic unsigned arrived;
    hp_gomp_part *slot[HP_GOMP_JOIN_SLOTS];
} hp_gomp_join;

/* A thread's previous part, if still open: closed at its release (called
 * before the thread's next part begins). */
void hp_gomp_part_close_previous(void);

/* t's part of the region of j ends at arrival: the region frame f (opened
 * by hp_event_team_begin with saved) stays open until the release; mark
 * is hp_event_wait_mark(t) at the arrival, wait_site the region's
 * "implicit barrier".  0: no slot left, the caller ends the part now. */
int hp_gomp_part_arrive(hp_gomp_join *j, hp_thread *t, const hprof_frame *f,
                         const hp_omp_saved *saved, uint32_t wait_site, uint64_t arrival,
                         uint64_t mark);

/* A task run by this thread just ended: if the thread waits in the end
 * barrier of a region, the release is no earlier than now. */
static inline void hp_gomp_part_busy(void);

/* The master, after the real call returned: the release of j's team,
 * published to every thread of it; the master's own part closed.
 * Returns the release (0: no thread arrived). */
uint64_t hp_gomp_join_release(hp_gomp_join *j);

/* The source's thread-end and before-snapshot entries. */
void hp_gomp_part_thread_end(hp_thread *t);
void hp_gomp_parts_close(void);

/* ---------------------------------------------------------------- inline */

extern __thread hp_gomp_part *hp_gomp_open_part __attribute__((tls_model("initial-exec")));
void hp_gomp_part_busy_slow(hp_gomp_part *p);

static inline void hp_gomp_part_busy(void)
{
    if (__builtin_expect(hp_gomp_open_part != NULL, 0))
        hp_gomp_part_busy_slow(hp_gomp_open_part);
}

#endif
