/*
 * target.c - a program whose only OpenMP is target regions, run on the
 * host (no device: the regions fall back to the calling thread), as 126
 * of SOLLVE's tests are.  Ground truth (tests/target/run.sh):
 *  - the target region at MARK:t-sum runs ROUNDS = 3 times, the one at
 *    MARK:t-team once;
 *  - the region at MARK:t-team holds a combined teams distribute
 *    parallel for: its parallel region (at the same line) runs inside it;
 *  - it prints the sums it computed, the same with and without hprof;
 *  - built with -DONLY_TARGET, the region at MARK:t-team is left out:
 *    the program calls no other entry point of libgomp than
 *    GOMP_target_ext.
 */
#include <stdio.h>

#define N 1000
#define ROUNDS 3

int main(void)
{
    int a[N];
    long sum = 0;
    for (int i = 0; i < N; i++)
        a[i] = i;
    for (int r = 0; r < ROUNDS; r++) {
#pragma omp target map(tofrom : sum) map(to : a) /* MARK:t-sum */
        for (int i = 0; i < N; i++)
            sum += a[i];
    }
#ifndef ONLY_TARGET
#pragma omp target teams distribute parallel for map(tofrom : a) /* MARK:t-team */
    for (int i = 0; i < N; i++)
        a[i] *= 2;
#endif
    printf("sum %ld, a[%d] = %d\n", sum, N - 1, a[N - 1]);
    return 0;
}
