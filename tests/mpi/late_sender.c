/*
 * late_sender.c - hprof integration test (tests/mpi/run.sh): the "late
 * sender" pattern with a known synchronization delay.  Both ranks leave a
 * barrier together; rank 0 enters MPI_Recv at once while rank 1 sleeps
 * 200 ms before sending.  Ground truth: rank 0's receive site has one comm
 * record from peer 1, count 1, 400 bytes, sync ~0.200 s, tran ~0.
 * A loaded machine stretches the sleep, so each rank prints on stderr
 * when it arrived at its statement and when it left it (CLOCK_MONOTONIC,
 * one clock for the ranks of a node): "late_sender: rank R arrived A s,
 * left L s".  The receive's synchronization delay is at least the sender's
 * arrival less the receiver's, at most the receive's whole time.
 * Needs exactly 2 ranks.
 */
#include <mpi.h>
#include <stdio.h>
#include <time.h>

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

int main(int argc, char **argv)
{
    int rank, size, buf[100] = {0};
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (size != 2) {
        if (rank == 0)
            fprintf(stderr, "late_sender: needs exactly 2 ranks\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    double arrived, left;
    if (rank == 0) {
        arrived = now_s();
        MPI_Recv(buf, 100, MPI_INT, 1, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE); /* MARK:late-recv */
        left = now_s();
    } else {
        for (int i = 0; i < 100; i++)
            buf[i] = i;
        sleep_ms(200);
        arrived = now_s();
        MPI_Send(buf, 100, MPI_INT, 0, 7, MPI_COMM_WORLD); /* MARK:late-send */
        left = now_s();
    }
    fprintf(stderr, "late_sender: rank %d arrived %.6f s, left %.6f s\n", rank, arrived, left);
    long sum = 0;
    for (int i = 0; i < 100; i++)
        sum += buf[i];
    if (rank == 0)
        printf("late_sender: received sum %ld\n", sum);
    MPI_Finalize();
    return 0;
}
