/*
 * constructs.c - execution counts of sections, single and master, an
 * explicit barrier, and a nested parallel region (2 levels active), all
 * REPS times in one outer region.
 */
#include <mpi.h>
#include <omp.h>
#include <stdio.h>

#define REPS 5

int main(int argc, char **argv)
{
    int provided, rank, nt = 0, inner = 0;
    int sec[3] = {0, 0, 0}, singles = 0, masters = 0;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    omp_set_max_active_levels(2);
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
    if (rank == 0)
        printf("constructs: %d threads, sections %d %d %d, single %d, master %d, inner %d\n",
               nt, sec[0], sec[1], sec[2], singles, masters, inner);
    MPI_Finalize();
    return 0;
}
