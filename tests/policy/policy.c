/*
 * policy.c - ground truth of hprof-instrument's default policy and of
 * hprof-query --suggest-filter (tests/policy/run.sh).
 *
 * Sites (the script finds their lines by the MARK comments):
 *   tiny()        straight-line leaf, called N_TINY = 1000000 times from
 *                 the loop of work(): not probed by default (nor its call
 *                 statement); with --procedures=all: 1000000 calls.
 *   big()         a leaf with a loop and 6 statements: probed (not tiny),
 *                 called N_BIG = 20000 times, each call runs INNER = 400
 *                 iterations (mean well above 300 ns).
 *   work()        outer loop (N_TINY iterations: probed, it calls tiny),
 *                 a loop nest: outer loop (1 entry, probed: outermost) with
 *                 a nested call-free loop (N_OUT = 100 entries: not probed
 *                 by default; 100 entries with --loops=all), a second
 *                 nest: outer loop (1 entry) with a 3-iteration call-free
 *                 loop (N_SHORT = 20000 entries: not probed by default;
 *                 with --loops=all 20000 entries of a few ns, which
 *                 --suggest-filter names), and a loop calling big() (1
 *                 entry, probed; its call statement 20000 calls).
 *   main()        probed, 1 call.
 * stdout: one line "sum S" (the same plain and instrumented).
 */
#include <stdio.h>

#define N_TINY 1000000
#define N_BIG 20000
#define N_OUT 100
#define INNER 400
#define N_SHORT 20000

static volatile unsigned sink;

static unsigned tiny(unsigned x) /* MARK:tiny */
{
    return x * 2654435761u + 1u;
}

static unsigned big(unsigned x) /* MARK:big */
{
    unsigned i, s = x;
    for (i = 0; i < INNER; i++) /* MARK:bigloop */
        s = s * 31u + i;
    s ^= s >> 7;
    sink = s;
    return s;
}

static unsigned work(void) /* MARK:work */
{
    unsigned i, j, s = 0;
    unsigned a[N_OUT];
    for (i = 0; i < N_TINY; i++) /* MARK:tinyloop */
        s += tiny(i); /* MARK:tinycall */
    for (i = 0; i < N_OUT; i++) { /* MARK:outer */
        for (j = 0; j < N_OUT; j++) /* MARK:inner */
            s += i * j;
        a[i] = s;
    }
    for (i = 0; i < N_SHORT; i++) /* MARK:shortouter */
        for (j = 0; j < 3; j++) /* MARK:short */
            s += i ^ j;
    for (i = 0; i < N_BIG; i++) /* MARK:bigcallloop */
        s ^= big(i + a[i % N_OUT]); /* MARK:bigcall */
    return s;
}

int main(void) /* MARK:main */
{
    printf("sum %u\n", work()); /* MARK:workcall */
    return 0;
}
