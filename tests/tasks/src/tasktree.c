/*
 * tasktree.c - ground truth for the task tree: who creates which tasks.
 * Inside one single region (MARK:tree-region):
 *  - fib(N) with a cutoff: every call with n >= CUT creates a task at
 *    MARK:tree-a running fib(n - 1) and one at MARK:tree-b running
 *    fib(n - 2), then waits; the program counts, serially, the calls, and
 *    the a and b tasks whose argument is >= CUT (those create two tasks
 *    each), so every (parent construct, child construct) count is known;
 *  - UNTIED untied tasks (MARK:tree-untied);
 *  - one final task (MARK:tree-final) creating FINAL included tasks
 *    (MARK:tree-inner);
 *  - one if(0) task (MARK:tree-if0), run at once by its creator.
 * It prints the results and the expected counts.
 */
#include <mpi.h>
#include <omp.h>
#include <stdio.h>

#define N 20
#define CUT 10
#define UNTIED 16
#define FINAL 8

static long fib_serial(int n)
{
    return n < 2 ? n : fib_serial(n - 1) + fib_serial(n - 2);
}

/* Calls of fib with n >= CUT, below fib(n) included. */
static long calls(int n)
{
    return n < CUT ? 0 : 1 + calls(n - 1) + calls(n - 2);
}

/* Tasks at construct a (side 0) or b (side 1) below fib(n) that create
 * tasks themselves (their argument is >= CUT). */
static long creators(int n, int side)
{
    if (n < CUT)
        return 0;
    return (n - 1 - side >= CUT) + creators(n - 1, side) + creators(n - 2, side);
}

static long fib(int n)
{
    if (n < CUT)
        return fib_serial(n);
    long a, b;
#pragma omp task shared(a) /* MARK:tree-a */
    a = fib(n - 1);
#pragma omp task shared(b) /* MARK:tree-b */
    b = fib(n - 2);
#pragma omp taskwait
    return a + b;
}

int main(int argc, char **argv)
{
    int provided, rank;
    long r = 0, untied_sum = 0, inner_sum = 0, if0 = 0;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
#pragma omp parallel /* MARK:tree-region */
    {
#pragma omp single
        {
            r = fib(N);
            for (int k = 0; k < UNTIED; k++) {
#pragma omp task untied shared(untied_sum) /* MARK:tree-untied */
                {
                    long v = fib_serial(15 + k % 3);
#pragma omp atomic
                    untied_sum += v;
                }
            }
#pragma omp taskwait
#pragma omp task final(1) shared(inner_sum) /* MARK:tree-final */
            {
                for (int k = 0; k < FINAL; k++) {
#pragma omp task shared(inner_sum) /* MARK:tree-inner */
                    {
#pragma omp atomic
                        inner_sum += k;
                    }
                }
#pragma omp taskwait
            }
#pragma omp taskwait
#pragma omp task if(0) shared(if0) /* MARK:tree-if0 */
            if0 = omp_in_parallel();
        }
    }
    if (rank == 0)
        printf("fib(%d) = %ld untied %ld inner %ld if0 %ld; calls %ld a %ld b %ld"
               " untied %d final %d\n", N, r, untied_sum, inner_sum, if0, calls(N),
               creators(N, 0), creators(N, 1), UNTIED, FINAL);
    MPI_Finalize();
    return 0;
}
