/*
 * ompbench.c - an EPCC-syncbench-like measure of OpenMP overheads: the
 * time of an empty parallel region, of a barrier, and of a tiny task
 * (created by one thread, run by the team), each repeated REPS times, in
 * microseconds per construct.  bench/run.sh builds it plain and
 * with -lhprof, with gcc (GOMP interposition) and clang (OMPT), and runs
 * the variants alternately.
 */
#include <mpi.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>

static volatile int sink;

static void delay(int n)
{
    for (int i = 0; i < n; i++)
        sink += i;
}

int main(int argc, char **argv)
{
    int provided, rank, reps = argc > 1 ? atoi(argv[1]) : 20000;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    for (int warm = 0; warm < 100; warm++) {
#pragma omp parallel
        delay(10);
    }
    double t0 = omp_get_wtime();
    for (int r = 0; r < reps; r++) {
#pragma omp parallel
        delay(10);
    }
    double t1 = omp_get_wtime();
#pragma omp parallel
    for (int r = 0; r < reps; r++) {
        delay(10);
#pragma omp barrier
    }
    double t2 = omp_get_wtime();
#pragma omp parallel
#pragma omp single
    {
        for (int r = 0; r < reps; r++) {
#pragma omp task
            delay(10);
        }
#pragma omp taskwait
    }
    double t3 = omp_get_wtime();
    if (rank == 0)
        printf("ompbench parallel %.3f barrier %.3f task %.3f\n", (t1 - t0) / reps * 1e6,
               (t2 - t1) / reps * 1e6, (t3 - t2) / reps * 1e6);
    MPI_Finalize();
    return 0;
}
