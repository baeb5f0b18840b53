/*
 * hp_gomp.h - what the files of the GOMP source share: the real libgomp
 * entry points (gomp_real.c), found once, and the helpers every wrapper
 * uses (gomp_parallel.c: regions and waits; gomp_task.c: tasks and
 * taskloops; gomp_sync.c: single, critical, ordered, atomic, locks).
 * The source records through the event boundary (hp_event.h) only.
 */
#ifndef HP_GOMP_H
#define HP_GOMP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "hp_omp.h"
#include "hp_source.h"

#define API __attribute__((visibility("default")))
#define RET ((uintptr_t)__builtin_return_address(0))

/* Another OpenMP source records the program's constructs (OMPT when the
 * program runs on libomp, POMP2 for opari2-instrumented code): the
 * wrappers then only pass through.  The core decides (hp_source.h). */
static inline int ompt_on(void)
{
    return !hp_omp_source_records(HP_OMP_SOURCE_GOMP);
}

/* ------------------------------------------------------------ real calls */

typedef void (*par_fn)(void (*)(void *), void *, unsigned, unsigned);
typedef void (*par_loop_fn)(void (*)(void *), void *, unsigned, long, long, long,
                            long, unsigned);
typedef void (*par_loop_rt_fn)(void (*)(void *), void *, unsigned, long, long, long,
                               unsigned);
typedef void (*par_sections_fn)(void (*)(void *), void *, unsigned, unsigned, unsigned);
typedef unsigned (*par_red_fn)(void (*)(void *), void *, unsigned, unsigned);
typedef void (*void_fn)(void);
typedef bool (*bool_fn)(void);
typedef void (*name_fn)(void **);
typedef void *(*ptr_fn)(void);
typedef void (*lock_fn)(void *);
typedef int (*test_fn)(void *);
typedef int (*int_fn)(void);
typedef void (*target_fn)(int, void (*)(void *), size_t, void **, size_t *, unsigned short *,
                          unsigned int, void **, void **);
typedef void (*task_fn)(void (*)(void *), void *, void (*)(void *, void *), long, long,
                        bool, unsigned, void **, int, void *);
typedef void (*taskloop_fn)(void (*)(void *), void *, void (*)(void *, void *), long, long,
                            unsigned, unsigned long, int, long, long, long);
typedef void (*taskloop_ull_fn)(void (*)(void *), void *, void (*)(void *, void *), long,
                                long, unsigned, unsigned long, int, unsigned long long,
                                unsigned long long, unsigned long long);

typedef struct hp_gomp_calls {
    par_fn parallel;
    par_loop_fn loop_static, loop_dynamic, loop_guided, loop_nm_dynamic, loop_nm_guided;
    par_loop_rt_fn loop_runtime, loop_nm_runtime, loop_mnm_runtime;
    par_sections_fn sections;
    par_red_fn parallel_reductions;
    void_fn barrier, critical_start, critical_end, taskwait, taskgroup_end;
    void_fn loop_end, sections_end;
    void_fn ordered_start, ordered_end, atomic_start, atomic_end;
    bool_fn barrier_cancel, loop_end_cancel, sections_end_cancel, single_start;
    name_fn critical_name_start, critical_name_end, taskwait_depend;
    ptr_fn single_copy_start;
    task_fn task;
    target_fn target;
    taskloop_fn taskloop;
    taskloop_ull_fn taskloop_ull;
    lock_fn set_lock, unset_lock, set_nest_lock, unset_nest_lock;
    test_fn test_lock, test_nest_lock;
    /* the Fortran entries (omp_set_lock_, ...): a Fortran nest lock
     * variable holds a pointer to the C lock, which only they know */
    lock_fn f_set_lock, f_unset_lock, f_set_nest_lock, f_unset_nest_lock;
    test_fn f_test_lock, f_test_nest_lock;
    int_fn get_cancellation;
} hp_gomp_calls;

/* The real entry points (NULL: missing), valid once resolve() returned. */
extern hp_gomp_calls hp_gomp;
extern int hp_gomp_resolved;
void hp_gomp_resolve_real(void);
/* The real entry point `name`, loading libgomp if nothing next in line
 * defines it.  For an entry point libomp lacks (GOMP_target_ext), looked
 * up at its first call only: at resolve time it would load libgomp into
 * every clang program (0.45 ms at its first OpenMP call, and a second
 * OpenMP runtime in the process). */
void *hp_gomp_lookup(const char *name);

static inline void resolve(void)
{
    if (__builtin_expect(!__atomic_load_n(&hp_gomp_resolved, __ATOMIC_ACQUIRE), 0))
        hp_gomp_resolve_real();
}

/* The outlined function of a region or task runs through
 * hp_gomp_run_outlined (see gomp_real.c): a tail call it makes returns to
 * hp_gomp_tramp_ret, and is keyed by hp_gomp_cur_fn, the outlined function
 * the thread runs. */
extern uintptr_t hp_gomp_tramp_ret;
extern __thread void (*hp_gomp_cur_fn)(void *) __attribute__((tls_model("initial-exec")));
void hp_gomp_run_outlined(void (*fn)(void *), void *data);

/* Where the call returning to ret was made (a tail call of the outlined
 * function: its entry); the site of construct `what` called from there. */
hp_omp_caller hp_gomp_caller(uintptr_t ret);
uint32_t hp_gomp_call_site(hp_thread *t, uintptr_t ret, int what);

/* The thread to record into, or NULL to pass through. */
static inline hp_thread *recorder(void)
{
    if (ompt_on() || !hp_collecting)
        return NULL;
    return hp_thread_self();
}

/* --------------------------------------------------- waits at one call */

/* Time in a blocking call, recorded as `what` at the call's line. */
#define TIMED_VOID(call, field, ret, what)                                       \
    do {                                                                         \
        resolve();                                                               \
        hp_thread *t_ = recorder();                                              \
        if (!t_ || !hp_gomp.field) {                                             \
            if (hp_gomp.field)                                                   \
                call;                                                            \
            return;                                                              \
        }                                                                        \
        uint64_t m_ = hp_event_wait_mark(t_), t0_ = hp_ticks();                  \
        call;                                                                    \
        uint64_t t1_ = hp_ticks();                                               \
        if (!ompt_on())                                                          \
            hp_event_wait(t_, hp_gomp_call_site(t_, ret, what), t1_ - t0_, m_);  \
    } while (0)

#define TIMED_VALUE(type, call, field, ret, what, missing)                       \
    do {                                                                         \
        resolve();                                                               \
        if (!hp_gomp.field)                                                      \
            return missing;                                                      \
        hp_thread *t_ = recorder();                                              \
        if (!t_)                                                                 \
            return call;                                                         \
        uint64_t m_ = hp_event_wait_mark(t_), t0_ = hp_ticks();                  \
        type r_ = call;                                                          \
        uint64_t t1_ = hp_ticks();                                               \
        if (!ompt_on())                                                          \
            hp_event_wait(t_, hp_gomp_call_site(t_, ret, what), t1_ - t0_, m_);  \
        return r_;                                                               \
    } while (0)

#endif
