/*
 * tailwrap.c - tier-0 call paths (tests/callpath/run.sh) of MPI calls
 * made through a wrapper that ends in a tail call of MPI (add_int: at -O2
 * `jmp MPI_Allreduce`, checked by the script), like CoMD's addIntParallel:
 * when the MPI call runs, the wrapper has no frame and the return address
 * is in its caller, at the call of the wrapper.
 * Ground truth per rank, arguments N M (default 5 7): N calls of add_int
 * from sum_atoms, a function inlined into main (MARK:tw-inlined-call), and
 * M from step, a function of its own (MARK:tw-step-call) that main calls
 * (MARK:tw-main-step).  With HPROF_CALLPATH=3 the paths are
 *   sum_atoms@MARK:tw-inlined-call -> MPI_Allreduce@MARK:tw-allreduce (N)
 *   main@MARK:tw-main-step -> step@MARK:tw-step-call
 *                                   -> MPI_Allreduce@MARK:tw-allreduce (M)
 * (the call of the wrapper is a frame named after the function it lies
 * in, an inlined one included; the MPI statement is named after the
 * wrapper's jump); with HPROF_CALLPATH=2 the second loses main's frame.
 * Rank 0 prints "tailwrap: N*size M*size".
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

__attribute__((noipa)) void add_int(int *send, int *recv)
{
    MPI_Allreduce(send, recv, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD); /* MARK:tw-allreduce */
}

static inline __attribute__((always_inline)) int sum_atoms(int *local)
{
    int global = 0;
    add_int(local, &global); /* MARK:tw-inlined-call */
    return global;
}

static __attribute__((noinline)) int step(int *local)
{
    int global = 0;
    add_int(local, &global); /* MARK:tw-step-call */
    return global;
}

int main(int argc, char **argv)
{
    int rank, local = 1, n = argc > 1 ? atoi(argv[1]) : 5, m = argc > 2 ? atoi(argv[2]) : 7;
    long inlined = 0, stepped = 0;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    for (int i = 0; i < n; i++)
        inlined += sum_atoms(&local);
    for (int i = 0; i < m; i++)
        stepped += step(&local); /* MARK:tw-main-step */
    if (rank == 0)
        printf("tailwrap: %ld %ld\n", inlined, stepped);
    MPI_Finalize();
    return 0;
}
