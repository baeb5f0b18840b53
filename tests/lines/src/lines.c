/*
 * lines.c - ground truth for tests/lines/run.sh: one OpenMP construct of
 * each kind, each on the line marked "MARK:tag", so that every site hprof
 * records can be checked against its pragma's line and the user function
 * that contains it, whatever the optimisation level.  No MPI.
 *
 * Ground truth (with 2 threads):
 *  - in work(): the parallel region at MARK:par; a dynamic loop at
 *    MARK:for (its end barrier there); an explicit barrier at MARK:barrier;
 *    a single at MARK:single (executed once per region); a critical at
 *    MARK:critical; an ordered loop at MARK:ford with its ordered block at
 *    MARK:ordered; NTASKS tasks created at MARK:task (one thread creates
 *    them) and one taskwait at MARK:taskwait.  All of it REPS times.
 *  - tail(): a function whose last action is its parallel region at
 *    MARK:tailpar, so -O2 ends it in a tail call into the runtime; it is
 *    called from main at MARK:tailcall, REPS times.
 * Every site is named after work() or tail() (never main, never an
 * outlined function), and none lies in the runtime.  stdout: one line, the
 * sum, the same with and without hprof.
 */
#include <stdio.h>

#define REPS 3
#define NTASKS 4
#define N 8

static volatile long sink;

__attribute__((noinline)) static long work(int rep)
{
    long sum = 0;
#pragma omp parallel reduction(+ : sum) /* MARK:par */
    {
#pragma omp for schedule(dynamic) /* MARK:for */
        for (int i = 0; i < N; i++)
            sum += i * rep;
#pragma omp barrier /* MARK:barrier */
#pragma omp single /* MARK:single */
        {
            for (int k = 0; k < NTASKS; k++) {
#pragma omp task /* MARK:task */
                sink += k;
            }
#pragma omp taskwait /* MARK:taskwait */
            sum += 1;
        }
#pragma omp critical /* MARK:critical */
        sum += 2;
#pragma omp for ordered schedule(dynamic) /* MARK:ford */
        for (int i = 0; i < N; i++) {
#pragma omp ordered /* MARK:ordered */
            sum += i;
        }
    }
    return sum;
}

static long total;
static int tail_rep;

/* No captured variable: the runtime call is this function's last act. */
__attribute__((noinline)) void tail(void)
{
#pragma omp parallel /* MARK:tailpar */
    {
#pragma omp atomic
        total += tail_rep;
    }
}

int main(void)
{
    long sum = 0;
    for (int rep = 0; rep < REPS; rep++) {
        sum += work(rep);
        tail_rep = rep;
        tail(); /* MARK:tailcall */
    }
    printf("sum %ld\n", sum + total * 0 + sink * 0);
    return 0;
}
