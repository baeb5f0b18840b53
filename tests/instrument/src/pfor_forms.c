/*
 * pfor_forms.c - parallel loops in the forms the split into parallel +
 * for must keep meaning the same (tests/instrument/pfor.sh): the unbraced
 * body of an if and of a loop, after a label, a _Pragma operator written
 * in the code, parallel for simd with reduction and lastprivate, if and
 * num_threads clauses, ordered; the reductions run over M = 2^20
 * iterations, so that a reduction lost in the split shows as lost
 * updates.  Ground truth: stdout is o 0 / o 1 / o 2 / o 3 (one line
 * each), then "549755289600 1099510579200 2016 1048575 63" with any number
 * of threads, with or without hprof, with or without the POMP2 rewriting;
 * every loop has a probe (none is skipped).
 */
#include <stdio.h>

#define M (1L << 20)

int main(int argc, char **argv)
{
    long s = 0, t = 0, u = 0, i, last = 0;
    double v[64];

    (void)argv;
    if (argc > 0)
#pragma omp parallel for reduction(+:s) if(argc > 0)
        for (i = 0; i < M; i++)
            s += i;
    goto here;
here:
#pragma omp parallel for simd reduction(+:t) schedule(static) lastprivate(last)
    for (i = 0; i < M; i++) {
        t += 2 * i;
        last = i;
    }
    _Pragma("omp parallel for reduction(+:u) num_threads(2)") for (int k = 0; k < 64; k++) u += k;
    for (int r = 0; r < 2; r++)
#pragma omp parallel for
        for (i = 0; i < 64; i++)
            v[i] = i * r;
#pragma omp parallel for ordered schedule(dynamic)
    for (i = 0; i < 4; i++) {
#pragma omp ordered
        printf("o %ld\n", i);
    }
    printf("%ld %ld %ld %ld %.0f\n", s, t, u, last, v[63]);
    return 0;
}
