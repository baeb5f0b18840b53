/*
 * pfor.c - OpenMP loops in the shapes whose tier-2 loop probes must open
 * inside the team (tests/instrument/pfor.sh).  Every construct is entered
 * R = 4 times by a team of 2 threads (num_threads(2), nesting off), and
 * every iteration spins S = 1 ms:
 *
 *   A  parallel for, schedule(static), reduction: N = 8 iterations
 *   B  for inside parallel: N = 8 iterations
 *   C  parallel for collapse(2): 4 x 2 = 8 iterations (the outer loop is
 *      the site, the inner one is bound to it)
 *   D  parallel for in inner(), called from a parallel region of 2
 *      threads: the nested region is inactive (a team of one), so each
 *      outer thread runs all N = 8 iterations
 *
 * Ground truth, per thread (2 threads): the loop of each construct is a
 * node right below the construct's parallel node (POMP2: its parallel
 * region; GOMP and OMPT: the region's node) on both threads, with count 4
 * (one per entry of the region, never one per iteration); its time is at
 * least its iterations x 1 ms per entry: 4 x 4 ms = 16 ms for A, B and C
 * (schedule(static): 4 of the 8 iterations each), 4 x 8 = 32 ms for D.
 * stdout: "pfor: A 28 B 28 C 28 D 56" with or without hprof.
 */
#include <omp.h>
#include <stdio.h>
#include <time.h>

#define R 4
#define N 8

/* Busy for 1 ms of wall time; returns i. */
static int spin(int i)
{
    struct timespec t0, t;

    clock_gettime(CLOCK_MONOTONIC, &t0);
    do
        clock_gettime(CLOCK_MONOTONIC, &t);
    while ((t.tv_sec - t0.tv_sec) * 1000000000L + (t.tv_nsec - t0.tv_nsec) < 1000000L);
    return i;
}

static long inner(void)
{
    long sum = 0;

#pragma omp parallel for num_threads(2) reduction(+:sum) /* MARK:D */
    for (int i = 0; i < N; i++)
        sum += spin(i);
    return sum;
}

int main(void)
{
    long a = 0, b = 0, c = 0, d = 0;

    omp_set_max_active_levels(1);
    for (int r = 0; r < R; r++) {
        long sa = 0, sb = 0, sc = 0;
#pragma omp parallel for num_threads(2) schedule(static) reduction(+:sa) /* MARK:A */
        for (int i = 0; i < N; i++)
            sa += spin(i);
#pragma omp parallel num_threads(2) reduction(+:sb) /* MARK:B */
        {
#pragma omp for schedule(static)
            for (int i = 0; i < N; i++)
                sb += spin(i);
        }
#pragma omp parallel for collapse(2) num_threads(2) schedule(static) reduction(+:sc) /* MARK:C */
        for (int i = 0; i < 4; i++)
            for (int j = 0; j < 2; j++)
                sc += spin(2 * i + j);
        a = sa;
        b = sb;
        c = sc;
    }
    for (int r = 0; r < R; r++) {
        long sd = 0;
#pragma omp parallel num_threads(2) reduction(+:sd) /* MARK:Dout */
        sd += inner();
        d = sd;
    }
    printf("pfor: A %ld B %ld C %ld D %ld\n", a, b, c, d);
    return 0;
}
