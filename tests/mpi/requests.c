/*
 * requests.c - hprof integration test (tests/mpi/requests.sh): request
 * tracking that must lose nothing and mix nothing.  2 ranks; rank 0
 * sends, rank 1 receives, in five parts:
 *  A. eager flood: NR=100 rounds of NW=64 outstanding 8-byte MPI_Isend
 *     (rq-eager-isend), completed by one MPI_Waitall (rq-eager-waitall);
 *     rank 1 receives each round with 64 MPI_Irecv (rq-eager-irecv) and
 *     one MPI_Waitall.  Open MPI gives every such eager send one shared
 *     handle, so a table keyed by the handle alone keeps 1 of 64.
 *  B. Waitany loop: 40 MPI_Isend of k+1 ints (k = 0..39, rq-any-isend) and
 *     40 MPI_Irecv from MPI_ANY_SOURCE (rq-any-irecv), each side completed
 *     one by one with MPI_Waitany (rq-any-wait).
 *  C. Waitsome loop: the same with 2(k+1) ints (rq-some-isend,
 *     rq-some-irecv), completed with MPI_Waitsome (rq-some-wait).
 *  D. Testsome / Testany polling: 3(k+1) ints (rq-tsome-isend,
 *     rq-tsome-irecv); rank 0 polls with MPI_Testany (rq-tany), rank 1
 *     with MPI_Testsome (rq-tsome).
 *  E. nonblocking collectives: 30 MPI_Iallreduce of 5 doubles
 *     (rq-iallreduce) completed by MPI_Wait, 10 MPI_Ibarrier
 *     (rq-ibarrier) completed by MPI_Test loops.
 *  F. cancel: rank 1 posts an MPI_Irecv with a tag nobody sends
 *     (rq-cancel-irecv), cancels it (MPI_Cancel) and waits: no record.
 *  G. a communicator with the ranks reversed is used (one
 *     MPI_Sendrecv_replace of 4 ints), then freed while
 *     collection is off (MPI_Pcontrol(0)); a new one in world order, which
 *     Open MPI gives the same handle, carries one MPI_Isend of 4 ints from
 *     rank 0 to rank 1 (rq-newcomm-isend) once collection is back on.
 * Ground truth (rank 0 / rank 1): A: Isend peer 1 count 6400 bytes_sent
 * 51200 / Irecv peer 0 count 6400 bytes_recv 51200.  B: 40 transfers, 3280
 * bytes (4 x 820).  C: 40, 6560.  D: 40, 9840.  E: Iallreduce peer -1 count
 * 30, 1200 bytes each way; Ibarrier peer -1 count 10.  F: node count 1, no
 * comm record.  G: rank 0 peer 1 (world) count 1, 16 bytes.  Rank 1 prints checksums of what it received.
 * Needs exactly 2 ranks.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#define NR 100
#define NW 64
#define NK 40

static void eager_flood(int rank)
{
    static double out[NW], in[NW];
    MPI_Request r[NW];
    double sum = 0;
    for (int round = 0; round < NR; round++) {
        for (int i = 0; i < NW; i++) {
            out[i] = round * NW + i;
            if (rank == 0)
                MPI_Isend(&out[i], 1, MPI_DOUBLE, 1, i, MPI_COMM_WORLD, &r[i]); /* MARK:rq-eager-isend */
            else
                MPI_Irecv(&in[i], 1, MPI_DOUBLE, 0, i, MPI_COMM_WORLD, &r[i]); /* MARK:rq-eager-irecv */
        }
        MPI_Waitall(NW, r, MPI_STATUSES_IGNORE); /* MARK:rq-eager-waitall */
        for (int i = 0; i < NW; i++)
            sum += in[i];
    }
    if (rank == 1)
        printf("A: sum %.0f\n", sum);
}

/* Buffers of part B/C/D: message k has mult*(k+1) ints.  Each part posts
 * from a function of its own, so that each has its own call sites. */
static int *bufs[NK];

static int fill(int rank, int mult, int k)
{
    int n = mult * (k + 1);
    bufs[k] = realloc(bufs[k], sizeof(int) * (size_t)n);
    for (int i = 0; i < n; i++)
        bufs[k][i] = rank == 0 ? k * 1000 + i : -1;
    return n;
}

static __attribute__((noinline)) void post_any(int rank, MPI_Request *r)
{
    for (int k = 0; k < NK; k++) {
        int n = fill(rank, 1, k);
        if (rank == 0)
            MPI_Isend(bufs[k], n, MPI_INT, 1, k, MPI_COMM_WORLD, &r[k]); /* MARK:rq-any-isend */
        else
            MPI_Irecv(bufs[k], n, MPI_INT, MPI_ANY_SOURCE, k, MPI_COMM_WORLD, &r[k]); /* MARK:rq-any-irecv */
    }
}

static __attribute__((noinline)) void post_some(int rank, MPI_Request *r)
{
    for (int k = 0; k < NK; k++) {
        int n = fill(rank, 2, k);
        if (rank == 0)
            MPI_Isend(bufs[k], n, MPI_INT, 1, k, MPI_COMM_WORLD, &r[k]); /* MARK:rq-some-isend */
        else
            MPI_Irecv(bufs[k], n, MPI_INT, MPI_ANY_SOURCE, k, MPI_COMM_WORLD, &r[k]); /* MARK:rq-some-irecv */
    }
}

static __attribute__((noinline)) void post_tsome(int rank, MPI_Request *r)
{
    for (int k = 0; k < NK; k++) {
        int n = fill(rank, 3, k);
        if (rank == 0)
            MPI_Isend(bufs[k], n, MPI_INT, 1, k, MPI_COMM_WORLD, &r[k]); /* MARK:rq-tsome-isend */
        else
            MPI_Irecv(bufs[k], n, MPI_INT, MPI_ANY_SOURCE, k, MPI_COMM_WORLD, &r[k]); /* MARK:rq-tsome-irecv */
    }
}

static long checksum(int mult)
{
    long sum = 0;
    for (int k = 0; k < NK; k++)
        for (int i = 0; i < mult * (k + 1); i++)
            sum += bufs[k][i];
    return sum;
}

static void waitany_loop(int rank)
{
    MPI_Request r[NK];
    post_any(rank, r);
    for (int done = 0; done < NK; done++) {
        int idx;
        MPI_Waitany(NK, r, &idx, MPI_STATUS_IGNORE); /* MARK:rq-any-wait */
    }
    if (rank == 1)
        printf("B: sum %ld\n", checksum(1));
}

static void waitsome_loop(int rank)
{
    MPI_Request r[NK];
    int idx[NK], out;
    MPI_Status st[NK];
    post_some(rank, r);
    for (int done = 0; done < NK; done += out)
        MPI_Waitsome(NK, r, &out, idx, st); /* MARK:rq-some-wait */
    if (rank == 1)
        printf("C: sum %ld\n", checksum(2));
}

static void testsome_loop(int rank)
{
    MPI_Request r[NK];
    int idx[NK], out, flag;
    post_tsome(rank, r);
    for (int done = 0; done < NK;) {
        if (rank == 0) {
            MPI_Testany(NK, r, idx, &flag, MPI_STATUS_IGNORE); /* MARK:rq-tany */
            done += flag && idx[0] != MPI_UNDEFINED;
        } else {
            MPI_Testsome(NK, r, &out, idx, MPI_STATUSES_IGNORE); /* MARK:rq-tsome */
            done += out;
        }
    }
    if (rank == 1)
        printf("D: sum %ld\n", checksum(3));
}

static void nonblocking_collectives(int rank)
{
    double x[5], y[5], total = 0;
    MPI_Request r;
    for (int it = 0; it < 30; it++) {
        for (int i = 0; i < 5; i++)
            x[i] = rank + it + i;
        MPI_Iallreduce(x, y, 5, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD, &r); /* MARK:rq-iallreduce */
        MPI_Wait(&r, MPI_STATUS_IGNORE);
        total += y[4];
    }
    for (int it = 0; it < 10; it++) {
        int flag = 0;
        MPI_Ibarrier(MPI_COMM_WORLD, &r); /* MARK:rq-ibarrier */
        while (!flag)
            MPI_Test(&r, &flag, MPI_STATUS_IGNORE);
    }
    if (rank == 1)
        printf("E: total %.0f\n", total);
}

static void cancelled_receive(int rank)
{
    if (rank == 1) {
        int v, cancelled;
        MPI_Request r;
        MPI_Status st;
        MPI_Irecv(&v, 1, MPI_INT, 0, 999, MPI_COMM_WORLD, &r); /* MARK:rq-cancel-irecv */
        MPI_Cancel(&r);
        MPI_Wait(&r, &st);
        MPI_Test_cancelled(&st, &cancelled);
        printf("F: cancelled %d\n", cancelled);
    }
}

static void comm_freed_while_off(int rank)
{
    MPI_Comm reversed, ordered;
    int v[4] = {1, 2, 3, 4}, peer;
    MPI_Request r;
    MPI_Comm_split(MPI_COMM_WORLD, 0, -rank, &reversed);
    MPI_Comm_rank(reversed, &peer);
    MPI_Sendrecv_replace(v, 4, MPI_INT, 1 - peer, 6, 1 - peer, 6, reversed, MPI_STATUS_IGNORE);
    MPI_Pcontrol(0);
    MPI_Comm_free(&reversed);
    MPI_Comm_split(MPI_COMM_WORLD, 0, rank, &ordered);
    MPI_Pcontrol(1);
    if (rank == 0)
        MPI_Isend(v, 4, MPI_INT, 1, 5, ordered, &r); /* MARK:rq-newcomm-isend */
    else
        MPI_Irecv(v, 4, MPI_INT, 0, 5, ordered, &r);
    MPI_Wait(&r, MPI_STATUS_IGNORE);
    if (rank == 1)
        printf("G: %d %d\n", v[3], peer);
    MPI_Comm_free(&ordered);
}

int main(int argc, char **argv)
{
    int rank, size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (size != 2) {
        if (rank == 0)
            fprintf(stderr, "requests: needs exactly 2 ranks\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    eager_flood(rank);
    MPI_Barrier(MPI_COMM_WORLD);
    waitany_loop(rank);
    MPI_Barrier(MPI_COMM_WORLD);
    waitsome_loop(rank);
    MPI_Barrier(MPI_COMM_WORLD);
    testsome_loop(rank);
    nonblocking_collectives(rank);
    cancelled_receive(rank);
    comm_freed_while_off(rank);
    for (int k = 0; k < NK; k++)
        free(bufs[k]);
    MPI_Finalize();
    return 0;
}
