/*
 * serial.c - a program without MPI (tiers 1 and 2 also profile serial
 * code): fib(FIB_N) makes FIB_CALLS calls, and work() spins SPIN_MS three
 * times in a loop.  hprof writes its profile and summary when it exits.
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

static void work(void)
{
    for (int i = 0; i < 3; i++) /* work-loop */
        spin_ms(SPIN_MS);
}

int main(void)
{
    printf("serial: fib(%d) = %d\n", FIB_N, fib(FIB_N));
    work();
    return 0;
}
