/*
 * imbalance.c - ground truth for per-thread OpenMP records: a parallel
 * loop with one iteration per thread (schedule(static, 1)) where thread i
 * spins i x STEP_MS, run REPS times.  Per region and thread: work i x
 * STEP_MS, wait at the end barrier (NT - 1 - i) x STEP_MS.  MPI is used
 * only to be a hybrid program like the others (1 or more ranks).
 */
#include <mpi.h>
#include <omp.h>
#include <stdio.h>
#include <time.h>

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

int main(int argc, char **argv)
{
    int provided, rank, nt = 0;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    for (int r = 0; r < REPS; r++) {
#pragma omp parallel for schedule(static, 1) /* MARK:imb-region */
        for (int i = 0; i < omp_get_num_threads(); i++) {
            spin_ms(i * STEP_MS);
            if (i == 0)
                nt = omp_get_num_threads();
        }
    }
    if (rank == 0)
        printf("imbalance: %d threads, %d regions\n", nt, REPS);
    MPI_Finalize();
    return 0;
}
