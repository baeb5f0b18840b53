/* m_regions.c - user regions and instrumentation control (run.sh):
 * "#pragma hprof region begin/end", "#pragma hprof off/on", the seed's
 * "#pragma omp inst ..." aliases, "#pragma hprof noinstrument/instrument"
 * and the C API of hprof.h.  Built plain too: the pragmas are then
 * ignored and the C API is reached through weak references. */
#include <stdio.h>
#include <time.h>

#include "hprof.h"

#pragma weak hprof_region_begin
#pragma weak hprof_region_end

static volatile double sink;

/* Busy for ms milliseconds of wall time. */
static void spin(int ms)
{
    struct timespec a, b;
    double x = 0;
    clock_gettime(CLOCK_MONOTONIC, &a);
    do {
        int i;
        for (i = 0; i < 1000; i++)
            x += i * 0.5;
        clock_gettime(CLOCK_MONOTONIC, &b);
    } while ((b.tv_sec - a.tv_sec) * 1000.0 + (b.tv_nsec - a.tv_nsec) / 1e6 < ms);
    sink = x;
}

static int hidden_work(int n)
{
    int i, s = 0;
    for (i = 0; i < n; i++)
        s += i;
    return s;
}

/* NOINST-START */
#pragma hprof noinstrument
static int quiet_work(int n)
{
    int i, s = 0;
    for (i = 0; i < n; i++)
        s += i % 7;
    return s;
}
#pragma hprof instrument
/* NOINST-END */

/* The C API directly: nested regions and one mismatched end. */
static void api_regions(void)
{
    int k;
    if (!hprof_region_begin)
        return;
    for (k = 0; k < 2; k++) {
        hprof_region_begin("api");
        spin(3);
        hprof_region_begin("api inner");
        spin(2);
        hprof_region_end("bogus");      /* not the innermost: ignored */
        hprof_region_end("api inner");
        hprof_region_end("api");
    }
}

int main(void)
{
    int i, s = 0;

#pragma hprof region begin outer
    for (i = 0; i < 3; i++) {
#pragma hprof region begin inner
        spin(5);
#pragma hprof region \
        end inner
    }
#pragma hprof region end outer
#pragma omp inst init
#pragma omp inst begin(seed)
    spin(4);
#pragma omp inst end(seed)
    api_regions();
#pragma hprof off
#pragma hprof region begin hidden
    s += hidden_work(100);
    spin(2);
#pragma hprof region end hidden
#pragma hprof on
#pragma omp inst off
    s += hidden_work(10);
#pragma omp inst on
    /* NOINST-START */
#pragma hprof noinstrument
    for (i = 0; i < 4; i++)
        s += quiet_work(50);
#pragma omp parallel for reduction(+:s)
    for (i = 0; i < 8; i++)
        s += i;
#pragma hprof instrument
    /* NOINST-END */
    s++;
#pragma hprof frobnicate
#pragma omp parallel for reduction(+:s)
    for (i = 0; i < 8; i++)
        s += i;
#pragma omp inst final
    printf("s = %d\n", s);
    return 0;
}
