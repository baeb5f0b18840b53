/*
 * t1policy.c - ground truth of `hprof-cc --tier=1`, the instrumentation
 * policy applied to -finstrument-functions hooks (tests/tier1policy/run.sh).
 *
 * Procedures (the script finds their lines by the MARK comments):
 *   add()          tiny: one straight-line statement, no call; called
 *                  N_AA * N_INNER = 150000 times, all from address_add().
 *   address_add()  not tiny (a loop that calls add); its name contains
 *                  add's: called N_AA = 300 times from main().
 *   step()         not tiny (a loop that calls step_once); its name is
 *                  part of step_once's: called N_STEP = 200 times.
 *   step_once()    tiny: straight-line, no call; called N_STEP * N_INNER
 *                  = 100000 times, all from step().
 *   sq()           static inline, tiny: called N_SQ = 1000 times from
 *                  main()'s loop.
 *   main()         1 call.
 * By default tier 1 hooks address_add, step and main only (add, step_once
 * and sq have no procedure node); with --procedures=all every one of the
 * six has its exact count.  A filter `exclude function step` removes step
 * and keeps address_add; `exclude function add` with --procedures=all
 * removes add and keeps address_add (names match whole, never in part).
 * stdout: one line "aa A step S sq Q" (the same plain and instrumented).
 */
#include <stdio.h>

#define N_AA 300
#define N_STEP 200
#define N_INNER 500
#define N_SQ 1000

static unsigned add(unsigned x) /* MARK:add */
{
    return x * 2654435761u + 1u;
}

static unsigned address_add(unsigned seed) /* MARK:address_add */
{
    unsigned i, s = seed;
    for (i = 0; i < N_INNER; i++)
        s ^= add(s + i);
    return s;
}

static unsigned step_once(unsigned x) /* MARK:step_once */
{
    return (x >> 3) ^ (x * 40503u);
}

static unsigned step(unsigned seed) /* MARK:step */
{
    unsigned i, s = seed;
    for (i = 0; i < N_INNER; i++)
        s = step_once(s) + i;
    return s;
}

static inline unsigned sq(unsigned x) /* MARK:sq */
{
    return x * x + 7u;
}

int main(void) /* MARK:main */
{
    unsigned i, a = 0, s = 1, q = 0;

    for (i = 0; i < N_AA; i++)
        a += address_add(i);
    for (i = 0; i < N_STEP; i++)
        s = step(s);
    for (i = 0; i < N_SQ; i++)
        q ^= sq(q + i);
    printf("aa %u step %u sq %u\n", a, s, q);
    return 0;
}
