/*
 * agg_truth.c - the program of tests/aggregate/run.sh: the same MPI calls
 * on every rank, with rank-dependent message sizes and work so that the
 * per-node distributions (min, max, rank of max, histogram) are not
 * trivial.  Ground truth: a ring exchange of (rank + 1) KiB, ITER times,
 * from one function; an Allreduce and a Bcast per iteration from another;
 * an Alltoall of 8 ints per peer; rank 0 works longest before a Barrier;
 * each rank writes (rank + 1) x 100 bytes at its offset with MPI-IO;
 * ranks 2, 5, 8, ... call MPI_Comm_rank once more from their own line, a
 * node the first ranks do not have (merged after theirs: the node ids of
 * the aggregated tree must be the full merge's).
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define ITER 20

static volatile double sink;

static void work(int units)
{
    double s = 0;
    for (long i = 0; i < 20000L * units; i++)
        s += (double)i * 0.5;
    sink = s;
}

static void ring(int rank, int size, char *buf)
{
    int n = (rank + 1) * 1024, from = (rank + size - 1) % size, to = (rank + 1) % size;
    int m = (from + 1) * 1024;
    MPI_Sendrecv(buf, n, MPI_CHAR, to, 1, buf + n, m, MPI_CHAR, from, 1, MPI_COMM_WORLD,
                 MPI_STATUS_IGNORE);
}

static void reduce_step(int rank)
{
    double v = rank, sum = 0;
    MPI_Allreduce(&v, &sum, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    MPI_Bcast(&sum, 1, MPI_DOUBLE, 0, MPI_COMM_WORLD);
}

static void file_write(const char *path, int rank)
{
    MPI_File fh;
    char data[6400];
    int n = (rank + 1) * 100;
    memset(data, 'a' + rank % 26, sizeof data);
    MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_WRONLY, MPI_INFO_NULL, &fh);
    MPI_File_write_at_all(fh, (MPI_Offset)rank * 6400, data, n, MPI_CHAR, MPI_STATUS_IGNORE);
    MPI_File_close(&fh);
}

static int some_ranks_only(void)
{
    int r;
    MPI_Comm_rank(MPI_COMM_WORLD, &r);
    return r;
}

int main(int argc, char **argv)
{
    int rank, size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    char *buf = malloc((size_t)(2 * size + 2) * 1024);
    int *a2a = calloc((size_t)size * 16, sizeof *a2a);
    for (int i = 0; i < ITER; i++) {
        ring(rank, size, buf);
        reduce_step(rank);
        work(1 + rank % 4);
    }
    MPI_Alltoall(a2a, 8, MPI_INT, a2a + 8 * size, 8, MPI_INT, MPI_COMM_WORLD);
    if (rank % 3 == 2)
        some_ranks_only();
    work(rank == 0 ? 40 : 1);
    MPI_Barrier(MPI_COMM_WORLD);
    if (argc > 1)
        file_write(argv[1], rank);
    if (rank == 0)
        printf("agg_truth: %d ranks, %d iterations\n", size, ITER);
    free(buf);
    free(a2a);
    MPI_Finalize();
    return 0;
}
