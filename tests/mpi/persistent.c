/*
 * persistent.c - hprof integration test (tests/mpi/run.sh): persistent
 * requests and MPI_Request_free of an active send.  Rank 0 and rank 1
 * exchange with persistent requests:
 *  - pair A (p-send-init / p-recv-init): rank 0 sends 100 doubles, rank 1
 *    sends 30 ints; MPI_Startall (p-startall) + MPI_Waitall (p-waitall)
 *    25 times;
 *  - pair B (p-send-init2 / p-recv-init2): 16 ints each way, started one by
 *    one with MPI_Start (p-start-recv, p-start-send) and completed with
 *    MPI_Wait (p-wait-send) / MPI_Test loop (p-test-recv), 10 times;
 *  - then both pairs are freed (inactive: nothing recorded);
 *  - rank 1 posts MPI_Irecv of 48 ints (p-free-irecv), and after a barrier
 *    rank 0 MPI_Isend's them (p-free-isend) and frees the active request at
 *    once with MPI_Request_free (p-request-free).
 * Ground truth: rank 0 p-send-init peer 1 count 25 bytes_sent 20000,
 * p-recv-init peer 1 count 25 bytes_recv 3000 (rank 1 mirrored); pair B
 * lines count 10, 640 bytes; nodes: p-startall and p-waitall 25, p-start-*
 * 10, init lines 1; Start/Startall/Wait/Test/Request_free lines have no
 * comm records; rank 0 p-free-isend peer 1 count 1 bytes_sent 192.
 * Rank 0 prints a checksum.  Needs exactly 2 ranks.
 */
#include <mpi.h>
#include <stdio.h>

#define NA 25
#define NB 10

int main(int argc, char **argv)
{
    int rank, size;
    static double dsend[100], drecv[100];
    static int isend_[30], irecv_[30];
    int b_out[16], b_in[16];
    long check = 0;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (size != 2) {
        if (rank == 0)
            fprintf(stderr, "persistent: needs exactly 2 ranks\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    const int peer = 1 - rank;
    void *sbuf = rank == 0 ? (void *)dsend : (void *)isend_;
    void *rbuf = rank == 0 ? (void *)irecv_ : (void *)drecv;
    int scount = rank == 0 ? 100 : 30, rcount = rank == 0 ? 30 : 100;
    MPI_Datatype stype = rank == 0 ? MPI_DOUBLE : MPI_INT;
    MPI_Datatype rtype = rank == 0 ? MPI_INT : MPI_DOUBLE;

    MPI_Request a[2], b[2];
    MPI_Send_init(sbuf, scount, stype, peer, 1, MPI_COMM_WORLD, &a[0]); /* MARK:p-send-init */
    MPI_Recv_init(rbuf, rcount, rtype, peer, 1, MPI_COMM_WORLD, &a[1]); /* MARK:p-recv-init */
    for (int it = 0; it < NA; it++) {
        for (int i = 0; i < 100; i++)
            dsend[i] = it + i;
        for (int i = 0; i < 30; i++)
            isend_[i] = it * i;
        MPI_Startall(2, a); /* MARK:p-startall */
        MPI_Waitall(2, a, MPI_STATUSES_IGNORE); /* MARK:p-waitall */
        if (rank == 0)
            for (int i = 0; i < 30; i++)
                check += irecv_[i];
        else
            for (int i = 0; i < 100; i++)
                check += (long)drecv[i];
    }

    MPI_Send_init(b_out, 16, MPI_INT, peer, 2, MPI_COMM_WORLD, &b[0]); /* MARK:p-send-init2 */
    MPI_Recv_init(b_in, 16, MPI_INT, peer, 2, MPI_COMM_WORLD, &b[1]); /* MARK:p-recv-init2 */
    for (int it = 0; it < NB; it++) {
        int flag = 0;
        for (int i = 0; i < 16; i++)
            b_out[i] = 1000 * rank + it + i;
        MPI_Start(&b[1]); /* MARK:p-start-recv */
        MPI_Start(&b[0]); /* MARK:p-start-send */
        MPI_Wait(&b[0], MPI_STATUS_IGNORE); /* MARK:p-wait-send */
        while (!flag)
            MPI_Test(&b[1], &flag, MPI_STATUS_IGNORE); /* MARK:p-test-recv */
        for (int i = 0; i < 16; i++)
            check += b_in[i];
    }
    for (int k = 0; k < 2; k++) {
        MPI_Request_free(&a[k]); /* MARK:p-free-inactive-a */
        MPI_Request_free(&b[k]); /* MARK:p-free-inactive-b */
    }

    /* MPI_Request_free of an active Isend whose receive is already posted. */
    int fbuf[48];
    MPI_Request fr;
    if (rank == 1)
        MPI_Irecv(fbuf, 48, MPI_INT, 0, 3, MPI_COMM_WORLD, &fr); /* MARK:p-free-irecv */
    MPI_Barrier(MPI_COMM_WORLD); /* MARK:p-free-barrier */
    if (rank == 0) {
        for (int i = 0; i < 48; i++)
            fbuf[i] = 7 * i;
        MPI_Isend(fbuf, 48, MPI_INT, 1, 3, MPI_COMM_WORLD, &fr); /* MARK:p-free-isend */
        MPI_Request_free(&fr); /* MARK:p-request-free */
    } else {
        MPI_Wait(&fr, MPI_STATUS_IGNORE); /* MARK:p-free-wait */
        for (int i = 0; i < 48; i++)
            check += fbuf[i];
    }
    MPI_Barrier(MPI_COMM_WORLD); /* MARK:p-free-barrier2 */

    long total;
    MPI_Reduce(&check, &total, 1, MPI_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
    if (rank == 0)
        printf("persistent: %d + %d exchanges, checksum %ld\n", NA, NB, total);
    MPI_Finalize();
    return 0;
}
