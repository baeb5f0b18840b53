/*
 * omp_inlined.c - ground truth for tier-1 hooks of a function inlined into
 * an OpenMP outlined function (tests/inline/run.sh).  gcc -fopenmp does
 * not instrument the outlined body of a parallel region, so when the
 * static inline function bump() is inlined into it, bump's hooks are the
 * first of that frame and carry the outlined function's return address -
 * an address in the OpenMP runtime or in hprof's own region trampoline,
 * not in this file.  They must count at the inlined call's own line.
 *
 * Known counts (the region runs with num_threads(2)): each thread calls
 * bump() M times at line omp-inl, so that call statement counts 2 * M =
 * 400 calls; bump's procedure counts 400; no call site of the profile lies
 * outside this file.
 *
 * usage: omp_inlined   (stdout is the same with and without hprof)
 */
#include <stdio.h>

#define M 200

static inline long bump(long x)
{
    return 5 * x + 3;
}

int main(void)
{
    long total = 0;
#pragma omp parallel num_threads(2) reduction(+ : total)
    {
        long s = 0;
        for (long i = 0; i < M; i++)
            s ^= bump(s + i); /* MARK:omp-inl */
        total += s & 1;
    }
    printf("omp_inlined: %ld\n", total);
    return 0;
}
