/*
 * threads.c - hprof integration test (tests/mpi/run.sh): MPI from several
 * threads at once (MPI_THREAD_MULTIPLE).  On each of 2 ranks, 4 pthreads
 * exchange 10^4 messages each: thread t of rank 0 sends with tag t, thread
 * t of rank 1 receives with tag t.  Ground truth: rank 0's send line peer 1
 * count 40000 bytes_sent 320000 (summed over threads); rank 1's receive
 * line peer 0 count 40000 bytes_recv 320000; rank.threads >= 4.
 * Needs exactly 2 ranks; exits 77 (skip) without MPI_THREAD_MULTIPLE.
 */
#include <mpi.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#define NTHREADS 4
#define NMSG 10000

static int rank;
static long sums[NTHREADS];

static void *worker(void *arg)
{
    int t = (int)(long)arg;
    int msg[2];
    long sum = 0;
    for (int m = 0; m < NMSG; m++) {
        if (rank == 0) {
            msg[0] = t;
            msg[1] = m;
            MPI_Send(msg, 2, MPI_INT, 1, t, MPI_COMM_WORLD); /* MARK:thr-send */
        } else {
            MPI_Recv(msg, 2, MPI_INT, 0, t, MPI_COMM_WORLD, MPI_STATUS_IGNORE); /* MARK:thr-recv */
            sum += msg[0] + msg[1];
        }
    }
    sums[t] = sum;
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
            fprintf(stderr, "threads: MPI_THREAD_MULTIPLE not provided, skipping\n");
        MPI_Finalize();
        return 77;
    }
    if (size != 2) {
        if (rank == 0)
            fprintf(stderr, "threads: needs exactly 2 ranks\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    pthread_t th[NTHREADS];
    for (long t = 0; t < NTHREADS; t++)
        if (pthread_create(&th[t], NULL, worker, (void *)t) != 0) {
            fprintf(stderr, "threads: pthread_create failed\n");
            MPI_Abort(MPI_COMM_WORLD, 2);
        }
    long total = 0;
    for (int t = 0; t < NTHREADS; t++) {
        pthread_join(th[t], NULL);
        total += sums[t];
    }
    long grand;
    MPI_Reduce(&total, &grand, 1, MPI_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
    if (rank == 0)
        printf("threads: %d threads x %d messages, checksum %ld\n", NTHREADS, NMSG, grand);
    MPI_Finalize();
    return 0;
}
