/*
 * pcontrol.c - hprof integration test (tests/mpi/run.sh): MPI_Pcontrol
 * switches collection off (0), on (1) and resets it (2).  Rank 0 sends and
 * rank 1 receives, both calling MPI_Pcontrol at the same points:
 *   30 messages (line A), Pcontrol(2), 15 messages (line B),
 *   Pcontrol(0), 50 messages (line C), Pcontrol(1), 20 messages (line D).
 * Ground truth for each rank: A count 0 (reset), B 15, C 0 (off), D 20.
 * Needs exactly 2 ranks.
 */
#include <mpi.h>
#include <stdio.h>

static int rank;
static long sum;

static void xfer_a(int n)
{
    for (int i = 0; i < n; i++) {
        int v = i;
        if (rank == 0)
            MPI_Send(&v, 1, MPI_INT, 1, 1, MPI_COMM_WORLD); /* MARK:pc-send-A */
        else
            MPI_Recv(&v, 1, MPI_INT, 0, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE); /* MARK:pc-recv-A */
        sum += v;
    }
}

static void xfer_b(int n)
{
    for (int i = 0; i < n; i++) {
        int v = i;
        if (rank == 0)
            MPI_Send(&v, 1, MPI_INT, 1, 2, MPI_COMM_WORLD); /* MARK:pc-send-B */
        else
            MPI_Recv(&v, 1, MPI_INT, 0, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE); /* MARK:pc-recv-B */
        sum += v;
    }
}

static void xfer_c(int n)
{
    for (int i = 0; i < n; i++) {
        int v = i;
        if (rank == 0)
            MPI_Send(&v, 1, MPI_INT, 1, 3, MPI_COMM_WORLD); /* MARK:pc-send-C */
        else
            MPI_Recv(&v, 1, MPI_INT, 0, 3, MPI_COMM_WORLD, MPI_STATUS_IGNORE); /* MARK:pc-recv-C */
        sum += v;
    }
}

static void xfer_d(int n)
{
    for (int i = 0; i < n; i++) {
        int v = i;
        if (rank == 0)
            MPI_Send(&v, 1, MPI_INT, 1, 4, MPI_COMM_WORLD); /* MARK:pc-send-D */
        else
            MPI_Recv(&v, 1, MPI_INT, 0, 4, MPI_COMM_WORLD, MPI_STATUS_IGNORE); /* MARK:pc-recv-D */
        sum += v;
    }
}

int main(int argc, char **argv)
{
    int size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (size != 2) {
        if (rank == 0)
            fprintf(stderr, "pcontrol: needs exactly 2 ranks\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    xfer_a(30);
    MPI_Pcontrol(2);
    xfer_b(15);
    MPI_Pcontrol(0);
    xfer_c(50);
    MPI_Pcontrol(1);
    xfer_d(20);
    if (rank == 1)
        printf("pcontrol: received sum %ld\n", sum);
    MPI_Finalize();
    return 0;
}
