/*
 * ompbench.c - an EPCC-syncbench-like measure of OpenMP overheads (the
 * OpenMP 3.1-style loops of EPCC's syncbench and taskbench): each
 * construct below is run in a loop of REPS rounds around a tiny delay,
 * and its time per round is printed, one line per construct:
 *
 *     ompbench CONSTRUCT US
 *
 * (microseconds per round; bench/run.sh builds it plain and with -lhprof,
 * with gcc (GOMP interposition) and clang (OMPT), runs the variants
 * alternately and compares).  A round is, per construct:
 *   parallel   an empty parallel region
 *   for        a static loop inside a region, a few iterations per thread
 *              (with its implicit barrier)
 *   barrier    an explicit barrier inside a region
 *   single     a single construct inside a region (with its barrier)
 *   critical   one entry into a critical section (the team shares REPS)
 *   master     a master construct inside a region (no barrier)
 *   reduction  a parallel region with a reduction clause
 *   task       a tiny task created in a single, the team runs them
 *   mastertask a tiny task created in a master construct
 *   nestedtask a tiny task created inside a task (master creates REPS/N
 *              tasks that create N each, N = the team's size)
 * Under valgrind --tool=callgrind (bench/ompcost.sh) each construct runs
 * three times - a warm-up, REPS rounds, 2*REPS rounds - and the counters
 * are dumped after each, named CONSTRUCT.warm, CONSTRUCT.1, CONSTRUCT.2:
 * the instructions per round are (I(.2) - I(.1)) / REPS, without the
 * fixed cost of a region around the loop, of the first records of a
 * site, of start-up and end.
 * usage: ompbench [REPS [CONSTRUCT...]]   (default 2000, all constructs)
 */
#include <mpi.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#if defined(__has_include)
#if __has_include(<valgrind/callgrind.h>)
#include <valgrind/callgrind.h>
#endif
#endif

static volatile int sink;

static void delay(int n)
{
    for (int i = 0; i < n; i++)
        sink += i;
}

enum { DELAY = 10 };

static void bench_parallel(int reps)
{
    for (int r = 0; r < reps; r++) {
#pragma omp parallel
        delay(DELAY);
    }
}

static void bench_for(int reps)
{
#pragma omp parallel
    {
        int n = omp_get_num_threads() * 4;
        for (int r = 0; r < reps; r++) {
#pragma omp for schedule(static)
            for (int i = 0; i < n; i++)
                delay(DELAY);
        }
    }
}

static void bench_barrier(int reps)
{
#pragma omp parallel
    for (int r = 0; r < reps; r++) {
        delay(DELAY);
#pragma omp barrier
    }
}

static void bench_single(int reps)
{
#pragma omp parallel
    for (int r = 0; r < reps; r++) {
#pragma omp single
        delay(DELAY);
    }
}

static void bench_critical(int reps)
{
#pragma omp parallel
    {
        int n = omp_get_num_threads(), mine = reps / n + (omp_get_thread_num() < reps % n);
        for (int r = 0; r < mine; r++) {
#pragma omp critical
            delay(DELAY);
        }
    }
}

static void bench_master(int reps)
{
#pragma omp parallel
    for (int r = 0; r < reps; r++) {
#pragma omp master
        delay(DELAY);
    }
}

static void bench_reduction(int reps)
{
    int x = 0;
    for (int r = 0; r < reps; r++) {
#pragma omp parallel reduction(+ : x)
        {
            delay(DELAY);
            x += 1;
        }
    }
    sink += x;
}

static void bench_task(int reps)
{
#pragma omp parallel
#pragma omp single
    {
        for (int r = 0; r < reps; r++) {
#pragma omp task
            delay(DELAY);
        }
#pragma omp taskwait
    }
}

static void bench_mastertask(int reps)
{
#pragma omp parallel
#pragma omp master
    for (int r = 0; r < reps; r++) {
#pragma omp task
        delay(DELAY);
    }
}

static void bench_nestedtask(int reps)
{
#pragma omp parallel
#pragma omp master
    {
        int n = omp_get_num_threads();
        for (int r = 0; r < reps / n; r++) {
#pragma omp task
            for (int j = 0; j < n; j++) {
#pragma omp task
                delay(DELAY);
            }
        }
    }
}

static const struct construct {
    const char *name;
    void (*run)(int reps);
} constructs[] = {
    {"parallel", bench_parallel}, {"for", bench_for},
    {"barrier", bench_barrier},   {"single", bench_single},
    {"critical", bench_critical}, {"master", bench_master},
    {"reduction", bench_reduction}, {"task", bench_task},
    {"mastertask", bench_mastertask}, {"nestedtask", bench_nestedtask},
};

/* Ends a measured part under callgrind: its counters go to a file named
 * after it, and start again from 0. */
static void mark(const char *name, const char *part)
{
#ifdef CALLGRIND_DUMP_STATS_AT
    char what[64];
    snprintf(what, sizeof what, "%s.%s", name, part);
    CALLGRIND_DUMP_STATS_AT(what);
#else
    (void)name;
    (void)part;
#endif
}

/* Runs c: warm-up, reps, 2 * reps rounds; microseconds per round of the
 * last. */
static double measure(const struct construct *c, int reps)
{
    c->run(reps / 10 + 1);
    mark(c->name, "warm");
    c->run(reps);
    mark(c->name, "1");
    double t0 = omp_get_wtime();
    c->run(2 * reps);
    double t1 = omp_get_wtime();
    mark(c->name, "2");
    return (t1 - t0) / (2.0 * reps) * 1e6;
}

static int wanted(const char *name, int argc, char **argv)
{
    if (argc <= 2)
        return 1;
    for (int i = 2; i < argc; i++)
        if (!strcmp(argv[i], name))
            return 1;
    return 0;
}

int main(int argc, char **argv)
{
    int provided, rank, reps = argc > 1 ? atoi(argv[1]) : 2000;
    if (reps < 1)
        reps = 1;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    for (size_t i = 0; i < sizeof constructs / sizeof constructs[0]; i++) {
        if (!wanted(constructs[i].name, argc, argv))
            continue;
        double us = measure(&constructs[i], reps);
        if (rank == 0)
            printf("ompbench %s %.3f\n", constructs[i].name, us);
    }
    MPI_Finalize();
    return 0;
}
