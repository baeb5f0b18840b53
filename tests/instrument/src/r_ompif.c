/* r_ompif.c - OpenMP next to conditional code and macros: an #if between a
 * pragma and its loop (line 17: rewritten with the statement the
 * preprocessor keeps; the loop takes no probe) and a _Pragma made by a
 * macro (line 22, left as is); the parallel at line 25 is plain
 * (tests/instrument/corpus.sh).  Ground truth: prints "100 1 2"; with
 * OMP_NUM_THREADS=2 each construct forks one team.  Through hprof-cc: one
 * warning, for line 22, not recorded (POMP2 owns OpenMP for the run); lines
 * 17 and 25 recorded once.  hprof-cc --no-omp (GOMP): all three, once. */
#include <stdio.h>

#define PAR_FOR _Pragma("omp parallel for")
static int a[100];

int main(void)
{
    int i, n = 0;
#pragma omp parallel for
#if 1
    for (i = 0; i < 100; i++)
        a[i] = i;
#endif
    PAR_FOR
    for (i = 0; i < 100; i++)
        a[i] += 1;
#pragma omp parallel reduction(+:n)
    n += 1;
    printf("%d %d %d\n", a[99], a[0], n);
    return 0;
}
