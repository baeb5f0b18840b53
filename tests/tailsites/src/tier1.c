/*
 * tier1.c - tier 1 (gcc -finstrument-functions, libgomp): a region's and
 * a task's body that is only a call of a user function (issue 24, item
 * 7), which gcc's outlined function makes as a tail call.  Truth: the
 * call of work() at MARK:call, NT x REPS times, named after main; the
 * call of leaf() (kept out of line, like BOTS sort's recursive
 * cilksort_par) at MARK:leaf, NTASK x REPS times; no call site at any
 * line of hprof's own code.  The sums go to stdout.
 */
#include <omp.h>
#include <stdio.h>

#define REPS 50
#define NT 2
#define N 1000
#define NTASK 8

static double a[N];
static double acc[NTASK];

void work(void);
void leaf(int i);

void work(void)
{
#pragma omp for
    for (int i = 0; i < N; i++)
        a[i] += i;
}

__attribute__((noinline)) void leaf(int i)
{
    acc[i] += i * 0.25;
}

int main(void)
{
    for (int r = 0; r < REPS; r++) {
#pragma omp parallel num_threads(NT)
        work(); /* MARK:call */
#pragma omp parallel num_threads(NT)
#pragma omp single
        for (int i = 0; i < NTASK; i++) {
#pragma omp task
            leaf(i); /* MARK:leaf */
        }
    }
    double s = 0;
    for (int i = 0; i < NTASK; i++)
        s += acc[i];
    printf("%g %g\n", a[N - 1], s);
    return 0;
}
