/*
 * mt_requests.c - hprof integration test (tests/mpi/requests.sh): request
 * tracking under MPI_THREAD_MULTIPLE with completion on other threads.
 * 2 ranks x NT=4 threads; thread t of each rank talks to thread t of the
 * other rank on its own MPI_Comm_dup.  Each of NI iterations of thread t:
 *  - posts MPI_Irecv (mt-irecv) and MPI_Isend (mt-isend) of (t+1)*(i%5+1)
 *    ints and hands both requests to its partner thread (t^1), then
 *    completes the two requests its partner handed over with MPI_Waitall
 *    (mt-waitall), or with an MPI_Test loop (mt-test) on odd iterations;
 *  - does one blocking MPI_Sendrecv (mt-sendrecv) of t+1 ints, plus an
 *    MPI_Send (mt-send) / MPI_Recv (mt-recv) pair of 2 ints, rank 0 first.
 * That is 7 MPI operations per iteration (Irecv, Isend, Waitall or Tests,
 * Sendrecv, Send, Recv, and the hand-over's completion) per thread.
 * Ground truth per rank, with S(t) = NI/5 * 15 * (t+1) ints:
 *  - mt-isend: per thread t (its own posts) count NI, bytes_sent 4*S(t);
 *  - mt-irecv: completed by the partner, so the thread that completes
 *    thread t's receives holds count NI, bytes_recv 4*S(t); summed over
 *    the rank: count NT*NI, bytes 4*sum S(t);
 *  - mt-sendrecv: per thread count 2*NI (a send and a receive per call),
 *    4*NI*(t+1) bytes each way;
 *  - mt-send0/1, mt-recv0/1 (rank 0 / rank 1 lines): count NT*NI, 8
 *    bytes each.
 * Each thread prints the sum of what it received; the sums are the same
 * with and without hprof.  Exits 77 without MPI_THREAD_MULTIPLE.
 */
#include <mpi.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>

#define NT 4
#define NI 4000     /* 20000 took over 300 s on 2 loaded cores (plain too) */
#define MAXN (NT * 5)

typedef struct mailbox {
    MPI_Request req[2];
    _Atomic int full;
} mailbox;

static int rank, other;
static MPI_Comm comms[NT];
static mailbox box[NT];
static long sums[NT];

static void hand_over(int t, MPI_Request r[2])
{
    while (atomic_load(&box[t].full))
        sched_yield();
    box[t].req[0] = r[0];
    box[t].req[1] = r[1];
    atomic_store(&box[t].full, 1);
}

static void complete_partners(int t, int i)
{
    mailbox *b = &box[t ^ 1];
    while (!atomic_load(&b->full))
        sched_yield();
    MPI_Request r[2] = {b->req[0], b->req[1]};
    if (i % 2 == 0) {
        MPI_Waitall(2, r, MPI_STATUSES_IGNORE); /* MARK:mt-waitall */
    } else {
        for (int k = 0; k < 2; k++) {
            int flag = 0;
            while (!flag)
                MPI_Test(&r[k], &flag, MPI_STATUS_IGNORE); /* MARK:mt-test */
        }
    }
    atomic_store(&b->full, 0); /* done: the poster may read its buffer */
}

static void *worker(void *arg)
{
    int t = (int)(long)arg;
    MPI_Comm c = comms[t];
    int (*in)[MAXN] = calloc(2, sizeof *in), out[MAXN], sr_in[NT], sr_out[NT], pp[2];
    long sum = 0;
    for (int i = 0; i < NI; i++) {
        int n = (t + 1) * (i % 5 + 1);
        int *dst = in[i % 2];
        MPI_Request r[2];
        for (int k = 0; k < n; k++)
            out[k] = i + k;
        MPI_Irecv(dst, n, MPI_INT, other, 1, c, &r[0]); /* MARK:mt-irecv */
        MPI_Isend(out, n, MPI_INT, other, 1, c, &r[1]); /* MARK:mt-isend */
        hand_over(t, r);
        complete_partners(t, i);
        while (atomic_load(&box[t].full)) /* our requests completed? */
            sched_yield();
        sum += dst[n - 1];
        for (int k = 0; k <= t; k++)
            sr_out[k] = i * k;
        MPI_Sendrecv(sr_out, t + 1, MPI_INT, other, 2, /* MARK:mt-sendrecv */
                     sr_in, t + 1, MPI_INT, other, 2, c, MPI_STATUS_IGNORE);
        sum += sr_in[t];
        pp[0] = i;
        pp[1] = t;
        if (rank == 0) {
            MPI_Send(pp, 2, MPI_INT, other, 3, c); /* MARK:mt-send0 */
            MPI_Recv(pp, 2, MPI_INT, other, 3, c, MPI_STATUS_IGNORE); /* MARK:mt-recv0 */
        } else {
            MPI_Recv(pp, 2, MPI_INT, other, 3, c, MPI_STATUS_IGNORE); /* MARK:mt-recv1 */
            MPI_Send(pp, 2, MPI_INT, other, 3, c); /* MARK:mt-send1 */
        }
        sum += pp[0];
    }
    sums[t] = sum;
    free(in);
    return NULL;
}

int main(int argc, char **argv)
{
    int provided, size;
    pthread_t th[NT];
    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (provided < MPI_THREAD_MULTIPLE || size != 2) {
        if (rank == 0)
            fprintf(stderr, "mt_requests: needs 2 ranks and MPI_THREAD_MULTIPLE\n");
        MPI_Finalize();
        return 77;
    }
    other = 1 - rank;
    for (int t = 0; t < NT; t++)
        MPI_Comm_dup(MPI_COMM_WORLD, &comms[t]);
    for (int t = 0; t < NT; t++)
        pthread_create(&th[t], NULL, worker, (void *)(long)t);
    for (int t = 0; t < NT; t++)
        pthread_join(th[t], NULL);
    for (int t = 0; t < NT; t++) {
        printf("rank %d thread %d sum %ld\n", rank, t, sums[t]);
        MPI_Comm_free(&comms[t]);
    }
    MPI_Finalize();
    return 0;
}
