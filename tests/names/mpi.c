/*
 * mpi.c - an MPI program for tests/names/run.sh.  "ok": every rank sends
 * one message to rank 0 and finalizes; rank 0 writes one line of its own
 * to stderr.  "abort": after a barrier, rank 1 calls MPI_Abort (error
 * code 3) while rank 0 waits in an MPI_Recv that nothing matches, so each
 * rank writes its own NAME.rank<N>.hpf.  Ground truth: 1 MPI_Barrier per
 * rank in both modes.
 */
#include <mpi.h>
#include <stdio.h>
#include <string.h>

int main(int argc, char **argv)
{
    int rank, size, x = 0;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Barrier(MPI_COMM_WORLD);
    if (argc > 1 && strcmp(argv[1], "abort") == 0) {
        if (rank == 1)
            MPI_Abort(MPI_COMM_WORLD, 3);
        MPI_Recv(&x, 1, MPI_INT, MPI_ANY_SOURCE, 99, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    }
    if (rank == 0) {
        for (int i = 1; i < size; i++)
            MPI_Recv(&x, 1, MPI_INT, i, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        printf("mpi: %d ranks\n", size);
        fprintf(stderr, "mpi: the program's own stderr line\n");
    } else {
        MPI_Send(&rank, 1, MPI_INT, 0, 0, MPI_COMM_WORLD);
    }
    MPI_Finalize();
    return 0;
}
