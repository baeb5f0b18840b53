/*
 * collectives.c - hprof integration test (tests/mpi/run.sh): the byte
 * accounting of every blocking collective (with and without MPI_IN_PLACE
 * where MPI allows it), the per-peer records of the alltoall family, the
 * nonblocking MPI_Ibcast / MPI_Iallreduce (recorded at the posting line when
 * MPI_Wait / MPI_Waitall completes them), and a late-arrival barrier.
 * Every call is on its own line marked MARK:c-NAME; each is made once
 * except MPI_Barrier (2 calls at c-barrier), MPI_Bcast (3 calls) and
 * MPI_Iallreduce (2 calls, one line).  With P = 4, rank r, int = 4 B and
 * double = 8 B, the collective record (peer -1) of rank r carries:
 *   c-barrier 0/0; c-bcast 10 doubles root 0 (x3); c-gather[-inplace]
 *   5 ints root 1; c-gatherv root 2, rank i gives i+1 ints; c-scatter
 *   [-inplace] 6 doubles root 3; c-scatterv root 0, rank i gets i+1
 *   doubles; c-allgather[-inplace] 3 ints; c-allgatherv[-inplace] rank i
 *   gives i+1 ints; c-reduce[-inplace] 7 doubles root 1; c-allreduce
 *   [-inplace] 9 ints; c-reduce-scatter[-inplace] recvcounts {1,2,3,4}
 *   ints; c-rsb[-inplace] (Reduce_scatter_block) 2 doubles; c-scan
 *   [-inplace], c-exscan 5 ints; c-alltoall 2 ints per peer; c-alltoallv
 *   1+r+2p ints to peer p (so 1+p+2r from it); c-alltoallv-inplace 1+r+p
 *   ints both ways; c-alltoallw 1+r+p elements to peer p as type(p) and
 *   from it as type(r), type(x) = x even ? double : int; c-ibcast 11 ints
 *   root 3; c-iallreduce 13 doubles (x2).  run.sh turns these into bytes.
 * Late arrival: after c-align, rank r sleeps r x 100 ms and then calls
 * MPI_Barrier at c-late-barrier (rank 0 waits ~0.3 s there).  A loaded
 * machine stretches the sleeps, so each rank prints on stderr when it
 * arrived at that barrier and when it left it (CLOCK_MONOTONIC, one clock
 * for the ranks of a node): "collectives: late barrier: rank R arrived A s,
 * left L s".
 * Rank 0 prints a checksum of all results.  Needs exactly 4 ranks.
 */
#include <mpi.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#define P 4

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

static long isum(const int *a, int n)
{
    long s = 0;
    for (int i = 0; i < n; i++)
        s += a[i];
    return s;
}

static long dsum(const double *a, int n)
{
    double s = 0;
    for (int i = 0; i < n; i++)
        s += a[i];
    return (long)s;
}

int main(int argc, char **argv)
{
    int rank, size;
    int ib[64], io[64];
    double db[64], dbo[64];
    long check = 0;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (size != P) {
        if (rank == 0)
            fprintf(stderr, "collectives: needs exactly %d ranks\n", P);
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    const int r = rank;
    int counts[P], displs[P];
    for (int i = 0, d = 0; i < P; i++) {
        counts[i] = i + 1;
        displs[i] = d;
        d += i + 1;
    }
#define FILLI(a, n) for (int i_ = 0; i_ < (n); i_++) (a)[i_] = 100 * r + i_
#define FILLD(a, n) for (int i_ = 0; i_ < (n); i_++) (a)[i_] = 100.0 * r + i_

    for (int k = 0; k < 2; k++)
        MPI_Barrier(MPI_COMM_WORLD); /* MARK:c-barrier */

    for (int k = 0; k < 3; k++) {
        FILLD(db, 10);
        MPI_Bcast(db, 10, MPI_DOUBLE, 0, MPI_COMM_WORLD); /* MARK:c-bcast */
        check += dsum(db, 10);
    }

    /* Gather: 5 ints, root 1 */
    FILLI(ib, 5);
    MPI_Gather(ib, 5, MPI_INT, io, 5, MPI_INT, 1, MPI_COMM_WORLD); /* MARK:c-gather */
    if (r == 1)
        check += isum(io, 5 * P);
    FILLI(io + 5 * r, 5);
    if (r == 1)
        MPI_Gather(MPI_IN_PLACE, 5, MPI_INT, io, 5, MPI_INT, 1, MPI_COMM_WORLD); /* MARK:c-gather-inplace */
    else
        MPI_Gather(io + 5 * r, 5, MPI_INT, NULL, 5, MPI_INT, 1, MPI_COMM_WORLD); /* MARK:c-gather-inplace-other */
    if (r == 1)
        check += isum(io, 5 * P);

    /* Gatherv: root 2, rank i gives i+1 ints */
    FILLI(ib, r + 1);
    MPI_Gatherv(ib, r + 1, MPI_INT, io, counts, displs, MPI_INT, 2, MPI_COMM_WORLD); /* MARK:c-gatherv */
    if (r == 2)
        check += isum(io, 10);

    /* Scatter: 6 doubles, root 3 */
    FILLD(db, 6 * P);
    MPI_Scatter(db, 6, MPI_DOUBLE, dbo, 6, MPI_DOUBLE, 3, MPI_COMM_WORLD); /* MARK:c-scatter */
    check += dsum(dbo, 6);
    FILLD(db, 6 * P);
    if (r == 3)
        MPI_Scatter(db, 6, MPI_DOUBLE, MPI_IN_PLACE, 6, MPI_DOUBLE, 3, MPI_COMM_WORLD); /* MARK:c-scatter-inplace */
    else
        MPI_Scatter(NULL, 6, MPI_DOUBLE, dbo, 6, MPI_DOUBLE, 3, MPI_COMM_WORLD); /* MARK:c-scatter-inplace-other */
    check += r == 3 ? dsum(db + 18, 6) : dsum(dbo, 6);

    /* Scatterv: root 0, rank i gets i+1 doubles */
    FILLD(db, 10);
    MPI_Scatterv(db, counts, displs, MPI_DOUBLE, dbo, r + 1, MPI_DOUBLE, 0, MPI_COMM_WORLD); /* MARK:c-scatterv */
    check += dsum(dbo, r + 1);

    /* Allgather: 3 ints */
    FILLI(ib, 3);
    MPI_Allgather(ib, 3, MPI_INT, io, 3, MPI_INT, MPI_COMM_WORLD); /* MARK:c-allgather */
    check += isum(io, 3 * P);
    FILLI(io + 3 * r, 3);
    MPI_Allgather(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, io, 3, MPI_INT, MPI_COMM_WORLD); /* MARK:c-allgather-inplace */
    check += isum(io, 3 * P);

    /* Allgatherv: rank i gives i+1 ints */
    FILLI(ib, r + 1);
    MPI_Allgatherv(ib, r + 1, MPI_INT, io, counts, displs, MPI_INT, MPI_COMM_WORLD); /* MARK:c-allgatherv */
    check += isum(io, 10);
    FILLI(io + displs[r], r + 1);
    MPI_Allgatherv(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, io, counts, displs, MPI_INT, MPI_COMM_WORLD); /* MARK:c-allgatherv-inplace */
    check += isum(io, 10);

    /* Reduce: 7 doubles, root 1 */
    FILLD(db, 7);
    MPI_Reduce(db, dbo, 7, MPI_DOUBLE, MPI_SUM, 1, MPI_COMM_WORLD); /* MARK:c-reduce */
    if (r == 1)
        check += dsum(dbo, 7);
    FILLD(db, 7);
    if (r == 1)
        MPI_Reduce(MPI_IN_PLACE, db, 7, MPI_DOUBLE, MPI_SUM, 1, MPI_COMM_WORLD); /* MARK:c-reduce-inplace */
    else
        MPI_Reduce(db, NULL, 7, MPI_DOUBLE, MPI_SUM, 1, MPI_COMM_WORLD); /* MARK:c-reduce-inplace-other */
    if (r == 1)
        check += dsum(db, 7);

    /* Allreduce: 9 ints */
    FILLI(ib, 9);
    MPI_Allreduce(ib, io, 9, MPI_INT, MPI_SUM, MPI_COMM_WORLD); /* MARK:c-allreduce */
    check += isum(io, 9);
    FILLI(io, 9);
    MPI_Allreduce(MPI_IN_PLACE, io, 9, MPI_INT, MPI_SUM, MPI_COMM_WORLD); /* MARK:c-allreduce-inplace */
    check += isum(io, 9);

    /* Reduce_scatter: recvcounts {1,2,3,4} ints */
    FILLI(ib, 10);
    MPI_Reduce_scatter(ib, io, counts, MPI_INT, MPI_SUM, MPI_COMM_WORLD); /* MARK:c-reduce-scatter */
    check += isum(io, r + 1);
    FILLI(io, 10);
    MPI_Reduce_scatter(MPI_IN_PLACE, io, counts, MPI_INT, MPI_SUM, MPI_COMM_WORLD); /* MARK:c-reduce-scatter-inplace */
    check += isum(io, r + 1);

    /* Reduce_scatter_block: 2 doubles each */
    FILLD(db, 2 * P);
    MPI_Reduce_scatter_block(db, dbo, 2, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD); /* MARK:c-rsb */
    check += dsum(dbo, 2);
    FILLD(db, 2 * P);
    MPI_Reduce_scatter_block(MPI_IN_PLACE, db, 2, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD); /* MARK:c-rsb-inplace */
    check += dsum(db, 2);

    /* Scan / Exscan: 5 ints */
    FILLI(ib, 5);
    MPI_Scan(ib, io, 5, MPI_INT, MPI_SUM, MPI_COMM_WORLD); /* MARK:c-scan */
    check += isum(io, 5);
    FILLI(io, 5);
    MPI_Scan(MPI_IN_PLACE, io, 5, MPI_INT, MPI_SUM, MPI_COMM_WORLD); /* MARK:c-scan-inplace */
    check += isum(io, 5);
    FILLI(ib, 5);
    MPI_Exscan(ib, io, 5, MPI_INT, MPI_SUM, MPI_COMM_WORLD); /* MARK:c-exscan */
    if (r > 0)
        check += isum(io, 5);

    /* Alltoall: 2 ints per peer */
    FILLI(ib, 2 * P);
    MPI_Alltoall(ib, 2, MPI_INT, io, 2, MPI_INT, MPI_COMM_WORLD); /* MARK:c-alltoall */
    check += isum(io, 2 * P);

    /* Alltoallv: 1+r+2p ints to peer p, 1+p+2r from it */
    {
        int sc[P], sd[P], rc[P], rd[P];
        for (int p = 0, s = 0, t = 0; p < P; p++) {
            sc[p] = 1 + r + 2 * p;
            rc[p] = 1 + p + 2 * r;
            sd[p] = s;
            rd[p] = t;
            s += sc[p];
            t += rc[p];
        }
        FILLI(ib, 64);
        MPI_Alltoallv(ib, sc, sd, MPI_INT, io, rc, rd, MPI_INT, MPI_COMM_WORLD); /* MARK:c-alltoallv */
        check += isum(io, rd[P - 1] + rc[P - 1]);
        /* in place: 1+r+p ints both ways (symmetric, as MPI requires) */
        for (int p = 0, t = 0; p < P; p++) {
            rc[p] = 1 + r + p;
            rd[p] = t;
            t += rc[p];
        }
        FILLI(io, 64);
        MPI_Alltoallv(MPI_IN_PLACE, NULL, NULL, MPI_DATATYPE_NULL, io, rc, rd, MPI_INT, MPI_COMM_WORLD); /* MARK:c-alltoallv-inplace */
        check += isum(io, rd[P - 1] + rc[P - 1]);
    }

    /* Alltoallw: 1+r+p elements to peer p as type(p), from it as type(r) */
    {
        int sc[P], sd[P], rc[P], rd[P];
        MPI_Datatype st[P], rt[P];
        static char sbuf[P * 64], rbuf[P * 64];
        for (int p = 0; p < P; p++) {
            sc[p] = rc[p] = 1 + r + p;
            sd[p] = rd[p] = 64 * p;
            st[p] = p % 2 == 0 ? MPI_DOUBLE : MPI_INT;
            rt[p] = r % 2 == 0 ? MPI_DOUBLE : MPI_INT;
        }
        for (int i = 0; i < P * 64; i++)
            sbuf[i] = (char)(r + i);
        memset(rbuf, 0, sizeof rbuf);
        MPI_Alltoallw(sbuf, sc, sd, st, rbuf, rc, rd, rt, MPI_COMM_WORLD); /* MARK:c-alltoallw */
        for (int i = 0; i < P * 64; i++)
            check += (unsigned char)rbuf[i];
    }

    /* Nonblocking: Ibcast + Wait, 2 x Iallreduce + Waitall */
    {
        MPI_Request rq[2];
        FILLI(ib, 11);
        MPI_Ibcast(ib, 11, MPI_INT, 3, MPI_COMM_WORLD, &rq[0]); /* MARK:c-ibcast */
        MPI_Wait(&rq[0], MPI_STATUS_IGNORE); /* MARK:c-ibcast-wait */
        check += isum(ib, 11);
        double a[2][13], b[2][13];
        for (int k = 0; k < 2; k++)
            for (int i = 0; i < 13; i++)
                a[k][i] = k + r + i;
        for (int k = 0; k < 2; k++)
            MPI_Iallreduce(a[k], b[k], 13, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD, &rq[k]); /* MARK:c-iallreduce */
        MPI_Waitall(2, rq, MPI_STATUSES_IGNORE); /* MARK:c-iallreduce-waitall */
        check += dsum(b[0], 13) + dsum(b[1], 13);
    }

    /* Late arrival at a barrier: rank r comes r x 100 ms late. */
    MPI_Barrier(MPI_COMM_WORLD); /* MARK:c-align */
    sleep_ms(100L * r);
    double arrived = now_s();
    MPI_Barrier(MPI_COMM_WORLD); /* MARK:c-late-barrier */
    double left = now_s();
    fprintf(stderr, "collectives: late barrier: rank %d arrived %.6f s, left %.6f s\n", r, arrived, left);

    long total;
    MPI_Reduce(&check, &total, 1, MPI_LONG, MPI_SUM, 0, MPI_COMM_WORLD); /* MARK:c-final-reduce */
    if (rank == 0)
        printf("collectives: checksum %ld\n", total);
    MPI_Finalize();
    return 0;
}
