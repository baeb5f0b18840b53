/*
 * gomp_sync.c - the GOMP source's synchronisation constructs and locks:
 *  - GOMP_critical_start/end and GOMP_critical_name_start/end: "critical
 *    wait" (time in start, a leaf) and "critical" (start's return until
 *    end, an open frame: what the block records lies below it), both at
 *    the line of the critical construct.
 *  - GOMP_ordered_start/end: "ordered wait" (time in start: the iteration
 *    waits for its turn) and "ordered" (start's return until end, an open
 *    frame like a critical's hold), both at the line of the ordered
 *    construct.
 *  - GOMP_atomic_start/end, which gcc calls around an atomic update that
 *    has no lock-free instruction sequence (a long double, a 16-byte type
 *    without -mcx16): one "atomic" per update, its time from the start's
 *    entry to the end, at the atomic's line.
 *  - omp_set_lock / omp_test_lock / omp_unset_lock and the nest-lock
 *    calls: "lock wait" (time in set) and "lock" (held from the set's or
 *    successful test's return until the unset that releases it), both at
 *    the line of the set/test call (omp_lock.c; the hold is an open frame);
 *    Fortran's calls too (omp_set_lock_, ...: libgomp's Fortran entries
 *    reach its C ones without passing through ours).
 *  - GOMP_single_start / GOMP_single_copy_start: one "single" execution on
 *    the thread that runs the block (its time is the time of the call:
 *    libgomp is not told where the block ends, so no frame).
 */
#include <stdlib.h>
#include "hp_gomp.h"

/* ------------------------------------------------------ per-thread state */

#define CRIT_MAX 8    /* open critical sections recorded per thread */

typedef struct gomp_tls {
    uint32_t ncrit;   /* open critical sections, recorded or not */
    hprof_frame crit[CRIT_MAX];  /* their holds (node HP_FRAME_OFF: not recorded) */
    uint64_t atomic_start;  /* the open GOMP_atomic_start's entry */
    uint32_t atomic_site;   /* its site (atomic_start != 0: recorded) */
    hp_omp_locks locks;
} gomp_tls;

static __thread gomp_tls *gtls __attribute__((tls_model("initial-exec")));

static gomp_tls *tls_get(void)
{
    gomp_tls *g = gtls;
    if (__builtin_expect(!g, 0))
        g = gtls = calloc(1, sizeof *g);
    return g;
}

/* ---------------------------------------------------------------- single */

API bool GOMP_single_start(void)
{
    resolve();
    if (!hp_gomp.single_start)
        return true;
    hp_thread *t = recorder();
    if (!t)
        return hp_gomp.single_start();
    uint64_t t0 = hp_ticks();
    bool r = hp_gomp.single_start();
    if (r && !ompt_on())
        hp_event_leaf(t, hp_gomp_call_site(t, RET, HP_OMP_SINGLE), hp_ticks() - t0);
    return r;
}

/* The executing thread gets NULL; the others wait inside for its data. */
API void *GOMP_single_copy_start(void)
{
    resolve();
    if (!hp_gomp.single_copy_start)
        return NULL;
    hp_thread *t = recorder();
    if (!t)
        return hp_gomp.single_copy_start();
    uint64_t t0 = hp_ticks();
    void *r = hp_gomp.single_copy_start();
    if (!r && !ompt_on())
        hp_event_leaf(t, hp_gomp_call_site(t, RET, HP_OMP_SINGLE), hp_ticks() - t0);
    return r;
}

/* ------------------------------------------------------------- criticals */

/* After the real start of a critical section or an ordered block
 * returned: the wait, and the hold opened as a frame, so what the block
 * records lies below it (always pushed, recorded or not, so that ends
 * always pop their own; the two nest properly). */
static void crit_acquired(uintptr_t ret, uint64_t t0, int recorded, int wait, int hold)
{
    uint64_t t1 = hp_ticks();
    gomp_tls *g = tls_get();
    hp_thread *t = recorded && !ompt_on() ? hp_tls_self : NULL;
    if (t)
        hp_event_leaf(t, hp_gomp_call_site(t, ret, wait), t1 - t0);
    if (!g)
        return;
    if (g->ncrit < CRIT_MAX) {
        hprof_frame *f = &g->crit[g->ncrit];
        f->node = HP_FRAME_OFF;
        if (t)
            hp_event_enter(t, f, hp_gomp_call_site(t, ret, hold), 0);
    }
    g->ncrit++;
}

/* Before the real end: the hold's frame closed. */
static void crit_released(void)
{
    gomp_tls *g = gtls;
    if (!g || !g->ncrit)
        return;
    uint32_t i = --g->ncrit;
    hp_thread *t = hp_tls_self;
    if (i < CRIT_MAX && t)
        hp_event_exit(t, &g->crit[i]);
}

API void GOMP_critical_start(void)
{
    resolve();
    if (!hp_gomp.critical_start)
        return;
    if (ompt_on()) {
        hp_gomp.critical_start();
        return;
    }
    int rec = recorder() != NULL;
    uint64_t t0 = hp_ticks();
    hp_gomp.critical_start();
    crit_acquired(RET, t0, rec, HP_OMP_CRITICAL_WAIT, HP_OMP_CRITICAL);
}

API void GOMP_critical_end(void)
{
    resolve();
    if (!hp_gomp.critical_end)
        return;
    if (!ompt_on())
        crit_released();
    hp_gomp.critical_end();
}

API void GOMP_critical_name_start(void **pptr)
{
    resolve();
    if (!hp_gomp.critical_name_start)
        return;
    if (ompt_on()) {
        hp_gomp.critical_name_start(pptr);
        return;
    }
    int rec = recorder() != NULL;
    uint64_t t0 = hp_ticks();
    hp_gomp.critical_name_start(pptr);
    crit_acquired(RET, t0, rec, HP_OMP_CRITICAL_WAIT, HP_OMP_CRITICAL);
}

API void GOMP_critical_name_end(void **pptr)
{
    resolve();
    if (!hp_gomp.critical_name_end)
        return;
    if (!ompt_on())
        crit_released();
    hp_gomp.critical_name_end(pptr);
}

/* ---------------------------------------------------- ordered, atomic */

/* An ordered block: "ordered wait" is the time in GOMP_ordered_start (the
 * iteration waits for its turn), "ordered" the hold until GOMP_ordered_end. */
API void GOMP_ordered_start(void)
{
    resolve();
    if (!hp_gomp.ordered_start)
        return;
    if (ompt_on()) {
        hp_gomp.ordered_start();
        return;
    }
    int rec = recorder() != NULL;
    uint64_t t0 = hp_ticks();
    hp_gomp.ordered_start();
    crit_acquired(RET, t0, rec, HP_OMP_ORDERED_WAIT, HP_OMP_ORDERED);
}

API void GOMP_ordered_end(void)
{
    resolve();
    if (!hp_gomp.ordered_end)
        return;
    if (!ompt_on())
        crit_released();
    hp_gomp.ordered_end();
}

/* gcc calls these around an atomic update that is not lock-free (e.g. a
 * long double): one "atomic" per update, its time from the start's entry
 * (the wait for libgomp's global atomic mutex included) to the end.  An
 * atomic region contains no other construct, so one slot per thread. */
API void GOMP_atomic_start(void)
{
    resolve();
    if (!hp_gomp.atomic_start)
        return;
    hp_thread *t = recorder();
    gomp_tls *g = t ? tls_get() : NULL;
    if (g) {
        g->atomic_site = hp_gomp_call_site(t, RET, HP_OMP_ATOMIC);
        g->atomic_start = hp_ticks();
    }
    hp_gomp.atomic_start();
}

API void GOMP_atomic_end(void)
{
    resolve();
    if (!hp_gomp.atomic_end)
        return;
    gomp_tls *g = gtls;
    hp_thread *t = hp_tls_self;
    if (g && g->atomic_start) {
        if (t && hp_collecting && !ompt_on())
            hp_event_leaf(t, g->atomic_site, hp_ticks() - g->atomic_start);
        g->atomic_start = 0;
    }
    hp_gomp.atomic_end();
}

/* ------------------------------------------------------------------ locks */

/* The thread's lock table, NULL without memory. */
static hp_omp_locks *locks_get(void)
{
    gomp_tls *g = tls_get();
    return g ? &g->locks : NULL;
}

static void lock_set(lock_fn fn, void *lock, uintptr_t ret, int nest)
{
    if (!fn)
        return;
    if (ompt_on()) {
        fn(lock);
        return;
    }
    hp_thread *t = recorder();
    hp_omp_lock_set(locks_get(), t, HP_OMP_SOURCE_GOMP, fn, lock, hp_gomp_caller(ret), nest);
}

static int lock_test(test_fn fn, void *lock, uintptr_t ret, int nest)
{
    if (!fn)
        return 1;
    if (ompt_on())
        return fn(lock);
    hp_thread *t = recorder();
    return hp_omp_lock_test(locks_get(), t, HP_OMP_SOURCE_GOMP, fn, lock, hp_gomp_caller(ret),
                            nest);
}

static void lock_unset(lock_fn fn, void *lock)
{
    if (!fn)
        return;
    if (ompt_on()) {
        fn(lock);
        return;
    }
    hp_omp_lock_unset(gtls ? &gtls->locks : NULL, fn, lock);
}

API void omp_set_lock(void *lock)
{
    resolve();
    lock_set(hp_gomp.set_lock, lock, RET, 0);
}

API void omp_set_nest_lock(void *lock)
{
    resolve();
    lock_set(hp_gomp.set_nest_lock, lock, RET, 1);
}

API int omp_test_lock(void *lock)
{
    resolve();
    return lock_test(hp_gomp.test_lock, lock, RET, 0);
}

API int omp_test_nest_lock(void *lock)
{
    resolve();
    return lock_test(hp_gomp.test_nest_lock, lock, RET, 1);
}

API void omp_unset_lock(void *lock)
{
    resolve();
    lock_unset(hp_gomp.unset_lock, lock);
}

API void omp_unset_nest_lock(void *lock)
{
    resolve();
    lock_unset(hp_gomp.unset_nest_lock, lock);
}

/* Fortran: the lock variable by reference, the runtime's Fortran entry. */
API void omp_set_lock_(void *lock);
API void omp_set_lock_(void *lock)
{
    resolve();
    lock_set(hp_gomp.f_set_lock, lock, RET, 0);
}

API void omp_set_nest_lock_(void *lock);
API void omp_set_nest_lock_(void *lock)
{
    resolve();
    lock_set(hp_gomp.f_set_nest_lock, lock, RET, 1);
}

API int omp_test_lock_(void *lock);
API int omp_test_lock_(void *lock)
{
    resolve();
    return lock_test(hp_gomp.f_test_lock, lock, RET, 0);
}

API int omp_test_nest_lock_(void *lock);
API int omp_test_nest_lock_(void *lock)
{
    resolve();
    return lock_test(hp_gomp.f_test_nest_lock, lock, RET, 1);
}

API void omp_unset_lock_(void *lock);
API void omp_unset_lock_(void *lock)
{
    resolve();
    lock_unset(hp_gomp.f_unset_lock, lock);
}

API void omp_unset_nest_lock_(void *lock);
API void omp_unset_nest_lock_(void *lock)
{
    resolve();
    lock_unset(hp_gomp.f_unset_nest_lock, lock);
}
