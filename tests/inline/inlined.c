/*
 * inlined.c - ground truth for tier-1 hooks of inlined functions
 * (tests/inline/run.sh).  Built with gcc -O2 -g -finstrument-functions,
 * the static inline function scale() is inlined into compute() at two
 * lines; gcc still calls the hooks for each inlined call, with compute's
 * own return address.  Each inlined call must count once at its own line,
 * and compute's call statement in main once per real call.
 *
 * Known counts: main calls compute(N) twice, from one line (call-compute:
 * 2 calls, wherever the compiler unrolls the loop); per compute(N), scale
 * is called at line inl-a N times and at line inl-b N / 4 times: 2000 and
 * 500 calls in all, 2500 calls of the procedure scale, every one of them
 * in compute (the call sites' function, their nodes under compute's).
 * Without the fix all 2500 went to compute's call statement in main.
 *
 * usage: inlined   (stdout is the same with and without hprof)
 */
#include <stdio.h>

#define N 1000

static inline long scale(long x)
{
    return 3 * x + 1;
}

static __attribute__((noinline)) long compute(long n)
{
    long s = 0;
    for (long i = 0; i < n; i++) {
        s += scale(i); /* MARK:inl-a */
        if (i % 4 == 0)
            s ^= scale(s & 7); /* MARK:inl-b */
    }
    return s;
}

int main(void)
{
    long s = 0;
    for (int r = 1; r <= 2; r++)
        s += r * compute(N); /* MARK:call-compute */
    printf("inlined: %ld\n", s);
    return 0;
}
