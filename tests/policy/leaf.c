/*
 * leaf.c - which probed procedures and loops are leaves: nothing inside
 * them records, so once throttled their probes only count them, without
 * switching the calling context.  tests/policy/run.sh reads the site
 * table (`hprof-instrument --list`, ": leaf") and a run's counts.
 *
 * Ground truth (a marker comment names each site):
 *   leaves:     plainloop (no call), mathloop (calls only sqrt and the
 *               tiny procedure half), sumloop;
 *   not leaves: fill and sum (their loops are probed; sum's length is
 *               its argument: no constant trip count, no tiny procedure), probedloop (calls
 *               the probed procedure fill), libloop (printf: a library
 *               call may record), ptrloop (a call through a pointer),
 *               omploop (an OpenMP construct), regionloop (an hprof
 *               region), main; with -finstrument-functions nothing is a
 *               leaf (the hooks of half would record).
 * Run: fill is called N_FILL times, so plainloop and mathloop are entered
 * N_FILL times each (more than the default HPROF_THROTTLE_CALLS: their
 * probes end up counting them inline), sumloop once; the output is
 * identical plain and instrumented.
 */
#include <math.h>
#include <stdio.h>

#define N_FILL 300000
#define LEN 4

static double a[LEN];

static double half(double x) /* half */
{
    return x / 2;
}

void fill(int k) /* fill */
{
    for (int i = 0; i < LEN; i++) /* plainloop */
        a[i] = k + i;
    for (int i = 0; i < LEN; i++) /* mathloop */
        a[i] = sqrt(a[i]) + half(a[i]);
}

double sum(int n) /* sum */
{
    double s = 0, lo = a[0], hi = a[0];
    for (int i = 0; i < n; i++) { /* sumloop */
        s += a[i];
        lo = a[i] < lo ? a[i] : lo;
        hi = a[i] > hi ? a[i] : hi;
    }
    s += hi - lo;
    return s;
}

static double twice(double x)
{
    return 2 * x;
}

int main(void) /* main */
{
    double (*volatile fp)(double) = twice;
    double s = 0;
    for (int k = 0; k < N_FILL; k++) /* probedloop */
        fill(k);
    for (int i = 0; i < 2; i++) /* libloop */
        printf("a[%d] = %.3f\n", i, a[i]);
    for (int i = 0; i < LEN; i++) /* ptrloop */
        s += fp(a[i]);
#pragma omp parallel for reduction(+ : s)
    for (int i = 0; i < LEN; i++) /* omploop */
        s += a[i];
    for (int i = 0; i < LEN; i++) { /* regionloop */
#pragma hprof region begin r
        s += a[i];
#pragma hprof region end r
    }
    printf("checksum %.6f\n", s + sum(LEN));
    return 0;
}
