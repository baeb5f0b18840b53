/*
 * ompphases.c - ground truth for tier-0 call paths of OpenMP regions
 * (HPROF_CALLPATH): two phases of a program call one function that opens
 * a parallel region, as a code's own threaded kernel is called from
 * several places.
 *
 *   ompphases [SETUP SOLVE]     (default 2 and 5; OMP_NUM_THREADS threads)
 *
 * setup() calls kernel() SETUP times, solve() calls it SOLVE times; the
 * region (line marked region) runs SETUP + SOLVE times in all: SETUP of
 * them through the call in setup (setup-call) and main's call of setup
 * (main-setup), SOLVE through solve's call (solve-call) and main's call of
 * solve (main-solve).  Each thread of each region adds 1 to a counter:
 * the program prints "regions R, thread parts P" with R = SETUP + SOLVE
 * and P = R x threads.  kernel() counts its calls after the region, so
 * the fork is not its last call (a tail call would take kernel's frame
 * off the stack, and the path would start at its caller).
 */
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>

static long parts;
static volatile int kernels;

__attribute__((noinline)) static void kernel(void)
{
#pragma omp parallel /* region */
    {
#pragma omp atomic
        parts++;
    }
    kernels++;
}

__attribute__((noinline)) static void setup(int n)
{
    for (int i = 0; i < n; i++)
        kernel(); /* setup-call */
}

__attribute__((noinline)) static void solve(int n)
{
    /* not setup's code: identical functions may be folded into one */
    for (volatile int i = n; i > 0; i--)
        kernel(); /* solve-call */
}

int main(int argc, char **argv)
{
    int nsetup = argc > 2 ? atoi(argv[1]) : 2, nsolve = argc > 2 ? atoi(argv[2]) : 5;
    setup(nsetup); /* main-setup */
    solve(nsolve); /* main-solve */
    printf("regions %d, thread parts %ld\n", kernels, parts);
    return 0;
}
