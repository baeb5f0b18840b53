/*
 * lines.c - ground truth for tests/lines/run.sh: one OpenMP construct of
 * each kind, each on the line marked "MARK:tag", so that every site hprof
 * records can be checked against its pragma's line and the user function
 * that contains it, whatever the optimisation level.  No MPI.
 *
 * Ground truth (2 threads; counts summed over the threads; every site
 * named after work() or tail(), never main, an outlined function or the
 * runtime):
 *  - work(), REPS times: the parallel region at MARK:par (a region node,
 *    its implicit barrier per thread; fork and join once); a dynamic loop
 *    at MARK:for (its end barrier there per thread); an explicit barrier
 *    at MARK:barrier per thread; a single at MARK:single, executed once,
 *    whose thread creates NTASKS tasks at MARK:task (each created and run
 *    once) and waits once at MARK:taskwait, then in a taskgroup at
 *    MARK:taskgroup creates one task at MARK:gtask and waits for it once
 *    (a "taskwait" at the taskgroup, not at its end); a critical at
 *    MARK:critical per thread (wait and hold); an ordered loop at
 *    MARK:ford (its end barrier per thread) whose ordered block at
 *    MARK:ordered runs N times in all (wait and hold).  The single's end
 *    barrier: an "implicit barrier" at MARK:single per thread (gcc calls
 *    GOMP_barrier for it, at the line before the single or one of its
 *    block).
 *    OMPT also has a "loop" per thread at MARK:for and MARK:ford.
 *  - orphan(), called in work()'s region after the barrier and as the
 *    last act of tail()'s region (-O2: the outlined function jumps to
 *    orphan(), which jumps into the runtime): its barrier at MARK:orphan,
 *    its last act, per thread, 2 x REPS times, in orphan().
 *  - tail(): its parallel region at MARK:tailpar is its last act (no
 *    captured variable: -O2 ends it in a jump into the runtime); called
 *    from main at MARK:tailcall REPS times: region and implicit barrier per
 *    thread, fork and join once, all at MARK:tailpar in tail().
 *  - twice() and thrice(), inlined into pick() (clang -O2 merges their
 *    fork calls into one, at line 0): REPS times pick(rep & 1), so the
 *    region at MARK:inl1 once (in twice()), at MARK:inl2 REPS - 1 times
 *    (in thrice()): a region node and implicit barrier per thread, fork
 *    and join once, each time; OMPT a "loop" per thread there too.
 * stdout: one line, the sums, the same with and without hprof.
 */
#include <stdio.h>
#include <time.h>

#define REPS 3
#define NTASKS 4
#define N 8

static volatile long sink;

/* Defined above work() and inlined into its region from -O1 on: its lines
 * are in the region's code but are not the region's (gcc's ranges of the
 * inlined copy miss the loop's condition). */
static void pause_us(double us)
{
    struct timespec a, b;
    clock_gettime(CLOCK_MONOTONIC, &a);
    do
        clock_gettime(CLOCK_MONOTONIC, &b);
    while ((double)(b.tv_sec - a.tv_sec) * 1e6 + (double)(b.tv_nsec - a.tv_nsec) / 1e3 < us);
}

/* An orphaned barrier that ends its function: -O2 makes it a jump into
 * the runtime, so the return address lies in work()'s region. */
__attribute__((noinline)) static void orphan(int rep)
{
    sink += rep;
#pragma omp barrier /* MARK:orphan */
}

__attribute__((noinline)) static long work(int rep)
{
    long sum = 0;
#pragma omp parallel reduction(+ : sum) /* MARK:par */
    {
        pause_us(10);
#pragma omp for schedule(dynamic) /* MARK:for */
        for (int i = 0; i < N; i++)
            sum += i * rep;
#pragma omp barrier /* MARK:barrier */
        orphan(rep);
        sum += 5;
#pragma omp single /* MARK:single */
        {
            for (int k = 0; k < NTASKS; k++) {
#pragma omp task /* MARK:task */
                sink += k;
            }
#pragma omp taskwait /* MARK:taskwait */
            sum += 1;
#pragma omp taskgroup /* MARK:taskgroup */
            {
#pragma omp task /* MARK:gtask */
                sink += 1;
            }
        }
#pragma omp critical /* MARK:critical */
        sum += 2;
#pragma omp for ordered schedule(dynamic) /* MARK:ford */
        for (int i = 0; i < N; i++) {
#pragma omp ordered /* MARK:ordered */
            sum += i;
        }
    }
    return sum;
}

static long total;
static int tail_rep;

/* No captured variable: the runtime call is this function's last act. */
__attribute__((noinline)) void tail(void)
{
#pragma omp parallel /* MARK:tailpar */
    {
#pragma omp atomic
        total += tail_rep;
        orphan(tail_rep);
    }
}

/* Two regions in functions inlined into pick(): at -O2 clang merges their
 * fork calls into one call at line 0, the tail call of pick(). */
static double xs[64];

static inline void twice(void)
{
#pragma omp parallel for /* MARK:inl1 */
    for (int i = 0; i < 64; i++)
        xs[i] += 2;
}

static inline void thrice(void)
{
#pragma omp parallel for /* MARK:inl2 */
    for (int i = 0; i < 64; i++)
        xs[i] *= 3;
}

__attribute__((noinline)) void pick(int k)
{
    if (k)
        twice();
    else
        thrice();
}

int main(void)
{
    long sum = 0;
    for (int rep = 0; rep < REPS; rep++) {
        sum += work(rep);
        tail_rep = rep;
        tail(); /* MARK:tailcall */
        pick(rep & 1);
    }
    printf("sum %ld xs %g\n", sum + total * 0 + sink * 0, xs[5]);
    return 0;
}
