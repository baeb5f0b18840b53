/*
 * rooted.c - tier-0 call paths (tests/callpath/run.sh) of MPI calls made
 * in main itself, whose frame has a run-time size (a VLA: its CFA rule is
 * based on the frame pointer, so the offsets table cannot walk it and
 * libunwind must): their path is empty (main's caller is the C library's
 * start code), which a return address learns at its first walk, so that
 * its other calls are not walked at all.
 * Ground truth per rank, argument N (default 50): N MPI_Barrier calls at
 * one line (MARK:rooted-barrier) at the root, under no frame; with
 * HPROF_VERBOSE=1, N + 2 walks (MPI_Init's, MPI_Comm_rank's and the
 * barriers'), of which 3 by libunwind (the first from each return
 * address; without the learning, all of them).  Rank 0 prints N.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
    int rank, n = argc > 1 ? atoi(argv[1]) : 50;
    MPI_Init(&argc, &argv);
    volatile char scratch[n > 0 ? n : 1];
    scratch[0] = 1;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    for (int i = 0; i < n; i++)
        MPI_Barrier(MPI_COMM_WORLD); /* MARK:rooted-barrier */
    if (rank == 0)
        printf("rooted: %d barriers (%d)\n", n, scratch[0]);
    MPI_Finalize();
    return 0;
}
