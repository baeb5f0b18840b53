/*
 * put_latency.c - hprof integration test (tests/rma/run.sh): the loop of
 * OSU's osu_put_latency (passive target, flush after every put).  Needs 2
 * ranks.  Rank 0 locks rank 1 (l-lock, shared), then NITER = 1000 times
 * puts 8 bytes to rank 1 (l-put) and flushes (l-flush); l-unlock.  Ground
 * truth on rank 0: l-put 1000 records to peer 1, 8000 B sent; l-flush 1000
 * records to peer 1, no bytes, its time as sync; l-lock and l-unlock 1
 * record each with peer 1.  Rank 1 only reads its window under a lock of
 * its own and sends the value to rank 0.  The summary on
 * stderr lists MPI_Put and MPI_Win_flush among the communication sites.
 * Rank 0 prints the value rank 1 holds at the end.
 */
#include <mpi.h>
#include <stdio.h>

#define NITER 1000

int main(int argc, char **argv)
{
    int rank, size;
    double *base, value = 0;
    MPI_Win W;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (size != 2) {
        if (rank == 0)
            fprintf(stderr, "put_latency: needs exactly 2 ranks\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    MPI_Win_allocate(sizeof(double), sizeof(double), MPI_INFO_NULL, MPI_COMM_WORLD, &base, &W);
    *base = -1;
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0) {
        MPI_Win_lock(MPI_LOCK_SHARED, 1, 0, W); /* MARK:l-lock */
        for (int i = 0; i < NITER; i++) {
            value = i;
            MPI_Put(&value, 1, MPI_DOUBLE, 1, 0, 1, MPI_DOUBLE, W); /* MARK:l-put */
            MPI_Win_flush(1, W); /* MARK:l-flush */
        }
        MPI_Win_unlock(1, W); /* MARK:l-unlock */
    }
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 1) {
        MPI_Win_lock(MPI_LOCK_SHARED, 1, 0, W);
        value = *base;
        MPI_Win_unlock(1, W);
        MPI_Send(&value, 1, MPI_DOUBLE, 0, 0, MPI_COMM_WORLD);
    } else {
        MPI_Recv(&value, 1, MPI_DOUBLE, 1, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    }
    if (rank == 0)
        printf("put_latency: rank 1 holds %.0f\n", value);
    MPI_Win_free(&W);
    MPI_Finalize();
    return 0;
}
