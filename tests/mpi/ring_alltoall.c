/*
 * ring_alltoall.c - hprof integration test (tests/mpi/run.sh): exact
 * per-destination counts and bytes.  Every rank sends K=100 messages of
 * B=1000 doubles to (rank+1)%P and receives as many from (rank-1+P)%P
 * (blocking, even ranks send first so it cannot deadlock), then calls
 * MPI_Alltoall with 10 ints per peer 7 times.  Ground truth per rank r:
 * send site peer (r+1)%P count 100 bytes_sent 800000; receive site peer
 * (r-1+P)%P count 100 bytes_recv 800000; alltoall site per peer q != r
 * count 7 bytes_sent 280 bytes_recv 280, and peer -1 count 7.
 * Needs an even number of ranks.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#define K 100
#define B 1000
#define NA2A 7
#define PER 10

int main(int argc, char **argv)
{
    int rank, size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (size % 2 != 0) {
        if (rank == 0)
            fprintf(stderr, "ring_alltoall: needs an even number of ranks\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    int right = (rank + 1) % size, left = (rank - 1 + size) % size;
    double *out = malloc(sizeof(double) * B), *in = malloc(sizeof(double) * B);
    double acc = 0.0;
    for (int k = 0; k < K; k++) {
        for (int i = 0; i < B; i++)
            out[i] = rank * 1000.0 + k + i * 1e-3;
        if (rank % 2 == 0) {
            MPI_Send(out, B, MPI_DOUBLE, right, k, MPI_COMM_WORLD); /* MARK:ring-send-even */
            MPI_Recv(in, B, MPI_DOUBLE, left, k, MPI_COMM_WORLD, MPI_STATUS_IGNORE); /* MARK:ring-recv-even */
        } else {
            MPI_Recv(in, B, MPI_DOUBLE, left, k, MPI_COMM_WORLD, MPI_STATUS_IGNORE); /* MARK:ring-recv-odd */
            MPI_Send(out, B, MPI_DOUBLE, right, k, MPI_COMM_WORLD); /* MARK:ring-send-odd */
        }
        acc += in[0] + in[B - 1];
    }

    int *a_out = malloc(sizeof(int) * PER * size), *a_in = malloc(sizeof(int) * PER * size);
    long a_sum = 0;
    for (int n = 0; n < NA2A; n++) {
        for (int i = 0; i < PER * size; i++)
            a_out[i] = rank * 100000 + n * 100 + i;
        MPI_Alltoall(a_out, PER, MPI_INT, a_in, PER, MPI_INT, MPI_COMM_WORLD); /* MARK:alltoall */
        for (int i = 0; i < PER * size; i++)
            a_sum += a_in[i];
    }

    double tot_acc;
    long tot_sum;
    MPI_Reduce(&acc, &tot_acc, 1, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
    MPI_Reduce(&a_sum, &tot_sum, 1, MPI_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
    if (rank == 0)
        printf("ring_alltoall: %d ranks, ring checksum %.3f, alltoall checksum %ld\n", size, tot_acc, tot_sum);
    free(out);
    free(in);
    free(a_out);
    free(a_in);
    MPI_Finalize();
    return 0;
}
