/*
 * gomp_real.c - tier 0 OpenMP for gcc's libgomp: libhprof defines the GOMP_*
 * entry points that gcc's -fopenmp code calls, and the omp_*_lock API.
 * `mpicc -fopenmp app.c -lhprof` puts libhprof before libgomp, so these
 * definitions win (as they do under LD_PRELOAD); each one calls the real
 * function, found once with dlsym(RTLD_NEXT), and records through the
 * OpenMP funnel (hp_omp.h) only.  libgomp never calls OMPT, so this is the
 * only event source for gcc's runtime.  When the OMPT tool is active (gcc
 * objects running on libomp, whose GOMP_* entry points feed OMPT) every
 * wrapper passes straight through, so events are counted once.
 *
 * What is recorded (sites resolve to file:line at the end of the run):
 * gomp_parallel.c (regions, barriers, taskwaits), gomp_task.c (tasks,
 * taskloops), gomp_sync.c (single, critical, ordered, atomic, locks).
 * Not visible this way: static loop schedules (gcc computes the chunks
 * inline; only the end barrier shows), the per-thread time in worksharing
 * loops, master/masked (inlined thread-number tests), lock-free atomics
 * and flush (hardware instructions: a locked add, a fence; no call to
 * libgomp), and objects from gcc < 4.9 (GOMP_parallel_start/end), which
 * pass through.
 *
 * Wrappers never change results, change no arguments but GOMP_task's
 * function and block (gomp_task.c), never take a lock, and pass straight through
 * when collection is off, when the calling thread has no records, when
 * OMPT is active, or when the real function is missing.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <pthread.h>
#include "hp_gomp.h"
#include "hp_gomp_join.h"

hp_gomp_calls hp_gomp;
int hp_gomp_resolved;
static pthread_once_t real_once = PTHREAD_ONCE_INIT;

/* The outlined function of a region runs through hp_gomp_run_outlined, so a call
 * that it makes as a tail call (gcc ends an outlined function with `jmp
 * GOMP_barrier` when a construct's barrier is its last action) returns
 * into hp_gomp_run_outlined, at hp_gomp_tramp_ret, found once at start-up.
 * Such a call is
 * keyed by the entry of the outlined function that the thread is running
 * (hp_gomp_cur_fn), i.e. the region's line, instead of hprof's own code. */
uintptr_t hp_gomp_tramp_ret;
__thread void (*hp_gomp_cur_fn)(void *) __attribute__((tls_model("initial-exec")));

#if defined(__has_attribute)
#if __has_attribute(noipa)
#define HP_NOIPA __attribute__((noinline, noipa))
#endif
#endif
#ifndef HP_NOIPA
#define HP_NOIPA __attribute__((noinline))
#endif

HP_NOIPA void hp_gomp_run_outlined(void (*fn)(void *), void *data)
{
    void (*volatile f)(void *) = fn;
    f(data);
    __asm__ volatile("" ::: "memory");   /* no tail call: one return address */
}

static HP_NOIPA void ret_probe(void *slot)
{
    *(uintptr_t *)slot = (uintptr_t)__builtin_return_address(0);
}

/* The real entry point.  A program that uses OpenMP only through pragmas
 * needs from libgomp only GOMP_* symbols that libhprof defines, so a
 * linker with --as-needed (Debian's default) drops libgomp when -lhprof
 * comes first: the program would then run its regions on one thread.
 * So when the symbol is nowhere next in line, libgomp is loaded here. */
static void *lookup(const char *name)
{
    static void *gomp;
    void *f = dlsym(RTLD_NEXT, name);
    if (f)
        return f;
    if (!gomp)
        gomp = dlopen("libgomp.so.1", RTLD_NOW | RTLD_GLOBAL);
    return gomp ? dlsym(gomp, name) : NULL;
}

#define LOOKUP(field, name) (*(void **)&hp_gomp.field = lookup(name))

void *hp_gomp_lookup(const char *name)
{
    return lookup(name);
}

static void resolve_real(void)
{
    LOOKUP(parallel, "GOMP_parallel");
    LOOKUP(loop_static, "GOMP_parallel_loop_static");
    LOOKUP(loop_dynamic, "GOMP_parallel_loop_dynamic");
    LOOKUP(loop_guided, "GOMP_parallel_loop_guided");
    LOOKUP(loop_nm_dynamic, "GOMP_parallel_loop_nonmonotonic_dynamic");
    LOOKUP(loop_nm_guided, "GOMP_parallel_loop_nonmonotonic_guided");
    LOOKUP(loop_runtime, "GOMP_parallel_loop_runtime");
    LOOKUP(loop_nm_runtime, "GOMP_parallel_loop_nonmonotonic_runtime");
    LOOKUP(loop_mnm_runtime, "GOMP_parallel_loop_maybe_nonmonotonic_runtime");
    LOOKUP(sections, "GOMP_parallel_sections");
    LOOKUP(parallel_reductions, "GOMP_parallel_reductions");
    LOOKUP(barrier, "GOMP_barrier");
    LOOKUP(barrier_cancel, "GOMP_barrier_cancel");
    LOOKUP(critical_start, "GOMP_critical_start");
    LOOKUP(critical_end, "GOMP_critical_end");
    LOOKUP(critical_name_start, "GOMP_critical_name_start");
    LOOKUP(critical_name_end, "GOMP_critical_name_end");
    LOOKUP(ordered_start, "GOMP_ordered_start");
    LOOKUP(ordered_end, "GOMP_ordered_end");
    LOOKUP(atomic_start, "GOMP_atomic_start");
    LOOKUP(atomic_end, "GOMP_atomic_end");
    LOOKUP(loop_end, "GOMP_loop_end");
    LOOKUP(loop_end_cancel, "GOMP_loop_end_cancel");
    LOOKUP(sections_end, "GOMP_sections_end");
    LOOKUP(sections_end_cancel, "GOMP_sections_end_cancel");
    LOOKUP(single_start, "GOMP_single_start");
    LOOKUP(single_copy_start, "GOMP_single_copy_start");
    LOOKUP(task, "GOMP_task");
    LOOKUP(taskloop, "GOMP_taskloop");
    LOOKUP(taskloop_ull, "GOMP_taskloop_ull");
    LOOKUP(taskwait, "GOMP_taskwait");
    LOOKUP(taskwait_depend, "GOMP_taskwait_depend");
    LOOKUP(taskgroup_end, "GOMP_taskgroup_end");
    LOOKUP(set_lock, "omp_set_lock");
    LOOKUP(unset_lock, "omp_unset_lock");
    LOOKUP(test_lock, "omp_test_lock");
    LOOKUP(set_nest_lock, "omp_set_nest_lock");
    LOOKUP(unset_nest_lock, "omp_unset_nest_lock");
    LOOKUP(test_nest_lock, "omp_test_nest_lock");
    LOOKUP(f_set_lock, "omp_set_lock_");
    LOOKUP(f_unset_lock, "omp_unset_lock_");
    LOOKUP(f_test_lock, "omp_test_lock_");
    LOOKUP(f_set_nest_lock, "omp_set_nest_lock_");
    LOOKUP(f_unset_nest_lock, "omp_unset_nest_lock_");
    LOOKUP(f_test_nest_lock, "omp_test_nest_lock_");
    LOOKUP(get_cancellation, "omp_get_cancellation");
    hp_gomp_run_outlined(ret_probe, &hp_gomp_tramp_ret);
    __atomic_store_n(&hp_gomp_resolved, 1, __ATOMIC_RELEASE);
}

void hp_gomp_resolve_real(void)
{
    pthread_once(&real_once, resolve_real);
}

/* Where the call returning to ret was made; the site of construct `what`
 * called from there. */
hp_omp_caller hp_gomp_caller(uintptr_t ret)
{
    if (__builtin_expect(ret == hp_gomp_tramp_ret, 0) && hp_gomp_cur_fn)
        return (hp_omp_caller){(uintptr_t)hp_gomp_cur_fn, 1};
    return (hp_omp_caller){ret, 0};
}

uint32_t hp_gomp_call_site(hp_thread *t, uintptr_t ret, int what)
{
    hp_omp_caller at = hp_gomp_caller(ret);
    /* A construct's end reached by a tail call (`jmp GOMP_loop_end`) is
     * keyed by the outlined function like the region's own implicit
     * barrier: it is a "barrier" site, the construct it ends found when
     * it is resolved (resolve.c). */
    if (at.entry && what == HP_OMP_IMPLICIT_BARRIER)
        what = HP_OMP_BARRIER;
    return hp_omp_site(t, at.addr, at.entry, what);
}

const hp_source hp_source_gomp = {"GOMP interposition", HP_OMP_SOURCE_GOMP, NULL,
                                  hp_gomp_part_thread_end, hp_gomp_parts_close};
