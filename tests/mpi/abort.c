/*
 * abort.c - hprof integration test (tests/mpi/requests.sh): MPI_Abort on
 * one rank leaves that rank's records.  3 ranks pass a token around a ring
 * NR=20 times (MPI_Send of 10 ints to the right, ab-send; MPI_Recv from
 * the left, ab-recv); then rank 1 sends 7 more messages of 3 doubles to
 * rank 2 (ab-extra) and calls MPI_Abort(MPI_COMM_WORLD, 3) (ab-abort)
 * while ranks 0 and 2 wait in MPI_Barrier (ab-barrier).
 * Ground truth in the file rank 1 writes: rank 1 ab-send peer 2 count 20
 * bytes_sent 800; ab-recv peer 0 count 20 bytes_recv 800; ab-extra peer 2
 * count 7 bytes_sent 168; the other ranks are marked missing (no records).
 * Rank 0 prints the token's final value before the abort.
 */
#include <mpi.h>
#include <stdio.h>

#define NR 20

int main(int argc, char **argv)
{
    int rank, size, token[10] = {0};
    double extra[3] = {1, 2, 3};
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (size != 3) {
        if (rank == 0)
            fprintf(stderr, "abort: needs exactly 3 ranks\n");
        MPI_Finalize();
        return 2;
    }
    for (int r = 0; r < NR; r++) {
        if (rank == 0) {
            token[0]++;
            MPI_Send(token, 10, MPI_INT, 1, 0, MPI_COMM_WORLD); /* MARK:ab-send0 */
            MPI_Recv(token, 10, MPI_INT, 2, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE); /* MARK:ab-recv0 */
        } else {
            MPI_Recv(token, 10, MPI_INT, rank - 1, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE); /* MARK:ab-recv */
            token[0]++;
            MPI_Send(token, 10, MPI_INT, (rank + 1) % 3, 0, MPI_COMM_WORLD); /* MARK:ab-send */
        }
    }
    if (rank == 0) {
        printf("token %d\n", token[0]);
        fflush(stdout);
    }
    if (rank == 1) {
        for (int i = 0; i < 7; i++)
            MPI_Send(extra, 3, MPI_DOUBLE, 2, 1, MPI_COMM_WORLD); /* MARK:ab-extra */
        MPI_Abort(MPI_COMM_WORLD, 3); /* MARK:ab-abort */
    }
    MPI_Barrier(MPI_COMM_WORLD); /* MARK:ab-barrier */
    MPI_Finalize();
    return 0;
}
