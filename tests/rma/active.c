/*
 * active.c - hprof integration test (tests/rma/run.sh): active-target
 * one-sided communication (fence and post/start/complete/wait epochs) and
 * a window on a sub-communicator whose ranks are those of MPI_COMM_WORLD
 * reversed.  Needs exactly 4 ranks; int = 4 B.  Ground truth for world
 * rank r, with next = (r+1)%4, prev = (r+3)%4 and far = (r+2)%4:
 *
 *  A. Window W over MPI_COMM_WORLD (MPI_Win_create at a-create, 1 call).
 *     a-fence-open: 1 fence.  Then NEPOCH = 10 times: a-put puts 2(r+1)
 *     ints to next, a-get gets 3r+4 ints from far, a-fence closes the
 *     epoch.  Records: a-put -> next: 10 transfers, 10 x 8(r+1) B sent;
 *     a-get <- far: 10 transfers, 10 x (12r+16) B received.
 *  B. a-put-null: 1 MPI_Put to MPI_PROC_NULL: counted, no record.  Rank 1
 *     sleeps 100 ms, then every rank calls a-fence-late (MPI_MODE_NOSUCCEED):
 *     ranks 0, 2, 3 wait there >= 0.09 s (synchronization delay).  A
 *     loaded machine moves the arrivals, so each rank prints on stderr
 *     when it arrived at that fence and when it left it (CLOCK_MONOTONIC,
 *     one clock for the ranks of a node): "active: late fence: rank R
 *     arrived A s, left L s".
 *  C. NPSCW = 4 times: a-post exposes W to prev, a-start opens access to
 *     next, a-pscw-put puts 5 ints to next, a-complete, a-wait.  Records:
 *     a-pscw-put -> next: 4 transfers, 80 B.  Then one more epoch whose
 *     target polls MPI_Win_test (a-test, >= 1 call, time only) after
 *     a-start2 / a-pscw-put2 (1 int to next) / a-complete2 / a-post2.
 *     Every fence, start, complete and wait call makes one record with
 *     peer -1, count 1, no bytes, its time as sync; post and test none.
 *  D. Collection off (MPI_Pcontrol 0) while the window V is created on
 *     the reversed communicator (sub rank s = 3 - r) and the communicator
 *     is freed; collection on again.  The map is then built at the first
 *     use.  Sub rank s+1 is world rank prev.  s-fence-open: 1 fence, then
 *     NSUB = 3 times s-put (6 ints to sub rank s+1) + s-fence: s-put ->
 *     prev: 3 transfers, 72 B sent.  s-fence-end (MPI_MODE_NOSUCCEED).
 *     Passive target on V: s-lock (shared, sub rank s+1), s-get (2 ints
 *     from it), s-flush, s-unlock: one record each with peer prev (s-get:
 *     8 B received; the sync calls: no bytes).  s-free frees V.
 *  E. A new window X over MPI_COMM_WORLD (e-create; Open MPI often gives
 *     it V's freed handle, so V's map must be gone): e-fence-open, e-put
 *     (1 int to next: 1 record, 4 B), e-fence, e-free.
 *  a-free frees W.  MPI_Win_create is counted twice (a-create, e-create).
 *
 * Rank 0 prints a checksum of every rank's window and fetched data.
 */
#include <mpi.h>
#include <stdio.h>
#include <time.h>

#define P 4
#define NEPOCH 10
#define NPSCW 4
#define NSUB 3
#define WLEN 256

static double now_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

static void sleep_ms(long ms)
{
    struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};
    while (nanosleep(&ts, &ts) != 0)
        ;
}

static long sum(const int *a, int n)
{
    long s = 0;
    for (int i = 0; i < n; i++)
        s += (long)(i + 1) * a[i];
    return s;
}

static MPI_Group single(int world_rank)
{
    MPI_Group world, g;
    MPI_Comm_group(MPI_COMM_WORLD, &world);
    MPI_Group_incl(world, 1, &world_rank, &g);
    MPI_Group_free(&world);
    return g;
}

int main(int argc, char **argv)
{
    int rank, size;
    static int wbuf[WLEN], vbuf[WLEN], src[64], got[64], vgot[4];
    long check = 0;
    MPI_Win W, V;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (size != P) {
        if (rank == 0)
            fprintf(stderr, "active: needs exactly %d ranks\n", P);
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    const int r = rank, next = (r + 1) % P, prev = (r + P - 1) % P, far = (r + 2) % P;
    for (int i = 0; i < WLEN; i++)
        wbuf[i] = 1000 * r + i;
    for (int i = 0; i < 64; i++)
        src[i] = 10 * r + i;

    /* A. fence epochs */
    MPI_Win_create(wbuf, sizeof wbuf, sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &W); /* MARK:a-create */
    MPI_Win_fence(0, W); /* MARK:a-fence-open */
    for (int e = 0; e < NEPOCH; e++) {
        MPI_Put(src + e, 2 * (r + 1), MPI_INT, next, 16 * e, 2 * (r + 1), MPI_INT, W); /* MARK:a-put */
        MPI_Get(got, 3 * r + 4, MPI_INT, far, 200 + e, 3 * r + 4, MPI_INT, W); /* MARK:a-get */
        MPI_Win_fence(0, W); /* MARK:a-fence */
        check += sum(got, 3 * r + 4);
    }

    /* B. MPI_PROC_NULL and a late rank */
    MPI_Put(src, 4, MPI_INT, MPI_PROC_NULL, 0, 4, MPI_INT, W); /* MARK:a-put-null */
    if (r == 1)
        sleep_ms(100);
    double arrived = now_s();
    MPI_Win_fence(MPI_MODE_NOSUCCEED, W); /* MARK:a-fence-late */
    double left = now_s();
    fprintf(stderr, "active: late fence: rank %d arrived %.6f s, left %.6f s\n", r, arrived, left);

    /* C. post/start/complete/wait: expose to prev, access next */
    MPI_Group from = single(prev), to = single(next);
    for (int e = 0; e < NPSCW; e++) {
        MPI_Win_post(from, 0, W); /* MARK:a-post */
        MPI_Win_start(to, 0, W); /* MARK:a-start */
        MPI_Put(src + 20 + e, 5, MPI_INT, next, 170 + 5 * e, 5, MPI_INT, W); /* MARK:a-pscw-put */
        MPI_Win_complete(W); /* MARK:a-complete */
        MPI_Win_wait(W); /* MARK:a-wait */
    }
    int done = 0;
    MPI_Win_post(from, 0, W); /* MARK:a-post2 */
    MPI_Win_start(to, 0, W); /* MARK:a-start2 */
    MPI_Put(src + 30, 1, MPI_INT, next, 190, 1, MPI_INT, W); /* MARK:a-pscw-put2 */
    MPI_Win_complete(W); /* MARK:a-complete2 */
    while (!done)
        MPI_Win_test(W, &done); /* MARK:a-test */
    MPI_Group_free(&from);
    MPI_Group_free(&to);
    check += sum(wbuf, WLEN);

    /* D. a window on the reversed communicator, created while not collecting */
    MPI_Comm rev;
    int s;
    for (int i = 0; i < WLEN; i++)
        vbuf[i] = 7 * r + i;
    MPI_Pcontrol(0);
    MPI_Comm_split(MPI_COMM_WORLD, 0, P - 1 - r, &rev);
    MPI_Comm_rank(rev, &s);
    MPI_Win_create(vbuf, sizeof vbuf, sizeof(int), MPI_INFO_NULL, rev, &V);
    MPI_Comm_free(&rev);
    MPI_Pcontrol(1);
    const int up = (s + 1) % P;
    MPI_Win_fence(0, V); /* MARK:s-fence-open */
    for (int e = 0; e < NSUB; e++) {
        MPI_Put(src + e, 6, MPI_INT, up, 6 * e, 6, MPI_INT, V); /* MARK:s-put */
        MPI_Win_fence(0, V); /* MARK:s-fence */
    }
    MPI_Win_fence(MPI_MODE_NOSUCCEED, V); /* MARK:s-fence-end */
    MPI_Win_lock(MPI_LOCK_SHARED, up, 0, V); /* MARK:s-lock */
    MPI_Get(vgot, 2, MPI_INT, up, 100, 2, MPI_INT, V); /* MARK:s-get */
    MPI_Win_flush(up, V); /* MARK:s-flush */
    MPI_Win_unlock(up, V); /* MARK:s-unlock */
    check += sum(vgot, 2);
    MPI_Barrier(MPI_COMM_WORLD);
    check += sum(vbuf, WLEN);
    MPI_Win old_v = V;
    MPI_Win_free(&V); /* MARK:s-free */

    /* E. a new window over MPI_COMM_WORLD, often at V's old handle */
    MPI_Win X;
    MPI_Win_create(vbuf, sizeof vbuf, sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &X); /* MARK:e-create */
    if (r == 0)
        fprintf(stderr, "active: the new window %s the freed one's handle\n",
                X == old_v ? "reuses" : "does not reuse");
    MPI_Win_fence(0, X); /* MARK:e-fence-open */
    MPI_Put(src, 1, MPI_INT, next, 200, 1, MPI_INT, X); /* MARK:e-put */
    MPI_Win_fence(0, X); /* MARK:e-fence */
    check += vbuf[200];
    MPI_Win_free(&X); /* MARK:e-free */
    MPI_Win_free(&W); /* MARK:a-free */

    long total = 0;
    MPI_Reduce(&check, &total, 1, MPI_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
    if (r == 0)
        printf("active: checksum %ld\n", total);
    MPI_Finalize();
    return 0;
}
