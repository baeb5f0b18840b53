/*
 * fib.c - ground truth for OpenMP tasks: fib(N) where every call with
 * n >= CUT creates two tasks (MARK:fib-task-a, MARK:fib-task-b) and waits
 * for them (MARK:fib-taskwait); below CUT it recurses serially.  The
 * number of such calls is computed serially and printed, so the tasks
 * created and executed at each construct and the taskwaits are known.
 */
#include <mpi.h>
#include <omp.h>
#include <stdio.h>

#define N 22
#define CUT 12

static long fib_serial(int n)
{
    return n < 2 ? n : fib_serial(n - 1) + fib_serial(n - 2);
}

static long calls(int n)
{
    return n < CUT ? 0 : 1 + calls(n - 1) + calls(n - 2);
}

static long fib(int n)
{
    if (n < CUT)
        return fib_serial(n);
    long a, b;
#pragma omp task shared(a) /* MARK:fib-task-a */
    a = fib(n - 1);
#pragma omp task shared(b) /* MARK:fib-task-b */
    b = fib(n - 2);
#pragma omp taskwait /* MARK:fib-taskwait */
    return a + b;
}

int main(int argc, char **argv)
{
    int provided, rank;
    long r = 0;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
#pragma omp parallel /* MARK:fib-region */
    {
#pragma omp single
        r = fib(N);
    }
    if (rank == 0)
        printf("fib(%d) = %ld, tasks per construct %ld\n", N, r, calls(N));
    MPI_Finalize();
    return 0;
}
