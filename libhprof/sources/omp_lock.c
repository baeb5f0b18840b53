/*
 * omp_lock.c - the omp lock wrappers the GOMP and POMP2 sources share
 * (hp_omp.h): "lock wait" is the time in a set call, "lock" the hold from
 * the set's (or a successful test's) return until the unset that
 * releases it, both at the line of the set/test call.  Each source keeps
 * the table of locks a thread holds (hp_omp_locks) in its own per-thread
 * state and passes it in.
 */
#include <assert.h>
#include "hp_omp.h"
#include "hp_source.h"

void hp_omp_lock_acquired(hp_omp_locks *l, void *lock, uint64_t t1, uint32_t site, int nest)
{
    int free_slot = -1;
    for (int i = 0; i < HP_OMP_LOCKS; i++) {
        if (l->held[i].lock == lock) {
            if (nest) {
                l->held[i].depth++;
                return;
            }
            free_slot = i;   /* a stale entry: a simple lock is held once */
            break;
        }
        if (!l->held[i].lock && free_slot < 0)
            free_slot = i;
    }
    if (free_slot < 0)
        return;              /* too many locks held: this hold is not recorded */
    l->held[free_slot].lock = lock;
    l->held[free_slot].start = t1;
    l->held[free_slot].depth = 1;
    l->held[free_slot].site = site;
}

void hp_omp_lock_released(hp_omp_locks *l, hp_thread *t, void *lock, uint64_t now)
{
    for (int i = 0; i < HP_OMP_LOCKS; i++)
        if (l->held[i].lock == lock) {
            if (--l->held[i].depth)
                return;
            l->held[i].lock = NULL;
            if (l->held[i].site != HP_OMP_NO_SITE && t && hp_collecting)
                hp_event_leaf(t, l->held[i].site, now - l->held[i].start);
            return;
        }
}

static void lock_now_held(hp_omp_locks *l, hp_thread *t, void *lock, uint64_t t1,
                          hp_omp_caller at, int nest)
{
    if (l)
        hp_omp_lock_acquired(l, lock, t1,
                             t ? hp_omp_site(t, at.addr, at.entry, HP_OMP_LOCK) : HP_OMP_NO_SITE,
                             nest);
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
    lock_now_held(l, t, lock, t1, at, nest);
}

int hp_omp_lock_test(hp_omp_locks *l, hp_thread *t, int source, int (*fn)(void *), void *lock,
                     hp_omp_caller at, int nest)
{
    assert(fn);
    int r = fn(lock);
    if (r && hp_omp_source_records(source))
        lock_now_held(l, t, lock, hp_ticks(), at, nest);
    return r;
}

void hp_omp_lock_unset(hp_omp_locks *l, void (*fn)(void *), void *lock)
{
    assert(fn);
    if (l)
        hp_omp_lock_released(l, hp_tls_self, lock, hp_ticks());
    fn(lock);
}
