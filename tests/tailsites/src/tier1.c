/*
 * tier1.c - tier 1 (gcc -finstrument-functions, libgomp): a region's and
 * a task's body that is only a call of a user function (issue 24, item
 * 7), which gcc's outlined function makes as a tail call.  Truth: the
 * call of work() at MARK:call, NT x REPS times, named after main; the
 * call of leaf() (kept out of line, like BOTS sort's recursive
 * cilksort_par) at MARK:leaf, NTASK x REPS times; no call site at any
 * line of hprof's own code.
 * ssor(), like NPB LU's ssor: a region with a static `omp for`
 * (MARK:scale), a serial loop over planes calling two functions kept out
 * of line (orphaned `nowait` loops), an explicit barrier (MARK:bar1),
 * the same backwards (MARK:bar2), then an `omp for` (MARK:update); with
 * -finstrument-functions gcc puts the setup of the serial loop (`k = 1`)
 * before scale's barrier call, whose row is then that loop's.  Truth per
 * thread and region: one implicit barrier at scale and at the region
 * (MARK:ssor), one barrier at bar1 and at bar2; none at update, which
 * ends the region (gcc makes no barrier call for it: the region's own
 * end barrier serves).
 * The sums go to stdout.
 */
#include <omp.h>
#include <stdio.h>

#define REPS 50
#define NT 2
#define N 1000
#define NTASK 8

#define G 12

static double a[N];
static double acc[NTASK];
static double rsd[G][G][G][5], u[G][G][G][5], tv[G][G][5];
static double da[G][G][5][5], db[G][G][5][5], dc[G][G][5][5], dd[G][G][5][5];
static int ist = 1, iend = G - 2, jst = 1, jend = G - 2, nx = G, ny = G, nz = G;
static double omega = 1.2, dt = 0.5;

void work(void);
void leaf(int i);

void work(void)
{
#pragma omp for
    for (int i = 0; i < N; i++)
        a[i] += i;
}

__attribute__((noinline)) void leaf(int i)
{
    acc[i] += i * 0.25;
}

static void jacobian(int k)
{
    int i, j;
#pragma omp for nowait
    for (i = ist; i <= iend; i++)
        for (j = jst; j <= jend; j++) {
            dd[i][j][0][0] = 1.0 + k * rsd[i][j][k][0];
            da[i][j][0][0] = 0.5 * k * rsd[i][j][k][1];
            db[i][j][0][0] = 0.25 * rsd[i][j][k][2];
            dc[i][j][0][0] = 0.125 * rsd[i][j][k][3];
        }
}

static void lower(int lnx, int lny, int lnz, int k, double w, double v[][G][G][5],
                  double la[][G][5][5], double lb[][G][5][5], double lc[][G][5][5],
                  double ld[][G][5][5], int i0, int i1, int j0, int j1)
{
    int i, j, m;
#pragma omp for nowait
    for (i = i0; i <= i1; i++)
        for (j = j0; j <= j1; j++)
            for (m = 0; m < 5; m++)
                v[i][j][k][m] -= w * (la[i][j][0][m] * v[i][j][k - 1][m] + lb[i][j][0][m] +
                                      lc[i][j][0][m] + ld[i][j][0][m] * (lnx + lny) / lnz);
}

static void upper(int lnx, int lny, int lnz, int k, double w, double v[][G][G][5],
                  double t[][G][5], double ld[][G][5][5], double la[][G][5][5],
                  double lb[][G][5][5], double lc[][G][5][5], int i0, int i1, int j0, int j1)
{
    int i, j, m;
#pragma omp for nowait
    for (i = i1; i >= i0; i--)
        for (j = j1; j >= j0; j--)
            for (m = 0; m < 5; m++) {
                t[i][j][m] = w * (la[i][j][0][m] + lb[i][j][0][m] + lc[i][j][0][m]) *
                             (lnx + lny) / lnz;
                v[i][j][k][m] -= t[i][j][m] * ld[i][j][0][m];
            }
}

static void ssor(void)
{
    int i, j, k, m, step;
    double tmp = 1.0 / (omega * (2.0 - omega));
    for (step = 0; step < REPS; step++) {
#pragma omp parallel num_threads(NT) private(step, i, j, k, m) /* MARK:ssor */
        {
#pragma omp for /* MARK:scale */
            for (i = ist; i <= iend; i++) {
                for (j = jst; j <= jend; j++) {
                    for (k = 1; k <= nz - 2; k++) {
                        for (m = 0; m < 5; m++) {
                            rsd[i][j][k][m] = dt * rsd[i][j][k][m];
                        }
                    }
                }
            }

            for (k = 1; k <= nz - 2; k++) {
                jacobian(k);
                lower(nx, ny, nz, k, omega, rsd, da, db, dc, dd, ist, iend, jst, jend);
            }

#pragma omp barrier /* MARK:bar1 */

            for (k = nz - 2; k >= 1; k--) {
                jacobian(k);
                upper(nx, ny, nz, k, omega, rsd, tv, dd, da, db, dc, ist, iend, jst, jend);
            }
#pragma omp barrier /* MARK:bar2 */

#pragma omp for /* MARK:update */
            for (i = ist; i <= iend; i++)
                for (j = jst; j <= jend; j++)
                    for (k = 1; k <= nz - 2; k++)
                        for (m = 0; m < 5; m++)
                            u[i][j][k][m] = u[i][j][k][m] + tmp * rsd[i][j][k][m];
        }
    }
}

int main(void)
{
    for (int i = 0; i < G; i++)
        for (int k = 0; k < G; k++)
            rsd[i][k][1][2] = i + 0.5 * k;
    ssor();
    for (int r = 0; r < REPS; r++) {
#pragma omp parallel num_threads(NT)
        work(); /* MARK:call */
#pragma omp parallel num_threads(NT)
#pragma omp single
        for (int i = 0; i < NTASK; i++) {
#pragma omp task
            leaf(i); /* MARK:leaf */
        }
    }
    double s = 0;
    for (int i = 0; i < NTASK; i++)
        s += acc[i];
    printf("%g %g %.6e\n", a[N - 1], s, u[5][3][2][1]);
    return 0;
}
