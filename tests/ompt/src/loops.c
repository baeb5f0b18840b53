/*
 * loops.c - worksharing loops whose records libomp reports away from the
 * construct's pragma: combined `parallel for` loops with a dynamic,
 * guided or ordered schedule (libomp reports them at the dispatch call,
 * which clang puts on the `for` statement's line, one line or more below
 * the pragma), and an `omp for reduction` (libomp waits for the team in
 * __kmpc_end_reduce, or in __kmpc_reduce with the tree method, before the
 * construct's own end barrier).
 *
 * Ground truth, per rank, with T = omp_get_max_threads() (printed) and
 * REPS repetitions; every thread of a team takes part in each loop:
 *  - "loop" T x REPS at each of MARK loops-dyn, loops-ord, loops-guided,
 *    loops-multi (a pragma continued on the next line: its first line)
 *    and loops-red, and at no other line;
 *  - "ordered" (hold) ITERS x REPS at loops-ordered;
 *  - loops-red: one "implicit barrier" per thread and entry (T x REPS) and
 *    one "reduction" wait per thread and entry (T x REPS), at its pragma;
 *    no "reduction" anywhere else (the other loops have none);
 *  - output "loops: threads T sum S" where S = REPS x ITERS x (ITERS - 1) / 2
 *    (the reduction's result, checked by the program itself: "ok").
 */
#include <mpi.h>
#include <omp.h>
#include <stdio.h>

#define REPS 20
#define ITERS 200

static double a[ITERS];

int main(int argc, char **argv)
{
    int provided, rank;
    long sum = 0, ordered_sum = 0;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    for (int r = 0; r < REPS; r++) {
#pragma omp parallel for schedule(dynamic) /* loops-dyn */
        for (int i = 0; i < ITERS; i++)
            a[i] += i * 0.5;
#pragma omp parallel for ordered /* loops-ord */
        for (int i = 0; i < ITERS; i++) {
            a[i] *= 1.01;
#pragma omp ordered /* loops-ordered */
            ordered_sum += i;
        }
#pragma omp parallel for schedule(guided) /* loops-guided */
        for (int i = 0; i < ITERS; i++)
            a[i] -= 0.25;
#pragma omp parallel for /* loops-multi */ \
    schedule(dynamic, 4)
        for (int i = 0; i < ITERS; i++)
            a[i] *= 0.99;
#pragma omp parallel
        {
#pragma omp for reduction(+:sum) /* loops-red */
            for (int i = 0; i < ITERS; i++)
                sum += i;
        }
    }
    long expect = (long)REPS * ITERS * (ITERS - 1) / 2;
    if (rank == 0)
        printf("loops: threads %d sum %ld %s\n", omp_get_max_threads(), sum,
               sum == expect && ordered_sum == expect ? "ok" : "WRONG");
    MPI_Finalize();
    return 0;
}
