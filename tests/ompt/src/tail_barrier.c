/*
 * tail_barrier.c - parallel regions whose last act is the end barrier of
 * a worksharing construct or an explicit barrier: clang ends the outlined
 * function with a tail call (`jmp __kmpc_barrier`), so libomp reports the
 * barrier at its own caller's address, not in the user's code (the BOTS
 * fib and health pattern: `#pragma omp parallel` then `#pragma omp single`
 * around a call).
 *
 * Ground truth, per rank, with T = omp_get_max_threads() (printed) and
 * REPS repetitions of the four regions; every thread of a team reaches
 * every barrier:
 *  - "implicit barrier" T x REPS at each of MARK tb-single, tb-for and
 *    tb-sections (the construct's end), and T x REPS at each region's
 *    pragma (tb-par-single, tb-par-for, tb-par-sections, tb-par-barrier:
 *    the region's end);
 *  - "barrier" T x REPS at tb-barrier and nowhere else;
 *  - "single" REPS at tb-single (executions: one thread each time);
 *  - output "tail_barrier: threads T singles REPS iterations I sections S
 *    arrivals A" with I = REPS x ITERS, S = REPS x 2, A = REPS x T.
 */
#include <mpi.h>
#include <omp.h>
#include <stdio.h>

#define REPS 20
#define ITERS 64

static long singles, iterations, sections, arrivals;

static __attribute__((noinline)) void count(long *n)
{
#pragma omp atomic
    (*n)++;
}

int main(int argc, char **argv)
{
    int provided, rank;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    for (int r = 0; r < REPS; r++) {
#pragma omp parallel /* tb-par-single */
#pragma omp single /* tb-single */
        count(&singles);
#pragma omp parallel /* tb-par-for */
        {
#pragma omp for /* tb-for */
            for (int i = 0; i < ITERS; i++)
                count(&iterations);
        }
#pragma omp parallel /* tb-par-sections */
        {
#pragma omp sections /* tb-sections */
            {
#pragma omp section
                count(&sections);
#pragma omp section
                count(&sections);
            }
        }
#pragma omp parallel /* tb-par-barrier */
        {
            count(&arrivals);
#pragma omp barrier /* tb-barrier */
        }
    }
    if (rank == 0)
        printf("tail_barrier: threads %d singles %ld iterations %ld sections %ld arrivals %ld\n",
               omp_get_max_threads(), singles, iterations, sections, arrivals);
    MPI_Finalize();
    return 0;
}
