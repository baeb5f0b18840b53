/* r_ompif.c - OpenMP constructs the POMP2 rewriting cannot see: an #if
 * between a pragma and its loop (line 17) and a _Pragma made by a macro
 * (line 22); the parallel at line 25 is plain (tests/instrument/corpus.sh).
 * Ground truth: prints "100 1 2"; with OMP_NUM_THREADS=2 each construct
 * forks one team.  Through hprof-cc (POMP2 rewriting): one warning for
 * each of lines 17 and 22, whose constructs are then not recorded (POMP2
 * owns OpenMP for the run), the parallel at line 25 recorded once.  With
 * hprof-cc --no-omp (GOMP records): the three regions, once each. */
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
