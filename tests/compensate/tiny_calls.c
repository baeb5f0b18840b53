/*
 * tiny_calls.c - ground truth for intrusion compensation
 * (tests/compensate/run.sh).
 *
 * parent() calls leaf() CALLS = 1,000,000 times; leaf() is 24 rounds
 * of dependent integer arithmetic (some 30 ns) in straight-line code,
 * not inlined in either build, so the plain and the instrumented programs
 * do the same work and differ only by the probes (tier 2: the call
 * statement of leaf and the procedure leaf, entered CALLS times each;
 * parent, its loop and its call statement once).
 *
 * Ground truth: the program times parent() itself (CLOCK_MONOTONIC around
 * the call) and writes that duration in seconds to the file named by
 * TINY_CALLS_TIME, never to stdout.  The plain build's duration is the
 * time parent() takes unmeasured; the instrumented build's profile must
 * give procedure parent 1 call, call leaf and procedure leaf CALLS calls
 * each, and parent's compensated inclusive time within 5% of the plain
 * duration measured in the same test.  stdout: one checksum line,
 * identical in both builds.
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#define CALLS 1000000

static unsigned long long state = 88172645463325252ull;

/* One round of dependent integer arithmetic (a macro, not a function: a
 * call would be a probed call statement). */
#define ROUND(x) (((x) * 6364136223846793005ull + 1442695040888963407ull) ^ ((x) >> 29))

__attribute__((noinline)) static void leaf(void)
{
    unsigned long long x = state;
    x = ROUND(x);
    x = ROUND(x);
    x = ROUND(x);
    x = ROUND(x);
    x = ROUND(x);
    x = ROUND(x);
    x = ROUND(x);
    x = ROUND(x);
    x = ROUND(x);
    x = ROUND(x);
    x = ROUND(x);
    x = ROUND(x);
    x = ROUND(x);
    x = ROUND(x);
    x = ROUND(x);
    x = ROUND(x);
    x = ROUND(x);
    x = ROUND(x);
    x = ROUND(x);
    x = ROUND(x);
    x = ROUND(x);
    x = ROUND(x);
    x = ROUND(x);
    x = ROUND(x);
    state = x;
}

__attribute__((noinline)) static void parent(void)
{
    for (int i = 0; i < CALLS; i++)
        leaf();
}

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

int main(void)
{
    const char *out = getenv("TINY_CALLS_TIME");
    double t0 = now();
    parent();
    double t1 = now();
    if (out) {
        FILE *f = fopen(out, "w");
        if (!f || fprintf(f, "%.9f\n", t1 - t0) < 0 || fclose(f) != 0) {
            perror(out);
            return 1;
        }
    }
    printf("checksum %llu\n", state);
    return 0;
}
