/* m_local.c - local MPI calls in instrumented code (tier 2): the query
 * MPI_Comm_rank and MPI_Dims_create (4 calls per rank, in a loop) are call
 * statements, MPI_Allreduce is a communication statement; MPI_Init and
 * MPI_Finalize get no site.  Run on 2 ranks. */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv)
{
    int rank, size, i, sum = 0, total = 0;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    for (i = 0; i < 4; i++) {
        int dims[2] = {0, 0};
        MPI_Dims_create(size * (i + 1), 2, dims);
        sum += dims[0] * 10 + dims[1];
    }
    MPI_Allreduce(&sum, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0)
        printf("%d\n", total);
    MPI_Finalize();
    return 0;
}
