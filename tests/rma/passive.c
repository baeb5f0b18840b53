/*
 * passive.c - hprof integration test (tests/rma/run.sh): passive-target
 * one-sided communication, the atomics, the request-based calls and the
 * window management calls.  Needs exactly 4 ranks; int = 4 B.  Ground
 * truth for world rank r, with next = (r+1)%4, far = (r+2)%4 and prev =
 * (r+3)%4 (each a different rank, so every target has exactly one origin
 * per call):
 *
 *  A. Window W from MPI_Win_allocate (p-allocate, 1 call), 256 ints.
 *     NLOCK = 5 times: p-lock (exclusive, next), p-put (3(r+1) ints to
 *     next), p-flush (next), p-acc (r+2 ints, MPI_SUM, to next), p-unlock
 *     (next).  Records, all with peer next: p-put 5 x, 5 x 12(r+1) B
 *     sent; p-acc 5 x, 5 x 4(r+2) B sent; p-lock, p-flush, p-unlock 5
 *     records each, no bytes, their time as sync.
 *  B. p-lock-all, then once each: p-getacc (Get_accumulate MPI_SUM, r+1
 *     ints both ways, far): sent = recv = 4(r+1); p-getacc-noop
 *     (MPI_NO_OP, result r+2 ints, far): sent 0, recv 4(r+2); p-fop
 *     (Fetch_and_op MPI_SUM, one int, prev): sent 4, recv 4; p-fop-noop
 *     (MPI_NO_OP, one int, prev): sent 0, recv 4; p-cas (Compare_and_swap,
 *     one int, prev): sent 8, recv 4; p-flush-all.  (An 8-byte
 *     Compare_and_swap crashes Open MPI 4.1.4's osc/rdma over vader.)
 *     NREQ = 3 times: p-rput (7 ints to next) completed by p-wait
 *     (MPI_Wait); p-rget (5 ints from far), p-racc (3 ints, MPI_SUM, to
 *     prev) and p-rgetacc (Rget_accumulate MPI_SUM, 2 ints both ways,
 *     next) completed together by p-waitall (MPI_Waitall).  Records at the
 *     posting lines: p-rput -> next 3 x, 84 B sent; p-rget <- far 3 x, 60 B
 *     received; p-racc -> prev 3 x, 36 B sent; p-rgetacc -> next 3 x,
 *     24 B sent and 24 B received.  p-wait and p-waitall: no records.
 *     Then once: p-win-sync (time only), p-flush-local (next),
 *     p-flush-local-all, p-unlock-all.  p-lock-all, p-flush-all,
 *     p-flush-local-all, p-unlock-all: one record with peer -1 each;
 *     p-flush-local: one with peer next.
 *  C. Shared memory: p-shared (MPI_Win_allocate_shared on the node's
 *     communicator), p-shared-query (1 call), p-free-shared.
 *  D. Dynamic window: p-dynamic (MPI_Win_create_dynamic), p-attach of 16
 *     ints, then p-dyn-lock (shared, next), p-dyn-put (4 ints to next:
 *     1 record, 16 B), p-dyn-unlock (next), p-detach, p-free-dynamic.
 *  p-free frees W.  Every management call above is counted once.
 *
 * Rank 0 prints a checksum of every rank's windows and fetched data.
 */
#include <mpi.h>
#include <stdio.h>

#define P 4
#define NLOCK 5
#define NREQ 3
#define WLEN 256

static long sum(const int *a, int n)
{
    long s = 0;
    for (int i = 0; i < n; i++)
        s += (long)(i + 1) * a[i];
    return s;
}

int main(int argc, char **argv)
{
    int rank, size;
    static int src[64], res[64], got[64], dyn[16];
    long check = 0;
    int *wbuf;
    MPI_Win W;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (size != P) {
        if (rank == 0)
            fprintf(stderr, "passive: needs exactly %d ranks\n", P);
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    const int r = rank, next = (r + 1) % P, far = (r + 2) % P, prev = (r + 3) % P;
    for (int i = 0; i < 64; i++)
        src[i] = 10 * r + i;

    /* A. exclusive lock epochs */
    MPI_Win_allocate(WLEN * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &wbuf, &W); /* MARK:p-allocate */
    MPI_Win_lock(MPI_LOCK_EXCLUSIVE, r, 0, W);
    for (int i = 0; i < WLEN; i++)
        wbuf[i] = 1000 * r + i;
    MPI_Win_unlock(r, W);
    MPI_Barrier(MPI_COMM_WORLD);
    for (int e = 0; e < NLOCK; e++) {
        MPI_Win_lock(MPI_LOCK_EXCLUSIVE, next, 0, W); /* MARK:p-lock */
        MPI_Put(src + e, 3 * (r + 1), MPI_INT, next, 0, 3 * (r + 1), MPI_INT, W); /* MARK:p-put */
        MPI_Win_flush(next, W); /* MARK:p-flush */
        MPI_Accumulate(src, r + 2, MPI_INT, next, 20, r + 2, MPI_INT, MPI_SUM, W); /* MARK:p-acc */
        MPI_Win_unlock(next, W); /* MARK:p-unlock */
    }
    MPI_Barrier(MPI_COMM_WORLD);

    /* B. shared lock on all ranks: atomics and request-based calls */
    MPI_Win_lock_all(0, W); /* MARK:p-lock-all */
    MPI_Get_accumulate(src, r + 1, MPI_INT, res, r + 1, MPI_INT, far, 40, r + 1, MPI_INT, MPI_SUM, W); /* MARK:p-getacc */
    MPI_Get_accumulate(src, r + 2, MPI_INT, res + 8, r + 2, MPI_INT, far, 50, r + 2, MPI_INT, MPI_NO_OP, W); /* MARK:p-getacc-noop */
    int one = 1, fetched = 0, peeked = 0;
    MPI_Fetch_and_op(&one, &fetched, MPI_INT, prev, 60, MPI_SUM, W); /* MARK:p-fop */
    MPI_Fetch_and_op(&one, &peeked, MPI_INT, prev, 61, MPI_NO_OP, W); /* MARK:p-fop-noop */
    int cas_new = 77 + r, cas_cmp = 1000 * prev + 30, cas_old = 0;
    MPI_Compare_and_swap(&cas_new, &cas_cmp, &cas_old, MPI_INT, prev, 30, W); /* MARK:p-cas */
    MPI_Win_flush_all(W); /* MARK:p-flush-all */
    check += sum(res, 16) + fetched + peeked + cas_old;
    for (int e = 0; e < NREQ; e++) {
        MPI_Request one_req, reqs[3];
        MPI_Rput(src + e, 7, MPI_INT, next, 100 + 7 * e, 7, MPI_INT, W, &one_req); /* MARK:p-rput */
        MPI_Wait(&one_req, MPI_STATUS_IGNORE); /* MARK:p-wait */
        MPI_Rget(got, 5, MPI_INT, far, 200, 5, MPI_INT, W, &reqs[0]); /* MARK:p-rget */
        MPI_Raccumulate(src, 3, MPI_INT, prev, 130, 3, MPI_INT, MPI_SUM, W, &reqs[1]); /* MARK:p-racc */
        MPI_Rget_accumulate(src, 2, MPI_INT, res + 32, 2, MPI_INT, next, 140, 2, MPI_INT, MPI_SUM, W, &reqs[2]); /* MARK:p-rgetacc */
        MPI_Waitall(3, reqs, MPI_STATUSES_IGNORE); /* MARK:p-waitall */
        check += sum(got, 5) + sum(res + 32, 2);
    }
    MPI_Win_sync(W); /* MARK:p-win-sync */
    MPI_Win_flush_local(next, W); /* MARK:p-flush-local */
    MPI_Win_flush_local_all(W); /* MARK:p-flush-local-all */
    MPI_Win_unlock_all(W); /* MARK:p-unlock-all */
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Win_lock(MPI_LOCK_SHARED, r, 0, W);
    check += sum(wbuf, WLEN);
    MPI_Win_unlock(r, W);

    /* C. shared-memory window */
    MPI_Comm node;
    MPI_Win S;
    int *sbase, *peer_base, disp;
    MPI_Aint ssize;
    MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node);
    MPI_Win_allocate_shared(16 * sizeof(int), sizeof(int), MPI_INFO_NULL, node, &sbase, &S); /* MARK:p-shared */
    MPI_Win_shared_query(S, 0, &ssize, &disp, &peer_base); /* MARK:p-shared-query */
    check += (long)ssize + disp;
    MPI_Win_free(&S); /* MARK:p-free-shared */
    MPI_Comm_free(&node);

    /* D. dynamic window */
    MPI_Win D;
    MPI_Aint mine, addr[P];
    for (int i = 0; i < 16; i++)
        dyn[i] = -i;
    MPI_Win_create_dynamic(MPI_INFO_NULL, MPI_COMM_WORLD, &D); /* MARK:p-dynamic */
    MPI_Win_attach(D, dyn, sizeof dyn); /* MARK:p-attach */
    MPI_Get_address(dyn, &mine);
    MPI_Allgather(&mine, 1, MPI_AINT, addr, 1, MPI_AINT, MPI_COMM_WORLD);
    MPI_Win_lock(MPI_LOCK_SHARED, next, 0, D); /* MARK:p-dyn-lock */
    MPI_Put(src + 40, 4, MPI_INT, next, addr[next], 4, MPI_INT, D); /* MARK:p-dyn-put */
    MPI_Win_unlock(next, D); /* MARK:p-dyn-unlock */
    MPI_Barrier(MPI_COMM_WORLD);
    check += sum(dyn, 16);
    MPI_Win_detach(D, dyn); /* MARK:p-detach */
    MPI_Win_free(&D); /* MARK:p-free-dynamic */
    MPI_Win_free(&W); /* MARK:p-free */

    long total = 0;
    MPI_Reduce(&check, &total, 1, MPI_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
    if (r == 0)
        printf("passive: checksum %ld\n", total);
    MPI_Finalize();
    return 0;
}
