/*
 * tests/counters/tier1.c - counters of procedures, call sites and an
 * OpenMP region (tier 1: -finstrument-functions, GOMP), checked with the
 * fake back end (HPROF_COUNTERS=A, HPROF_COUNTERS_FAKE=1,
 * HPROF_THROTTLE_CALLS=0): every interval between two reads of a thread
 * adds exactly 1.  A tier-1 call reads 4 times: its call site's enter, the
 * procedure's enter, the procedure's exit, the call site's exit.
 *
 * Ground truth (one process; thread 0 is main's, thread 1 the region's
 * second thread), as "kind name line: value (calls)":
 *   call twice: 3 x (1 + 1 + 2 x 4 + 1) = 33 (3); procedure twice: 27 (3)
 *     (the 2 x 4 reads of its two calls of leaf lie inside it);
 *   call leaf 31 and call leaf 32, under twice: 3 x 3 = 9 each (3 calls);
 *     procedure leaf under each: 3 x 1 = 3;
 *   omp parallel, on each of its 2 threads (the outlined function is not a
 *     node): its enter, the call of leaf (4 reads), the barrier (a wait
 *     reads at its mark and at its record: 2), the implicit barrier at its
 *     end (2), its exit: 1 + 4 + 2 + 2 = 9 (1); in it call leaf: 3,
 *     procedure leaf: 1, barrier: 1, implicit barrier: 1.
 * main's own nodes are still open when the profile is written: not
 * asserted (their values count the runtime's own reads at the end).
 * Prints the same line with and without hprof.
 */
#include <stdio.h>

static volatile int sink;

__attribute__((noinline)) static void leaf(void)
{ /* the procedure's line: where its code begins LEAF */
    sink++;
}

__attribute__((noinline)) static void twice(void)
{ /* TWICE */
    leaf(); /* FIRST */
    leaf(); /* SECOND */
}

int main(void)
{
    for (int i = 0; i < 3; i++)
        twice(); /* CALL-TWICE */
#pragma omp parallel num_threads(2) /* PARALLEL */
    {
        leaf(); /* IN-REGION */
#pragma omp barrier /* BARRIER */
    }
    printf("done %d\n", sink);
    return 0;
}
