/*
 * tail.c - OpenMP constructs that gcc -O2 reaches by a tail call or
 * inlines into a region (issue 24, items 1-3), each at a "MARK:tag" line:
 *  - two_loops(): REPS regions of NT threads, an addressable local
 *    (`int loc; set(&loc);`, set inlined) and two static `omp for` loops;
 *    the second's end barrier is the outlined function's last act (`jmp
 *    GOMP_barrier`, at the region's line).  Truth: one implicit barrier
 *    per thread and region at each loop (MARK:first, MARK:second).
 *  - dyn_loops(): the same with a dynamic last loop (`jmp GOMP_loop_end`).
 *  - solve(): a region whose body is a call of solve(), which gcc inlines
 *    with the functions it calls, like NPB BT's x_solve: orphaned loops at
 *    MARK:o1 (once), MARK:o2 (SWEEPS times, inside a serial loop),
 *    MARK:o3 (once), MARK:o4 (SWEEPS times, in another function), then
 *    MARK:o5 (once, the region's last act: a tail jump).  Truth: NT
 *    implicit barriers per region and encounter of each, in the function
 *    that holds the pragma.
 *  - last_orphan(): a region whose only statement calls a function kept
 *    out of line whose last act is an orphaned loop (MARK:o6): `jmp
 *    last_orphan` then `jmp GOMP_barrier`.
 *  - planes(): like NPB SP's compute_rhs, static `omp for` loops each
 *    the only statement of a serial `for (m...)` over PLANES planes
 *    (MARK:p1, MARK:p2, MARK:p3), then a serial loop whose body is a
 *    serial loop over STAGES stages holding a loop (MARK:p4) followed by
 *    a loop (MARK:p5), then a dynamic loop in a serial loop (MARK:p6).
 *    gcc gives the barrier call of p2 the row of p1's body, p3's that of
 *    p2's, and p6's GOMP_loop_end that of p4's: the code after each call
 *    is the increment of the serial loop around it.  Truth per thread and
 *    region: PLANES implicit barriers at p1, p2, p3, p5 and p6, PLANES x
 *    STAGES at p4.
 *  - checksum(): like NPB FT's checksum, an addressable local, a `nowait` loop, a critical, an
 *    explicit barrier (MARK:bar) then a single (MARK:single) whose end
 *    barrier is the outlined function's last act in both of the single's
 *    branches (`call GOMP_single_start`, then two `jmp GOMP_barrier` at
 *    the region's line).  Truth: one explicit barrier and one implicit
 *    barrier of the single per thread and region.
 *  - tasks: sortp(n) makes two tasks, waits for them (MARK:swait) and
 *    ends with a tail call of merge(n), which makes two tasks and ends in
 *    its taskwait (MARK:mwait, `jmp GOMP_taskwait`), recursive like BOTS
 *    sort's cilksort/cilkmerge.  The program counts the taskwaits it
 *    reaches at each line and writes them to $TAIL_TRUTH ("TAG COUNT").
 * The arrays' checksums go to stdout (the same with and without hprof).
 */
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>

#define REPS 50
#define NT 2
#define N 1000
#define SWEEPS 7
#define TASK_N 4096
#define CUTOFF 64
#define PLANES 5
#define STAGES 3
#define G 24

static double a[N], b[2 * N], c[N], d[N];
static double total;
static long swaits, mwaits;

/* ------------------------------------------------------- item 1 */

static void set(int *p)
{
    *p = omp_get_thread_num() + 1;
}

static void two_loops(void)
{
    for (int r = 0; r < REPS; r++) {
#pragma omp parallel num_threads(NT) /* MARK:two */
        {
            int loc;
            set(&loc);
#pragma omp for /* MARK:first */
            for (int i = 0; i < N; i++)
                a[i] += i + loc;
#pragma omp for /* MARK:second */
            for (int i = 0; i < 2 * N; i++)
                b[i] += i;
        }
    }
}

static void dyn_loops(void)
{
    for (int r = 0; r < REPS; r++) {
#pragma omp parallel num_threads(NT) /* MARK:dyn */
        {
            int loc;
            set(&loc);
#pragma omp for /* MARK:dfirst */
            for (int i = 0; i < N; i++)
                a[i] -= loc;
#pragma omp for schedule(dynamic, 64) /* MARK:dsecond */
            for (int i = 0; i < 2 * N; i++)
                b[i] -= 1;
        }
    }
}

/* ------------------------------------------------------- item 2 */

/* Kept out of line, like BT's binvcrhs and matvec_sub. */
__attribute__((noinline)) static void relax(double *x, const double *y, int j)
{
    x[j] += 0.5 * y[j] + 1e-3 * j;
}

static void solve_cell(void)
{
#pragma omp for /* MARK:o1 */
    for (int j = 0; j < N; j++)
        relax(c, d, j);
    for (int s = 0; s < SWEEPS; s++) {
#pragma omp for /* MARK:o2 */
        for (int j = 1; j < N; j++)
            relax(c, c, j - 1);
    }
#pragma omp for /* MARK:o3 */
    for (int j = 0; j < N; j++)
        relax(d, c, j);
}

static void backsubstitute(void)
{
    for (int s = SWEEPS - 1; s >= 0; s--) {
#pragma omp for /* MARK:o4 */
        for (int j = 0; j < N; j++)
            relax(d, a, j);
    }
}

static void finish(void)
{
#pragma omp for /* MARK:o5 */
    for (int j = 0; j < N; j++)
        relax(c, d, j);
}

static void solve(void)
{
    solve_cell();
    backsubstitute();
    finish();
}

__attribute__((noinline)) static void last_orphan(void)
{
#pragma omp for /* MARK:o6 */
    for (int j = 0; j < N; j++)
        d[j] *= 0.5;
}

static void orphans(void)
{
    for (int r = 0; r < REPS; r++) {
#pragma omp parallel num_threads(NT) /* MARK:solve */
        solve();
#pragma omp parallel num_threads(NT) /* MARK:last */
        last_orphan();
    }
}

/* ------------------------------------------- loops in serial loops */

static double ph[PLANES][G][G][G], pu[PLANES][G][G][G];
static int gsize[3];    /* G, known at run time only: gcc keeps the loops */

static void planes(void)
{
    for (int r = 0; r < REPS; r++) {
#pragma omp parallel num_threads(NT) /* MARK:pl */
        {
            int i = 1, j, k, m;
            for (m = 0; m < PLANES; m++) {
#pragma omp for /* MARK:p1 */
                for (j = 1; j <= gsize[1] - 2; j++)
                    for (k = 1; k <= gsize[2] - 2; k++)
                        ph[m][i][j][k] -= 0.25 * (5.0 * pu[m][i][j][k] - 4.0 * pu[m][i + 1][j][k] +
                                                  pu[m][i + 2][j][k]);
            }
            i = 2;
            for (m = 0; m < PLANES; m++) {
#pragma omp for /* MARK:p2 */
                for (j = 1; j <= gsize[1] - 2; j++)
                    for (k = 1; k <= gsize[2] - 2; k++)
                        ph[m][i][j][k] -= 0.25 * (-4.0 * pu[m][i - 1][j][k] + 6.0 * pu[m][i][j][k] -
                                                  4.0 * pu[m][i + 1][j][k] + pu[m][i + 2][j][k]);
            }
            for (m = 0; m < PLANES; m++) {
#pragma omp for /* MARK:p3 */
                for (i = 3; i <= gsize[0] - 4; i++)
                    for (j = 1; j <= gsize[1] - 2; j++)
                        for (k = 1; k <= gsize[2] - 2; k++)
                            ph[m][i][j][k] -= 0.25 * (pu[m][i - 2][j][k] - 4.0 * pu[m][i - 1][j][k] +
                                                      6.0 * pu[m][i][j][k] - pu[m][i + 2][j][k]);
            }
            for (m = 0; m < PLANES; m++) {
                for (j = 0; j < STAGES; j++) {
#pragma omp for /* MARK:p4 */
                    for (i = 1; i <= gsize[0] - 2; i++)
                        for (k = 1; k <= gsize[2] - 2; k++)
                            ph[m][i][j + 1][k] -= 0.5 * ph[m][i][j][k];
                }
#pragma omp for /* MARK:p5 */
                for (i = 1; i <= gsize[0] - 2; i++)
                    for (k = 1; k <= gsize[2] - 2; k++)
                        ph[m][i][G - 1][k] *= 0.5;
            }
            for (m = 0; m < PLANES; m++) {
#pragma omp for schedule(dynamic, 4) /* MARK:p6 */
                for (j = 1; j <= gsize[1] - 2; j++)
                    for (k = 1; k <= gsize[2] - 2; k++)
                        ph[m][3][j][k] += 0.125 * (pu[m][2][j][k] - pu[m][4][j][k]);
            }
        }
    }
}

/* ------------------------------------------- explicit barrier, single */

/* Kept out of line, like FT's printf in its single. */
__attribute__((noinline)) static void report(double v)
{
    total = v * 0.5 + 1.0;
}

static void checksum(void)
{
    for (int r = 0; r < REPS; r++) {
#pragma omp parallel num_threads(NT) /* MARK:ck */
        {
            double chk = 0;
            int loc;
            set(&loc);
#pragma omp for nowait
            for (int i = 0; i < N; i++)
                chk += a[i] * (i % 7) + loc;
#pragma omp critical
            total += chk;
#pragma omp barrier /* MARK:bar */
#pragma omp single /* MARK:single */
            report(total / N);
        }
    }
}

/* ------------------------------------------------------- item 3 */

void merge(long *v, int n);
void sortp(long *v, int n);

void merge(long *v, int n)
{
    if (n < CUTOFF) {
        for (int i = 1; i < n; i++)
            v[i] += v[i - 1] & 1;
        return;
    }
    __atomic_add_fetch(&mwaits, 1, __ATOMIC_RELAXED);
#pragma omp task
    merge(v, n / 2);
#pragma omp task
    merge(v + n / 2, n - n / 2);
#pragma omp taskwait /* MARK:mwait */
}

void sortp(long *v, int n)
{
    if (n < CUTOFF)
        return;
    __atomic_add_fetch(&swaits, 1, __ATOMIC_RELAXED);
    for (int half = 0; half < 2; half++) {
        int at = half ? n / 2 : 0;
#pragma omp task firstprivate(at)
        sortp(v + at, at ? n - at : n / 2);
    }
#pragma omp taskwait /* MARK:swait */
    merge(v, n);
}

static long tasks(void)
{
    static long v[TASK_N];
    long sum = 0;
    for (int i = 0; i < TASK_N; i++)
        v[i] = i * 7 % 13;
#pragma omp parallel num_threads(NT) /* MARK:tpar */
#pragma omp single nowait
#pragma omp task /* MARK:root */
    sortp(v, TASK_N);
    for (int i = 0; i < TASK_N; i++)
        sum += v[i];
    return sum;
}

int main(int argc, char **argv)
{
    (void)argv;
    gsize[0] = gsize[1] = gsize[2] = G - (argc > 99);
    for (int q = 0; q < PLANES * G * G * G; q++)
        pu[q / (G * G * G)][q / (G * G) % G][q / G % G][q % G] = q % 17;
    two_loops();
    dyn_loops();
    orphans();
    planes();
    checksum();
    long sum = tasks();
    double s = 0;
    for (int i = 0; i < N; i++)
        s += a[i] + b[i] + b[N + i] + c[i] + d[i];
    printf("checksum %.6e %.6e %.6e %ld\n", s, total, ph[1][5][3][2], sum);
    const char *truth = getenv("TAIL_TRUTH");
    FILE *f = truth ? fopen(truth, "w") : NULL;
    if (f) {
        fprintf(f, "swait %ld\nmwait %ld\n", swaits, mwaits);
        fclose(f);
    }
    return 0;
}
