/*
 * death.c - ranks that end without MPI_Finalize, each its own way (mode
 * in argv[1]); tests/death/run.sh runs them with and without hprof.
 * Ground truth: every rank calls MPI_Barrier once (d-barrier), then
 *   return:  returns from main (0) without MPI_Finalize;
 *   exit3:   calls exit(3);
 *   send99:  rank 1 calls MPI_Send to rank 99 once (d-send): under the
 *            default MPI_ERRORS_ARE_FATAL the MPI library ends it (Open
 *            MPI: its message, status 6); the others wait in a second
 *            barrier (d-wait) until the launcher ends them;
 *   segv:    rank 1 stores through a null pointer (d-segv); the others
 *            wait in the second barrier;
 *   finalize: calls MPI_Finalize and returns 0 (the profile written
 *            collectively, or per rank when that fails).
 * Each prints "death: rank R of N" before it ends its own way.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char **argv)
{
    int rank, size, x = 0;
    const char *mode = argc > 1 ? argv[1] : "return";
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Barrier(MPI_COMM_WORLD); /* MARK:d-barrier */
    printf("death: rank %d of %d\n", rank, size);
    fflush(stdout);
    if (strcmp(mode, "exit3") == 0)
        exit(3);
    if (strcmp(mode, "send99") == 0 && rank == 1)
        MPI_Send(&x, 1, MPI_INT, 99, 0, MPI_COMM_WORLD); /* MARK:d-send */
    if (strcmp(mode, "segv") == 0 && rank == 1)
        *(volatile int *)(argc > 1000 ? (void *)&x : NULL) = 1; /* MARK:d-segv */
    if (strcmp(mode, "send99") == 0 || strcmp(mode, "segv") == 0)
        MPI_Barrier(MPI_COMM_WORLD); /* MARK:d-wait */
    if (strcmp(mode, "finalize") == 0)
        MPI_Finalize();
    return 0;
}
