/*
 * probe.c - cost of hprof's probes (bench/run.sh; never part of `make
 * check`).  Compiled with -finstrument-functions and linked with -lhprof;
 * only tiny() is instrumented (everything else is no_instrument_function).
 * Measures, in one process, in ns per iteration of a loop of ITERS:
 *   rdtsc2     two raw rdtsc reads (the floor of any timed probe)
 *   pair       the probe pair instrumented code runs (hprof_probe_enter +
 *              hprof_probe_exit of hprof_probe.h) on a registered
 *              procedure site, timed unless the site is throttled (then
 *              the probes count it inline)
 *   once       the pair as the probes of a site that runs once per
 *              activation of its procedure are (called, not inlined)
 *   leaf       the same on a leaf site (HPROF_SITEINFO_LEAF: a call-free
 *              loop, say), which once throttled is counted inline without
 *              switching the calling context
 *   tier1      a call of an instrumented function minus the same call of
 *              an uninstrumented one: the -finstrument-functions hooks
 *              (__cyg_profile_func_enter/exit, call site + procedure)
 * Run it with HPROF_THROTTLE_NS=0 for the timed cost and with the default
 * throttling for the throttled cost (the sites throttle after their first
 * 10^5 calls; a warm-up of 2 x 10^5 calls comes first).
 * Output: "probe KEY NS" lines on stdout.  With a MODE, only that loop
 * runs after the warm-up (pair, leaf, once, tier1: the instrumented call, call: its
 * uninstrumented twin), without MPI (MPI_Init under callgrind costs
 * seconds), for instruction counts: bench/record.sh runs callgrind at two
 * ITERS and divides the difference.
 * usage: probe [ITERS [MODE]]   (default 10^7; one MPI rank is enough)
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <x86intrin.h>
#define HPROF_PROBE_WEAK
#include "hprof_probe.h"

#define NOI __attribute__((no_instrument_function, noinline))

static const hprof_site_info sites[] = {
    {HPROF_SITE_PROCEDURE, "bench_probe_site", "", 1, 1, -1, 0},
    {HPROF_SITE_LOOP, "for", "bench_probe_site", 2, 2, -1, HPROF_SITEINFO_LEAF},
};
static unsigned ids[2];
static hprof_unit unit = {"bench/probe.c", 2, sites, ids, 0};

static volatile unsigned sink;

NOI static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec * 1e9 + (double)t.tv_nsec;
}

/* The instrumented function (tier 1) and its uninstrumented twin. */
__attribute__((noinline)) void tiny(unsigned x);
__attribute__((noinline)) void tiny(unsigned x)
{
    sink += x;
}
__attribute__((noinline)) NOI void tiny_plain(unsigned x);
__attribute__((noinline)) NOI void tiny_plain(unsigned x)
{
    sink += x;
}

NOI static double rdtsc2(long n)
{
    unsigned long long acc = 0;
    double t0 = now();
    for (long i = 0; i < n; i++) {
        unsigned long long a = __rdtsc();
        acc += __rdtsc() - a;
    }
    double t = now() - t0;
    sink += (unsigned)acc;
    return t / (double)n;
}

static inline __attribute__((always_inline, no_instrument_function)) double
pair_of(unsigned site, long n)
{
    double t0 = now();
    for (long i = 0; i < n; i++) {
        hprof_frame f;
        hprof_probe_enter_in(&f, &unit, ids, site); /* as instrumented code does */
        hprof_probe_exit(&f);
    }
    return (now() - t0) / (double)n;
}

NOI static double pair(long n)
{
    return pair_of(0, n);
}

NOI static double leaf(long n)
{
    return pair_of(1, n);
}

/* The same pair as the probes of a site outside any loop of its
 * procedure: called, not inlined (hprof_probe_enter_once). */
NOI static double once(long n)
{
    double t0 = now();
    for (long i = 0; i < n; i++) {
        hprof_frame f;
        hprof_probe_enter_once(&f, &unit, ids, 0);
        hprof_probe_exit_once(&f);
    }
    return (now() - t0) / (double)n;
}

NOI static double calls(void (*fn)(unsigned), long n)
{
    double t0 = now();
    for (long i = 0; i < n; i++)
        fn((unsigned)i);
    return (now() - t0) / (double)n;
}

NOI int main(int argc, char **argv)
{
    long n = argc > 1 ? atol(argv[1]) : 10000000L;
    const char *mode = argc > 2 ? argv[2] : "";
    if (!*mode)
        MPI_Init(&argc, &argv);
    hprof_register_unit(&unit);
    pair(200000);                  /* warm-up (and throttling, if on) */
    leaf(200000);
    once(200000);
    calls(tiny, 200000);
    calls(tiny_plain, 200000);
    if (*mode) {
        if (strcmp(mode, "pair") == 0)
            pair(n);
        else if (strcmp(mode, "leaf") == 0)
            leaf(n);
        else if (strcmp(mode, "once") == 0)
            once(n);
        else if (strcmp(mode, "tier1") == 0)
            calls(tiny, n);
        else
            calls(tiny_plain, n);
        return 0;
    }
    double r = rdtsc2(n), p = pair(n), l = leaf(n), o = once(n), r2 = rdtsc2(n);
    double c = calls(tiny, n), cp = calls(tiny_plain, n);
    printf("probe rdtsc2 %.2f\n", (r + r2) / 2);
    printf("probe pair %.2f\n", p);
    printf("probe leaf %.2f\n", l);
    printf("probe once %.2f\n", o);
    printf("probe tier1 %.2f\n", c - cp);
    MPI_Finalize();
    return 0;
}
