/*
 * pingpong.c - hprof benchmark (bench/run.sh): MPI ping-pong between ranks 0
 * and 1 for 8 B, 64 KiB and 1 MiB messages; every round trip is timed and
 * the median one-way latency (round trip / 2) is reported per size, so the
 * same program built plain and with -lhprof shows the wrapper's cost on real
 * communication.  Output (rank 0): one line "pingpong BYTES MEDIAN_US".
 * usage: pingpong [REPS_SCALE]   (default 1; the round trips per size are
 * 2000, 500, 100 times the scale)
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

int main(int argc, char **argv)
{
    static const int sizes[] = {8, 64 * 1024, 1024 * 1024};
    static const int reps[] = {2000, 500, 100};
    int rank, nranks;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nranks);
    if (nranks < 2) {
        fprintf(stderr, "pingpong: needs 2 ranks\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    int scale = argc > 1 ? atoi(argv[1]) : 1;
    if (scale < 1)
        scale = 1;
    char *buf = calloc(1024 * 1024, 1);
    double *t = malloc(sizeof(double) * 2000 * (size_t)scale);
    if (!buf || !t)
        MPI_Abort(MPI_COMM_WORLD, 2);

    for (int s = 0; s < 3; s++) {
        int n = reps[s] * scale, bytes = sizes[s];
        for (int warm = 0; warm < 10; warm++) {
            if (rank == 0) {
                MPI_Send(buf, bytes, MPI_BYTE, 1, 0, MPI_COMM_WORLD);
                MPI_Recv(buf, bytes, MPI_BYTE, 1, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            } else if (rank == 1) {
                MPI_Recv(buf, bytes, MPI_BYTE, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
                MPI_Send(buf, bytes, MPI_BYTE, 0, 0, MPI_COMM_WORLD);
            }
        }
        MPI_Barrier(MPI_COMM_WORLD);
        for (int i = 0; i < n; i++) {
            if (rank == 0) {
                double t0 = MPI_Wtime();
                MPI_Send(buf, bytes, MPI_BYTE, 1, 1, MPI_COMM_WORLD);
                MPI_Recv(buf, bytes, MPI_BYTE, 1, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
                t[i] = (MPI_Wtime() - t0) / 2.0;
            } else if (rank == 1) {
                MPI_Recv(buf, bytes, MPI_BYTE, 0, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
                MPI_Send(buf, bytes, MPI_BYTE, 0, 1, MPI_COMM_WORLD);
            }
        }
        if (rank == 0) {
            qsort(t, (size_t)n, sizeof *t, cmp_double);
            printf("pingpong %d %.3f\n", bytes, t[n / 2] * 1e6);
        }
    }
    free(buf);
    free(t);
    MPI_Finalize();
    return 0;
}
