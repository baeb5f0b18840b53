/*
 * pfor_whole.c - combined parallel loops that hprof-instrument must leave
 * whole, because splitting them into parallel + for nowait changes what
 * they compute or does not compile (tests/instrument/pfor.sh):
 *   S1 parallel for simd, inscan reduction, inclusive scan
 *   S2 parallel for simd, inscan reduction, exclusive scan
 *   S3 parallel for, inscan reduction, inclusive scan
 *   S4 parallel for, inscan reduction, exclusive scan
 *   T1 parallel for, task reduction, tasks with in_reduction
 *   L1 parallel for default(none), linear with a step
 *   C1 parallel for, lastprivate(conditional:)
 * Each form runs RUNS times over N elements; the program computes the
 * same results serially and counts the elements that differ.  Ground
 * truth: stdout is one line per form, "S1 0" ... "C1 0" (no element
 * differs), with any number of threads, with or without hprof, with or
 * without the POMP2 rewriting.  Each form's pragma line carries its tag.
 */
#include <stdio.h>

#define N 1024
#define RUNS 3

static long a[N], b[N], ref[N];

static void fill(void)
{
    for (int i = 0; i < N; i++)
        a[i] = (i * 7919L) % 1000 - 500;
}

/* prefix sums of a, inclusive (shift 0) or exclusive (shift 1) */
static void serial_scan(int shift)
{
    long x = 0;

    for (int i = 0; i < N; i++) {
        if (shift)
            ref[i] = x;
        x += a[i];
        if (!shift)
            ref[i] = x;
    }
}

static int differ(const long *got)
{
    int n = 0;

    for (int i = 0; i < N; i++)
        n += got[i] != ref[i];
    return n;
}

static int scan_simd_inclusive(void)
{
    long x = 0;
#pragma omp parallel for simd reduction(inscan, +: x) /* MARK:S1 */
    for (int i = 0; i < N; i++) {
        x += a[i];
#pragma omp scan inclusive(x)
        b[i] = x;
    }
    serial_scan(0);
    return differ(b);
}

static int scan_simd_exclusive(void)
{
    long x = 0;
#pragma omp parallel for simd reduction(inscan, +: x) /* MARK:S2 */
    for (int i = 0; i < N; i++) {
        b[i] = x;
#pragma omp scan exclusive(x)
        x += a[i];
    }
    serial_scan(1);
    return differ(b);
}

static int scan_for_inclusive(void)
{
    long x = 0;
#pragma omp parallel for reduction(inscan, +: x) /* MARK:S3 */
    for (int i = 0; i < N; i++) {
        x += a[i];
#pragma omp scan inclusive(x)
        b[i] = x;
    }
    serial_scan(0);
    return differ(b);
}

static int scan_for_exclusive(void)
{
    long x = 0;
#pragma omp parallel for reduction(inscan, +: x) /* MARK:S4 */
    for (int i = 0; i < N; i++) {
        b[i] = x;
#pragma omp scan exclusive(x)
        x += a[i];
    }
    serial_scan(1);
    return differ(b);
}

static int task_reduction(void)
{
    long x = 0, want = 0;
#pragma omp parallel for reduction(task, +: x) /* MARK:T1 */
    for (int i = 0; i < N; i++) {
#pragma omp task in_reduction(+: x) firstprivate(i)
        x += a[i];
    }
    for (int i = 0; i < N; i++)
        want += a[i];
    return x != want;
}

static int linear_step(void)
{
    long j = 5;
#pragma omp parallel for default(none) shared(b) linear(j: 3) /* MARK:L1 */
    for (int i = 0; i < N; i++) {
        b[i] = j;
        j += 3;
    }
    for (int i = 0; i < N; i++)
        ref[i] = 5 + 3L * i;
    return differ(b) + (j != 5 + 3L * N);
}

static int conditional_last(void)
{
    long last = -1;
#pragma omp parallel for lastprivate(conditional: last) /* MARK:C1 */
    for (int i = 0; i < N; i++)
        if (a[i] > 400)
            last = i;
    for (int i = 0; i < N; i++)
        if (a[i] > 400)
            ref[0] = i;
    return last != ref[0];
}

int main(void)
{
    int bad[7] = { 0 };

    fill();
    for (int r = 0; r < RUNS; r++) {
        bad[0] += scan_simd_inclusive();
        bad[1] += scan_simd_exclusive();
        bad[2] += scan_for_inclusive();
        bad[3] += scan_for_exclusive();
        bad[4] += task_reduction();
        bad[5] += linear_step();
        bad[6] += conditional_last();
    }
    printf("S1 %d\nS2 %d\nS3 %d\nS4 %d\nT1 %d\nL1 %d\nC1 %d\n",
           bad[0], bad[1], bad[2], bad[3], bad[4], bad[5], bad[6]);
    return 0;
}
