/*
 * hp_omp.h - what the three OpenMP event sources (GOMP interposition, the
 * OMPT tool, the POMP2 interface) share; they record through the event
 * boundary (hp_event.h) only.  OpenMP records are calling-context nodes
 * whose sites have kind HP_KIND_OMP and a construct name (hp_omp_names):
 * a thread's time in a parallel region is its "parallel" node, its wait at
 * the region's end barrier an "implicit barrier" node below it, a critical
 * section's waiting and holding two nodes, and so on.  No new record type:
 * the file, the database and hprof-query see ordinary nodes, per thread.
 *
 * A team shares the calling context of the thread that forked it: the
 * master records its path (hp_event_team_fork) and every thread of the team,
 * the master included, rebuilds that path in its own tree before it opens
 * the region (hp_event_team_begin), so the analyzer merges the threads'
 * nodes of one region into one node with a row per thread.
 */
#ifndef HP_OMP_H
#define HP_OMP_H

#include <stdint.h>
#include "hp_event.h"

enum hp_omp_what {
    HP_OMP_PARALLEL,          /* a thread's time in a parallel region */
    HP_OMP_IMPLICIT_BARRIER,  /* wait at the end of a region or worksharing construct */
    HP_OMP_BARRIER,           /* wait at an explicit barrier */
    HP_OMP_CRITICAL_WAIT,     /* waiting to enter a critical section */
    HP_OMP_CRITICAL,          /* holding it */
    HP_OMP_LOCK_WAIT,         /* waiting for an omp lock */
    HP_OMP_LOCK,              /* holding it */
    HP_OMP_LOOP,              /* a thread's time in a worksharing loop */
    HP_OMP_SINGLE,            /* executions of a single construct */
    HP_OMP_MASTER,            /* executions of a master/masked construct */
    HP_OMP_TASK,              /* executing tasks */
    HP_OMP_TASK_CREATE,       /* creating tasks */
    HP_OMP_TASKWAIT,          /* waiting in taskwait/taskgroup */
    HP_OMP_FORK,              /* the master's cost to start a team */
    HP_OMP_JOIN,              /* the master's cost to end it */
    HP_OMP_ORDERED_WAIT,      /* waiting to enter an ordered block */
    HP_OMP_ORDERED,           /* holding it */
    HP_OMP_ATOMIC,            /* atomic updates (seen when not lock-free) */
    HP_OMP_FLUSH,             /* flushes */
    HP_OMP_TARGET,            /* a target region (on the host: its time) */
    HP_OMP_NWHAT
};

extern const char *const hp_omp_names[HP_OMP_NWHAT];

/* The site of construct `what` at code address addr (an outlined
 * function's entry, or a return address into the user's code; entry !=
 * 0 for a function entry).  Resolved to file:line at the end of the run. */
uint32_t hp_omp_site(hp_thread *t, uintptr_t addr, int entry, int what);


/* The omp locks a thread holds, for their hold time (an event source
 * keeps one table per thread).  A hold is an open frame (what the thread
 * records while it holds the lock lies below it), from the set's return
 * to the unset that releases it; a nest lock's from its first set to its
 * last unset. */
#define HP_OMP_LOCKS 16
typedef struct hp_omp_locks {
    struct {
        void *lock;      /* NULL: a free slot */
        hprof_frame f;   /* node HP_FRAME_OFF: not recorded */
        uint32_t depth;
    } held[HP_OMP_LOCKS];
} hp_omp_locks;

/* Where a call was made: the code address its sites are keyed by (entry
 * != 0: an outlined function's entry, see hp_omp_site). */
typedef struct hp_omp_caller {
    uintptr_t addr;
    int entry;
} hp_omp_caller;

/* The lock wrappers of a source (omp_lock.c): fn is the runtime's real
 * call (never NULL), l the calling thread's table (NULL: none), t the
 * thread recording (NULL: none), source the wrapping source (nothing is
 * recorded if another one took over during the call). */
void hp_omp_lock_set(hp_omp_locks *l, hp_thread *t, int source, void (*fn)(void *), void *lock,
                     hp_omp_caller at, int nest);
int hp_omp_lock_test(hp_omp_locks *l, hp_thread *t, int source, int (*fn)(void *), void *lock,
                     hp_omp_caller at, int nest);
void hp_omp_lock_unset(hp_omp_locks *l, void (*fn)(void *), void *lock);

#endif
