/*
 * pomp2_lock.c - the POMP2 source's lock wrappers: POMP2_Set_lock,
 * POMP2_Test_lock, POMP2_Unset_lock and the nest variants call the real
 * omp_*_lock functions of the OpenMP runtime (past gomp's own) and record
 * "lock wait" (time in set) and "lock" (held until the unset that
 * releases it), at the call's line (return address: opari2 gives no
 * handle).
 */
#include "hp_pomp2.h"

/* ---------------------------------------------------------------- locks */

static void lock_acquired(void *lock, uint64_t t1, hp_thread *t, uintptr_t ret, int nest)
{
    p2_tls *g = hp_p2_tls_get();
    if (g)
        hp_omp_lock_acquired(&g->locks, lock, t1,
                             t ? hp_omp_site(t, ret, 0, HP_OMP_LOCK) : HP_OMP_NO_SITE, nest);
}

static void lock_released(void *lock, uint64_t now)
{
    if (hp_p2_tls)
        hp_omp_lock_released(&hp_p2_tls->locks, hp_tls_self, lock, now);
}

static void lock_set(lock_fn fn, void *lock, uintptr_t ret, int nest)
{
    if (!fn)
        return;
    hp_thread *t = recorder();
    uint64_t t0 = hp_ticks();
    fn(lock);
    uint64_t t1 = hp_ticks();
    if (t)
        hp_event_leaf(t, hp_omp_site(t, ret, 0, HP_OMP_LOCK_WAIT), t1 - t0);
    lock_acquired(lock, t1, t, ret, nest);
}

static int lock_test(test_fn fn, void *lock, uintptr_t ret, int nest)
{
    if (!fn)
        return 1;
    hp_thread *t = recorder();
    int r = fn(lock);
    if (r)
        lock_acquired(lock, hp_ticks(), t, ret, nest);
    return r;
}

static void lock_unset(lock_fn fn, void *lock)
{
    if (!fn)
        return;
    lock_released(lock, hp_ticks());
    fn(lock);
}

API void POMP2_Init_lock(void *s)
{
    ensure_init();
    if (hp_p2_rt.init_lock)
        hp_p2_rt.init_lock(s);
}

API void POMP2_Destroy_lock(void *s)
{
    ensure_init();
    if (hp_p2_rt.destroy_lock)
        hp_p2_rt.destroy_lock(s);
}

API void POMP2_Set_lock(void *s)
{
    ensure_init();
    lock_set(hp_p2_rt.set_lock, s, RET, 0);
}

API void POMP2_Unset_lock(void *s)
{
    ensure_init();
    lock_unset(hp_p2_rt.unset_lock, s);
}

API int POMP2_Test_lock(void *s)
{
    ensure_init();
    return lock_test(hp_p2_rt.test_lock, s, RET, 0);
}

API void POMP2_Init_nest_lock(void *s)
{
    ensure_init();
    if (hp_p2_rt.init_nest_lock)
        hp_p2_rt.init_nest_lock(s);
}

API void POMP2_Destroy_nest_lock(void *s)
{
    ensure_init();
    if (hp_p2_rt.destroy_nest_lock)
        hp_p2_rt.destroy_nest_lock(s);
}

API void POMP2_Set_nest_lock(void *s)
{
    ensure_init();
    lock_set(hp_p2_rt.set_nest_lock, s, RET, 1);
}

API void POMP2_Unset_nest_lock(void *s)
{
    ensure_init();
    lock_unset(hp_p2_rt.unset_nest_lock, s);
}

API int POMP2_Test_nest_lock(void *s)
{
    ensure_init();
    return lock_test(hp_p2_rt.test_nest_lock, s, RET, 1);
}
