/*
 * taskrec.c - ground truth for recursive and unbalanced task trees.
 * Three phases, each inside one parallel region's single construct:
 *  - fib(FIB_TIED) with tied tasks and no cutoff: every call with n >= 2
 *    creates a task at MARK:rec-ta running fib(n - 1) and one at
 *    MARK:rec-tb running fib(n - 2), then waits at MARK:rec-tw;
 *  - fib(FIB_UNTIED) the same with untied tasks (MARK:rec-ua, rec-ub,
 *    rec-uw);
 *  - an unbalanced tree (UTS-like, deterministic): the root has ROOT
 *    children, a node at depth 1..MAXD-1 has 2 children when a hash of
 *    its id is odd, else none; every child is a tied task at MARK:rec-node
 *    and a node with children waits for them at MARK:rec-nw.  Deep and
 *    narrow: a thread runs tasks nested many levels deep in taskwaits.
 * The program counts, serially, the calls with n >= 2 (tasks per fib
 * construct and taskwaits), the a and b tasks whose argument is >= 2 (each
 * creates one a and one b task: the tasks created per (parent construct,
 * child construct); the first call, in the single, creates one of each)
 * and the tree's nodes (tasks created and run at MARK:rec-node = nodes -
 * 1; ROOT of them created by the single, the rest by MARK:rec-node
 * tasks), inner nodes (taskwaits) and depth, and prints them with the
 * results computed by the tasks.
 */
#include <omp.h>
#include <stdint.h>
#include <stdio.h>

#define FIB_TIED 21
#define FIB_UNTIED 17
#define ROOT 48
#define MAXD 400

static long fib_calls(int n)   /* calls with n >= 2 below fib(n), included */
{
    return n < 2 ? 0 : 1 + fib_calls(n - 1) + fib_calls(n - 2);
}

/* Tasks at construct a (side 0) or b (side 1) below fib(n) that create
 * tasks themselves (their argument is >= 2). */
static long fib_creators(int n, int side)
{
    if (n < 2)
        return 0;
    return (n - 1 - side >= 2) + fib_creators(n - 1, side) + fib_creators(n - 2, side);
}

static long fib_serial(int n)
{
    return n < 2 ? n : fib_serial(n - 1) + fib_serial(n - 2);
}

static long fib_tied(int n)
{
    if (n < 2)
        return n;
    long a, b;
#pragma omp task shared(a) /* MARK:rec-ta */
    a = fib_tied(n - 1);
#pragma omp task shared(b) /* MARK:rec-tb */
    b = fib_tied(n - 2);
#pragma omp taskwait /* MARK:rec-tw */
    return a + b;
}

static long fib_untied(int n)
{
    if (n < 2)
        return n;
    long a, b;
#pragma omp task shared(a) untied /* MARK:rec-ua */
    a = fib_untied(n - 1);
#pragma omp task shared(b) untied /* MARK:rec-ub */
    b = fib_untied(n - 2);
#pragma omp taskwait /* MARK:rec-uw */
    return a + b;
}

static uint64_t mix(uint64_t x)
{
    x ^= x >> 33;
    x *= 0xff51afd7ed558ccdull;
    x ^= x >> 33;
    x *= 0xc4ceb9fe1a85ec53ull;
    return x ^ (x >> 33);
}

static int children(uint64_t id, int depth)
{
    if (depth == 0)
        return ROOT;
    return depth < MAXD && (mix(id) >> 7 & 1) ? 2 : 0;
}

static uint64_t child_id(uint64_t id, int i)
{
    return mix(id * 4 + (uint64_t)i + 1);
}

typedef struct tree_count {
    long nodes, inner, depth;
} tree_count;

static void tree_serial(uint64_t id, int depth, tree_count *c)
{
    int k = children(id, depth);
    c->nodes++;
    c->inner += k > 0;
    if (depth > c->depth)
        c->depth = depth;
    for (int i = 0; i < k; i++)
        tree_serial(child_id(id, i), depth + 1, c);
}

/* Nodes in the subtree of id, counted by its tasks. */
static long tree_tasks(uint64_t id, int depth)
{
    int k = children(id, depth);
    long sum[ROOT] = {0};
    for (int i = 0; i < k; i++) {
#pragma omp task shared(sum) /* MARK:rec-node */
        sum[i] = tree_tasks(child_id(id, i), depth + 1);
    }
    if (k) {
#pragma omp taskwait /* MARK:rec-nw */
    }
    long n = 1;
    for (int i = 0; i < k; i++)
        n += sum[i];
    return n;
}

int main(void)
{
    long ft = 0, fu = 0, nodes = 0;
#pragma omp parallel /* MARK:rec-region */
    {
#pragma omp single
        {
            ft = fib_tied(FIB_TIED);
        }
#pragma omp single
        {
            fu = fib_untied(FIB_UNTIED);
        }
#pragma omp single
        {
            nodes = tree_tasks(12345, 0);
        }
    }
    tree_count c = {0, 0, 0};
    tree_serial(12345, 0, &c);
    printf("fib tied %ld (expected %ld) tasks per construct %ld taskwaits %ld"
           " a-creators %ld b-creators %ld\n", ft, fib_serial(FIB_TIED), fib_calls(FIB_TIED),
           fib_calls(FIB_TIED), fib_creators(FIB_TIED, 0), fib_creators(FIB_TIED, 1));
    printf("fib untied %ld (expected %ld) tasks per construct %ld taskwaits %ld"
           " a-creators %ld b-creators %ld\n", fu, fib_serial(FIB_UNTIED),
           fib_calls(FIB_UNTIED), fib_calls(FIB_UNTIED), fib_creators(FIB_UNTIED, 0),
           fib_creators(FIB_UNTIED, 1));
    printf("tree nodes %ld (expected %ld) tasks %ld root %d taskwaits %ld depth %ld\n", nodes,
           c.nodes, c.nodes - 1, ROOT, c.inner, c.depth);
    return 0;
}
