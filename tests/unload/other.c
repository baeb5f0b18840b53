/*
 * other.c - a second module, loaded after plug.so is unloaded (where the
 * loader may place it at plug.so's old addresses).  Ground truth per call
 * of other_work(n): one call of other_work, n calls of other_step (the
 * loop at MARK:o-loop), one OpenMP parallel region (MARK:o-par).
 */
#include <omp.h>

static volatile long sink;

__attribute__((noinline)) long other_step(long i)
{
    sink -= i;
    return i + 7;
}

long other_work(long n)
{
    long sum = 0, par = 0;
#pragma omp parallel for reduction(+ : par) /* MARK:o-par */
    for (long i = 0; i < n; i++)
        par += 2 * i;
    for (long i = 0; i < n; i++) /* MARK:o-loop */
        sum += other_step(i); /* MARK:o-call */
    return sum - par;
}
