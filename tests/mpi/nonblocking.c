/*
 * nonblocking.c - hprof integration test (tests/mpi/run.sh): nonblocking
 * point-to-point, with wait time attributed to the posting line.  On a ring
 * of 3 ranks, every iteration each rank posts MPI_Irecv from both neighbours
 * and MPI_Isend to both (one line each, in a loop over the two neighbours),
 * then completes the receives with one MPI_Waitall and the sends with
 * another.  In iteration 10 rank 1 sleeps 100 ms before its sends.
 * Ground truth for N=50 iterations of 256 doubles, rank r: Isend line peer
 * left and right count 50 bytes_sent 102400 each; Irecv line the same with
 * bytes_recv; both Waitall sites have a node with count 50 and no comm
 * records; rank 0's Irecv line has tran >= 0.1 s in total.
 * Needs exactly 3 ranks.
 */
#include <mpi.h>
#include <stdio.h>
#include <time.h>

#define N 50
#define M 256

static void sleep_ms(long ms)
{
    struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};
    while (nanosleep(&ts, &ts) != 0)
        ;
}

int main(int argc, char **argv)
{
    int rank, size;
    static double out[2][M], in[2][M];
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (size != 3) {
        if (rank == 0)
            fprintf(stderr, "nonblocking: needs exactly 3 ranks\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    int nb[2] = {(rank - 1 + size) % size, (rank + 1) % size}; /* left, right */
    double acc = 0.0;
    for (int it = 0; it < N; it++) {
        MPI_Request rreq[2], sreq[2];
        /* Tag = direction of travel seen from the sender: 0 = to the right, 1 = to the left. */
        for (int k = 0; k < 2; k++)
            MPI_Irecv(in[k], M, MPI_DOUBLE, nb[k], k, MPI_COMM_WORLD, &rreq[k]); /* MARK:nb-irecv */
        if (rank == 1 && it == 10)
            sleep_ms(100);
        for (int k = 0; k < 2; k++) {
            for (int i = 0; i < M; i++)
                out[k][i] = rank + it * 0.5 + i;
            MPI_Isend(out[k], M, MPI_DOUBLE, nb[k], 1 - k, MPI_COMM_WORLD, &sreq[k]); /* MARK:nb-isend */
        }
        MPI_Waitall(2, rreq, MPI_STATUSES_IGNORE); /* MARK:nb-waitall-recv */
        MPI_Waitall(2, sreq, MPI_STATUSES_IGNORE); /* MARK:nb-waitall-send */
        acc += in[0][M - 1] - in[1][0];
    }
    double tot;
    MPI_Reduce(&acc, &tot, 1, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
    if (rank == 0)
        printf("nonblocking: %d iterations, checksum %.3f\n", N, tot);
    MPI_Finalize();
    return 0;
}
