/*
 * mthreads.c - hprof integration test (tests/attr/run.sh): the MPI share
 * when several threads of a rank call MPI, and the direction of each
 * destination.  Exactly 2 ranks, MPI_THREAD_MULTIPLE (exits 77 without
 * it).  On each rank NTHREADS = 4 pthreads (the main thread makes no MPI
 * call between MPI_Init_thread and MPI_Finalize), each in two phases: in
 * phase 0 the threads of rank 0 wait in MPI_Recv while those of rank 1
 * nap NAP_MS then send, in phase 1 the other way round; then one
 * MPI_Sendrecv each.  Ground truth, per rank r and its partner p = 1 - r:
 *   - MARK:mt-recv: peer p, 4 transfers, 4 x N x 8 = 32000 bytes received;
 *   - MARK:mt-send: peer p, 4 transfers, 32000 bytes sent;
 *   - MARK:mt-sendrecv: peer p, 8 transfers (a send and a receive per
 *     call), 32000 bytes sent and 32000 received;
 *   - 4 threads call MPI; each spends about NAP_MS of a run of about
 *     2 x NAP_MS in MPI_Recv, so MPI time summed over the threads is about
 *     twice the wall: the share of wall x 4 threads is about 50%, and must
 *     never be above 100%.
 * Summed over ranks the summary shows "from 0", "from 1" (receive line),
 * "to 0", "to 1" (send line), "with 0", "with 1" (Sendrecv line).
 * Rank 0 prints one checksum line.
 */
#include <mpi.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#define NTHREADS 4
#define NAP_MS 300
#define N 1000

static int rank;
static double sums[NTHREADS];

static void nap(int ms)
{
    struct timespec ts = {ms / 1000, (long)(ms % 1000) * 1000000L};
    while (nanosleep(&ts, &ts) != 0)
        ;
}

static void *worker(void *arg)
{
    int t = (int)(long)arg, other = 1 - rank;
    double *out = malloc(N * sizeof *out), *in = malloc(N * sizeof *in);
    double sum = 0;
    MPI_Status *st = MPI_STATUS_IGNORE;
    if (!out || !in)
        MPI_Abort(MPI_COMM_WORLD, 2);
    for (int i = 0; i < N; i++)
        out[i] = rank * 1000 + t * 10 + i % 7;
    for (int phase = 0; phase < 2; phase++) {
        if ((phase == 0) == (rank == 0)) {
            MPI_Recv(in, N, MPI_DOUBLE, other, t, MPI_COMM_WORLD, MPI_STATUS_IGNORE); /* MARK:mt-recv */
            for (int i = 0; i < N; i++)
                sum += in[i];
        } else {
            nap(NAP_MS);
            MPI_Send(out, N, MPI_DOUBLE, other, t, MPI_COMM_WORLD); /* MARK:mt-send */
        }
    }
    MPI_Sendrecv(out, N, MPI_DOUBLE, other, t, in, N, MPI_DOUBLE, other, t, MPI_COMM_WORLD, st); /* MARK:mt-sendrecv */
    for (int i = 0; i < N; i++)
        sum += in[i];
    sums[t] = sum;
    free(out);
    free(in);
    return NULL;
}

int main(int argc, char **argv)
{
    int provided, size;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (provided < MPI_THREAD_MULTIPLE) {
        if (rank == 0)
            fprintf(stderr, "mthreads: MPI_THREAD_MULTIPLE not provided, skipping\n");
        MPI_Finalize();
        return 77;
    }
    if (size != 2) {
        if (rank == 0)
            fprintf(stderr, "mthreads: needs exactly 2 ranks\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    pthread_t th[NTHREADS];
    for (long t = 0; t < NTHREADS; t++)
        if (pthread_create(&th[t], NULL, worker, (void *)t) != 0) {
            fprintf(stderr, "mthreads: pthread_create failed\n");
            MPI_Abort(MPI_COMM_WORLD, 2);
        }
    double total = 0;
    for (int t = 0; t < NTHREADS; t++) {
        pthread_join(th[t], NULL);
        total += sums[t];
    }
    if (rank == 0)
        printf("mthreads: %d threads, checksum %.1f\n", NTHREADS, total);
    MPI_Finalize();
    return 0;
}
