/*
 * serial.c - a program without MPI (tiers 1 and 2 also profile serial
 * code): fib(FIB_N) makes FIB_CALLS calls, and work() spins SPIN_MS three
 * times in a loop.  hprof writes its profile and summary when it exits.
 * work() takes its own time (a loaded machine stretches the spins) and
 * main prints it on stderr: "serial: work took S s".
 */
#include <stdio.h>
#include <time.h>

#define FIB_N 22
#define FIB_CALLS 57313
#define SPIN_MS 20

static void spin_ms(double ms)
{
    struct timespec a, b;
    clock_gettime(CLOCK_MONOTONIC, &a);
    do /* spin-loop */
        clock_gettime(CLOCK_MONOTONIC, &b);
    while ((double)(b.tv_sec - a.tv_sec) * 1e3 + (double)(b.tv_nsec - a.tv_nsec) / 1e6 < ms);
}

static int fib(int n)
{
    return n < 2 ? n : fib(n - 1) + fib(n - 2);
}

/* Spins SPIN_MS three times; returns the seconds it took. */
static double work(void)
{
    struct timespec a, b;
    clock_gettime(CLOCK_MONOTONIC, &a);
    for (int i = 0; i < 3; i++) /* work-loop */
        spin_ms(SPIN_MS);
    clock_gettime(CLOCK_MONOTONIC, &b);
    return (double)(b.tv_sec - a.tv_sec) + (double)(b.tv_nsec - a.tv_nsec) / 1e9;
}

int main(void)
{
    printf("serial: fib(%d) = %d\n", FIB_N, fib(FIB_N));
    fprintf(stderr, "serial: work took %.6f s\n", work());
    return 0;
}
