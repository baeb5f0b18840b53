/*
 * omp_nests.c - constructs whose pragma is directly followed by another
 * directive (tests/instrument/nests.sh): a parallel region whose whole
 * body is one construct written on the next line (single, single nowait,
 * master, for, sections, critical, task), the BOTS fib idiom where an
 * #if/#else/#endif chooses the statement of parallel + single, an omp for
 * whose loop header is chosen by #if defined(_OPENMP) (NPB LU's jacu), and
 * a nested pragma guarded by #ifdef _OPENMP.  Every body counts what it
 * runs, so the program knows how often each construct ran on how many
 * threads; it prints those counts (and its results) as "COUNT tag n".
 */
#include <omp.h>
#include <stdio.h>

#define REPS 20
#define N 64

static long ran_single, ran_nowait, ran_master, ran_crit, ran_task, ran_fib, ran_guard, reps;
static long fib_sum;
static long team_for, team_sections, team_cond, sec_a, sec_b;
static double a[N];

static long fib(int n)
{
    return n < 2 ? n : fib(n - 1) + fib(n - 2);
}

/* fib(n), counting the calls of it in ran_fib. */
static long counted_fib(int n)
{
    ran_fib++;
    return fib(n);
}

/* One thread per team adds the team's size to *sum (the team that ran
 * the construct, as the program sees it). */
static void add_team(long *sum)
{
#pragma omp atomic
    *sum += omp_get_num_threads();
}

static void nests(int rep)
{
    long res = 0;
    int i;

#pragma omp parallel /* MARK:n-par-single */
#pragma omp single /* MARK:n-single */
    ran_single++;

#pragma omp parallel /* MARK:n-par-nowait */
#pragma omp single nowait /* MARK:n-nowait */
    ran_nowait++;

#pragma omp parallel /* MARK:n-par-master */
#pragma omp master /* MARK:n-master */
    ran_master++;

#pragma omp parallel /* MARK:n-par-for */
#pragma omp for schedule(static) /* MARK:n-for */
    for (i = 0; i < N; i++) {
        a[i] += i;
        if (i == 0)
            add_team(&team_for);
    }

#pragma omp parallel /* MARK:n-par-sections */
#pragma omp sections /* MARK:n-sections */
    {
#pragma omp section
        {
            sec_a++;
            add_team(&team_sections);
        }
#pragma omp section
        sec_b++;
    }

#pragma omp parallel /* MARK:n-par-critical */
#pragma omp critical /* MARK:n-critical */
    ran_crit++;

#pragma omp parallel /* MARK:n-par-task */
#pragma omp task /* MARK:n-task */
    {
#pragma omp atomic
        ran_task++;
    }

#pragma omp parallel /* MARK:n-par-fib */
#pragma omp single /* MARK:n-fib */
#if defined(MANUAL_CUTOFF) || defined(IF_CUTOFF)
    res = counted_fib(10 + rep % 2) + 1000000;
#else
    res = counted_fib(10 + rep % 2);
#endif
    fib_sum += res;

#pragma omp parallel /* MARK:n-par-cond */
    {
#pragma omp for nowait schedule(static) /* MARK:n-cond */
#if defined(_OPENMP)
        for (i = N - 1; i >= 0; i--) {
#else
        for (i = 0; i < N; i++) {
#endif
            a[i] *= 0.5;
            if (i == N - 1)
                add_team(&team_cond);
        }
    }

#pragma omp parallel /* MARK:n-par-guard */
#ifdef _OPENMP
#pragma omp single /* MARK:n-guard */
#endif
    ran_guard++;
}

int main(void)
{
    int r;

    for (r = 0; r < REPS; r++, reps++)
        nests(r);
    printf("COUNT single %ld\nCOUNT nowait %ld\nCOUNT master %ld\nCOUNT critical %ld\n", ran_single,
           ran_nowait, ran_master, ran_crit);
    printf("COUNT task %ld\nCOUNT guard %ld\nCOUNT team_for %ld\nCOUNT team_sections %ld\n", ran_task,
           ran_guard, team_for, team_sections);
    printf("COUNT team_cond %ld\nCOUNT sec_a %ld\nCOUNT sec_b %ld\nCOUNT fib %ld\nCOUNT reps %ld\n",
           team_cond, sec_a, sec_b, ran_fib, reps);
    printf("fib sum %ld a[5] %g\n", fib_sum, a[5]);
    return 0;
}
