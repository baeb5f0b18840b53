/*
 * msg_rate.c - hprof integration test (tests/mpi/requests.sh): the records
 * of a message-rate pattern (osu_mbw_mr's windows of small nonblocking
 * messages completed by one MPI_Waitall) must stay exact, whatever fast
 * path the request tracking takes.  3 ranks; NR rounds, in each of which
 * every rank, for each other rank p, posts W MPI_Irecv from p (mr-irecv),
 * W/2 MPI_Isend of 8 bytes to p (mr-isend-a) and W/2 MPI_Isend of 4(p+1)
 * bytes to p (mr-isend-b), then completes all of them with one
 * MPI_Waitall (mr-waitall, MPI_STATUSES_IGNORE).  Open MPI gives the eager
 * sends one shared handle.  Then NA rounds on a communicator with the
 * ranks reversed: W MPI_Irecv from MPI_ANY_SOURCE (mr-any-irecv) and W
 * MPI_Isend of 12 bytes to the next rank of that communicator
 * (mr-any-isend), completed by MPI_Waitall with a status array
 * (mr-any-waitall).
 * Each rank prints what it posted per world peer ("rank R peer P isend-a N
 * B", isend-b, irecv, any-isend, any-irecv: counts and bytes), the
 * checksum of what it received, and the time it spent in the rounds by
 * its own clock ("rank R rounds_s T").  Needs exactly 3 ranks.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#define NP 3
#define NR 60
#define NA 40
#define W 16

static char sbuf_a[NP][W][8], sbuf_b[NP][W][4 * NP], rbuf[NP][W][4 * NP], abuf[W][12];
static MPI_Request reqs[NP * 2 * W];
static MPI_Status sts[2 * W];
static long sent_a[NP], sent_b[NP], recvd[NP], any_sent[NP], any_recvd[NP];
static long bytes_b[NP], bytes_recvd[NP], any_bytes_recvd[NP];
/* what rank me receives from each peer per world round: W/2 of 8 bytes
 * and W/2 of 4(me+1) bytes (main) */
static unsigned long checksum;

static void world_round(int me)
{
    int n = 0;
    for (int p = 0; p < NP; p++) {
        if (p == me)
            continue;
        for (int k = 0; k < W; k++)
            MPI_Irecv(rbuf[p][k], 4 * NP, MPI_CHAR, p, 7, MPI_COMM_WORLD, &reqs[n++]); /* MARK:mr-irecv */
        for (int k = 0; k < W / 2; k++) {
            MPI_Isend(sbuf_a[p][k], 8, MPI_CHAR, p, 7, MPI_COMM_WORLD, &reqs[n++]); /* MARK:mr-isend-a */
            MPI_Isend(sbuf_b[p][k], 4 * (p + 1), MPI_CHAR, p, 7, MPI_COMM_WORLD, &reqs[n++]); /* MARK:mr-isend-b */
        }
        sent_a[p] += W / 2;
        sent_b[p] += W / 2;
        bytes_b[p] += (long)(W / 2) * 4 * (p + 1);
        recvd[p] += W;
    }
    MPI_Waitall(n, reqs, MPI_STATUSES_IGNORE); /* MARK:mr-waitall */
    for (int p = 0; p < NP; p++)
        for (int k = 0; p != me && k < W; k++)
            checksum = checksum * 31 + (unsigned char)rbuf[p][k][0];
}

static void reversed_round(MPI_Comm rev, int me)
{
    int r, size;
    MPI_Comm_rank(rev, &r);
    MPI_Comm_size(rev, &size);
    int next = (r + 1) % size, next_world = NP - 1 - next;
    for (int k = 0; k < W; k++)
        MPI_Irecv(abuf[k], 12, MPI_CHAR, MPI_ANY_SOURCE, 9, rev, &reqs[k]); /* MARK:mr-any-irecv */
    for (int k = 0; k < W; k++)
        MPI_Isend(sbuf_b[0][0], 12, MPI_CHAR, next, 9, rev, &reqs[W + k]); /* MARK:mr-any-isend */
    MPI_Waitall(2 * W, reqs, sts); /* MARK:mr-any-waitall */
    any_sent[next_world] += W;
    for (int k = 0; k < W; k++) {
        int n = 0, src_world = NP - 1 - sts[k].MPI_SOURCE;
        MPI_Get_count(&sts[k], MPI_CHAR, &n);
        any_recvd[src_world]++;
        any_bytes_recvd[src_world] += n;
    }
    (void)me;
}

int main(int argc, char **argv)
{
    int me, size;
    MPI_Comm rev;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (size != NP) {
        if (me == 0)
            fprintf(stderr, "msg_rate: needs %d ranks\n", NP);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    for (int p = 0; p < NP; p++)
        for (int k = 0; k < W; k++)
            for (int b = 0; b < 4 * NP; b++)
                sbuf_a[p][k][b % 8] = sbuf_b[p][k][b] = (char)(me * 16 + k + b);
    MPI_Comm_split(MPI_COMM_WORLD, 0, NP - me, &rev);
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = MPI_Wtime();
    for (int i = 0; i < NR; i++)
        world_round(me);
    for (int i = 0; i < NA; i++)
        reversed_round(rev, me);
    double rounds = MPI_Wtime() - t0;
    for (int p = 0; p < NP; p++)
        bytes_recvd[p] = p == me ? 0 : (long)NR * (W / 2) * (8 + 4 * (me + 1));
    MPI_Barrier(MPI_COMM_WORLD);
    for (int p = 0; p < NP; p++) {
        if (p == me)
            continue;
        printf("rank %d peer %d isend-a %ld %ld\n", me, p, sent_a[p], sent_a[p] * 8);
        printf("rank %d peer %d isend-b %ld %ld\n", me, p, sent_b[p], bytes_b[p]);
        printf("rank %d peer %d irecv %ld %ld\n", me, p, recvd[p], bytes_recvd[p]);
        printf("rank %d peer %d any-isend %ld %ld\n", me, p, any_sent[p], any_sent[p] * 12);
        printf("rank %d peer %d any-irecv %ld %ld\n", me, p, any_recvd[p], any_bytes_recvd[p]);
    }
    printf("rank %d checksum %lu\n", me, checksum);
    fprintf(stderr, "rank %d rounds_s %.9f\n", me, rounds);
    MPI_Comm_free(&rev);
    MPI_Finalize();
    return 0;
}
