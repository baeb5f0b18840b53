/*
 * plug.c - a module the host loads with dlopen, calls and unloads with
 * dlclose (tests/unload/run.sh).  Ground truth per call of plug_work(n):
 * one call of plug_work, n calls of plug_step (the loop at MARK:p-loop
 * runs n iterations), one OpenMP parallel region (MARK:p-par) whose loop
 * sums 0..n-1.
 */
#include <omp.h>

static volatile long sink;

__attribute__((noinline)) long plug_step(long i)
{
    sink += i;
    return i * 3;
}

long plug_work(long n)
{
    long sum = 0, par = 0;
    for (long i = 0; i < n; i++) /* MARK:p-loop */
        sum += plug_step(i); /* MARK:p-call */
#pragma omp parallel for reduction(+ : par) /* MARK:p-par */
    for (long i = 0; i < n; i++)
        par += i;
    return sum + par;
}
