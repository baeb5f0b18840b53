/*
 * constructs.c - execution counts of sections, single and master, an
 * explicit barrier, and a nested parallel region (2 levels active), all
 * REPS times in one outer region, which the program runs R times
 * (argument 1, default 1).  Each thread of the outer region forks the
 * nested region (num_threads(2)) at MARK:con-nested: libomp takes a team
 * for it from its pool and gives it back at its end, so the threads of
 * the outer team reuse each other's teams (tests/ompt/run.sh, the OMPT
 * tool's ompt_forked.c).  Ground truth at NT threads, over all threads:
 *   sections construct (MARK:con-sections)  R x REPS per thread
 *   single executed (MARK:con-single)       R x REPS
 *   master executed (MARK:con-master)       R x REPS, by one thread
 *   explicit barrier (MARK:con-barrier)     R x REPS per thread
 *   nested region's implicit tasks          R x REPS x NT x 2
 * Output "constructs: NT threads, sections S S S, single S, master S,
 * inner I" with S = R x REPS, I = R x REPS x NT x 2.
 */
#include <mpi.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>

#define REPS 5

int main(int argc, char **argv)
{
    int provided, rank, nt = 0, inner = 0, runs = argc > 1 ? atoi(argv[1]) : 1;
    int sec[3] = {0, 0, 0}, singles = 0, masters = 0;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    omp_set_max_active_levels(2);
    for (int run = 0; run < runs; run++) {
#pragma omp parallel /* MARK:con-region */
        {
            for (int r = 0; r < REPS; r++) {
#pragma omp sections /* MARK:con-sections */
                {
#pragma omp section
                    sec[0]++;
#pragma omp section
                    sec[1]++;
#pragma omp section
                    sec[2]++;
                }
#pragma omp single /* MARK:con-single */
                singles++;
#pragma omp master /* MARK:con-master */
                masters++;
#pragma omp barrier /* MARK:con-barrier */
#pragma omp parallel num_threads(2) /* MARK:con-nested */
                {
#pragma omp atomic
                    inner++;
                }
            }
#pragma omp single
            nt = omp_get_num_threads();
        }
    }
    if (rank == 0)
        printf("constructs: %d threads, sections %d %d %d, single %d, master %d, inner %d\n",
               nt, sec[0], sec[1], sec[2], singles, masters, inner);
    MPI_Finalize();
    return 0;
}
