/*
 * gomp_target.c - gcc's target regions at tier 0 (GOMP source, hp_gomp.h).
 * gcc compiles `#pragma omp target` into a call of GOMP_target_ext, which
 * runs the region's outlined function on a device or, without one, on
 * the calling thread (host fallback).  One "target" per call, at the
 * line of the call (the target construct), an open frame from the call
 * to its return, so what the region records (a parallel region inside
 * it, its barriers) lies below it.  Defining the entry point also keeps
 * libhprof linked into a program whose only OpenMP is target regions: a
 * linker with --as-needed drops a library that defines none of the
 * program's symbols, and such a program would run without a profile.
 */
#include <stddef.h>
#include "hp_gomp.h"

API void GOMP_target_ext(int device, void (*fn)(void *), size_t mapnum, void **hostaddrs,
                         size_t *sizes, unsigned short *kinds, unsigned int flags,
                         void **depend, void **args)
{
    resolve();
    if (!hp_gomp.target)   /* the first call: same value from every thread */
        __atomic_store_n((void **)&hp_gomp.target, hp_gomp_lookup("GOMP_target_ext"),
                         __ATOMIC_RELEASE);
    if (!hp_gomp.target)
        return;
    hp_thread *t = recorder();
    if (!t) {
        hp_gomp.target(device, fn, mapnum, hostaddrs, sizes, kinds, flags, depend, args);
        return;
    }
    hprof_frame f;
    hp_event_enter(t, &f, hp_gomp_call_site(t, RET, HP_OMP_TARGET), 0);
    hp_gomp.target(device, fn, mapnum, hostaddrs, sizes, kinds, flags, depend, args);
    hp_event_exit(t, &f);
}
