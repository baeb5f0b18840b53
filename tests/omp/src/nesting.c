/*
 * nesting.c - ground truth for OpenMP constructs whose body records: what
 * runs inside a construct lies below its node, never beside it, so a
 * parent's children never exceed it.  One rank, a team of NT = 2 threads:
 *  - critical (MARK nest-critical): every thread enters once and, in the
 *    section, opens the user region "in_critical" (hprof_region_begin, when
 *    linked with hprof) that spins HOLD_MS: per thread one "critical" hold
 *    of HOLD_MS whose child is "in_critical" (1 call, HOLD_MS).
 *  - an omp lock (MARK nest-lock): every thread sets it once and, holding
 *    it, opens the user region "in_lock" that spins LOCK_MS: per thread
 *    one "lock" hold of LOCK_MS whose child is "in_lock" (1 call).
 *  - a worksharing loop (MARK nest-loop, schedule(static, 1), NT
 *    iterations) whose body takes the named critical section MARK
 *    nest-loop-critical and spins CRIT_MS in it: per thread one hold of
 *    CRIT_MS, below the loop's node where the source records loops
 *    (POMP2), and a loop of at least CRIT_MS.
 *  - single (MARK nest-single) whose body creates one task (MARK
 *    nest-task) spinning TASK_MS: one single execution, the creation
 *    below the single's node (POMP2), one execution of TASK_MS.
 * It prints one line, the same with and without hprof.
 *
 * Its own measurement (truth.h, per thread) of those times, which load
 * stretches: "critical" and "lock" (first to last statement of the hold),
 * "in_critical" and "in_lock" (the user regions' spins), "loop_critical"
 * (inside the loop's critical section) and "task" (the task's body).
 */
#include <mpi.h>
#include <omp.h>
#include <stdio.h>
#include <time.h>

#include "truth.h"

#define HOLD_MS 20
#define CRIT_MS 10
#define TASK_MS 10
#define LOCK_MS 10

/* The hprof user API when the program is linked with hprof, else nothing. */
extern void hprof_region_begin(const char *name) __attribute__((weak));
extern void hprof_region_end(const char *name) __attribute__((weak));

static void spin_ms(double ms)
{
    struct timespec a, b;
    clock_gettime(CLOCK_MONOTONIC, &a);
    do
        clock_gettime(CLOCK_MONOTONIC, &b);
    while ((double)(b.tv_sec - a.tv_sec) * 1e3 + (double)(b.tv_nsec - a.tv_nsec) / 1e6 < ms);
}

enum { CRITICAL, IN_CRITICAL, LOCK, IN_LOCK, LOOP_CRITICAL, TASK };
static const char *const truth_names[] = {"critical", "in_critical",   "lock",
                                          "in_lock",  "loop_critical", "task"};

/* A user region named name that spins ms, timed as quantity q. */
static void user_region(const char *name, double ms, int q)
{
    if (hprof_region_begin)
        hprof_region_begin(name);
    double t0 = truth_now();
    spin_ms(ms);
    truth_add(q, omp_get_thread_num(), truth_now() - t0);
    if (hprof_region_end)
        hprof_region_end(name);
}

int main(int argc, char **argv)
{
    int provided, rank, entered = 0, locked = 0, iters = 0, tasks = 0;
    omp_lock_t lock;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    omp_init_lock(&lock);
#pragma omp parallel /* MARK:nest-region */
    {
#pragma omp critical /* MARK:nest-critical */
        {
            double t0 = truth_now();
            user_region("in_critical", HOLD_MS, IN_CRITICAL);
            entered++;
            truth_add(CRITICAL, omp_get_thread_num(), truth_now() - t0);
        }
#pragma omp barrier
        omp_set_lock(&lock); /* MARK:nest-lock */
        double t0 = truth_now();
        user_region("in_lock", LOCK_MS, IN_LOCK);
        locked++;
        truth_add(LOCK, omp_get_thread_num(), truth_now() - t0);
        omp_unset_lock(&lock);
#pragma omp barrier
#pragma omp for schedule(static, 1) /* MARK:nest-loop */
        for (int i = 0; i < omp_get_num_threads(); i++) {
#pragma omp critical(inner) /* MARK:nest-loop-critical */
            {
                double t1 = truth_now();
                spin_ms(CRIT_MS);
                iters++;
                truth_add(LOOP_CRITICAL, omp_get_thread_num(), truth_now() - t1);
            }
        }
#pragma omp single /* MARK:nest-single */
        {
#pragma omp task /* MARK:nest-task */
            {
                double t1 = truth_now();
                spin_ms(TASK_MS);
#pragma omp atomic
                tasks++;
                truth_add(TASK, omp_get_thread_num(), truth_now() - t1);
            }
        }
    }
    omp_destroy_lock(&lock);
    if (rank == 0)
        printf("nesting: %d critical entries, %d lock holds, %d loop iterations, %d task\n",
               entered, locked, iters, tasks);
    truth_write(rank, truth_names, 6);
    MPI_Finalize();
    return 0;
}
