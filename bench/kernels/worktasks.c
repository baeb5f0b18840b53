/*
 * worktasks.c - a bench kernel of many short OpenMP tasks (~5 us each), the
 * shape of BOTS fib/nqueens/health where the cost of a task itself, not
 * the work, decides the overhead: a recursive binary task tree (every
 * inner node creates two tasks and waits for them) whose leaves do a fixed
 * amount of arithmetic.  OpenMP only: no MPI, run without mpirun.
 *
 * Output: "kernel worktasks SECONDS" (the tree), "tasks worktasks T" (tasks
 * created, counted by the program: 2^(DEPTH+1) - 2), "checksum worktasks H"
 * (the leaves' results, identical plain and instrumented).  On stderr:
 * "worktasks: leaf work N us" (the mean time of a leaf's work by the
 * program's own clock, measured serially before the tree, so that the
 * size of the work can be checked on the machine at hand).
 * usage: worktasks [LEAVES]   (default 2^17 leaves; rounded down to a
 *        power of two)
 */
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>

#define LEAF_STEPS 2000 /* ~5 us of dependent arithmetic on a 2-3 GHz core */

static long tasks_created;

/* leaf_work - LEAF_STEPS steps of a dependent chain seeded by seed. */
static unsigned long leaf_work(unsigned long seed)
{
    unsigned long s = seed * 2654435761ul + 1;
    for (int i = 0; i < LEAF_STEPS; i++) {
        s ^= s >> 29;
        s = s * 6364136223846793005ul + (unsigned long)i;
    }
    return s;
}

/* tree - the leaves of a subtree of depth depth, first leaf first, as
 * tasks; returns the sum of their results. */
static unsigned long tree(unsigned long first, int depth)
{
    if (depth == 0)
        return leaf_work(first);
    unsigned long left, right, half = 1ul << (depth - 1);
#pragma omp atomic
    tasks_created += 2;
#pragma omp task shared(left)
    left = tree(first, depth - 1);
#pragma omp task shared(right)
    right = tree(first + half, depth - 1);
#pragma omp taskwait
    return left + right;
}

/* mean_leaf_us - a leaf's work in microseconds, serially, by omp_get_wtime. */
static double mean_leaf_us(void)
{
    unsigned long sum = 0;
    double t0 = omp_get_wtime();
    for (int i = 0; i < 2000; i++)
        sum += leaf_work((unsigned long)i);
    double us = (omp_get_wtime() - t0) / 2000 * 1e6;
    return sum == 42 ? us + 1e-9 : us; /* sum used: the loop is not dropped */
}

int main(int argc, char **argv)
{
    long leaves = argc > 1 ? atol(argv[1]) : 1L << 17;
    int depth = 0;
    while (depth < 40 && (2L << depth) <= leaves)
        depth++;
    fprintf(stderr, "worktasks: leaf work %.2f us\n", mean_leaf_us());
    unsigned long h = 0;
    double t0 = omp_get_wtime();
#pragma omp parallel
#pragma omp single
    h = tree(0, depth);
    double t = omp_get_wtime() - t0;
    printf("kernel worktasks %.6f\n", t);
    printf("tasks worktasks %ld\n", tasks_created);
    printf("checksum worktasks %lu\n", h);
    return tasks_created == (2L << depth) - 2 ? 0 : 1;
}
