/*
 * pomp2_lock.c - the POMP2 source's lock wrappers: POMP2_Set_lock,
 * POMP2_Test_lock, POMP2_Unset_lock and the nest variants call the real
 * omp_*_lock functions of the OpenMP runtime (past gomp's own) and record
 * "lock wait" (time in set) and "lock" (held until the unset that
 * releases it), at the call's line (return address: opari2 gives no
 * handle).
 */
#include "hp_pomp2.h"
#include "hp_source.h"

/* The call's sites are at the return address (opari2 gives no handle). */
static hp_omp_caller caller(uintptr_t ret)
{
    return (hp_omp_caller){ret, 0};
}

static void lock_set(lock_fn fn, void *lock, uintptr_t ret, int nest)
{
    if (!fn)
        return;
    p2_tls *g = hp_p2_tls_get();
    hp_omp_lock_set(g ? &g->locks : NULL, recorder(), HP_OMP_SOURCE_POMP2, fn, lock, caller(ret),
                    nest);
}

static int lock_test(test_fn fn, void *lock, uintptr_t ret, int nest)
{
    if (!fn)
        return 1;
    p2_tls *g = hp_p2_tls_get();
    return hp_omp_lock_test(g ? &g->locks : NULL, recorder(), HP_OMP_SOURCE_POMP2, fn, lock,
                            caller(ret), nest);
}

static void lock_unset(lock_fn fn, void *lock)
{
    if (fn)
        hp_omp_lock_unset(hp_p2_tls ? &hp_p2_tls->locks : NULL, fn, lock);
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
