/*
 * wrapcost.c - hprof benchmark (bench/run.sh): the cost of one wrapped MPI
 * call that does almost nothing, so the plain and -lhprof builds differ only
 * by the wrapper: 10^6 MPI_Send to MPI_PROC_NULL, 10^6 MPI_Iprobe that
 * find no message, and 10^6/3 rounds of MPI_Irecv + MPI_Isend of 8 bytes
 * to the rank itself + MPI_Waitall (the request tracking: ns per call, 3
 * calls a round).  Each rank runs the loops; rank 0 reports the median over
 * 5 batches of ns per call.  Output: "wrapcost CALL NS_PER_CALL".
 * usage: wrapcost [CALLS]   (default 1000000)
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#define BATCHES 5

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

int main(int argc, char **argv)
{
    int rank;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    long calls = argc > 1 ? atol(argv[1]) : 1000000;
    if (calls < BATCHES)
        calls = BATCHES;
    long per = calls / BATCHES;
    double ns_send[BATCHES], ns_iprobe[BATCHES], ns_self[BATCHES];
    int v = 42, flag, me;
    double out = 1.0, in = 0.0;
    MPI_Request r[2];
    MPI_Comm_rank(MPI_COMM_WORLD, &me);

    MPI_Barrier(MPI_COMM_WORLD);
    for (int b = 0; b < BATCHES; b++) {
        double t0 = MPI_Wtime();
        for (long i = 0; i < per; i++)
            MPI_Send(&v, 1, MPI_INT, MPI_PROC_NULL, 0, MPI_COMM_WORLD);
        ns_send[b] = (MPI_Wtime() - t0) * 1e9 / (double)per;
    }
    MPI_Barrier(MPI_COMM_WORLD);
    for (int b = 0; b < BATCHES; b++) {
        double t0 = MPI_Wtime();
        for (long i = 0; i < per; i++)
            MPI_Iprobe(MPI_ANY_SOURCE, 12345, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE);
        ns_iprobe[b] = (MPI_Wtime() - t0) * 1e9 / (double)per;
    }
    MPI_Barrier(MPI_COMM_WORLD);
    for (int b = 0; b < BATCHES; b++) {
        long rounds = per / 3;
        double t0 = MPI_Wtime();
        for (long i = 0; i < rounds; i++) {
            MPI_Irecv(&in, 1, MPI_DOUBLE, me, 7, MPI_COMM_WORLD, &r[0]);
            MPI_Isend(&out, 1, MPI_DOUBLE, me, 7, MPI_COMM_WORLD, &r[1]);
            MPI_Waitall(2, r, MPI_STATUSES_IGNORE);
        }
        ns_self[b] = (MPI_Wtime() - t0) * 1e9 / (double)(3 * rounds);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    qsort(ns_send, BATCHES, sizeof(double), cmp_double);
    qsort(ns_iprobe, BATCHES, sizeof(double), cmp_double);
    qsort(ns_self, BATCHES, sizeof(double), cmp_double);
    if (rank == 0) {
        printf("wrapcost MPI_Send(PROC_NULL) %.1f\n", ns_send[BATCHES / 2]);
        printf("wrapcost MPI_Iprobe %.1f\n", ns_iprobe[BATCHES / 2]);
        printf("wrapcost Irecv+Isend+Waitall(self) %.1f\n", ns_self[BATCHES / 2]);
    }
    MPI_Finalize();
    return 0;
}
