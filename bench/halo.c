/*
 * halo.c - hprof benchmark (bench/vtime.sh): a Jacobi stencil with a halo
 * exchange, the shape of most MPI codes without wildcard receives, for
 * what virtual time (HPROF_VIRTUAL_TIME=1) costs a program that computes
 * between its messages.  The ranks form a ring, each with ROWS x COLS
 * points; every iteration sends its first and last rows to its two
 * neighbours (MPI_Irecv, MPI_Isend, MPI_Waitall: 2 messages of COLS
 * doubles each way per rank), then updates its points from the four
 * neighbours' values, and every 10th iteration the ranks sum their
 * change (MPI_Allreduce).  On 1 rank the neighbours are the rank itself
 * (deterministic under callgrind).
 * Output (rank 0): "halo ITERS CHECKSUM", the same with and without hprof.
 * usage: halo [ITERS] [ROWS] [COLS]   (defaults 200, 64, 256)
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

static int rows, cols;

#define AT(g, i, j) (g)[(size_t)(i) * (size_t)cols + (size_t)(j)]

/* Rows 0 and rows+1 are the halo; columns wrap around. */
static void exchange(double *g, int up, int down)
{
    MPI_Request req[4];
    MPI_Irecv(&AT(g, 0, 0), cols, MPI_DOUBLE, up, 1, MPI_COMM_WORLD, &req[0]);
    MPI_Irecv(&AT(g, rows + 1, 0), cols, MPI_DOUBLE, down, 2, MPI_COMM_WORLD, &req[1]);
    MPI_Isend(&AT(g, rows, 0), cols, MPI_DOUBLE, down, 1, MPI_COMM_WORLD, &req[2]);
    MPI_Isend(&AT(g, 1, 0), cols, MPI_DOUBLE, up, 2, MPI_COMM_WORLD, &req[3]);
    MPI_Waitall(4, req, MPI_STATUSES_IGNORE);
}

/* One Jacobi sweep from g into h; the sum of the changes' magnitudes. */
static double sweep(const double *g, double *h)
{
    double change = 0;
    for (int i = 1; i <= rows; i++) {
        for (int j = 0; j < cols; j++) {
            double v = 0.25 * (AT(g, i - 1, j) + AT(g, i + 1, j) +
                               AT(g, i, (j + cols - 1) % cols) + AT(g, i, (j + 1) % cols));
            change += v > AT(g, i, j) ? v - AT(g, i, j) : AT(g, i, j) - v;
            AT(h, i, j) = v;
        }
    }
    return change;
}

int main(int argc, char **argv)
{
    int rank, size, iters = argc > 1 ? atoi(argv[1]) : 200;
    rows = argc > 2 ? atoi(argv[2]) : 64;
    cols = argc > 3 ? atoi(argv[3]) : 256;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    double *g = calloc((size_t)(rows + 2) * (size_t)cols, sizeof *g);
    double *h = calloc((size_t)(rows + 2) * (size_t)cols, sizeof *h);
    if (!g || !h)
        MPI_Abort(MPI_COMM_WORLD, 1);
    for (int j = 0; j < cols; j++)
        AT(g, 1, j) = rank + 1.0 + j % 7;
    int up = (rank + size - 1) % size, down = (rank + 1) % size;
    double change = 0, total = 0;
    for (int it = 0; it < iters; it++) {
        exchange(g, up, down);
        change = sweep(g, h);
        double *t = g;
        g = h;
        h = t;
        if (it % 10 == 9)
            MPI_Allreduce(&change, &total, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    }
    if (rank == 0)
        printf("halo %d %.6e\n", iters, total);
    free(g);
    free(h);
    MPI_Finalize();
    return 0;
}
