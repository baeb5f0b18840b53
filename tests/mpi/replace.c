/*
 * replace.c - ground truth for MPI_Sendrecv_replace (3 ranks): a ring
 * shift of a strided vector (10 ints out of 20) in place, where rank 1
 * enters 150 ms late.  Rank 2 receives from rank 1, so its receive record
 * at the marked line must show a synchronization delay of about 150 ms;
 * every rank sends and receives 40 bytes.  The data moved must be the
 * same as without hprof (rank 0 prints every rank's checksum).  A loaded
 * machine stretches the sleep, so each rank prints on stderr when it
 * arrived at the marked line and when it left it (CLOCK_MONOTONIC, one
 * clock for the ranks of a node): "replace: rank R arrived A s, left L s".
 */
#include <mpi.h>
#include <stdio.h>
#include <time.h>
#include <unistd.h>

static double now_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
    int rank, size, buf[20];
    long sum, sums[3];
    MPI_Datatype every_other;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Type_vector(10, 1, 2, MPI_INT, &every_other);
    MPI_Type_commit(&every_other);
    for (int i = 0; i < 20; i++)
        buf[i] = rank * 100 + i;
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 1)
        usleep(150000);
    double arrived = now_s();
    MPI_Sendrecv_replace(buf, 1, every_other, (rank + 1) % size, 7, (rank + size - 1) % size, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE); /* MARK:r-replace */
    double left = now_s();
    fprintf(stderr, "replace: rank %d arrived %.6f s, left %.6f s\n", rank, arrived, left);
    sum = 0;
    for (int i = 0; i < 20; i++)
        sum += (long)buf[i] * (i + 1);
    MPI_Gather(&sum, 1, MPI_LONG, sums, 1, MPI_LONG, 0, MPI_COMM_WORLD);
    if (rank == 0)
        for (int r = 0; r < size && r < 3; r++)
            printf("replace: rank %d checksum %ld\n", r, sums[r]);
    MPI_Type_free(&every_other);
    MPI_Finalize();
    return 0;
}
