/* m_omp.c - OpenMP: parallel regions with default(none), parallel for
 * with reduction and collapse clauses, pragmas made by _Pragma in macros,
 * pragmas whose clauses contain macros, pragmas under #ifdef _OPENMP. */
#include <stdio.h>
#ifdef _OPENMP
#include <omp.h>
#endif

#define N 64
#define NT 2
#define DEPTH 2
#define OMP(x) _Pragma(#x)
#define PARALLEL_FOR_SUM(s) _Pragma("omp parallel for reduction(+:s)")

static double w(int i) { return i * 0.5; }

static double dot(const double *a, const double *b, int n)
{
    double s = 0;
    int i;
#pragma omp parallel for default(none) shared(a, b, n) reduction(+:s) num_threads(NT)
    for (i = 0; i < n; i++)
        s += a[i] * b[i] + w(i);
    return s;
}

static long grid(void)
{
    long t = 0;
    int i, j;
#pragma omp parallel for collapse(DEPTH) reduction(+:t)
    for (i = 0; i < 8; i++)
        for (j = 0; j < 8; j++)
            t += i * j;
#pragma omp parallel for \
        collapse(2) \
        reduction(+:t)
    for (i = 0; i < 4; i++)
        for (j = 0; j < 4; j++) {
            t += (long)w(i + j);
        }
    return t;
}

int main(void)
{
    double a[N], b[N], s = 0;
    long cnt = 0;
    int i;
    for (i = 0; i < N; i++) {
        a[i] = i;
        b[i] = 2;
    }
#pragma omp parallel default(none) shared(a, b, cnt)
    {
        int k;
        double loc = 0;
#pragma omp for
        for (k = 0; k < N; k++)
            loc += w(k) + a[k] * b[k];
#pragma omp atomic
        cnt += (long)loc + (long)w(0);
#pragma omp critical
        {
            cnt += 0;
        }
    }
    OMP(omp parallel for reduction(+:s) num_threads(NT))
    for (i = 0; i < N; i++)
        s += w(i);
    PARALLEL_FOR_SUM(s)
    for (i = 0; i < N; i++)
        s += 1;
#ifdef _OPENMP
#pragma omp parallel for reduction(+:s)
#endif
    for (i = 0; i < N; i++)
        s += w(i);
    printf("%.1f %ld %.1f %ld\n", dot(a, b, N), grid(), s, cnt);
    return 0;
}
