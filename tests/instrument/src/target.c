/*
 * target.c - device code that hprof-instrument must leave as written
 * (tests/instrument/whole.sh), run on the host (no device): a procedure
 * between declare target and end declare target (scale), one named by a
 * declare target directive (shift), one a target region calls (twice,
 * implicitly declare target), a target region with a loop and an
 * atomic, and two deferred target teams distribute regions (nowait,
 * depend) joined by a taskwait, as SOLLVE's depend tests have them.  The
 * program checks its own results: stdout is "target 0" (the sum is
 * right) and "deferred 0" (no element differs), with or without hprof;
 * with clang 14 (libomp) the taskwait does not always wait for the
 * deferred target tasks run on the host, so only the first line holds
 * there, plain or not.  Ground truth for the instrumenter:
 * no probe in device code (the sites of scale, shift, twice and of the
 * target regions' loops are listed unprobed as device code), so gcc
 * compiles the instrumented copy (a probe reads thread-local state, which
 * gcc refuses in a target region) and the deferred target tasks that run
 * inside the taskwait record nothing beside it.
 */
#include <stdio.h>

#define N 1024

#pragma omp declare target
static long scale(long v)
{
    long r = 0;
    for (int k = 0; k < 3; k++)   /* MARK:SCALE_LOOP */
        r += v;
    return r;
}
#pragma omp end declare target

static long shift(long v)
{
    for (int k = 0; k < 2; k++)   /* MARK:SHIFT_LOOP */
        v++;
    return v;
}
#pragma omp declare target(shift)

/* called from a target region, not declared: device code all the same */
static long twice(long v)
{
    long r = 0;
    for (long k = 0; k < v % 2 + 2; k++)   /* MARK:TWICE_LOOP */
        r += v;
    return r;
}

static long a[N], b[N], c[N], d[N];

int main(void)
{
    long sum = 0, want = 0;
    int bad = 0;

    for (int i = 0; i < N; i++) {
        a[i] = i;
        b[i] = 2 * i;
        c[i] = d[i] = 0;
    }
#pragma omp target map(to: a) map(tofrom: sum)
    for (int i = 0; i < N; i++) {   /* MARK:TARGET_LOOP */
#pragma omp atomic
        sum += scale(a[i]) + twice(a[i]);
    }
#pragma omp target data map(to: a, b) map(tofrom: c, d)
    {
#pragma omp target teams distribute nowait depend(in: d) map(alloc: a, b, d)
        for (int i = 0; i < N; i++) {   /* MARK:DEFERRED_LOOP */
#pragma omp atomic
            d[i] += a[i] + b[i];
        }
#pragma omp target teams distribute nowait depend(in: d) map(alloc: a, b, c)
        for (int i = 0; i < N; i++) {
#pragma omp atomic
            c[i] += shift(a[i] + b[i]);
        }
#pragma omp taskwait
    }
    for (int i = 0; i < N; i++) {
        bad += d[i] != 3L * i || c[i] != 3L * i + 2;
        want += 3L * i + i * (i % 2 + 2L);
    }
    printf("target %d\ndeferred %d\n", sum != want, bad);
    return 0;
}
