/*
 * exitthrottled.c - exit() inside the rare child of a throttled procedure
 * (Lua killed or exiting inside a C call under its throttled interpreter
 * loop): step() is called until it is throttled (hot and tiny: its time
 * is estimated from its first timed calls), and every SLOW_EVERY-th call
 * calls slow(), which spins; the N_SLOW-th slow() spins longer and calls
 * exit(0).  slow()'s open call counts in slow() until the end, so step()'s
 * estimate, inclusive of everything recorded beneath it, must hold it
 * (rule a of hprof-query --check); step's site is marked estimated.
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#define SLOW_EVERY 1000
#define N_SLOW 300
#define SLOW_US 20
#define LAST_MS 50

static volatile unsigned sink;

static void spin_us(double us)
{
    struct timespec a, b;
    clock_gettime(CLOCK_MONOTONIC, &a);
    do
        clock_gettime(CLOCK_MONOTONIC, &b);
    while ((double)(b.tv_sec - a.tv_sec) * 1e6 + (double)(b.tv_nsec - a.tv_nsec) / 1e3 < us);
}

__attribute__((noinline)) static void slow(unsigned n) /* MARK: slow */
{
    spin_us(SLOW_US);
    if (n == N_SLOW) {
        spin_us(LAST_MS * 1000.0);
        printf("left in slow call %u\n", n);
        fflush(stdout);
        exit(0);
    }
}

__attribute__((noinline)) static void step(unsigned i) /* MARK: step */
{
    sink += i;
    if (i % SLOW_EVERY == 0)
        slow(i / SLOW_EVERY);
}

int main(void)
{
    for (unsigned i = 1;; i++)
        step(i);
    return 1;
}
