/*
 * looptiny.c - ground truth of the policy's tiny rule for a procedure
 * holding a loop and for the tiny procedures of a header
 * (tests/policy/run.sh finds the lines by the MARK comments; the output
 * is identical plain and instrumented).
 *
 *   sweep()      4 statements, one of them a loop of N_ITER = 40000
 *                iterations: not tiny (a loop may run any number of
 *                iterations), probed: N_SWEEP = 50 calls, its loop 50
 *                entries, its call statement 50 calls.
 *   driver()     calls sweep (probed): no leaf.
 *   clear()      an outer loop (1 entry) around a nested loop of 2
 *                iterations (N_ZERO = 30000 entries) calling only zero3
 *                (looptiny.h: tiny): the call statement and the nested
 *                loop are not probed, clear's loop is a leaf; with
 *                --procedures=all the call has 2 * N_ZERO = 60000 calls.
 *   total()      calls hsum (looptiny.h, holds a loop): probed, 1 call.
 *   fill5()      a loop of constant trip count 5 (short): tiny, not
 *                probed, nor its call statement (N_FILL = 20000 calls);
 *                with --procedures=all 20000 calls.
 *   checked()    straight-line but for an assert(), whose failure path
 *                calls the C library (and never returns): tiny, called
 *                N_FILL times from the same loop.
 * stdout: one line "looptiny S".
 */
#include <assert.h>
#include <stdio.h>

#include "looptiny.h"

#define N_ITER 40000
#define N_SWEEP 50
#define N_ZERO 30000
#define N_FILL 20000

static double vec[4] = {1.0, 2.0, 3.0, 4.0};
static volatile double sink;

static void sweep(double *v) /* MARK:sweep */
{
    double s = 0.0;
    for (int i = 0; i < N_ITER; i++) /* MARK:sweeploop */
        s += v[i & 3] * (double)i;
    v[3] = s * 1e-12 + 1.0;
}

static void driver(void) /* MARK:driver */
{
    for (int k = 0; k < N_SWEEP; k++) /* MARK:driverloop */
        sweep(vec); /* MARK:sweepcall */
}

static void clear(double *buf) /* MARK:clear */
{
    for (int k = 0; k < N_ZERO; k++) { /* MARK:clearloop */
        for (int j = 0; j < 2; j++) /* MARK:zeroloop */
            zero3(buf + 3 * j); /* MARK:zerocall */
        sink = buf[k & 3] + k;
    }
}

static void fill5(double *v, double x) /* MARK:fill5 */
{
    for (int m = 0; m < 5; m++) /* MARK:fill5loop */
        v[m] = x + m;
}

static int checked(int k) /* MARK:checked */
{
    assert(k >= 0);
    return k & 1;
}

static double total(void) /* MARK:total */
{
    return hsum(vec, 4); /* MARK:hsumcall */
}

int main(void) /* MARK:main */
{
    double buf[6] = {1, 1, 1, 1, 1, 1};
    driver(); /* MARK:drivercall */
    clear(buf); /* MARK:clearcall */
    for (int k = 0; k < N_FILL; k++) /* MARK:fillloop */
    {
        fill5(buf, k); /* MARK:fillcall */
        sink = checked(k); /* MARK:checkedcall */
    }
    printf("looptiny %.6f %.1f\n", total(), buf[0] + buf[5]); /* MARK:totalcall */
    return 0;
}
