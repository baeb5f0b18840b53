/*
 * jacobi.c - hybrid MPI+OpenMP 2-D Jacobi solver for the Laplace equation,
 * the demo program of hprof (examples/demo.sh) and of its integration tests.
 *
 * The N x N grid (plus a fixed boundary) is split into blocks of rows, one
 * block per rank (1-D decomposition).  Every iteration exchanges the halo
 * rows with both neighbours -- the upward direction with MPI_Sendrecv, the
 * downward direction with MPI_Isend/MPI_Irecv + MPI_Waitall, so a profile
 * shows both kinds of communication -- then updates the block with an
 * OpenMP parallel loop.  Every CHECK_EVERY iterations the max-norm of the
 * update is combined with MPI_Allreduce; the run stops at TOL or after the
 * given number of iterations.
 *
 * Output (rank 0, stdout) is deterministic for a given grid, iteration count
 * and number of ranks: the max-norm residual is exact whatever the order of
 * reduction, and the checksum is summed in a fixed order.
 *
 * usage: jacobi [N [ITERATIONS]]      (defaults: 1024 1000)
 */
#include <mpi.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CHECK_EVERY 10
#define TOL 1e-8

/* Index into the local block: rows 0 and nloc+1 are halo/boundary rows,
 * columns 0 and n+1 are the fixed left/right boundary. */
#define U(a, i, j) ((a)[(size_t)(i) * (size_t)(n + 2) + (size_t)(j)])

static void die(const char *msg)
{
    fprintf(stderr, "jacobi: %s\n", msg);
    MPI_Abort(MPI_COMM_WORLD, 2);
}

static long parse_arg(const char *s, const char *what, long lo, long hi)
{
    char *end;
    long v = strtol(s, &end, 10);
    if (*s == '\0' || *end != '\0' || v < lo || v > hi) {
        fprintf(stderr, "jacobi: bad %s '%s' (expected %ld..%ld)\n", what, s, lo, hi);
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    return v;
}

/* Exchange the halo rows with the neighbours above (rank-1) and below (rank+1). */
static void exchange_halo(double *u, int n, int nloc, int up, int down)
{
    MPI_Request req[2];

    /* Upward: send my first row up, receive the row below my block from down. */
    MPI_Sendrecv(&U(u, 1, 0), n + 2, MPI_DOUBLE, up, 1, &U(u, nloc + 1, 0), n + 2, MPI_DOUBLE, down, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE); /* HALO-SENDRECV */

    /* Downward: nonblocking, receive from up into row 0, send my last row down. */
    MPI_Irecv(&U(u, 0, 0), n + 2, MPI_DOUBLE, up, 2, MPI_COMM_WORLD, &req[0]); /* HALO-IRECV */
    MPI_Isend(&U(u, nloc, 0), n + 2, MPI_DOUBLE, down, 2, MPI_COMM_WORLD, &req[1]); /* HALO-ISEND */
    MPI_Waitall(2, req, MPI_STATUSES_IGNORE); /* HALO-WAITALL */
}

/* One Jacobi sweep over the local block; returns the local max-norm of the update. */
static double sweep(const double *u, double *unew, int n, int nloc)
{
    double diff = 0.0;
#pragma omp parallel for schedule(static) reduction(max : diff)
    for (int i = 1; i <= nloc; i++) {
        for (int j = 1; j <= n; j++) {
            double v = 0.25 * (U(u, i - 1, j) + U(u, i + 1, j) + U(u, i, j - 1) + U(u, i, j + 1));
            double d = fabs(v - U(u, i, j));
            U(unew, i, j) = v;
            if (d > diff)
                diff = d;
        }
    }
    return diff;
}

int main(int argc, char **argv)
{
    int rank, nranks;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nranks);

    if (argc > 3)
        die("usage: jacobi [N [ITERATIONS]]");
    int n = argc > 1 ? (int)parse_arg(argv[1], "grid size", 4, 1 << 15) : 1024;
    int iters = argc > 2 ? (int)parse_arg(argv[2], "iteration count", 1, 100000000) : 1000;
    if (n < nranks)
        die("grid size must be at least the number of ranks");

    /* This rank owns nloc consecutive rows of the interior (the first n % nranks ranks one more). */
    int nloc = n / nranks + (rank < n % nranks ? 1 : 0);
    int up = rank > 0 ? rank - 1 : MPI_PROC_NULL;
    int down = rank < nranks - 1 ? rank + 1 : MPI_PROC_NULL;

    size_t cells = (size_t)(nloc + 2) * (size_t)(n + 2);
    double *u = calloc(cells, sizeof *u);
    double *unew = calloc(cells, sizeof *unew);
    if (!u || !unew)
        die("out of memory");

    /* Boundary: the top edge of the global grid is held at 1, the rest at 0. */
    if (rank == 0)
        for (int j = 0; j < n + 2; j++)
            U(u, 0, j) = U(unew, 0, j) = 1.0;

    double t0 = MPI_Wtime();
    double resid = 0.0;
    int it;
    for (it = 1; it <= iters; it++) {
        exchange_halo(u, n, nloc, up, down);
        double local = sweep(u, unew, n, nloc);
        double *tmp = u;
        u = unew;
        unew = tmp;
        if (it % CHECK_EVERY == 0 || it == iters) {
            MPI_Allreduce(&local, &resid, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD); /* RESIDUAL-ALLREDUCE */
            if (resid < TOL)
                break;
        }
    }
    if (it > iters)
        it = iters;
    double elapsed = MPI_Wtime() - t0;

    /* Checksum: interior sum, per rank in row order, then combined on rank 0 in rank order. */
    double mine = 0.0;
    for (int i = 1; i <= nloc; i++)
        for (int j = 1; j <= n; j++)
            mine += U(u, i, j);
    double *all = rank == 0 ? malloc(sizeof(double) * (size_t)nranks) : NULL;
    MPI_Gather(&mine, 1, MPI_DOUBLE, all, 1, MPI_DOUBLE, 0, MPI_COMM_WORLD);

    if (rank == 0) {
        double sum = 0.0;
        for (int r = 0; r < nranks; r++)
            sum += all[r];
        printf("jacobi: grid %d x %d, %d ranks\n", n, n, nranks);
        printf("jacobi: iterations %d\n", it);
        printf("jacobi: residual %.6e\n", resid);
        printf("jacobi: checksum %.6f\n", sum);
        fprintf(stderr, "jacobi: %.3f s\n", elapsed);
        free(all);
    }
    free(u);
    free(unew);
    MPI_Finalize();
    return 0;
}
