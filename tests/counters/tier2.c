/*
 * tests/counters/tier2.c - counters through tier 2's source probes
 * (hprof-cc --procedures=all --loops=all), checked with the fake back end
 * (HPROF_COUNTERS=A, HPROF_COUNTERS_FAKE=1, HPROF_THROTTLE_CALLS=0): every
 * interval between two reads adds exactly 1.  With counters the probes
 * never take their inline fast path (which reads no counters): a site
 * entered again under the same context would otherwise be timed inline
 * from its second call on.
 *
 * Ground truth, as "kind name: value (calls)": a call of leaf reads 4
 * times (call statement enter, procedure enter, procedure exit, call
 * statement exit):
 *   procedure leaf: 10 x 1 = 10 (10); call leaf: 10 x 3 = 30 (10);
 *   loop for: 1 + 10 x 4 = 41 (1); procedure main: 1 + 41 + 1 = 43 (1).
 * Prints the same line with and without hprof.
 */
#include <stdio.h>

static volatile int sink;

__attribute__((noinline)) static void leaf(int i)
{
    sink += i;
    if (sink % 7 == 3)
        sink++;
}

int main(void)
{
    for (int i = 0; i < 10; i++)
        leaf(i);
    printf("done %d\n", sink);
    return 0;
}
