/*
 * edge.c - hprof integration test (tests/mpi/run.sh): edge cases of
 * point-to-point accounting and of rank translation.  All status arguments
 * are MPI_STATUS_IGNORE / MPI_STATUSES_IGNORE.
 *  A. Every rank: 3 x MPI_Send (e-send-null), 3 x MPI_Recv (e-recv-null),
 *     2 x MPI_Sendrecv (e-sendrecv-null), 1 x MPI_Isend (e-isend-null) and
 *     MPI_Irecv (e-irecv-null) + MPI_Waitall (e-waitall-null), all with
 *     MPI_PROC_NULL: nodes count the calls, no comm records.
 *  B. Zero-count messages: rank 0 MPI_Send's 0 ints to 1 (e-send-zero,
 *     received at e-recv-zero); ranks 2 and 3 MPI_Sendrecv 0 ints with each
 *     other (e-sendrecv-zero: send + receive record, same peer); rank 2
 *     MPI_Isend's 0 ints to 3 (e-isend-zero / e-irecv-zero).  Each record:
 *     count 1, 0 bytes.
 *  C. Late partner in MPI_Sendrecv (e-late-sendrecv): rank 0 sends 20 ints
 *     to 2 and receives 30 ints from 1; rank 1 sleeps 150 ms, then sends 30
 *     ints to 0 and receives 20 ints from 3 on the same line.  Rank 0's
 *     receive record (peer 1) has sync ~0.150 s.  A loaded machine
 *     stretches the sleep, so each rank prints on stderr when it arrived
 *     at its statement of C and when it left it (CLOCK_MONOTONIC, one
 *     clock for the ranks of a node): "edge: late: rank R arrived A s,
 *     left L s".
 *  D. MPI_Comm_split into even/odd world ranks: sub rank 0 sends 2 x 4 ints
 *     to sub rank 1 (e-split1-send), received with source 0 (e-split1-recv)
 *     and MPI_ANY_SOURCE (e-split1-recv-any); sub rank 1 MPI_Isend's 6 ints
 *     to sub rank 0 (e-split1-isend / e-split1-irecv); MPI_Bcast of 10 ints
 *     from sub rank 1 (e-split1-bcast) and MPI_Alltoall of 3 ints
 *     (e-split1-alltoall).  Peers are world ranks: 0<->2, 1<->3.
 *  E. MPI_Comm_free, then MPI_Comm_split into {0,1} and {2,3} (the freed
 *     handle is usually reused) and the same pattern (e-split2-*): peers
 *     0<->1, 2<->3.
 * Rank 0 prints a checksum; it notes on stderr whether the second split
 * reused the handle.  Needs exactly 4 ranks.
 */
#include <mpi.h>
#include <stdio.h>
#include <time.h>

static void sleep_ms(long ms)
{
    struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};
    while (nanosleep(&ts, &ts) != 0)
        ;
}

static double now_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

static long sum(const int *a, int n)
{
    long s = 0;
    for (int i = 0; i < n; i++)
        s += a[i];
    return s;
}

int main(int argc, char **argv)
{
    int rank, size;
    int a[64], b[64];
    long check = 0;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (size != 4) {
        if (rank == 0)
            fprintf(stderr, "edge: needs exactly 4 ranks\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    for (int i = 0; i < 64; i++)
        a[i] = 10 * rank + i;

    /* A. MPI_PROC_NULL */
    for (int k = 0; k < 3; k++)
        MPI_Send(a, 5, MPI_INT, MPI_PROC_NULL, 0, MPI_COMM_WORLD); /* MARK:e-send-null */
    for (int k = 0; k < 3; k++)
        MPI_Recv(b, 5, MPI_INT, MPI_PROC_NULL, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE); /* MARK:e-recv-null */
    for (int k = 0; k < 2; k++)
        MPI_Sendrecv(a, 5, MPI_INT, MPI_PROC_NULL, 0, b, 5, MPI_INT, MPI_PROC_NULL, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE); /* MARK:e-sendrecv-null */
    {
        MPI_Request rq[2];
        MPI_Isend(a, 5, MPI_INT, MPI_PROC_NULL, 0, MPI_COMM_WORLD, &rq[0]); /* MARK:e-isend-null */
        MPI_Irecv(b, 5, MPI_INT, MPI_PROC_NULL, 0, MPI_COMM_WORLD, &rq[1]); /* MARK:e-irecv-null */
        MPI_Waitall(2, rq, MPI_STATUSES_IGNORE); /* MARK:e-waitall-null */
    }

    /* B. zero-count messages */
    if (rank == 0)
        MPI_Send(a, 0, MPI_INT, 1, 5, MPI_COMM_WORLD); /* MARK:e-send-zero */
    else if (rank == 1)
        MPI_Recv(b, 10, MPI_INT, 0, 5, MPI_COMM_WORLD, MPI_STATUS_IGNORE); /* MARK:e-recv-zero */
    else {
        int other = 5 - rank; /* 2 <-> 3 */
        MPI_Request rq;
        MPI_Sendrecv(a, 0, MPI_INT, other, 6, b, 0, MPI_INT, other, 6, MPI_COMM_WORLD, MPI_STATUS_IGNORE); /* MARK:e-sendrecv-zero */
        if (rank == 2)
            MPI_Isend(a, 0, MPI_INT, 3, 7, MPI_COMM_WORLD, &rq); /* MARK:e-isend-zero */
        else
            MPI_Irecv(b, 10, MPI_INT, 2, 7, MPI_COMM_WORLD, &rq); /* MARK:e-irecv-zero */
        MPI_Wait(&rq, MPI_STATUS_IGNORE); /* MARK:e-wait-zero */
    }

    /* C. late partner in MPI_Sendrecv */
    MPI_Barrier(MPI_COMM_WORLD); /* MARK:e-late-align */
    double arrived = 0, left = 0;
    if (rank == 0 || rank == 1) {
        int dest = rank == 0 ? 2 : 0, src = rank == 0 ? 1 : 3;
        int sc = rank == 0 ? 20 : 30, rc = rank == 0 ? 30 : 20;
        int stag = rank == 0 ? 7 : 8, rtag = rank == 0 ? 8 : 9;
        if (rank == 1)
            sleep_ms(150);
        arrived = now_s();
        MPI_Sendrecv(a, sc, MPI_INT, dest, stag, b, rc, MPI_INT, src, rtag, MPI_COMM_WORLD, MPI_STATUS_IGNORE); /* MARK:e-late-sendrecv */
        left = now_s();
        check += sum(b, rc);
    } else if (rank == 2) {
        arrived = now_s();
        MPI_Recv(b, 20, MPI_INT, 0, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE); /* MARK:e-late-recv2 */
        left = now_s();
        check += sum(b, 20);
    } else {
        arrived = now_s();
        MPI_Send(a, 20, MPI_INT, 1, 9, MPI_COMM_WORLD); /* MARK:e-late-send3 */
        left = now_s();
    }
    fprintf(stderr, "edge: late: rank %d arrived %.6f s, left %.6f s\n", rank, arrived, left);

    /* D. even/odd split */
    MPI_Comm sub;
    int sr;
    MPI_Comm_split(MPI_COMM_WORLD, rank % 2, rank, &sub); /* MARK:e-split1 */
    MPI_Comm_rank(sub, &sr);
    MPI_Fint first = MPI_Comm_c2f(sub);
    {
        MPI_Request rq;
        if (sr == 0) {
            for (int k = 0; k < 2; k++)
                MPI_Send(a, 4, MPI_INT, 1, 11, sub); /* MARK:e-split1-send */
            MPI_Irecv(b, 6, MPI_INT, 1, 12, sub, &rq); /* MARK:e-split1-irecv */
            MPI_Wait(&rq, MPI_STATUS_IGNORE); /* MARK:e-split1-wait0 */
            check += sum(b, 6);
        } else {
            MPI_Recv(b, 4, MPI_INT, 0, 11, sub, MPI_STATUS_IGNORE); /* MARK:e-split1-recv */
            check += sum(b, 4);
            MPI_Recv(b, 4, MPI_INT, MPI_ANY_SOURCE, 11, sub, MPI_STATUS_IGNORE); /* MARK:e-split1-recv-any */
            check += sum(b, 4);
            MPI_Isend(a, 6, MPI_INT, 0, 12, sub, &rq); /* MARK:e-split1-isend */
            MPI_Wait(&rq, MPI_STATUS_IGNORE); /* MARK:e-split1-wait1 */
        }
        for (int i = 0; i < 10; i++)
            b[i] = a[i];
        MPI_Bcast(b, 10, MPI_INT, 1, sub); /* MARK:e-split1-bcast */
        check += sum(b, 10);
        MPI_Alltoall(a, 3, MPI_INT, b, 3, MPI_INT, sub); /* MARK:e-split1-alltoall */
        check += sum(b, 6);
    }
    MPI_Comm_free(&sub); /* MARK:e-free */

    /* E. a second split, with a different grouping */
    MPI_Comm_split(MPI_COMM_WORLD, rank / 2, rank, &sub); /* MARK:e-split2 */
    MPI_Comm_rank(sub, &sr);
    if (rank == 0)
        fprintf(stderr, "edge: second split %s the freed communicator's handle\n",
                MPI_Comm_c2f(sub) == first ? "reuses" : "does not reuse");
    {
        MPI_Request rq;
        if (sr == 0) {
            for (int k = 0; k < 2; k++)
                MPI_Send(a, 4, MPI_INT, 1, 21, sub); /* MARK:e-split2-send */
            MPI_Irecv(b, 6, MPI_INT, 1, 22, sub, &rq); /* MARK:e-split2-irecv */
            MPI_Wait(&rq, MPI_STATUS_IGNORE); /* MARK:e-split2-wait0 */
            check += sum(b, 6);
        } else {
            MPI_Recv(b, 4, MPI_INT, 0, 21, sub, MPI_STATUS_IGNORE); /* MARK:e-split2-recv */
            check += sum(b, 4);
            MPI_Recv(b, 4, MPI_INT, MPI_ANY_SOURCE, 21, sub, MPI_STATUS_IGNORE); /* MARK:e-split2-recv-any */
            check += sum(b, 4);
            MPI_Isend(a, 6, MPI_INT, 0, 22, sub, &rq); /* MARK:e-split2-isend */
            MPI_Wait(&rq, MPI_STATUS_IGNORE); /* MARK:e-split2-wait1 */
        }
        for (int i = 0; i < 10; i++)
            b[i] = a[i];
        MPI_Bcast(b, 10, MPI_INT, 1, sub); /* MARK:e-split2-bcast */
        check += sum(b, 10);
        MPI_Alltoall(a, 3, MPI_INT, b, 3, MPI_INT, sub); /* MARK:e-split2-alltoall */
        check += sum(b, 6);
    }
    MPI_Comm_free(&sub); /* MARK:e-free2 */

    long total;
    MPI_Reduce(&check, &total, 1, MPI_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
    if (rank == 0)
        printf("edge: checksum %ld\n", total);
    MPI_Finalize();
    return 0;
}
