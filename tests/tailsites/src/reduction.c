/*
 * reduction.c - a worksharing loop with a reduction of two variables
 * (issue 24, item 7): gcc combines each thread's partial sums under
 * GOMP_atomic_start/end, at a line of the loop's body that holds no
 * atomic construct.  Truth: REPS regions of NT threads, each thread
 * combining once per region: NT x REPS "reduction" records at the loop's
 * pragma (MARK:red), no "atomic" anywhere; one real long double atomic
 * (MARK:atomic) per thread and region stays an "atomic" at its own line.
 * The sums go to stdout (the same with and without hprof).
 */
#include <omp.h>
#include <stdio.h>

#define REPS 50
#define NT 2
#define N 1000

static double x[N];
static long double total;

int main(void)
{
    double s = 0, q = 0;
    for (int i = 0; i < N; i++)
        x[i] = i * 0.5;
    for (int r = 0; r < REPS; r++) {
#pragma omp parallel num_threads(NT) /* MARK:par */
        {
            double loc = omp_get_thread_num();
#pragma omp for reduction(+ : s, q) /* MARK:red */
            for (int i = 0; i < N; i++) {
                s += x[i] + loc;
                q += x[i] * x[i];
            }
#pragma omp atomic /* MARK:atomic */
            total += loc;
        }
    }
    printf("%g %g %Lg\n", s, q, total);
    return 0;
}
