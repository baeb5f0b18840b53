/*
 * critical_reps.c - tests/omp/src/critical.c repeated REPS times after a
 * warm-up region: every thread of a team of NT enters a critical section
 * (then a lock) right after a barrier and holds it HOLD_MS.  A worker
 * woken from a barrier can be late by milliseconds on a loaded VM, which
 * shortens the others' queueing; repeating averages that out.  Waits sum
 * to REPS x HOLD_MS x (0 + 1 + ... + NT-1), holds to REPS x NT x HOLD_MS.
 *
 * Its own measurement (tests/omp/src/truth.h, per thread, summed over the
 * REPS): "crit_wait" from just before the critical construct to its first
 * statement inside, "crit_hold" from there to the end of its last
 * statement inside; "lock_wait" the time in omp_set_lock, "lock_hold" from
 * its return to the call of omp_unset_lock.
 */
#include <mpi.h>
#include <omp.h>
#include <stdio.h>
#include <time.h>

#include "../../omp/src/truth.h"

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

enum { CRIT_WAIT, CRIT_HOLD, LOCK_WAIT, LOCK_HOLD };
static const char *const truth_names[] = {"crit_wait", "crit_hold", "lock_wait", "lock_hold"};

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
        int me = omp_get_thread_num();
#pragma omp barrier
        double s0 = truth_runq_ms(), s1, s2, s3;
        double t0 = truth_now(), t1, t2;
#pragma omp critical /* MARK:crr-critical */
        {
            t1 = truth_now();
            s1 = truth_runq_ms();
            spin_ms(HOLD_MS);
            entered++;
            s2 = truth_runq_ms();
            t2 = truth_now();
        }
        s3 = truth_runq_ms();
        truth_add_delayed(CRIT_WAIT, me, t1 - t0, s1 - s0);
        truth_add_delayed(CRIT_HOLD, me, t2 - t1, (s1 - s0) + (s3 - s2));
#pragma omp barrier
        s0 = truth_runq_ms();
        t0 = truth_now();
        omp_set_lock(&lock); /* MARK:crr-lock */
        t1 = truth_now();
        s1 = truth_runq_ms();
        spin_ms(HOLD_MS);
        s2 = truth_runq_ms();
        t2 = truth_now();
        omp_unset_lock(&lock);
        s3 = truth_runq_ms();
        truth_add_delayed(LOCK_WAIT, me, t1 - t0, s1 - s0);
        truth_add_delayed(LOCK_HOLD, me, t2 - t1, (s1 - s0) + (s3 - s2));
#pragma omp single
        nt = omp_get_num_threads();
    }
    omp_destroy_lock(&lock);
    if (rank == 0)
        printf("critical_reps: %d threads, %d entries\n", nt, entered);
    truth_write(rank, truth_names, 4);
    MPI_Finalize();
    return 0;
}
