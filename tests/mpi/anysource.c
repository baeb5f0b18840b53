/*
 * anysource.c - hprof integration test (tests/mpi/run.sh): receives with
 * MPI_ANY_SOURCE must be attributed to the ACTUAL source.  Ranks 1..3 each
 * send 3 messages of 20 ints to rank 0; rank 0 receives the 9 messages with
 * MPI_ANY_SOURCE, 6 on one line with a status and 3 on another line with
 * MPI_STATUS_IGNORE.  Ground truth on rank 0, summed over both lines: peer
 * s (s = 1..3) count 3, bytes_recv 240; line totals 6 and 3; no record with
 * a negative peer.  Needs exactly 4 ranks.
 */
#include <mpi.h>
#include <stdio.h>

#define PER_SENDER 3
#define LEN 20

int main(int argc, char **argv)
{
    int rank, size, buf[LEN];
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (size != 4) {
        if (rank == 0)
            fprintf(stderr, "anysource: needs exactly 4 ranks\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    if (rank == 0) {
        long sum = 0;
        int from[4] = {0, 0, 0, 0};
        for (int m = 0; m < 2 * (size - 1); m++) {
            MPI_Status st;
            MPI_Recv(buf, LEN, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &st); /* MARK:any-recv-status */
            from[st.MPI_SOURCE]++;
            for (int i = 0; i < LEN; i++)
                sum += buf[i];
        }
        for (int m = 0; m < size - 1; m++) {
            MPI_Recv(buf, LEN, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, MPI_STATUS_IGNORE); /* MARK:any-recv-ignore */
            for (int i = 0; i < LEN; i++)
                sum += buf[i];
        }
        /* Which source lands on which line varies from run to run; print only the totals. */
        printf("anysource: received %d messages, sum %ld\n", 3 * (size - 1), sum);
    } else {
        for (int m = 0; m < PER_SENDER; m++) {
            for (int i = 0; i < LEN; i++)
                buf[i] = rank * 1000 + m * 100 + i;
            MPI_Send(buf, LEN, MPI_INT, 0, m, MPI_COMM_WORLD); /* MARK:any-send */
        }
    }
    MPI_Finalize();
    return 0;
}
