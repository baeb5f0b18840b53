/*
 * critical_reps.c - tests/omp/src/critical.c repeated REPS times after a
 * warm-up region: every thread of a team of NT enters a critical section
 * (then a lock) right after a barrier and holds it HOLD_MS.  A worker
 * woken from a barrier can be late by milliseconds on a loaded VM, which
 * shortens the others' queueing; repeating averages that out.  Waits sum
 * to REPS x HOLD_MS x (0 + 1 + ... + NT-1), holds to REPS x NT x HOLD_MS.
 */
#include <mpi.h>
#include <omp.h>
#include <stdio.h>
#include <time.h>

#define HOLD_MS 20
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
    int provided, rank, nt = 0, entered = 0;
    omp_lock_t lock;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    omp_init_lock(&lock);
#pragma omp parallel
    spin_ms(5);
#pragma omp parallel /* MARK:crr-region */
    for (int r = 0; r < REPS; r++) {
#pragma omp barrier
#pragma omp critical /* MARK:crr-critical */
        {
            spin_ms(HOLD_MS);
            entered++;
        }
#pragma omp barrier
        omp_set_lock(&lock); /* MARK:crr-lock */
        spin_ms(HOLD_MS);
        omp_unset_lock(&lock);
#pragma omp single
        nt = omp_get_num_threads();
    }
    omp_destroy_lock(&lock);
    if (rank == 0)
        printf("critical_reps: %d threads, %d entries\n", nt, entered);
    MPI_Finalize();
    return 0;
}
