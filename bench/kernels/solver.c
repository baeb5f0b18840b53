/*
 * solver.c - a bench kernel shaped like NPB BT's ADI solver (bt.c:
 * compute_rhs, x_solve, add): a grid of 5-component cells, each step an
 * OpenMP parallel region with worksharing loops: a stencil right-hand
 * side (nested call-free loops), a line solve along x per (j, k) line
 * (once per line lhs_init, whose loop's length is an argument, like BT's
 * lhsinit; for each cell, calls of small 5x5 block procedures:
 * straight-line like BT's matvec_sub/binvrhs, or, like BT's matmul_sub,
 * a loop of constant trip count 5 around five statements, and lhs_clear,
 * a 25-iteration loop), and
 * an update; plus, once per cell and step, ref_value: a procedure of a
 * few statements with a 5-iteration loop (BT's exact_solution).  It
 * stresses what the tier-2 policy does to NPB: hot tiny block procedures,
 * short hot procedures holding a loop, POMP2 worksharing constructs.
 *
 * Output: "kernel solver SECONDS" (the steps) and "checksum solver S"
 * (the sum of the solution, identical plain and instrumented, for any
 * number of threads: every cell is computed by one thread, the sum is
 * taken serially).
 * usage: solver [STEPS]   (default 60)
 */
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>

#define N 24
#define NC 5

static double u[N][N][N][NC], rhs[N][N][N][NC];

/* ref_value - a reference state at cell (i, j, k) (BT's exact_solution). */
static void ref_value(int i, int j, int k, double out[NC])
{
    double x = i * (1.0 / N), y = j * (1.0 / N), z = k * (1.0 / N);
    for (int m = 0; m < NC; m++)
        out[m] = 1.0 + m * 0.1 + x * (0.2 + 0.01 * m) + y * 0.3 + z * z * 0.05;
}

/* lhs_clear - an identity block (BT's lhsinit: a loop in four statements). */
static void lhs_clear(double b[NC][NC])
{
    for (int n = 0; n < NC * NC; n++)
        b[n / NC][n % NC] = n / NC == n % NC ? 1.0 : 0.0;
}

/* lhs_init - zeroes the first size rows of a line's diagonal terms (BT's
 * lhsinit: a loop of a size given at run time, in two statements). */
static void lhs_init(double d[][NC], int size)
{
    for (int i = 0; i < size; i++)
        for (int m = 0; m < NC; m++)
            d[i][m] = 0.0;
}

/* matvec_sub - v -= a * w for a 5x5 block (straight-line, as BT's). */
static void matvec_sub(double a[NC][NC], const double w[NC], double v[NC])
{
    v[0] -= a[0][0] * w[0] + a[0][1] * w[1] + a[0][2] * w[2] + a[0][3] * w[3] + a[0][4] * w[4];
    v[1] -= a[1][0] * w[0] + a[1][1] * w[1] + a[1][2] * w[2] + a[1][3] * w[3] + a[1][4] * w[4];
    v[2] -= a[2][0] * w[0] + a[2][1] * w[1] + a[2][2] * w[2] + a[2][3] * w[3] + a[2][4] * w[4];
    v[3] -= a[3][0] * w[0] + a[3][1] * w[1] + a[3][2] * w[2] + a[3][3] * w[3] + a[3][4] * w[4];
    v[4] -= a[4][0] * w[0] + a[4][1] * w[1] + a[4][2] * w[2] + a[4][3] * w[3] + a[4][4] * w[4];
}

/* matmul_sub - c -= a * b for 5x5 blocks (BT's matmul_sub: a loop of
 * constant trip count 5 around five statements). */
static void matmul_sub(double a[NC][NC], double b[NC][NC], double c[NC][NC])
{
    for (int j = 0; j < NC; j++) {
        c[0][j] -= a[0][0] * b[0][j] + a[0][1] * b[1][j] + a[0][2] * b[2][j] + a[0][3] * b[3][j] + a[0][4] * b[4][j];
        c[1][j] -= a[1][0] * b[0][j] + a[1][1] * b[1][j] + a[1][2] * b[2][j] + a[1][3] * b[3][j] + a[1][4] * b[4][j];
        c[2][j] -= a[2][0] * b[0][j] + a[2][1] * b[1][j] + a[2][2] * b[2][j] + a[2][3] * b[3][j] + a[2][4] * b[4][j];
        c[3][j] -= a[3][0] * b[0][j] + a[3][1] * b[1][j] + a[3][2] * b[2][j] + a[3][3] * b[3][j] + a[3][4] * b[4][j];
        c[4][j] -= a[4][0] * b[0][j] + a[4][1] * b[1][j] + a[4][2] * b[2][j] + a[4][3] * b[3][j] + a[4][4] * b[4][j];
    }
}

/* diag_scale - v /= the block's diagonal, damped (straight-line, BT's binvrhs). */
static void diag_scale(double a[NC][NC], double v[NC])
{
    v[0] /= a[0][0] + 4.0;
    v[1] /= a[1][1] + 4.0;
    v[2] /= a[2][2] + 4.0;
    v[3] /= a[3][3] + 4.0;
    v[4] /= a[4][4] + 4.0;
}

/* x_line - the line solve along x of line (j, k). */
static void x_line(int j, int k)
{
    double blk[NC][NC], coup[NC][NC], prev[NC] = {0, 0, 0, 0, 0}, diag[N][NC];
    lhs_init(diag, N);
    for (int i = 0; i < N; i++) {
        lhs_clear(blk);
        for (int m = 0; m < NC; m++)
            blk[m][m] += diag[i][m];
        blk[0][1] = blk[1][2] = blk[2][3] = blk[3][4] = 0.01 * (i + 1);
        lhs_clear(coup);
        matmul_sub(blk, blk, coup);
        blk[4][0] = 1e-3 * coup[4][0];
        matvec_sub(blk, prev, rhs[k][j][i]);
        diag_scale(blk, rhs[k][j][i]);
        for (int m = 0; m < NC; m++)
            prev[m] = 0.5 * rhs[k][j][i][m];
    }
}

static void step(void)
{
#pragma omp parallel
    {
#pragma omp for schedule(static)
        for (int k = 1; k < N - 1; k++)
            for (int j = 1; j < N - 1; j++)
                for (int i = 1; i < N - 1; i++)
                    for (int m = 0; m < NC; m++)
                        rhs[k][j][i][m] = 0.1 * (u[k][j][i + 1][m] + u[k][j][i - 1][m] + u[k][j + 1][i][m] +
                                                 u[k][j - 1][i][m] + u[k + 1][j][i][m] + u[k - 1][j][i][m] -
                                                 6.0 * u[k][j][i][m]);
#pragma omp for schedule(static)
        for (int k = 1; k < N - 1; k++)
            for (int j = 1; j < N - 1; j++)
                x_line(j, k);
#pragma omp for schedule(static)
        for (int k = 1; k < N - 1; k++)
            for (int j = 1; j < N - 1; j++)
                for (int i = 1; i < N - 1; i++) {
                    double ref[NC];
                    ref_value(i, j, k, ref);
                    for (int m = 0; m < NC; m++)
                        u[k][j][i][m] += 0.5 * rhs[k][j][i][m] + 1e-6 * (ref[m] - u[k][j][i][m]);
                }
    }
}

int main(int argc, char **argv)
{
    int steps = argc > 1 ? atoi(argv[1]) : 60;
    for (int k = 0; k < N; k++)
        for (int j = 0; j < N; j++)
            for (int i = 0; i < N; i++)
                ref_value(i, j, k, u[k][j][i]);
    double t0 = omp_get_wtime();
    for (int s = 0; s < steps; s++)
        step();
    double t = omp_get_wtime() - t0, sum = 0;
    for (int k = 0; k < N; k++)
        for (int j = 0; j < N; j++)
            for (int i = 0; i < N; i++)
                for (int m = 0; m < NC; m++)
                    sum += u[k][j][i][m];
    printf("kernel solver %.6f\n", t);
    printf("checksum solver %.10e\n", sum);
    return 0;
}
