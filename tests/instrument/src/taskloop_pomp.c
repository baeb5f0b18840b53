/*
 * taskloop_pomp.c - a taskloop whose tasks run in the implicit barrier of
 * the single that creates them, with an atomic and a loop in its body, as
 * SOLLVE's test_taskloop_collapse has it (tests/instrument/whole.sh).
 * POMP2 has no taskloop events: the instrumenter leaves the taskloop's
 * body as written (its loop at TL_INNER unprobed, its atomic not
 * rewritten), so nothing is recorded beside the barrier that runs the
 * tasks.  Ground truth: stdout is "taskloop 0" (the sum is right), with
 * or without hprof.
 */
#include <stdio.h>

#define N 200

int main(void)
{
    static long a[N];
    long sum = 0, want = 0;

    for (int i = 0; i < N; i++)
        a[i] = i;
    for (int i = 0; i < N; i++)
        for (int j = 0; j < N; j++)
            want += a[i] * a[j];
#pragma omp parallel num_threads(4)
    {
#pragma omp single
        {
#pragma omp taskloop grainsize(4)
            for (int i = 0; i < N; i++) {
                for (int j = 0; j < N; j++) {   /* MARK:TL_INNER */
#pragma omp atomic
                    sum += a[i] * a[j];
                }
            }
        }
    }
    printf("taskloop %d\n", sum != want);
    return 0;
}
