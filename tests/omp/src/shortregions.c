/*
 * shortregions.c - ground truth for the end of GOMP regions without a
 * barrier of hprof's own: many short regions in a row, as LULESH's time
 * step forks them, and regions whose tasks are still queued when their
 * creator reaches the region's end (libgomp runs them in its end barrier).
 * No MPI: run directly.
 *
 * What the program knows, printed on stdout (identical with and without
 * hprof):
 *   "regions R"  the `parallel for` regions at marker sr-loop it forked
 *                (REGIONS), each thread of the team in each;
 *   "tasked T"   the regions at marker sr-tasks (TASKED);
 *   "tasks N"    the tasks created at marker sr-task by the one thread of
 *                the `single nowait` (TASKED x TASKS), and
 *   "ran N"      the tasks executed (counted by the tasks themselves).
 * Each task spins TASK_US microseconds, so the tasks outlast the other
 * threads' parts of the region: most of them run in the end barrier.
 * usage: shortregions   (OMP_NUM_THREADS threads)
 */
#include <omp.h>
#include <stdio.h>
#include <time.h>

#define REGIONS 3000
#define TASKED 20
#define TASKS 16
#define TASK_US 200
#define N 2048

static double x[N];
static long ran;

static void spin_us(double us)
{
    struct timespec a, b;
    clock_gettime(CLOCK_MONOTONIC, &a);
    do
        clock_gettime(CLOCK_MONOTONIC, &b);
    while ((double)(b.tv_sec - a.tv_sec) * 1e6 + (double)(b.tv_nsec - a.tv_nsec) / 1e3 < us);
}

int main(void)
{
    long regions = 0, tasked = 0, tasks = 0;
    for (int r = 0; r < REGIONS; r++) {
#pragma omp parallel for /* MARK:sr-loop */
        for (int i = 0; i < N; i++)
            x[i] = 0.5 * x[i] + (double)(i % 7);
        regions++;
    }
    for (int r = 0; r < TASKED; r++) {
#pragma omp parallel /* MARK:sr-tasks */
        {
#pragma omp single nowait
            for (int k = 0; k < TASKS; k++) {
#pragma omp atomic
                tasks++;
#pragma omp task /* MARK:sr-task */
                {
                    spin_us(TASK_US);
#pragma omp atomic
                    ran++;
                }
            }
        }
        tasked++;
    }
    double sum = 0;
    for (int i = 0; i < N; i++)
        sum += x[i];
    printf("regions %ld\ntasked %ld\ntasks %ld\nran %ld\nchecksum %.6e\n", regions, tasked,
           tasks, ran, sum);
    return 0;
}
