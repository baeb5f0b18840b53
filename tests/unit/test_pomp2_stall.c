/*
 * test_pomp2_stall.c - invariant (a) of the POMP2 source (pomp2_*.c)
 * under a stall at any point of a region: a node's children add up to at
 * most its time, per region instance, exactly.
 *
 * The clock is this file's own: hp_ticks() reads CLOCK_MONOTONIC here
 * (no TSC set up), and clock_gettime below counts the readings, each one
 * STEP ns after the last, except reading number k, which comes STALL ns
 * later: the thread was preempted (or interrupted) just before it.  Each
 * region instance stalls at another reading k = 1, 2, ... past every
 * reading of the instance, so every gap between two readings of the
 * runtime is hit once.  Two shapes, in the order opari2 emits their
 * events (C and Fortran alike):
 *  - `parallel for`: fork, begin, For_enter, Implicit_barrier_enter/exit
 *    (the loop's), For_exit, end, join - "loop" and "implicit barrier"
 *    of the same region under "parallel";
 *  - `parallel` + `for`: the same with the loop its own region, and the
 *    region's own implicit barrier after For_exit;
 *  - `parallel` with sections (one section), single, critical and an
 *    explicit barrier, each with its events and implicit barrier.
 * Ground truth: for every instance and every node, the children's time
 * (delta over the instance) <= the node's time, to the tick.  The stall
 * between the implicit barrier's first reading and the closing of the
 * loop's frame counted twice (in "loop" and in "implicit barrier") before
 * the fix: the children exceeded "parallel" by STALL - 3 STEP.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <setjmp.h>
#include <time.h>
#include <cmocka.h>
#include "hp_clock.h"
#include "hp_event.h"
#include "hp_site.h"
#include "hp_thread.h"

typedef void *POMP2_Region_handle;
typedef int64_t POMP2_Task_handle;
void POMP2_Parallel_fork(POMP2_Region_handle *h, int if_clause, int num_threads,
                         POMP2_Task_handle *old_task, const char ctc[]);
void POMP2_Parallel_begin(POMP2_Region_handle *h);
void POMP2_Parallel_end(POMP2_Region_handle *h);
void POMP2_Parallel_join(POMP2_Region_handle *h, POMP2_Task_handle old_task);
void POMP2_For_enter(POMP2_Region_handle *h, const char ctc[]);
void POMP2_For_exit(POMP2_Region_handle *h);
void POMP2_Implicit_barrier_enter(POMP2_Region_handle *h, POMP2_Task_handle *old_task);
void POMP2_Implicit_barrier_exit(POMP2_Region_handle *h, POMP2_Task_handle old_task);
void POMP2_Sections_enter(POMP2_Region_handle *h, const char ctc[]);
void POMP2_Sections_exit(POMP2_Region_handle *h);
void POMP2_Section_begin(POMP2_Region_handle *h, const char ctc[]);
void POMP2_Section_end(POMP2_Region_handle *h);
void POMP2_Single_enter(POMP2_Region_handle *h, const char ctc[]);
void POMP2_Single_begin(POMP2_Region_handle *h);
void POMP2_Single_end(POMP2_Region_handle *h);
void POMP2_Single_exit(POMP2_Region_handle *h);
void POMP2_Critical_enter(POMP2_Region_handle *h, const char ctc[]);
void POMP2_Critical_begin(POMP2_Region_handle *h);
void POMP2_Critical_end(POMP2_Region_handle *h);
void POMP2_Critical_exit(POMP2_Region_handle *h);
void POMP2_Barrier_enter(POMP2_Region_handle *h, POMP2_Task_handle *old_task, const char ctc[]);
void POMP2_Barrier_exit(POMP2_Region_handle *h, POMP2_Task_handle old_task);

/* ------------------------------------------------------- the fake clock */

#define STEP 10u            /* ns between two readings */
#define STALL 1000000u      /* ns of the stall */
#define READINGS 80         /* more than one instance takes */

static uint64_t now_ns = 1000000000u, readings, stall_at;

int clock_gettime(clockid_t id, struct timespec *ts)
{
    (void)id;
    now_ns += STEP;
    if (++readings == stall_at)
        now_ns += STALL;
    ts->tv_sec = (time_t)(now_ns / 1000000000u);
    ts->tv_nsec = (long)(now_ns % 1000000000u);
    return 0;
}

/* ---------------------------------------------------------- the records */

static int fresh(void **state)
{
    (void)state;
    hp_clock_use_tsc = 0;
    hp_threads_free_all();
    hp_records_set_max_nodes(1000000);
    hp_throttle_set(0, 0);
    hp_collecting = 1;
    return 0;
}

static uint64_t *before;
static uint32_t nbefore;

static void mark(void)
{
    hp_thread *t = hp_thread_self();
    free(before);
    before = calloc(t->nnodes + 1, sizeof *before);
    assert_non_null(before);
    nbefore = t->nnodes;
    for (uint32_t i = 0; i < nbefore; i++)
        before[i] = hp_node_at(t, i)->ticks;
}

static uint64_t delta(hp_thread *t, uint32_t i)
{
    return hp_node_at(t, i)->ticks - (i < nbefore ? before[i] : 0);
}

/* Invariant (a) over the instance since mark(), to the tick; k: the
 * reading that stalled. */
static void check_children(uint64_t k)
{
    hp_thread *t = hp_thread_self();
    for (uint32_t p = 1; p < t->nnodes; p++) {
        uint64_t kids = 0;
        for (uint32_t c = 1; c < t->nnodes; c++)
            if (hp_node_at(t, c)->parent == p)
                kids += delta(t, c);
        if (kids > delta(t, p))
            fail_msg("stall at reading %llu: node %u (site %u) has children of %llu ns, "
                     "itself %llu ns",
                     (unsigned long long)k, p, hp_node_at(t, p)->site,
                     (unsigned long long)kids, (unsigned long long)delta(t, p));
    }
}

/* ----------------------------------------------------------- the shapes */

#define CTC_PARFOR "63*regionType=parallelfor*sscl=stall.c:10:10*escl=stall.c:14:14**"
#define CTC_PAR "60*regionType=parallel*sscl=stall.c:20:20*escl=stall.c:30:30**"
#define CTC_FOR "55*regionType=for*sscl=stall.c:21:21*escl=stall.c:25:25**"

static POMP2_Region_handle parfor, par, loop;

/* #pragma omp parallel for */
static void parallel_for(void)
{
    POMP2_Task_handle task = 0;
    POMP2_Parallel_fork(&parfor, 1, 1, &task, CTC_PARFOR);
    POMP2_Parallel_begin(&parfor);
    POMP2_For_enter(&parfor, CTC_PARFOR);
    POMP2_Implicit_barrier_enter(&parfor, &task);
    POMP2_Implicit_barrier_exit(&parfor, task);
    POMP2_For_exit(&parfor);
    POMP2_Parallel_end(&parfor);
    POMP2_Parallel_join(&parfor, task);
}

/* #pragma omp parallel { #pragma omp for ... } */
static void parallel_then_for(void)
{
    POMP2_Task_handle task = 0;
    POMP2_Parallel_fork(&par, 1, 1, &task, CTC_PAR);
    POMP2_Parallel_begin(&par);
    POMP2_For_enter(&loop, CTC_FOR);
    POMP2_Implicit_barrier_enter(&loop, &task);
    POMP2_Implicit_barrier_exit(&loop, task);
    POMP2_For_exit(&loop);
    POMP2_Implicit_barrier_enter(&par, &task);
    POMP2_Implicit_barrier_exit(&par, task);
    POMP2_Parallel_end(&par);
    POMP2_Parallel_join(&par, task);
}

#define CTC_PAR2 "60*regionType=parallel*sscl=stall.c:40:40*escl=stall.c:60:60**"
#define CTC_SECS "74*regionType=sections*sscl=stall.c:41:41*escl=stall.c:45:45*numSections=1**"
#define CTC_SINGLE "58*regionType=single*sscl=stall.c:46:46*escl=stall.c:48:48**"
#define CTC_CRIT "60*regionType=critical*sscl=stall.c:49:49*escl=stall.c:51:51**"
#define CTC_BAR "59*regionType=barrier*sscl=stall.c:52:52*escl=stall.c:52:52**"

static POMP2_Region_handle par2, secs, single, crit, bar;

/* #pragma omp parallel { sections { section }, single, critical,
 * barrier } */
static void parallel_constructs(void)
{
    POMP2_Task_handle task = 0;
    POMP2_Parallel_fork(&par2, 1, 1, &task, CTC_PAR2);
    POMP2_Parallel_begin(&par2);
    POMP2_Sections_enter(&secs, CTC_SECS);
    POMP2_Section_begin(&secs, CTC_SECS);
    POMP2_Section_end(&secs);
    POMP2_Implicit_barrier_enter(&secs, &task);
    POMP2_Implicit_barrier_exit(&secs, task);
    POMP2_Sections_exit(&secs);
    POMP2_Single_enter(&single, CTC_SINGLE);
    POMP2_Single_begin(&single);
    POMP2_Single_end(&single);
    POMP2_Implicit_barrier_enter(&single, &task);
    POMP2_Implicit_barrier_exit(&single, task);
    POMP2_Single_exit(&single);
    POMP2_Critical_enter(&crit, CTC_CRIT);
    POMP2_Critical_begin(&crit);
    POMP2_Critical_end(&crit);
    POMP2_Critical_exit(&crit);
    POMP2_Barrier_enter(&bar, &task, CTC_BAR);
    POMP2_Barrier_exit(&bar, task);
    POMP2_Implicit_barrier_enter(&par2, &task);
    POMP2_Implicit_barrier_exit(&par2, task);
    POMP2_Parallel_end(&par2);
    POMP2_Parallel_join(&par2, task);
}

static void stall_everywhere(void (*region)(void))
{
    region();   /* nodes and sites made, the POMP2 source set up */
    for (uint64_t k = 1; k <= READINGS; k++) {
        mark();
        readings = 0;
        stall_at = k;
        region();
        stall_at = 0;
        check_children(k);
    }
}

static void test_parallel_for(void **state)
{
    (void)state;
    stall_everywhere(parallel_for);
}

static void test_parallel_then_for(void **state)
{
    (void)state;
    stall_everywhere(parallel_then_for);
}

/* The POMP2 source started the runtime: with no records left, its end
 * of run writes no profile. */
static int no_profile(void **state)
{
    (void)state;
    hp_threads_free_all();
    return 0;
}

static void test_parallel_constructs(void **state)
{
    (void)state;
    stall_everywhere(parallel_constructs);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup(test_parallel_for, fresh),
        cmocka_unit_test_setup(test_parallel_then_for, fresh),
        cmocka_unit_test_setup(test_parallel_constructs, fresh),
    };
    return cmocka_run_group_tests(tests, NULL, no_profile);
}
