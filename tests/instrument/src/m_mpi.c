/* m_mpi.c - an MPI+OpenMP program that calls MPI through its own wrapper
 * functions (named with --comm-func), with loops and nested procedures;
 * run under mpirun with the runtime. */
#include <mpi.h>
#include <stdio.h>

static int rank, size;

static void xchg(double *buf, int n)        /* the project's wrapper */
{
    int peer = (rank + 1) % size, from = (rank + size - 1) % size;
    MPI_Sendrecv_replace(buf, n, MPI_DOUBLE, peer, 7, from, 7,
                         MPI_COMM_WORLD, MPI_STATUS_IGNORE);
}

static double total(double v)               /* another wrapper */
{
    double t = 0;
    MPI_Allreduce(&v, &t, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    return t;
}

static double relax(double *u, int n)
{
    double s = 0;
    int i;
#pragma omp parallel for reduction(+:s)
    for (i = 1; i < n - 1; i++)
        s += 0.5 * (u[i - 1] + u[i + 1]);
    return s;
}

int main(int argc, char **argv)
{
    double u[32], r = 0;
    int it, i;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    for (i = 0; i < 32; i++)
        u[i] = rank + i;
    for (it = 0; it < 5; it++) {
        xchg(u, 32);
        r += relax(u, 32);
        MPI_Barrier(MPI_COMM_WORLD);
    }
    r = total(r);
    if (rank == 0)
        printf("%.1f\n", r);
    MPI_Finalize();
    return 0;
}
