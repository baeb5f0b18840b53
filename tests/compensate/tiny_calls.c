/*
 * tiny_calls.c - ground truth for intrusion compensation
 * (tests/compensate/run.sh).
 *
 * parent() calls leaf() CALLS = 1,000,000 times; leaf() is 48 rounds of
 * eight independent integer steps (some 100 ns) in straight-line code,
 * enough to keep every integer unit of the core busy, so the probes'
 * instructions cannot hide in idle units (a latency-bound body hides much
 * of their cost: see docs/compensation.md).  leaf is not inlined in either
 * build, so the plain and the instrumented programs do the same work and
 * differ only by the probes (tier 2: the call statement of leaf and the
 * procedure leaf, entered CALLS times each; parent, its loop and its call
 * statement once).
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

/* One round: eight independent steps, enough to keep every integer unit
 * of the core busy (a macro, not a function: a call would be a probed
 * call statement). */
#define STEP(x) ((x) = ((x) ^ ((x) >> 7)) + 0x9e3779b97f4a7c15ull)
#define ROUND(a, b, c, d, e, f, g, h) \
    (STEP(a), STEP(b), STEP(c), STEP(d), STEP(e), STEP(f), STEP(g), STEP(h))
#define ROUNDS4(...) (ROUND(__VA_ARGS__), ROUND(__VA_ARGS__), ROUND(__VA_ARGS__), ROUND(__VA_ARGS__))
#define ROUNDS16(...) \
    (ROUNDS4(__VA_ARGS__), ROUNDS4(__VA_ARGS__), ROUNDS4(__VA_ARGS__), ROUNDS4(__VA_ARGS__))

static unsigned long long lane[8] = {1, 2, 3, 4, 5, 6, 7, 8};

__attribute__((noinline)) static void leaf(void)
{
    unsigned long long a = lane[0], b = lane[1], c = lane[2], d = lane[3];
    unsigned long long e = lane[4], f = lane[5], g = lane[6], h = lane[7];
    ROUNDS16(a, b, c, d, e, f, g, h);
    ROUNDS16(a, b, c, d, e, f, g, h);
    ROUNDS16(a, b, c, d, e, f, g, h);
    lane[0] = a, lane[1] = b, lane[2] = c, lane[3] = d;
    lane[4] = e, lane[5] = f, lane[6] = g, lane[7] = h;
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
    printf("checksum %llu\n", lane[0] ^ lane[3] ^ lane[7]);
    return 0;
}
