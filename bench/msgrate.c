/*
 * msgrate.c - hprof benchmark (bench/msgrate.sh): the MPI message rate of
 * small nonblocking messages, shaped like osu_mbw_mr.  Each iteration posts
 * a window of W receives (MPI_Irecv) and W sends (MPI_Isend) of 8 bytes and
 * completes them with one MPI_Waitall.
 *   1 rank: the rank sends to itself (Irecv, Isend pairs, one Waitall of
 *     2W requests): deterministic under callgrind, so the difference between
 *     two iteration counts is the instructions per message.
 *   2 ranks: rank 0 posts W Isend and a Waitall, rank 1 W Irecv and a
 *     Waitall, then a 4-byte ack (MPI_Send/MPI_Recv) closes the window, as
 *     osu_mbw_mr does; rank 0 prints the rate over 5 batches (median).
 * Output: "msgrate MESSAGES_PER_SECOND" (2 ranks) or nothing (1 rank).
 * usage: msgrate [ITERS] [WINDOW]   (defaults 2000 and 64)
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#define BATCHES 5
#define MAX_WINDOW 1024

static MPI_Request reqs[2 * MAX_WINDOW];
static char sbuf[MAX_WINDOW][8], rbuf[MAX_WINDOW][8];

/* not inlined: the calls are made below main, as in osu_mbw_mr (calc_bw),
 * so that hprof walks their call paths */
static __attribute__((noinline)) void self_window(int w)
{
    for (int k = 0; k < w; k++) {
        MPI_Irecv(rbuf[k], 8, MPI_CHAR, 0, 1, MPI_COMM_WORLD, &reqs[2 * k]);
        MPI_Isend(sbuf[k], 8, MPI_CHAR, 0, 1, MPI_COMM_WORLD, &reqs[2 * k + 1]);
    }
    MPI_Waitall(2 * w, reqs, MPI_STATUSES_IGNORE);
}

static __attribute__((noinline)) void pair_window(int rank, int w)
{
    int ack = 0;
    if (rank == 0) {
        for (int k = 0; k < w; k++)
            MPI_Isend(sbuf[k], 8, MPI_CHAR, 1, 1, MPI_COMM_WORLD, &reqs[k]);
        MPI_Waitall(w, reqs, MPI_STATUSES_IGNORE);
        MPI_Recv(&ack, 1, MPI_INT, 1, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    } else if (rank == 1) {
        for (int k = 0; k < w; k++)
            MPI_Irecv(rbuf[k], 8, MPI_CHAR, 0, 1, MPI_COMM_WORLD, &reqs[k]);
        MPI_Waitall(w, reqs, MPI_STATUSES_IGNORE);
        MPI_Send(&ack, 1, MPI_INT, 0, 2, MPI_COMM_WORLD);
    }
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

int main(int argc, char **argv)
{
    int rank, size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    long iters = argc > 1 ? atol(argv[1]) : 2000;
    int w = argc > 2 ? atoi(argv[2]) : 64;
    if (w < 1 || w > MAX_WINDOW)
        w = 64;
    if (size == 1) {
        for (long i = 0; i < iters; i++)
            self_window(w);
        MPI_Finalize();
        return 0;
    }
    double rate[BATCHES];
    for (int i = 0; i < 10; i++)          /* warm-up */
        pair_window(rank, w);
    for (int b = 0; b < BATCHES; b++) {
        MPI_Barrier(MPI_COMM_WORLD);
        double t0 = MPI_Wtime();
        for (long i = 0; i < iters; i++)
            pair_window(rank, w);
        rate[b] = (double)iters * w / (MPI_Wtime() - t0);
    }
    qsort(rate, BATCHES, sizeof rate[0], cmp_double);
    if (rank == 0)
        printf("msgrate %.0f\n", rate[BATCHES / 2]);
    MPI_Finalize();
    return 0;
}
