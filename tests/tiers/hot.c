/*
 * hot.c - ground truth for throttling and HPROF_FILTER (tests/tiers/run.sh):
 * a tiny function `hot` called HOT_CALLS times (throttled by default:
 * counted exactly, no longer timed) and a slow function `cold` called
 * COLD_CALLS times, spinning COLD_US microseconds each (never throttled).
 * The wall time of the loop of hot calls goes to stderr as
 * "hot-wall: rank R loop SECONDS": the (extrapolated) time of the throttled
 * calls must not exceed it.
 *
 * usage: mpirun -np N hot
 */
#include <mpi.h>
#include <stdio.h>
#include <time.h>

#define HOT_CALLS 1000000
#define COLD_CALLS 10
#define COLD_US 1000

static unsigned hot(unsigned x) /* proc-hot */
{
    return x * 2654435761u + 1u;
}

static void cold(void) /* proc-cold */
{
    struct timespec t0, t;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    do
        clock_gettime(CLOCK_MONOTONIC, &t);
    while ((double)(t.tv_sec - t0.tv_sec) * 1e6 + (double)(t.tv_nsec - t0.tv_nsec) / 1e3 < COLD_US);
}

int main(int argc, char **argv)
{
    int rank;
    unsigned acc = 1;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    double t0 = MPI_Wtime();
    for (unsigned i = 0; i < HOT_CALLS; i++)
        acc = hot(acc ^ i); /* call-hot */
    fprintf(stderr, "hot-wall: rank %d loop %.9f\n", rank, MPI_Wtime() - t0);
    for (int i = 0; i < COLD_CALLS; i++)
        cold(); /* call-cold */
    unsigned all;
    MPI_Reduce(&acc, &all, 1, MPI_UNSIGNED, MPI_BXOR, 0, MPI_COMM_WORLD);
    if (rank == 0)
        printf("hot: %d calls, checksum %u\n", HOT_CALLS, all);
    MPI_Finalize();
    return 0;
}
