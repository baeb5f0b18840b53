/*
 * tgt_target.c - clang's target regions at tier 0, when the program is
 * built for offloading (-fopenmp-targets=...): clang compiles `#pragma omp
 * target` into a call of libomptarget's __tgt_target_*mapper, which runs
 * the region on a device (the x86_64 plugin: on the host) or returns
 * non-zero, and the program then runs the region's host version itself.
 * One "target" per call, at the line of the call (the target construct),
 * an open frame from the call to its return: what the region records
 * while it runs inside the call lies below it.  A host fallback that the
 * program runs after a failed call is not inside it: its records lie
 * beside the target record.  LLVM 14's entry points; no OpenMP source
 * records target regions otherwise (libomp's OMPT has no target events
 * there), so these record whichever source records the rest.
 * Without -fopenmp-targets clang calls the region's host version
 * directly, no runtime call: nothing to see at tier 0.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdint.h>
#include "hp_omp.h"

#define API __attribute__((visibility("default")))
#define RET ((uintptr_t)__builtin_return_address(0))

typedef int (*mapper_fn)(void *, int64_t, void *, int32_t, void **, void **, int64_t *,
                         int64_t *, void *, void **);
typedef int (*nowait_fn)(void *, int64_t, void *, int32_t, void **, void **, int64_t *,
                         int64_t *, void *, void **, int32_t, void *, int32_t, void *);
typedef int (*teams_fn)(void *, int64_t, void *, int32_t, void **, void **, int64_t *,
                        int64_t *, void *, void **, int32_t, int32_t);
typedef int (*teams_nowait_fn)(void *, int64_t, void *, int32_t, void **, void **, int64_t *,
                               int64_t *, void *, void **, int32_t, int32_t, int32_t, void *,
                               int32_t, void *);

#define OFFLOAD_FAIL (~0)   /* libomptarget's: the program runs the host version */

/* The real entry point (NULL: missing), looked up on first use. */
static void *real(void **cache, const char *name)
{
    void *f = __atomic_load_n(cache, __ATOMIC_ACQUIRE);
    if (!f) {
        f = dlsym(RTLD_NEXT, name);
        __atomic_store_n(cache, f, __ATOMIC_RELEASE);
    }
    return f;
}

/* Opens the target region's frame at the construct called from ret;
 * the thread that records, or NULL. */
static hp_thread *target_begin(uintptr_t ret, hprof_frame *f)
{
    hp_thread *t = hp_collecting ? hp_thread_self() : NULL;
    if (t)
        hp_event_enter(t, f, hp_omp_site(t, ret, 0, HP_OMP_TARGET), 0);
    return t;
}

static void target_end(hp_thread *t, hprof_frame *f)
{
    if (t)
        hp_event_exit(t, f);
}

API int __tgt_target_mapper(void *loc, int64_t dev, void *host, int32_t n, void **base,
                            void **args, int64_t *sizes, int64_t *types, void *names,
                            void **mappers)
{
    static void *cache;
    mapper_fn fn = (mapper_fn)real(&cache, "__tgt_target_mapper");
    if (!fn)
        return OFFLOAD_FAIL;
    hprof_frame f;
    hp_thread *t = target_begin(RET, &f);
    int rc = fn(loc, dev, host, n, base, args, sizes, types, names, mappers);
    target_end(t, &f);
    return rc;
}

API int __tgt_target_nowait_mapper(void *loc, int64_t dev, void *host, int32_t n, void **base,
                                   void **args, int64_t *sizes, int64_t *types, void *names,
                                   void **mappers, int32_t ndeps, void *deps,
                                   int32_t nnoalias, void *noalias)
{
    static void *cache;
    nowait_fn fn = (nowait_fn)real(&cache, "__tgt_target_nowait_mapper");
    if (!fn)
        return OFFLOAD_FAIL;
    hprof_frame f;
    hp_thread *t = target_begin(RET, &f);
    int rc = fn(loc, dev, host, n, base, args, sizes, types, names, mappers, ndeps, deps,
                nnoalias, noalias);
    target_end(t, &f);
    return rc;
}

API int __tgt_target_teams_mapper(void *loc, int64_t dev, void *host, int32_t n, void **base,
                                  void **args, int64_t *sizes, int64_t *types, void *names,
                                  void **mappers, int32_t teams, int32_t limit)
{
    static void *cache;
    teams_fn fn = (teams_fn)real(&cache, "__tgt_target_teams_mapper");
    if (!fn)
        return OFFLOAD_FAIL;
    hprof_frame f;
    hp_thread *t = target_begin(RET, &f);
    int rc = fn(loc, dev, host, n, base, args, sizes, types, names, mappers, teams, limit);
    target_end(t, &f);
    return rc;
}

API int __tgt_target_teams_nowait_mapper(void *loc, int64_t dev, void *host, int32_t n,
                                         void **base, void **args, int64_t *sizes,
                                         int64_t *types, void *names, void **mappers,
                                         int32_t teams, int32_t limit, int32_t ndeps,
                                         void *deps, int32_t nnoalias, void *noalias)
{
    static void *cache;
    teams_nowait_fn fn = (teams_nowait_fn)real(&cache, "__tgt_target_teams_nowait_mapper");
    if (!fn)
        return OFFLOAD_FAIL;
    hprof_frame f;
    hp_thread *t = target_begin(RET, &f);
    int rc = fn(loc, dev, host, n, base, args, sizes, types, names, mappers, teams, limit,
                ndeps, deps, nnoalias, noalias);
    target_end(t, &f);
    return rc;
}
