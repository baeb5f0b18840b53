/*
 * phases.c - ground truth for tier-0 call paths (HPROF_CALLPATH): two
 * phases of a program call the same thin wrapper around MPI_Allreduce,
 * as hypre's mpistubs.c or a code's own comm module does.
 *
 *   phases [SETUP SOLVE]     (default 3 and 7)
 *
 * Per rank: setup() calls sum_all() SETUP times, solve() calls it SOLVE
 * times, so the one MPI_Allreduce statement (line marked allreduce) is
 * called SETUP + SOLVE + 2 times: SETUP of them through the call of sum_all
 * in setup (line marked setup-call) and main's call of setup (main-setup),
 * SOLVE through solve's call (solve-call) and main's call of solve
 * (main-solve), and 2 through scratch's call (scratch-call) and main's
 * (main-scratch).  scratch() keeps a variable-length array, so its frame
 * is found from its frame pointer, not at a fixed offset from the stack
 * pointer (the unwinder's other way).  Rank 0 alone prints the sums:
 * setup: SETUP * size * (size - 1) / 2, solve: SOLVE * size, scratch:
 * 2 * size * size.  Built with -O2 and without frame pointers: the paths
 * come from the DWARF call frame information.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

__attribute__((noinline)) static double sum_all(double x)
{
    double sum = 0;
    MPI_Allreduce(&x, &sum, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD); /* allreduce */
    return sum;
}

__attribute__((noinline)) static double setup(int n, int rank)
{
    double total = 0;
    for (int i = 0; i < n; i++)
        total += sum_all(rank); /* setup-call */
    return total;
}

__attribute__((noinline)) static double solve(int n)
{
    double total = 0;
    for (int i = 0; i < n; i++)
        total += sum_all(1.0); /* solve-call */
    return total;
}

__attribute__((noinline)) static double scratch(int n)
{
    volatile double buf[n];     /* a frame of run-time size */
    double total = 0;
    for (int i = 0; i < n; i++)
        buf[i] = i;
    for (int i = 0; i < 2; i++)
        total += sum_all(n + buf[0]); /* scratch-call */
    return total;
}

int main(int argc, char **argv)
{
    int rank, size;
    int nsetup = argc > 2 ? atoi(argv[1]) : 3, nsolve = argc > 2 ? atoi(argv[2]) : 7;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    double a = setup(nsetup, rank); /* main-setup */
    double b = solve(nsolve); /* main-solve */
    double c = scratch(size); /* main-scratch */
    if (rank == 0)
        printf("setup %.0f solve %.0f scratch %.0f\n", a, b, c);
    MPI_Finalize();
    return 0;
}
