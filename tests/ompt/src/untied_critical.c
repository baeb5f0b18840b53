/*
 * untied_critical.c - untied tasks switched out inside a critical section
 * (tests/ompt/run.sh): rec(n) makes an untied task (MARK:uc-task) that
 * enters a critical section (MARK:uc-critical), creates a task there
 * (MARK:uc-inner: a task scheduling point, where libomp may switch the
 * untied task out and resume it later, maybe on another thread), calls
 * rec(n - 1), yields (taskyield) and calls rec(n - 1) again; rec(n) waits
 * for its task (MARK:uc-taskwait).  The program runs rec(DEPTH) in a
 * parallel region R times (argument 1, default 1): each run gives libomp
 * many chances to end an untied task's last part on one thread while its
 * previous part is still finishing on another (it then reports the
 * completion from that other thread).  Ground truth, counts over the
 * threads, T = R x (2^DEPTH - 1):
 *   untied tasks created and executed at uc-task      T each
 *   critical entries and critical waits at uc-critical T each
 *   inner tasks created and executed at uc-inner      T each
 *   taskwaits at uc-taskwait                          T
 * and every profile invariant (hprof-query --check) holds: a hold a task
 * leaves by a switch ends there.  Output "untied_critical: T".
 */
#include <mpi.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>

#define DEPTH 8

static volatile double sink;
static int entries;

static void burn(int n)
{
    double x = 0;
    for (int i = 0; i < n; i++)
        x += i * 0.5;
    sink = x;
}

static void rec(int n)
{
    if (n == 0) {
        burn(1000);
        return;
    }
#pragma omp task untied /* MARK:uc-task */
    {
#pragma omp critical /* MARK:uc-critical */
        {
            entries++;
#pragma omp task /* MARK:uc-inner */
            burn(500);
            burn(200);
        }
        rec(n - 1);
#pragma omp taskyield
        rec(n - 1);
    }
#pragma omp taskwait /* MARK:uc-taskwait */
}

int main(int argc, char **argv)
{
    int provided, rank;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    int runs = argc > 1 ? atoi(argv[1]) : 1;
    for (int r = 0; r < runs; r++) {
#pragma omp parallel
#pragma omp single
        rec(DEPTH);
    }
    if (rank == 0)
        printf("untied_critical: %d\n", entries);
    MPI_Finalize();
    return 0;
}
