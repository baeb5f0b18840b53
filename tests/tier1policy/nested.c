/*
 * nested.c - a file hprof-instrument cannot parse (a GNU C nested
 * function, which gcc compiles and libclang rejects): `hprof-cc --tier=1`
 * compiles it as is after one warning, every procedure hooked, so the
 * tiny twice() keeps its procedure node with its N_TWICE = 1000 calls
 * (tests/tier1policy/run.sh).  stdout: one line "nested T".
 */
#include <stdio.h>

#define N_TWICE 1000

static unsigned twice(unsigned x) /* MARK:twice */
{
    return 2u * x + 1u;
}

int main(void)
{
    unsigned i, t = 0;
    unsigned bump(unsigned v) { return v + twice(v); }

    for (i = 0; i < N_TWICE; i++)
        t = bump(t) & 0xffffu;
    printf("nested %u\n", t);
    return 0;
}
