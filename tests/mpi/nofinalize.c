/*
 * nofinalize.c - a rank that exits without MPI_Finalize: hprof cannot
 * write a collective profile then, and must say so in one line without
 * changing the program's output or exit status.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
    int rank;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Barrier(MPI_COMM_WORLD); /* MARK:nf-barrier */
    printf("nofinalize: rank %d leaves\n", rank);
    fflush(stdout);
    exit(0);
}
