/*
 * critical.c - ground truth for critical sections and omp locks: every
 * thread of a team of NT enters a critical section (then a lock) at the
 * same moment and holds it HOLD_MS.  The holds sum to NT x HOLD_MS and the
 * waits, however the threads queue, to HOLD_MS x (0 + 1 + ... + NT-1).
 */
#include <mpi.h>
#include <omp.h>
#include <stdio.h>
#include <time.h>

#define HOLD_MS 30

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
    int provided, rank, nt = 0, entered = 0;
    omp_lock_t lock;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    omp_init_lock(&lock);
#pragma omp parallel /* MARK:crit-region */
    {
#pragma omp barrier
#pragma omp critical /* MARK:crit-critical */
        {
            spin_ms(HOLD_MS);
            entered++;
        }
#pragma omp barrier
        omp_set_lock(&lock); /* MARK:crit-lock */
        spin_ms(HOLD_MS);
        omp_unset_lock(&lock); /* MARK:crit-unlock */
#pragma omp single
        nt = omp_get_num_threads();
    }
    omp_destroy_lock(&lock);
    if (rank == 0)
        printf("critical: %d threads, %d entries\n", nt, entered);
    MPI_Finalize();
    return 0;
}
