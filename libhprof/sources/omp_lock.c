/*
 * omp_lock.c - the omp lock wrappers the GOMP and POMP2 sources share
 * (hp_omp.h): "lock wait" is the time in a set call (a leaf), "lock" the
 * hold from the set's (or a successful test's) return until the unset
 * that releases it (an open frame: what the thread records meanwhile lies
 * below it; closed out of order when the lock is unset elsewhere than
 * where it was set, see hp_event_exit_unordered), both at the line of the
 * set/test call.  Each source keeps
 * the table of locks a thread holds (hp_omp_locks) in its own per-thread
 * state and passes it in.
 */
#include <assert.h>
#include "hp_omp.h"
#include "hp_source.h"

/* The hold of lock begins on t (NULL: not recorded), at the set's site. */
static void lock_now_held(hp_omp_locks *l, hp_thread *t, void *lock, hp_omp_caller at, int nest)
{
    if (!l)
        return;
    int free_slot = -1;
    for (int i = 0; i < HP_OMP_LOCKS; i++) {
        if (l->held[i].lock == lock) {
            if (nest) {
                l->held[i].depth++;
                return;
            }
            free_slot = i;   /* a stale entry: a simple lock is held once */
            if (hp_tls_self)
                hp_event_exit_unordered(hp_tls_self, &l->held[i].f);
            break;
        }
        if (!l->held[i].lock && free_slot < 0)
            free_slot = i;
    }
    if (free_slot < 0)
        return;              /* too many locks held: this hold is not recorded */
    l->held[free_slot].lock = lock;
    l->held[free_slot].depth = 1;
    l->held[free_slot].f.node = HP_FRAME_OFF;
    if (t)
        hp_event_enter(t, &l->held[free_slot].f,
                       hp_omp_site(t, at.addr, at.entry, HP_OMP_LOCK), 0);
}

/* lock is released by this thread: its hold ends when this ends it. */
static void lock_no_longer_held(hp_omp_locks *l, void *lock)
{
    for (int i = 0; i < HP_OMP_LOCKS; i++)
        if (l->held[i].lock == lock) {
            if (--l->held[i].depth)
                return;
            l->held[i].lock = NULL;
            if (hp_tls_self)
                hp_event_exit_unordered(hp_tls_self, &l->held[i].f);
            return;
        }
}

void hp_omp_lock_set(hp_omp_locks *l, hp_thread *t, int source, void (*fn)(void *), void *lock,
                     hp_omp_caller at, int nest)
{
    assert(fn);
    uint64_t t0 = hp_ticks();
    fn(lock);
    uint64_t t1 = hp_ticks();
    if (!hp_omp_source_records(source))
        return;   /* another source started inside the call (libomp's OMPT) */
    if (t)
        hp_event_leaf(t, hp_omp_site(t, at.addr, at.entry, HP_OMP_LOCK_WAIT), t1 - t0);
    lock_now_held(l, t, lock, at, nest);
}

int hp_omp_lock_test(hp_omp_locks *l, hp_thread *t, int source, int (*fn)(void *), void *lock,
                     hp_omp_caller at, int nest)
{
    assert(fn);
    int r = fn(lock);
    if (r && hp_omp_source_records(source))
        lock_now_held(l, t, lock, at, nest);
    return r;
}

void hp_omp_lock_unset(hp_omp_locks *l, void (*fn)(void *), void *lock)
{
    assert(fn);
    if (l)
        lock_no_longer_held(l, lock);
    fn(lock);
}
