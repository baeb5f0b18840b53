/*
 * tasks.c - a bench kernel shaped like BOTS sort (cilksort): a recursive
 * merge sort where every split above a cut-off creates two OpenMP tasks
 * and waits for them, the pieces below the cut-off are sorted by an
 * insertion sort (call-free nested loops), and the merges are plain loops.
 * OpenMP only: no MPI (BOTS programs have none), run without mpirun.  It
 * stresses task creation and execution (N / CUTOFF leaf tasks, ~2N / CUTOFF
 * in all) and recursion.  The program counts the tasks it creates itself.
 *
 * Output: "kernel tasks SECONDS" (the sort), "tasks tasks T" (tasks
 * created, exactly 2 * (leaves - 1) for a power-of-two N) and "checksum
 * tasks H" (a hash of the sorted array; identical plain and
 * instrumented).  Exits 1 if the array is not sorted.
 * usage: tasks [N]   (default 2^23 elements)
 */
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>

#define CUTOFF 64

static long tasks_created;

/* insertion_sort - a[0..n) in place. */
static void insertion_sort(int *a, long n)
{
    for (long i = 1; i < n; i++) {
        int v = a[i];
        long j = i;
        while (j > 0 && a[j - 1] > v) {
            a[j] = a[j - 1];
            j--;
        }
        a[j] = v;
    }
}

/* merge - the sorted runs a[0..m) and a[m..n) into out[0..n). */
static void merge(const int *a, long m, long n, int *out)
{
    long i = 0, j = m, k = 0;
    while (i < m && j < n)
        out[k++] = a[i] <= a[j] ? a[i++] : a[j++];
    while (i < m)
        out[k++] = a[i++];
    while (j < n)
        out[k++] = a[j++];
}

/* sort - a[0..n) sorted, tmp[0..n) scratch; the halves as two tasks. */
static void sort(int *a, int *tmp, long n)
{
    if (n <= CUTOFF) {
        insertion_sort(a, n);
        return;
    }
    long m = n / 2;
#pragma omp atomic
    tasks_created += 2;
#pragma omp task
    sort(a, tmp, m);
#pragma omp task
    sort(a + m, tmp + m, n - m);
#pragma omp taskwait
    merge(a, m, n, tmp);
    for (long i = 0; i < n; i++)
        a[i] = tmp[i];
}

int main(int argc, char **argv)
{
    long n = argc > 1 ? atol(argv[1]) : 1L << 23;
    int *a = malloc((size_t)n * sizeof *a), *tmp = malloc((size_t)n * sizeof *tmp);
    if (!a || !tmp)
        return 1;
    unsigned long s = 42;
    for (long i = 0; i < n; i++) {
        s = s * 6364136223846793005ul + 1442695040888963407ul;
        a[i] = (int)(s >> 33);
    }
    double t0 = omp_get_wtime();
#pragma omp parallel
#pragma omp single
    sort(a, tmp, n);
    double t = omp_get_wtime() - t0;
    unsigned long h = 0;
    for (long i = 0; i < n; i++) {
        if (i > 0 && a[i - 1] > a[i]) {
            fprintf(stderr, "tasks: not sorted at %ld\n", i);
            return 1;
        }
        h = h * 1099511628211ul ^ (unsigned long)a[i];
    }
    printf("kernel tasks %.6f\n", t);
    printf("tasks tasks %ld\n", tasks_created);
    printf("checksum tasks %lu\n", h);
    free(a);
    free(tmp);
    return 0;
}
