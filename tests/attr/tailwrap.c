/*
 * tailwrap.c - the wrappers of tests/attr/tailcall.c, in a translation
 * unit of their own and built with -O2 (by tests/attr/run.sh, with and
 * without -fno-plt, and once as a shared library):
 *   sum_all ends in its MPI_Allreduce, which gcc turns into a tail call
 *   (`jmp MPI_Allreduce`): no frame of sum_all is left when the MPI call
 *   runs, so the return address hprof sees lies in main;
 *   max_of uses the result of its MPI_Allreduce: an ordinary call.
 */
#include <mpi.h>

__attribute__((noinline)) void sum_all(double *x, int n)
{
    MPI_Allreduce(MPI_IN_PLACE, x, n, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD); /* MARK:tail-jmp */
}

__attribute__((noinline)) double max_of(double x)
{
    double m = 0;
    MPI_Allreduce(&x, &m, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD); /* MARK:not-tail */
    return m + 1.0;
}
