/*
 * tests/counters/fake.c - counters through the event boundary, checked
 * with the fake back end (HPROF_COUNTERS_FAKE=1, HPROF_COUNTERS=A,B,
 * HPROF_THROTTLE_CALLS=0): event k of a thread adds exactly k + 1 per
 * interval between two of the thread's reads; a region reads at its begin
 * and its end, an MPI call at its start and its end.
 *
 * Ground truth, on each rank (A = event 0, B = event 1 = 2 x A):
 *   main thread: region "outer" 3 times, each holding region "inner"
 *     twice and one MPI_Barrier:
 *       inner:       6 calls, 1 interval each       -> A = 6,  B = 12
 *       MPI_Barrier: 3 calls, 1 interval each       -> A = 3,  B = 6
 *       outer:       3 calls, 1 + 2*2 + 2 = 7 each  -> A = 21, B = 42
 *   second thread (a pthread): region "worker" 4 times, each holding
 *     region "inner" 5 times:
 *       inner:      20 calls                        -> A = 20, B = 40
 *       worker:      4 calls, 1 + 5*2 = 11 each     -> A = 44, B = 88
 * Prints one line per rank; the same with and without hprof.
 */
#include <mpi.h>
#include <pthread.h>
#include <stdio.h>
#include "hprof.h"

static void inner(void)
{
    hprof_region_begin("inner");
    hprof_region_end("inner");
}

static void *worker(void *arg)
{
    (void)arg;
    for (int i = 0; i < 4; i++) {
        hprof_region_begin("worker");
        for (int j = 0; j < 5; j++)
            inner();
        hprof_region_end("worker");
    }
    return NULL;
}

int main(int argc, char **argv)
{
    int rank, provided;
    pthread_t th;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    for (int i = 0; i < 3; i++) {
        hprof_region_begin("outer");
        inner();
        inner();
        MPI_Barrier(MPI_COMM_WORLD);
        hprof_region_end("outer");
    }
    pthread_create(&th, NULL, worker, NULL);
    pthread_join(th, NULL);
    printf("rank %d done\n", rank);
    MPI_Finalize();
    return 0;
}
