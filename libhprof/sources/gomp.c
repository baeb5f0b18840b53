/*
 * gomp.c - tier 0 OpenMP for gcc's libgomp: libhprof defines the GOMP_*
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
 *  - GOMP_parallel and the combined forms GOMP_parallel_loop_* and
 *    GOMP_parallel_sections: the region is keyed by the outlined function's
 *    entry (its line is the pragma's).  The real call gets a trampoline that
 *    opens the region node on every thread of the team, runs the outlined
 *    function and then calls the real GOMP_barrier itself: the time in that
 *    barrier is the thread's "implicit barrier" wait.  This is the seed's
 *    (OPARI's) double barrier: libgomp's own end-of-region barrier is inside
 *    libgomp and cannot be timed per thread, so an explicit one runs first;
 *    when it releases, every thread has finished its work and the real end
 *    barrier costs almost nothing.  It costs one extra barrier per region.
 *    The master also records "fork" (the wrapper's entry until its own part
 *    of the region starts) and "join" (its part's end until the real call
 *    returns), beside the region node in its own context.
 *  - GOMP_barrier (and GOMP_barrier_cancel): "barrier" at the call's line.
 *    gcc also calls GOMP_barrier for the implicit barrier at the end of a
 *    static `omp for`, of `single` and of `sections` when no nowait is
 *    given: those become "implicit barrier"s of their construct when the
 *    site is resolved (hp_omp_pragma.h).  The end barriers of dynamic
 *    loops and of sections are calls of GOMP_loop_end/GOMP_sections_end:
 *    "implicit barrier" (all at the construct's line: hp_omp_pragma.h).
 *  - GOMP_critical_start/end and GOMP_critical_name_start/end: "critical
 *    wait" (time in start) and "critical" (start's return until end), both
 *    at the line of the critical construct.
 *  - GOMP_ordered_start/end: "ordered wait" (time in start: the iteration
 *    waits for its turn) and "ordered" (start's return until end), both at
 *    the line of the ordered construct.
 *  - GOMP_atomic_start/end, which gcc calls around an atomic update that
 *    has no lock-free instruction sequence (a long double, a 16-byte type
 *    without -mcx16): one "atomic" per update, its time from the start's
 *    entry to the end, at the atomic's line.
 *  - omp_set_lock / omp_test_lock / omp_unset_lock and the nest-lock
 *    calls: "lock wait" (time in set) and "lock" (held from the set's or
 *    successful test's return until the unset that releases it), both at
 *    the line of the set/test call.
 *  - GOMP_single_start / GOMP_single_copy_start: one "single" execution on
 *    the thread that runs the block (its time is the time of the call).
 *  - GOMP_task: "task create" (time in the call less the tasks it ran, e.g.
 *    an undeferred if(0) task or a full queue's, recorded as "task"),
 *    and "task", the execution, on the thread that runs it, both keyed by
 *    the task's outlined function (at the pragma's line: hp_omp_lines.h):
 *    libgomp gets a trampoline and a larger argument block (see task_hdr)
 *    that carries the task's instance id to the executing thread; the
 *    execution is an open node (hp_task.h), so what the task does is
 *    recorded below it, and left out of the taskwait/barrier/task
 *    create time of whatever the thread was waiting in.  A detachable
 *    task's block is laid out around the event handle libgomp writes into
 *    its first word (see shift_hdr).  Blocks over 64 KiB are created
 *    unwrapped (creation only);
 *  - GOMP_taskloop / GOMP_taskloop_ull: "task create" once per task made
 *    (time: the whole call, less the tasks this thread ran in it,
 *    with the wait for the tasks unless nogroup) and "task" per execution, through a trampoline and a block
 *    laid out around libgomp's bounds (see shift_hdr).  Taskloops with a
 *    task reduction or a copy function are created unwrapped (one
 *    creation per encounter); so are nogroup's creations counted;
 *  - GOMP_taskwait, GOMP_taskwait_depend and GOMP_taskgroup_end:
 *    "taskwait".
 * Not visible this way: static loop schedules (gcc computes the chunks
 * inline; only the end barrier shows), the per-thread time in worksharing
 * loops, master/masked (inlined thread-number tests), lock-free atomics
 * and flush (hardware instructions: a locked add, a fence; no call to
 * libgomp), regions
 * with task reductions (GOMP_parallel_reductions) and objects from
 * gcc < 4.9 (GOMP_parallel_start/end), which pass through.
 *
 * Wrappers never change results, change no arguments but GOMP_task's
 * function and block (the task still runs the user's function on a copy
 * of the user's block), never take a lock, and pass straight through
 * when collection is off, when the calling thread has no records, when
 * OMPT is active, or when the real function is missing.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include "hp_omp.h"
#include "hp_site.h"
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
typedef void (*void_fn)(void);
typedef bool (*bool_fn)(void);
typedef void (*name_fn)(void **);
typedef void *(*ptr_fn)(void);
typedef void (*lock_fn)(void *);
typedef int (*test_fn)(void *);
typedef void (*task_fn)(void (*)(void *), void *, void (*)(void *, void *), long, long,
                        bool, unsigned, void **, int, void *);
typedef void (*taskloop_fn)(void (*)(void *), void *, void (*)(void *, void *), long, long,
                            unsigned, unsigned long, int, long, long, long);
typedef void (*taskloop_ull_fn)(void (*)(void *), void *, void (*)(void *, void *), long,
                                long, unsigned, unsigned long, int, unsigned long long,
                                unsigned long long, unsigned long long);

static struct {
    par_fn parallel;
    par_loop_fn loop_static, loop_dynamic, loop_guided, loop_nm_dynamic, loop_nm_guided;
    par_loop_rt_fn loop_runtime, loop_nm_runtime, loop_mnm_runtime;
    par_sections_fn sections;
    void_fn barrier, critical_start, critical_end, taskwait, taskgroup_end;
    void_fn loop_end, sections_end;
    void_fn ordered_start, ordered_end, atomic_start, atomic_end;
    bool_fn barrier_cancel, loop_end_cancel, sections_end_cancel, single_start;
    name_fn critical_name_start, critical_name_end, taskwait_depend;
    ptr_fn single_copy_start;
    task_fn task;
    taskloop_fn taskloop;
    taskloop_ull_fn taskloop_ull;
    lock_fn set_lock, unset_lock, set_nest_lock, unset_nest_lock;
    test_fn test_lock, test_nest_lock;
} real;

static pthread_once_t real_once = PTHREAD_ONCE_INIT;
static int real_done;

/* The outlined function of a region runs through run_outlined, so a call
 * that it makes as a tail call (gcc ends an outlined function with `jmp
 * GOMP_barrier` when a construct's barrier is its last action) returns
 * into run_outlined, at tramp_ret, found once at start-up.  Such a call is
 * keyed by the entry of the outlined function that the thread is running
 * (cur_fn), i.e. the region's line, instead of hprof's own code. */
static uintptr_t tramp_ret;
static __thread void (*cur_fn)(void *) __attribute__((tls_model("initial-exec")));

#if defined(__has_attribute)
#if __has_attribute(noipa)
#define HP_NOIPA __attribute__((noinline, noipa))
#endif
#endif
#ifndef HP_NOIPA
#define HP_NOIPA __attribute__((noinline))
#endif

static HP_NOIPA void run_outlined(void (*fn)(void *), void *data)
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

#define LOOKUP(field, name) (*(void **)&real.field = lookup(name))

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
    run_outlined(ret_probe, &tramp_ret);
    __atomic_store_n(&real_done, 1, __ATOMIC_RELEASE);
}

static inline void resolve(void)
{
    if (__builtin_expect(!__atomic_load_n(&real_done, __ATOMIC_ACQUIRE), 0))
        pthread_once(&real_once, resolve_real);
}

/* The site of construct `what` called from return address ret. */
static uint32_t call_site(hp_thread *t, uintptr_t ret, int what)
{
    if (__builtin_expect(ret == tramp_ret, 0) && cur_fn)
        return hp_omp_site(t, (uintptr_t)cur_fn, 1, what);
    return hp_omp_site(t, ret, 0, what);
}

/* The thread to record into, or NULL to pass through. */
static inline hp_thread *recorder(void)
{
    if (ompt_on() || !hp_collecting)
        return NULL;
    return hp_thread_self();
}

/* ------------------------------------------------------ per-thread state */

#define CRIT_MAX 8    /* open critical sections recorded per thread */
#define NO_SITE HP_OMP_NO_SITE

typedef struct gomp_tls {
    uint32_t ncrit;   /* open critical sections, recorded or not */
    struct {
        uint64_t start;
        uint32_t site;  /* NO_SITE: not recorded */
    } crit[CRIT_MAX];
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

/* ---------------------------------------------------------------- regions */

/* Handed to the real GOMP_parallel* in place of the outlined function's
 * data; lives on the master's stack for the region's duration. */
typedef struct par {
    void (*fn)(void *);
    void *data;
    hp_thread *master;
    uint64_t entry, master_end;
    hp_omp_team team;
} par;

static void trampoline(void *arg)
{
    par *p = arg;
    uint64_t t0 = hp_ticks();
    /* (OMPT may have started inside the real call: libomp starts the tool
     * at its first use.) */
    hp_thread *t = hp_collecting && !ompt_on() ? hp_thread_self() : NULL;
    hprof_frame f;
    hp_omp_saved saved = {0};
    if (t) {
        if (t == p->master)
            hp_event_leaf(t, hp_omp_site(t, (uintptr_t)p->fn, 1, HP_OMP_FORK),
                          t0 - p->entry);
        hp_event_team_begin(t, &p->team, &f, &saved);
    }
    void (*outer)(void *) = cur_fn;
    cur_fn = p->fn;
    run_outlined(p->fn, p->data);
    cur_fn = outer;
    /* The double barrier (see the top of this file): every thread of the
     * team calls it, recording or not, or the team would hang. */
    uint64_t m = hp_event_wait_mark(t), b0 = hp_ticks();
    real.barrier();
    if (t) {
        uint64_t b1 = hp_ticks();
        hp_event_wait(t, hp_omp_site(t, (uintptr_t)p->fn, 1, HP_OMP_IMPLICIT_BARRIER),
                           b1 - b0, m);
        hp_event_team_end(t, &f, &saved);
        if (t == p->master)
            p->master_end = hp_ticks();
    }
}

/* Prepares p for a region of fn; 0 means pass the call straight through. */
static int par_begin(par *p, uint64_t entry, void (*fn)(void *), void *data)
{
    if (!real.barrier)
        return 0;
    hp_thread *t = recorder();
    if (!t)
        return 0;
    p->fn = fn;
    p->data = data;
    p->master = t;
    p->entry = entry;
    p->master_end = 0;
    hp_event_team_fork(t, &p->team, hp_omp_site(t, (uintptr_t)fn, 1, HP_OMP_PARALLEL));
    return 1;
}

static void par_end(par *p)
{
    uint64_t now = hp_ticks();
    hp_thread *t = hp_tls_self;
    if (p->master_end && t == p->master && hp_collecting)
        hp_event_leaf(t, hp_omp_site(t, (uintptr_t)p->fn, 1, HP_OMP_JOIN),
                      now - p->master_end);
}

API void GOMP_parallel(void (*fn)(void *), void *data, unsigned num_threads,
                       unsigned flags)
{
    uint64_t entry = hp_ticks();
    par p;
    resolve();
    if (!real.parallel) {
        fn(data);     /* no runtime at all: a team of one */
        return;
    }
    if (!par_begin(&p, entry, fn, data)) {
        real.parallel(fn, data, num_threads, flags);
        return;
    }
    real.parallel(trampoline, &p, num_threads, flags);
    par_end(&p);
}

/* The combined parallel loops: fn, data, num_threads, the loop's start,
 * end, incr (and chunk size), flags. */
#define PAR_LOOP(name, field)                                                    \
    API void name(void (*fn)(void *), void *data, unsigned num_threads, long start, \
                  long end, long incr, long chunk, unsigned flags)               \
    {                                                                            \
        uint64_t entry = hp_ticks();                                             \
        par p;                                                                   \
        resolve();                                                               \
        if (!real.field) {                                                       \
            fn(data);                                                            \
            return;                                                              \
        }                                                                        \
        if (!par_begin(&p, entry, fn, data)) {                                   \
            real.field(fn, data, num_threads, start, end, incr, chunk, flags);   \
            return;                                                              \
        }                                                                        \
        real.field(trampoline, &p, num_threads, start, end, incr, chunk, flags); \
        par_end(&p);                                                             \
    }
#define PAR_LOOP_RT(name, field)                                                 \
    API void name(void (*fn)(void *), void *data, unsigned num_threads, long start, \
                  long end, long incr, unsigned flags)                           \
    {                                                                            \
        uint64_t entry = hp_ticks();                                             \
        par p;                                                                   \
        resolve();                                                               \
        if (!real.field) {                                                       \
            fn(data);                                                            \
            return;                                                              \
        }                                                                        \
        if (!par_begin(&p, entry, fn, data)) {                                   \
            real.field(fn, data, num_threads, start, end, incr, flags);          \
            return;                                                              \
        }                                                                        \
        real.field(trampoline, &p, num_threads, start, end, incr, flags);        \
        par_end(&p);                                                             \
    }

PAR_LOOP(GOMP_parallel_loop_static, loop_static)
PAR_LOOP(GOMP_parallel_loop_dynamic, loop_dynamic)
PAR_LOOP(GOMP_parallel_loop_guided, loop_guided)
PAR_LOOP(GOMP_parallel_loop_nonmonotonic_dynamic, loop_nm_dynamic)
PAR_LOOP(GOMP_parallel_loop_nonmonotonic_guided, loop_nm_guided)
PAR_LOOP_RT(GOMP_parallel_loop_runtime, loop_runtime)
PAR_LOOP_RT(GOMP_parallel_loop_nonmonotonic_runtime, loop_nm_runtime)
PAR_LOOP_RT(GOMP_parallel_loop_maybe_nonmonotonic_runtime, loop_mnm_runtime)

API void GOMP_parallel_sections(void (*fn)(void *), void *data, unsigned num_threads,
                                unsigned count, unsigned flags)
{
    uint64_t entry = hp_ticks();
    par p;
    resolve();
    if (!real.sections) {
        fn(data);
        return;
    }
    if (!par_begin(&p, entry, fn, data)) {
        real.sections(fn, data, num_threads, count, flags);
        return;
    }
    real.sections(trampoline, &p, num_threads, count, flags);
    par_end(&p);
}

/* --------------------------------------------------- waits at one call */

/* Time in a blocking call, recorded as `what` at the call's line. */
#define TIMED_VOID(call, field, ret, what)                                       \
    do {                                                                         \
        resolve();                                                               \
        hp_thread *t_ = recorder();                                              \
        if (!t_ || !real.field) {                                                \
            if (real.field)                                                      \
                call;                                                            \
            return;                                                              \
        }                                                                        \
        uint64_t m_ = hp_event_wait_mark(t_), t0_ = hp_ticks();                    \
        call;                                                                    \
        uint64_t t1_ = hp_ticks();                                               \
        if (!ompt_on())                                                          \
            hp_event_wait(t_, call_site(t_, ret, what), t1_ - t0_, m_);     \
    } while (0)

#define TIMED_VALUE(type, call, field, ret, what, missing)                       \
    do {                                                                         \
        resolve();                                                               \
        if (!real.field)                                                         \
            return missing;                                                      \
        hp_thread *t_ = recorder();                                              \
        if (!t_)                                                                 \
            return call;                                                         \
        uint64_t m_ = hp_event_wait_mark(t_), t0_ = hp_ticks();                    \
        type r_ = call;                                                          \
        uint64_t t1_ = hp_ticks();                                               \
        if (!ompt_on())                                                          \
            hp_event_wait(t_, call_site(t_, ret, what), t1_ - t0_, m_);     \
        return r_;                                                               \
    } while (0)

API void GOMP_barrier(void)
{
    TIMED_VOID(real.barrier(), barrier, RET, HP_OMP_BARRIER);
}

API bool GOMP_barrier_cancel(void)
{
    TIMED_VALUE(bool, real.barrier_cancel(), barrier_cancel, RET, HP_OMP_BARRIER, false);
}

API void GOMP_loop_end(void)
{
    TIMED_VOID(real.loop_end(), loop_end, RET, HP_OMP_IMPLICIT_BARRIER);
}

API bool GOMP_loop_end_cancel(void)
{
    TIMED_VALUE(bool, real.loop_end_cancel(), loop_end_cancel, RET,
                HP_OMP_IMPLICIT_BARRIER, false);
}

API void GOMP_sections_end(void)
{
    TIMED_VOID(real.sections_end(), sections_end, RET, HP_OMP_IMPLICIT_BARRIER);
}

API bool GOMP_sections_end_cancel(void)
{
    TIMED_VALUE(bool, real.sections_end_cancel(), sections_end_cancel, RET,
                HP_OMP_IMPLICIT_BARRIER, false);
}

API void GOMP_taskwait(void)
{
    TIMED_VOID(real.taskwait(), taskwait, RET, HP_OMP_TASKWAIT);
}

API void GOMP_taskwait_depend(void **depend)
{
    TIMED_VOID(real.taskwait_depend(depend), taskwait_depend, RET, HP_OMP_TASKWAIT);
}

API void GOMP_taskgroup_end(void)
{
    TIMED_VOID(real.taskgroup_end(), taskgroup_end, RET, HP_OMP_TASKWAIT);
}

/* ------------------------------------------------------------------ tasks */

/* A task's execution: GOMP_task gets task_tramp as the task's function and
 * an argument block that starts with this header, the user's block
 * following at off (rounded up to the user's alignment).  libgomp copies
 * the block into the task (memcpy, or the copy function given) and calls
 * task_tramp(copy) on the thread that runs it, deferred or at once. */
typedef struct task_hdr {
    void (*fn)(void *);             /* the outlined task function */
    void (*cpyfn)(void *, void *);  /* the user's copy function, or NULL */
    void *src;                      /* the user's data (valid in GOMP_task only) */
    long off;                       /* the user's block in the copy */
    uint64_t id;                    /* the task instance (hp_event_task_new_id) */
} task_hdr;

#define TASK_WRAP_MAX (64 * 1024)   /* larger blocks pass through unwrapped */
#define GOMP_TASK_FLAG_NOGROUP (1u << 11)
#define GOMP_TASK_FLAG_REDUCTION (1u << 12)
#define LOOP_HEAD 16     /* a taskloop task's bounds: two longs or unsigned long longs */
#define DETACH_HEAD ((long)sizeof(void *))   /* a detachable task's event handle */
#define SHIFT_WRAP_MAX 4096   /* such blocks are rebuilt on the running thread's stack */

static void task_tramp(void *arg)
{
    task_hdr *h = arg;
    void (*fn)(void *) = h->fn;
    void (*outer)(void *) = cur_fn;
    hp_thread *t = ompt_on() ? NULL : hp_thread_self();
    hp_task_run run;
    if (t)
        hp_event_task_begin(t, &run, hp_omp_site(t, (uintptr_t)fn, 1, HP_OMP_TASK), h->id);
    cur_fn = fn;
    run_outlined(fn, (char *)arg + h->off);
    cur_fn = outer;
    if (t)
        hp_event_task_end(t, &run);
}

/* The copy function handed to libgomp when the user has one: src is the
 * bare header; the user's function builds its block from the user's data. */
static void task_copy(void *dst, void *src)
{
    task_hdr *h = src;
    *(task_hdr *)dst = *h;
    ((task_hdr *)dst)->src = NULL;
    h->cpyfn((char *)dst + h->off, h->src);
}

static int shift_wrappable(hp_thread *t, void (*cpyfn)(void *, void *), long arg_size,
                           long head);
static void task_detached(hp_thread *t, void (*fn)(void *), void *data,
                          long arg_size, long arg_align, bool if_clause, unsigned flags,
                          void **depend, int priority, void *detach);

API void GOMP_task(void (*fn)(void *), void *data, void (*cpyfn)(void *, void *),
                   long arg_size, long arg_align, bool if_clause, unsigned flags,
                   void **depend, int priority, void *detach)
{
    if (!real.task) {
        resolve();
        if (!real.task) {
            fn(data);    /* no runtime: an undeferred task (no copy function
                            can be needed without one) */
            return;
        }
    }
    hp_thread *t = recorder();
    /* A detachable task's event handle is written by libgomp into the
     * first word of the block: its header goes after that word. */
    if (detach && shift_wrappable(t, cpyfn, arg_size, DETACH_HEAD)) {
        task_detached(t, fn, data, arg_size, arg_align, if_clause, flags, depend,
                      priority, detach);
        return;
    }
    if (!t || detach || arg_size < 0 || arg_size > TASK_WRAP_MAX) {
        TIMED_VOID(real.task(fn, data, cpyfn, arg_size, arg_align, if_clause, flags,
                             depend, priority, detach),
                   task, RET, HP_OMP_TASK_CREATE);
        return;
    }
    long ualign = arg_align > 0 ? arg_align : 1;
    long align = ualign > (long)_Alignof(task_hdr) ? ualign : (long)_Alignof(task_hdr);
    long off = ((long)sizeof(task_hdr) + ualign - 1) & ~(ualign - 1);
    long size = off + arg_size;
    task_hdr *h;
    if (cpyfn) {
        /* libgomp calls task_copy(copy, h): only the header is needed here. */
        task_hdr hdr = { fn, cpyfn, data, off, hp_event_task_new_id(t) };
        h = &hdr;
        hp_task_clock c = hp_event_task_create_start(t);
        real.task(task_tramp, h, task_copy, size, align, if_clause, flags, depend,
                  priority, detach);
        if (!ompt_on())
            hp_event_task_created(t, hp_omp_site(t, (uintptr_t)fn, 1, HP_OMP_TASK_CREATE), hdr.id, &c);
        return;
    }
    /* memcpy'd by libgomp, or run in place when undeferred: the whole
     * block, aligned, on this stack. */
    char *raw = __builtin_alloca(size + align - 1);
    h = (task_hdr *)(((uintptr_t)raw + align - 1) & ~(uintptr_t)(align - 1));
    h->fn = fn;
    h->cpyfn = NULL;
    h->src = NULL;
    h->off = off;
    uint64_t id = h->id = hp_event_task_new_id(t);
    if (arg_size)
        __builtin_memcpy((char *)h + off, data, arg_size);
    hp_task_clock c = hp_event_task_create_start(t);
    real.task(task_tramp, h, NULL, size, align, if_clause, flags, depend, priority,
              detach);
    if (!ompt_on())
        hp_event_task_created(t, hp_omp_site(t, (uintptr_t)fn, 1, HP_OMP_TASK_CREATE), id, &c);
}

/* ------------------------------------------------- blocks with a runtime head */

/* Two kinds of task have a block whose leading words libgomp writes:
 * a taskloop's tasks (the task's bounds, two words) and a detachable task
 * (its event handle, one word).  hprof's header goes right after those
 * words and the rest of the user's block follows it, `shift` bytes further
 * than in the user's layout; the trampoline puts the user's block back
 * together on its stack and runs the user's function on it.  Blocks with
 * a copy function (their fields may point into themselves), task
 * reductions (libgomp reads the block's third word) and blocks over 4 KiB
 * (the copy is on the stack of the thread that runs the task, which
 * OMP_STACKSIZE may make small) pass through unwrapped. */

typedef struct shift_hdr {
    void (*fn)(void *);             /* the outlined task function */
    long size, align, shift;        /* the user's block; the header's room */
    uint64_t id;                    /* a detachable task's instance */
    _Atomic unsigned long *ran;     /* taskloop tasks run, counted for the creator
                                       (NULL: nogroup, the creator may be gone) */
} shift_hdr;

static void run_shifted(char *arg, long head, int taskloop)
{
    shift_hdr *h = (shift_hdr *)(arg + head);
    void (*fn)(void *) = h->fn;
    char *raw = __builtin_alloca(h->size + h->align - 1);
    char *blk = (char *)(((uintptr_t)raw + h->align - 1) & ~(uintptr_t)(h->align - 1));
    __builtin_memcpy(blk, arg, head);
    __builtin_memcpy(blk + head, arg + head + h->shift, h->size - head);
    if (h->ran)
        atomic_fetch_add(h->ran, 1);
    void (*outer)(void *) = cur_fn;
    hp_thread *t = ompt_on() ? NULL : hp_thread_self();
    hp_task_run run;
    if (t)
        hp_event_task_begin(t, &run, hp_omp_site(t, (uintptr_t)fn, 1, HP_OMP_TASK),
                      taskloop ? hp_event_task_new_id(t) : h->id);
    cur_fn = fn;
    run_outlined(fn, blk);
    cur_fn = outer;
    if (t)
        hp_event_task_end(t, &run);
}

static void loop_tramp(void *arg)
{
    run_shifted(arg, LOOP_HEAD, 1);
}

static void detach_tramp(void *arg)
{
    run_shifted(arg, DETACH_HEAD, 0);
}

static int shift_wrappable(hp_thread *t, void (*cpyfn)(void *, void *), long arg_size,
                           long head)
{
    return t && !cpyfn && arg_size >= head && arg_size <= SHIFT_WRAP_MAX;
}

/* The header for the user's block; *size and *align: the block's. */
static shift_hdr shift_header(void (*fn)(void *), long arg_size, long arg_align,
                              long *size, long *align)
{
    long ualign = arg_align > 0 ? arg_align : 1;
    long shift = ((long)sizeof(shift_hdr) + ualign - 1) & ~(ualign - 1);
    *size = arg_size + shift;
    *align = ualign > (long)_Alignof(shift_hdr) ? ualign : (long)_Alignof(shift_hdr);
    return (shift_hdr){fn, arg_size, ualign, shift, 0, NULL};
}

/* Lays the wrapped block out in raw (size + align bytes); returns it. */
static char *shift_layout(char *raw, long align, const shift_hdr *h, long head,
                          const void *data)
{
    char *blk = (char *)(((uintptr_t)raw + align - 1) & ~(uintptr_t)(align - 1));
    __builtin_memcpy(blk, data, head);
    __builtin_memcpy(blk + head, h, sizeof *h);
    __builtin_memcpy(blk + head + h->shift, (const char *)data + head, h->size - head);
    return blk;
}

static void task_detached(hp_thread *t, void (*fn)(void *), void *data,
                          long arg_size, long arg_align, bool if_clause, unsigned flags,
                          void **depend, int priority, void *detach)
{
    long size, align;
    shift_hdr h = shift_header(fn, arg_size, arg_align, &size, &align);
    h.id = hp_event_task_new_id(t);
    char raw[size + align];
    char *blk = shift_layout(raw, align, &h, DETACH_HEAD, data);
    hp_task_clock c = hp_event_task_create_start(t);
    real.task(detach_tramp, blk, NULL, size, align, if_clause, flags, depend, priority,
              detach);
    if (!ompt_on())
        hp_event_task_created(t, hp_omp_site(t, (uintptr_t)fn, 1, HP_OMP_TASK_CREATE), h.id, &c);
}

/* --------------------------------------------------------------- taskloop */

/* One GOMP_taskloop call.  The encounter is "task create" once per task
 * libgomp made (counted by the trampolines before GOMP_taskloop returned;
 * once with nogroup), with the time of the call - which, without nogroup,
 * includes the wait for the tasks. */
typedef struct loop_call {
    hp_thread *t;                   /* NULL: not recorded */
    int wrapped;
    hp_task_clock clock;
    long size, align;               /* the block libgomp gets, when wrapped */
    _Atomic unsigned long ran;
    shift_hdr h;
} loop_call;

static void loop_begin(loop_call *c, void (*fn)(void *), void (*cpyfn)(void *, void *),
                       long arg_size, long arg_align, unsigned flags)
{
    c->t = recorder();
    c->clock = hp_event_task_create_start(c->t);
    c->wrapped = shift_wrappable(c->t, cpyfn, arg_size, LOOP_HEAD) &&
                 !(flags & GOMP_TASK_FLAG_REDUCTION);
    atomic_init(&c->ran, 0);
    if (c->wrapped) {
        c->h = shift_header(fn, arg_size, arg_align, &c->size, &c->align);
        c->h.ran = flags & GOMP_TASK_FLAG_NOGROUP ? NULL : &c->ran;
    }
}

/* The wrapped block, in raw (c->size + c->align bytes). */
static char *loop_block(loop_call *c, char *raw, const void *data)
{
    return shift_layout(raw, c->align, &c->h, LOOP_HEAD, data);
}

static void loop_end(loop_call *c, void (*fn)(void *))
{
    if (!c->t || ompt_on())
        return;
    unsigned long tasks = c->wrapped ? atomic_load(&c->ran) : 0;
    hp_event_task_created_n(c->t, hp_omp_site(c->t, (uintptr_t)fn, 1, HP_OMP_TASK_CREATE), hp_event_task_new_id(c->t),
                      &c->clock, tasks ? tasks : 1);
}

API void GOMP_taskloop(void (*fn)(void *), void *data, void (*cpyfn)(void *, void *),
                       long arg_size, long arg_align, unsigned flags,
                       unsigned long num_tasks, int priority, long start, long end,
                       long step)
{
    resolve();
    if (!real.taskloop) {   /* no runtime: one task over the whole range */
        ((long *)data)[0] = start;
        ((long *)data)[1] = end;
        fn(data);
        return;
    }
    loop_call c;
    loop_begin(&c, fn, cpyfn, arg_size, arg_align, flags);
    if (!c.wrapped) {
        real.taskloop(fn, data, cpyfn, arg_size, arg_align, flags, num_tasks, priority, start,
                      end, step);
    } else {
        char raw[c.size + c.align];
        real.taskloop(loop_tramp, loop_block(&c, raw, data), NULL, c.size, c.align, flags,
                      num_tasks, priority, start, end, step);
    }
    loop_end(&c, fn);
}

API void GOMP_taskloop_ull(void (*fn)(void *), void *data, void (*cpyfn)(void *, void *),
                           long arg_size, long arg_align, unsigned flags,
                           unsigned long num_tasks, int priority, unsigned long long start,
                           unsigned long long end, unsigned long long step)
{
    resolve();
    if (!real.taskloop_ull) {
        ((unsigned long long *)data)[0] = start;
        ((unsigned long long *)data)[1] = end;
        fn(data);
        return;
    }
    loop_call c;
    loop_begin(&c, fn, cpyfn, arg_size, arg_align, flags);
    if (!c.wrapped) {
        real.taskloop_ull(fn, data, cpyfn, arg_size, arg_align, flags, num_tasks, priority,
                          start, end, step);
    } else {
        char raw[c.size + c.align];
        real.taskloop_ull(loop_tramp, loop_block(&c, raw, data), NULL, c.size, c.align, flags,
                          num_tasks, priority, start, end, step);
    }
    loop_end(&c, fn);
}

/* ---------------------------------------------------------------- single */

API bool GOMP_single_start(void)
{
    resolve();
    if (!real.single_start)
        return true;
    hp_thread *t = recorder();
    if (!t)
        return real.single_start();
    uint64_t t0 = hp_ticks();
    bool r = real.single_start();
    if (r && !ompt_on())
        hp_event_leaf(t, call_site(t, RET, HP_OMP_SINGLE), hp_ticks() - t0);
    return r;
}

/* The executing thread gets NULL; the others wait inside for its data. */
API void *GOMP_single_copy_start(void)
{
    resolve();
    if (!real.single_copy_start)
        return NULL;
    hp_thread *t = recorder();
    if (!t)
        return real.single_copy_start();
    uint64_t t0 = hp_ticks();
    void *r = real.single_copy_start();
    if (!r && !ompt_on())
        hp_event_leaf(t, call_site(t, RET, HP_OMP_SINGLE), hp_ticks() - t0);
    return r;
}

/* ------------------------------------------------------------- criticals */

/* After the real start of a critical section or an ordered block
 * returned: the wait, and the hold's start pushed (always pushed, recorded
 * or not, so that ends always pop their own; the two nest properly). */
static void crit_acquired(uintptr_t ret, uint64_t t0, int recorded, int wait, int hold)
{
    uint64_t t1 = hp_ticks();
    gomp_tls *g = tls_get();
    hp_thread *t = recorded && !ompt_on() ? hp_tls_self : NULL;
    uint32_t site = NO_SITE;
    if (t) {
        hp_event_leaf(t, call_site(t, ret, wait), t1 - t0);
        site = call_site(t, ret, hold);
    }
    if (!g)
        return;
    if (g->ncrit < CRIT_MAX) {
        g->crit[g->ncrit].start = t1;
        g->crit[g->ncrit].site = site;
    }
    g->ncrit++;
}

static void crit_released(uint64_t now)
{
    gomp_tls *g = gtls;
    if (!g || !g->ncrit)
        return;
    uint32_t i = --g->ncrit;
    hp_thread *t = hp_tls_self;
    if (i < CRIT_MAX && g->crit[i].site != NO_SITE && t && hp_collecting)
        hp_event_leaf(t, g->crit[i].site, now - g->crit[i].start);
}

API void GOMP_critical_start(void)
{
    resolve();
    if (!real.critical_start)
        return;
    if (ompt_on()) {
        real.critical_start();
        return;
    }
    int rec = recorder() != NULL;
    uint64_t t0 = hp_ticks();
    real.critical_start();
    crit_acquired(RET, t0, rec, HP_OMP_CRITICAL_WAIT, HP_OMP_CRITICAL);
}

API void GOMP_critical_end(void)
{
    resolve();
    if (!real.critical_end)
        return;
    if (!ompt_on())
        crit_released(hp_ticks());
    real.critical_end();
}

API void GOMP_critical_name_start(void **pptr)
{
    resolve();
    if (!real.critical_name_start)
        return;
    if (ompt_on()) {
        real.critical_name_start(pptr);
        return;
    }
    int rec = recorder() != NULL;
    uint64_t t0 = hp_ticks();
    real.critical_name_start(pptr);
    crit_acquired(RET, t0, rec, HP_OMP_CRITICAL_WAIT, HP_OMP_CRITICAL);
}

API void GOMP_critical_name_end(void **pptr)
{
    resolve();
    if (!real.critical_name_end)
        return;
    if (!ompt_on())
        crit_released(hp_ticks());
    real.critical_name_end(pptr);
}

/* ---------------------------------------------------- ordered, atomic */

/* An ordered block: "ordered wait" is the time in GOMP_ordered_start (the
 * iteration waits for its turn), "ordered" the hold until GOMP_ordered_end. */
API void GOMP_ordered_start(void)
{
    resolve();
    if (!real.ordered_start)
        return;
    if (ompt_on()) {
        real.ordered_start();
        return;
    }
    int rec = recorder() != NULL;
    uint64_t t0 = hp_ticks();
    real.ordered_start();
    crit_acquired(RET, t0, rec, HP_OMP_ORDERED_WAIT, HP_OMP_ORDERED);
}

API void GOMP_ordered_end(void)
{
    resolve();
    if (!real.ordered_end)
        return;
    if (!ompt_on())
        crit_released(hp_ticks());
    real.ordered_end();
}

/* gcc calls these around an atomic update that is not lock-free (e.g. a
 * long double): one "atomic" per update, its time from the start's entry
 * (the wait for libgomp's global atomic mutex included) to the end.  An
 * atomic region contains no other construct, so one slot per thread. */
API void GOMP_atomic_start(void)
{
    resolve();
    if (!real.atomic_start)
        return;
    hp_thread *t = recorder();
    gomp_tls *g = t ? tls_get() : NULL;
    if (g) {
        g->atomic_site = call_site(t, RET, HP_OMP_ATOMIC);
        g->atomic_start = hp_ticks();
    }
    real.atomic_start();
}

API void GOMP_atomic_end(void)
{
    resolve();
    if (!real.atomic_end)
        return;
    gomp_tls *g = gtls;
    hp_thread *t = hp_tls_self;
    if (g && g->atomic_start) {
        if (t && hp_collecting && !ompt_on())
            hp_event_leaf(t, g->atomic_site, hp_ticks() - g->atomic_start);
        g->atomic_start = 0;
    }
    real.atomic_end();
}

/* ------------------------------------------------------------------ locks */

static void lock_acquired(void *lock, uint64_t t1, hp_thread *t, uintptr_t ret, int nest)
{
    gomp_tls *g = tls_get();
    if (g)
        hp_omp_lock_acquired(&g->locks, lock, t1, t ? call_site(t, ret, HP_OMP_LOCK) : NO_SITE,
                             nest);
}

static void lock_released(void *lock, uint64_t now)
{
    if (gtls)
        hp_omp_lock_released(&gtls->locks, hp_tls_self, lock, now);
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
    uint64_t t0 = hp_ticks();
    fn(lock);
    uint64_t t1 = hp_ticks();
    if (ompt_on())
        return;
    if (t)
        hp_event_leaf(t, call_site(t, ret, HP_OMP_LOCK_WAIT), t1 - t0);
    lock_acquired(lock, t1, t, ret, nest);
}

static int lock_test(test_fn fn, void *lock, uintptr_t ret, int nest)
{
    if (!fn)
        return 1;
    if (ompt_on())
        return fn(lock);
    hp_thread *t = recorder();
    int r = fn(lock);
    if (r && !ompt_on())
        lock_acquired(lock, hp_ticks(), t, ret, nest);
    return r;
}

static void lock_unset(lock_fn fn, void *lock)
{
    if (!fn)
        return;
    if (!ompt_on())
        lock_released(lock, hp_ticks());
    fn(lock);
}

API void omp_set_lock(void *lock)
{
    resolve();
    lock_set(real.set_lock, lock, RET, 0);
}

API void omp_set_nest_lock(void *lock)
{
    resolve();
    lock_set(real.set_nest_lock, lock, RET, 1);
}

API int omp_test_lock(void *lock)
{
    resolve();
    return lock_test(real.test_lock, lock, RET, 0);
}

API int omp_test_nest_lock(void *lock)
{
    resolve();
    return lock_test(real.test_nest_lock, lock, RET, 1);
}

API void omp_unset_lock(void *lock)
{
    resolve();
    lock_unset(real.unset_lock, lock);
}

API void omp_unset_nest_lock(void *lock)
{
    resolve();
    lock_unset(real.unset_nest_lock, lock);
}

const hp_source hp_source_gomp = {"GOMP interposition", HP_OMP_SOURCE_GOMP, NULL, NULL, NULL};
