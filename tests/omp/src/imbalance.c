/*
 * imbalance.c - ground truth for per-thread OpenMP records: a parallel
 * loop with one iteration per thread (schedule(static, 1)) where thread i
 * spins i x STEP_MS, run REPS times.  Per region and thread: work i x
 * STEP_MS, wait at the end barrier (NT - 1 - i) x STEP_MS.  MPI is used
 * only to be a hybrid program like the others (1 or more ranks).
 *
 * Its own measurement (truth.h, per thread, summed over the regions):
 * "work" the time of its iteration; "barrier_lo" the time from the end of
 * its iteration to the end of the team's last one (the least it can wait
 * at the end barrier), "barrier_hi" to the master's first statement after
 * the region (the most: the master leaves only after every thread left the
 * barrier); "wall" (master) the time from just before the pragma to just
 * after the region (fork + region + join).
 */
#include <mpi.h>
#include <omp.h>
#include <stdio.h>
#include <time.h>

#include "truth.h"

#define STEP_MS 20
#define REPS 3

static void spin_ms(double ms)
{
    struct timespec a, b;
    clock_gettime(CLOCK_MONOTONIC, &a);
    do
        clock_gettime(CLOCK_MONOTONIC, &b);
    while ((double)(b.tv_sec - a.tv_sec) * 1e3 + (double)(b.tv_nsec - a.tv_nsec) / 1e6 < ms);
}

enum { WORK, BARRIER_LO, BARRIER_HI, WALL };
static const char *const truth_names[] = {"work", "barrier_lo", "barrier_hi", "wall"};

/* After a region: each thread's least and most end-barrier wait. */
static void add_barrier_bounds(const double *end, int nt, double after)
{
    double last = end[0];
    for (int k = 1; k < nt; k++)
        if (end[k] > last)
            last = end[k];
    for (int k = 0; k < nt; k++) {
        truth_add(BARRIER_LO, k, last - end[k]);
        truth_add(BARRIER_HI, k, after - end[k]);
    }
}

int main(int argc, char **argv)
{
    int provided, rank, nt = 0;
    double end[TRUTH_THREADS];
    MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    for (int r = 0; r < REPS; r++) {
        double before = truth_now();
#pragma omp parallel for schedule(static, 1) /* MARK:imb-region */
        for (int i = 0; i < omp_get_num_threads(); i++) {
            double t0 = truth_now();
            spin_ms(i * STEP_MS);
            if (i == 0)
                nt = omp_get_num_threads();
            end[i] = truth_now();
            truth_add(WORK, i, end[i] - t0);
        }
        double after = truth_now();
        truth_add(WALL, 0, after - before);
        add_barrier_bounds(end, nt, after);
    }
    if (rank == 0)
        printf("imbalance: %d threads, %d regions\n", nt, REPS);
    truth_write(rank, truth_names, 4);
    MPI_Finalize();
    return 0;
}
