/*
 * gomp_parallel.c - the GOMP source's parallel regions and the waits at
 * one call (see gomp_real.c for how the wrappers reach libgomp):
 *  - GOMP_parallel and the combined forms GOMP_parallel_loop_*,
 *    GOMP_parallel_sections and GOMP_parallel_reductions (a region with
 *    task reductions: libgomp reads the reduction data from the first
 *    word of the region's data, so the trampoline's data starts with the
 *    same word): the region is keyed by the outlined function's
 *    entry (its line is the pragma's).  The real call gets a trampoline that
 *    opens the region node on every thread of the team and runs the
 *    outlined function.  libgomp's own end-of-region barrier is inside
 *    libgomp and cannot be timed per thread, so each thread's "implicit
 *    barrier" wait is taken from its arrival (the end of its part) to the
 *    team's release, which the master publishes after the real call
 *    returns, and recorded by each thread itself (gomp_join.c).  No
 *    barrier is added: under OMP_WAIT_POLICY=passive every barrier costs
 *    a sleep and a wake-up.  A nested team (forked inside a region) keeps
 *    the seed's (OPARI's) double barrier instead: the trampoline calls the
 *    real GOMP_barrier after the outlined function and times it (its
 *    workers are not libgomp's pool threads and may exit at once); so does
 *    every team when hardware counters are read (HPROF_COUNTERS: only a
 *    thread itself can read its counters at its part's end).
 *    The master also records "fork" (the wrapper's entry until its own part
 *    of the region starts) and "join" (the release until the real call
 *    returns), beside the region node in its own context.
 *  - GOMP_barrier (and GOMP_barrier_cancel): "barrier" at the call's line.
 *    gcc also calls GOMP_barrier for the implicit barrier at the end of a
 *    static `omp for`, of `single` and of `sections` when no nowait is
 *    given: those become "implicit barrier"s of their construct when the
 *    site is resolved (hp_omp_pragma.h).  The end barriers of dynamic
 *    loops and of sections are calls of GOMP_loop_end/GOMP_sections_end:
 *    "implicit barrier" (all at the construct's line: hp_omp_pragma.h).
 *  - GOMP_taskwait, GOMP_taskwait_depend and GOMP_taskgroup_end:
 *    "taskwait".
 */
#include "hp_gomp.h"
#include "hp_gomp_join.h"

/* ---------------------------------------------------------------- regions */

/* Handed to the real GOMP_parallel* in place of the outlined function's
 * data; lives on the master's stack for the region's duration. */
typedef struct par {
    void *reductions;       /* first: GOMP_parallel_reductions reads it */
    void (*fn)(void *);
    void *data;
    hp_thread *master;
    uint64_t entry, master_end;
    int nested;             /* hprof's own barrier: forked inside a region, or
                             * counters on (a thread reads only its own) */
    int master_part;        /* the master's part awaits the release */
    hp_omp_team team;
    hp_gomp_join join;      /* not nested: the threads' parts */
} par;

/* The end of a thread's part of a nested team's region: the double
 * barrier (see the top of this file).  Every thread of the team calls it,
 * recording or not (t NULL), or the team would hang. */
static void end_with_barrier(par *p, hp_thread *t, hprof_frame *f, const hp_omp_saved *saved)
{
    uint64_t m = hp_event_wait_mark(t), b0 = hp_ticks();
    hp_gomp.barrier();
    if (!t)
        return;
    uint64_t b1 = hp_ticks();
    hp_event_wait(t, hp_omp_site(t, (uintptr_t)p->fn, 1, HP_OMP_IMPLICIT_BARRIER), b1 - b0, m);
    hp_event_team_end(t, f, saved);
    if (t == p->master)
        p->master_end = hp_ticks();
}

static void trampoline(void *arg)
{
    par *p = arg;
    hp_gomp_part_close_previous();   /* this thread's part of the team's last region */
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
    void (*outer)(void *) = hp_gomp_cur_fn;
    hp_gomp_cur_fn = p->fn;
    hp_gomp_run_outlined(p->fn, p->data);
    hp_gomp_cur_fn = outer;
    if (p->nested) {
        end_with_barrier(p, t, &f, &saved);
        return;
    }
    if (!t)
        return;
    uint64_t m = hp_event_wait_mark(t), arrival = hp_ticks();
    uint32_t wait = hp_omp_site(t, (uintptr_t)p->fn, 1, HP_OMP_IMPLICIT_BARRIER);
    if (hp_gomp_part_arrive(&p->join, t, &f, &saved, wait, arrival, m)) {
        if (t == p->master)
            p->master_part = 1;
        return;
    }
    hp_event_team_end(t, &f, &saved);
    if (t == p->master)
        p->master_end = hp_ticks();
}

/* Prepares p for a region of fn, forked by the call returning to ra; 0
 * means pass the call straight through. */
static int par_begin(par *p, uint64_t entry, void (*fn)(void *), void *data, uintptr_t ra)
{
    if (!hp_gomp.barrier)
        return 0;
    hp_thread *t = recorder();
    if (!t)
        return 0;
    p->reductions = NULL;
    p->fn = fn;
    p->data = data;
    p->master = t;
    p->entry = entry;
    p->master_end = 0;
    /* With counters each thread must close its part itself: the thread
     * taking a late part's records could not read the part's counters. */
    p->nested = hp_event_team(t) != 0 || hp_counters_on;
    p->master_part = 0;
    atomic_init(&p->join.arrived, 0);
    hp_event_team_fork(t, &p->team, hp_omp_site(t, (uintptr_t)fn, 1, HP_OMP_PARALLEL), ra,
                       entry);
    return 1;
}

static void par_end(par *p)
{
    if (!p->nested) {
        uint64_t release = hp_gomp_join_release(&p->join);
        if (p->master_part)
            p->master_end = release;
    }
    uint64_t now = hp_ticks();
    hp_thread *t = hp_tls_self;
    if (p->master_end && t == p->master && hp_collecting)
        hp_event_leaf(t, hp_omp_site(t, (uintptr_t)p->fn, 1, HP_OMP_JOIN),
                      now - p->master_end);
    hp_event_team_close(p->master, &p->team);
}

API void GOMP_parallel(void (*fn)(void *), void *data, unsigned num_threads,
                       unsigned flags)
{
    uint64_t entry = hp_ticks();
    par p;
    resolve();
    if (!hp_gomp.parallel) {
        fn(data);     /* no runtime at all: a team of one */
        return;
    }
    if (!par_begin(&p, entry, fn, data, RET)) {
        hp_gomp.parallel(fn, data, num_threads, flags);
        return;
    }
    hp_gomp.parallel(trampoline, &p, num_threads, flags);
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
        if (!hp_gomp.field) {                                                    \
            fn(data);                                                            \
            return;                                                              \
        }                                                                        \
        if (!par_begin(&p, entry, fn, data, RET)) {                                   \
            hp_gomp.field(fn, data, num_threads, start, end, incr, chunk, flags); \
            return;                                                              \
        }                                                                        \
        hp_gomp.field(trampoline, &p, num_threads, start, end, incr, chunk, flags); \
        par_end(&p);                                                             \
    }
#define PAR_LOOP_RT(name, field)                                                 \
    API void name(void (*fn)(void *), void *data, unsigned num_threads, long start, \
                  long end, long incr, unsigned flags)                           \
    {                                                                            \
        uint64_t entry = hp_ticks();                                             \
        par p;                                                                   \
        resolve();                                                               \
        if (!hp_gomp.field) {                                                    \
            fn(data);                                                            \
            return;                                                              \
        }                                                                        \
        if (!par_begin(&p, entry, fn, data, RET)) {                                   \
            hp_gomp.field(fn, data, num_threads, start, end, incr, flags);       \
            return;                                                              \
        }                                                                        \
        hp_gomp.field(trampoline, &p, num_threads, start, end, incr, flags);     \
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
    if (!hp_gomp.sections) {
        fn(data);
        return;
    }
    if (!par_begin(&p, entry, fn, data, RET)) {
        hp_gomp.sections(fn, data, num_threads, count, flags);
        return;
    }
    hp_gomp.sections(trampoline, &p, num_threads, count, flags);
    par_end(&p);
}

/* A region with task reductions: the real call reads the reduction data
 * through the first word of its data and returns the team's size. */
API unsigned GOMP_parallel_reductions(void (*fn)(void *), void *data, unsigned num_threads,
                                      unsigned flags)
{
    uint64_t entry = hp_ticks();
    par p;
    resolve();
    if (!hp_gomp.parallel_reductions) {
        fn(data);
        return 1;
    }
    if (!par_begin(&p, entry, fn, data, RET))
        return hp_gomp.parallel_reductions(fn, data, num_threads, flags);
    p.reductions = *(void **)data;
    unsigned n = hp_gomp.parallel_reductions(trampoline, &p, num_threads, flags);
    par_end(&p);
    return n;
}

API void GOMP_barrier(void)
{
    TIMED_VOID(hp_gomp.barrier(), barrier, RET, HP_OMP_BARRIER);
}

API bool GOMP_barrier_cancel(void)
{
    TIMED_VALUE(bool, hp_gomp.barrier_cancel(), barrier_cancel, RET, HP_OMP_BARRIER, false);
}

API void GOMP_loop_end(void)
{
    TIMED_VOID(hp_gomp.loop_end(), loop_end, RET, HP_OMP_IMPLICIT_BARRIER);
}

API bool GOMP_loop_end_cancel(void)
{
    TIMED_VALUE(bool, hp_gomp.loop_end_cancel(), loop_end_cancel, RET,
                HP_OMP_IMPLICIT_BARRIER, false);
}

API void GOMP_sections_end(void)
{
    TIMED_VOID(hp_gomp.sections_end(), sections_end, RET, HP_OMP_IMPLICIT_BARRIER);
}

API bool GOMP_sections_end_cancel(void)
{
    TIMED_VALUE(bool, hp_gomp.sections_end_cancel(), sections_end_cancel, RET,
                HP_OMP_IMPLICIT_BARRIER, false);
}

API void GOMP_taskwait(void)
{
    TIMED_VOID(hp_gomp.taskwait(), taskwait, RET, HP_OMP_TASKWAIT);
}

API void GOMP_taskwait_depend(void **depend)
{
    TIMED_VOID(hp_gomp.taskwait_depend(depend), taskwait_depend, RET, HP_OMP_TASKWAIT);
}

API void GOMP_taskgroup_end(void)
{
    TIMED_VOID(hp_gomp.taskgroup_end(), taskgroup_end, RET, HP_OMP_TASKWAIT);
}
