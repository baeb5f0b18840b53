/*
 * pomp2_lock.c - the POMP2 source's lock wrappers: POMP2_Set_lock,
 * POMP2_Test_lock, POMP2_Unset_lock and the nest variants call the real
 * omp_*_lock functions of the OpenMP runtime (past gomp's own) and record
 * "lock wait" (time in set) and "lock" (held until the unset that
 * releases it), at the call's line (return address: opari2 gives no
 * handle).  The Fortran entries (pomp2_set_lock_, ...) do the same
 * through the OpenMP runtime's Fortran entries (omp_set_lock_, ...): a
 * Fortran nest lock variable holds a pointer to the C lock, which only
 * they know.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
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

/* ------------------------------------------------------------- Fortran */
static struct {
    lock_fn init, destroy, set, unset, init_nest, destroy_nest, set_nest, unset_nest;
    test_fn test, test_nest;
} f_rt;
static pthread_once_t f_once = PTHREAD_ONCE_INIT;

#define F_RT(field, name) (*(void **)&f_rt.field = dlsym(RTLD_NEXT, name))

static void f_lookup(void)
{
    F_RT(init, "omp_init_lock_");
    F_RT(destroy, "omp_destroy_lock_");
    F_RT(set, "omp_set_lock_");
    F_RT(unset, "omp_unset_lock_");
    F_RT(test, "omp_test_lock_");
    F_RT(init_nest, "omp_init_nest_lock_");
    F_RT(destroy_nest, "omp_destroy_nest_lock_");
    F_RT(set_nest, "omp_set_nest_lock_");
    F_RT(unset_nest, "omp_unset_nest_lock_");
    F_RT(test_nest, "omp_test_nest_lock_");
}

static void f_init(void)
{
    ensure_init();
    pthread_once(&f_once, f_lookup);
}

static void f_call(lock_fn fn, void *s)
{
    if (fn)
        fn(s);
}

#define F_LOCK(f, field) \
    API void f(void *s); \
    API void f(void *s) { f_init(); f_call(f_rt.field, s); }

F_LOCK(pomp2_init_lock_, init)
F_LOCK(pomp2_destroy_lock_, destroy)
F_LOCK(pomp2_init_nest_lock_, init_nest)
F_LOCK(pomp2_destroy_nest_lock_, destroy_nest)

API void pomp2_set_lock_(void *s);
API void pomp2_set_lock_(void *s)
{
    f_init();
    lock_set(f_rt.set, s, RET, 0);
}

API void pomp2_unset_lock_(void *s);
API void pomp2_unset_lock_(void *s)
{
    f_init();
    lock_unset(f_rt.unset, s);
}

API int pomp2_test_lock_(void *s);
API int pomp2_test_lock_(void *s)
{
    f_init();
    return lock_test(f_rt.test, s, RET, 0);
}

API void pomp2_set_nest_lock_(void *s);
API void pomp2_set_nest_lock_(void *s)
{
    f_init();
    lock_set(f_rt.set_nest, s, RET, 1);
}

API void pomp2_unset_nest_lock_(void *s);
API void pomp2_unset_nest_lock_(void *s)
{
    f_init();
    lock_unset(f_rt.unset_nest, s);
}

API int pomp2_test_nest_lock_(void *s);
API int pomp2_test_nest_lock_(void *s)
{
    f_init();
    return lock_test(f_rt.test_nest, s, RET, 1);
}
