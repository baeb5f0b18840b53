/*
 * truth.h - the OpenMP test programs' own measurement of what they know,
 * for the test scripts to compare hprof's records with: time a thread
 * spends inside a hold, time from just before a construct that can wait
 * (critical, ordered, omp_set_lock) to its first statement inside, time of
 * its work.  Scheduling on a loaded machine moves these times; both hprof
 * and the program see the same moves, so a comparison with this truth
 * needs no tolerance for load.
 *
 * The one move the program cannot see by its clock alone is its thread
 * being preempted between its clock read and hprof's probe (a runtime
 * callback inside the construct); truth_runq_ms() shows it that move, the
 * time the thread has waited for a CPU (Linux's schedstat).  A program
 * that brackets such gaps with it passes that time to
 * truth_add_delayed(), and the scripts widen the comparison by it on the
 * side where preemption can move hprof's time.
 *
 * Each thread adds to its own slot (its omp_get_thread_num() in the
 * outermost team); truth_write() appends one line per rank, thread and
 * quantity to the file named by $HPROF_TEST_TRUTH (nothing when unset):
 *     RANK THREAD NAME MS COUNT DELAY_MS
 * (DELAY_MS: the thread's time waiting for a CPU in the watched gaps, 0
 * when the program did not watch.)
 * Never stdout: the scripts compare stdout with and without hprof.
 * Header-only (static functions): each test program is one source file.
 */
#ifndef TRUTH_H
#define TRUTH_H

#include <assert.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#define TRUTH_THREADS 64
#define TRUTH_QUANTITIES 8

static double truth_sum[TRUTH_QUANTITIES][TRUTH_THREADS];
static long truth_count[TRUTH_QUANTITIES][TRUTH_THREADS];
static double truth_delay[TRUTH_QUANTITIES][TRUTH_THREADS];

/* Not inlined: an inlined clock read next to a runtime call would give
 * that call's site a line of this file (gcc -O2), not the construct's. */
#define TRUTH_NOINLINE __attribute__((noinline))
/* What only some programs call (no warning in the others). */
#define TRUTH_MAYBE_UNUSED __attribute__((unused))

/* Monotonic time in milliseconds (the clock spin_ms waits on). */
static TRUTH_NOINLINE double truth_now(void)
{
    struct timespec a;
    clock_gettime(CLOCK_MONOTONIC, &a);
    return (double)a.tv_sec * 1e3 + (double)a.tv_nsec / 1e6;
}

/* Adds one event of `ms` to quantity q of thread `thread`. */
static TRUTH_NOINLINE void truth_add(int q, int thread, double ms)
{
    assert(q >= 0 && q < TRUTH_QUANTITIES);
    if (thread < 0 || thread >= TRUTH_THREADS)
        return;
    truth_sum[q][thread] += ms;
    truth_count[q][thread]++;
}

/* The calling thread's time waiting for a CPU so far (ms): the second
 * field of /proc/thread-self/schedstat, in ns; 0 where it cannot be read
 * (the comparison is then as tight as without load). */
static TRUTH_NOINLINE TRUTH_MAYBE_UNUSED double truth_runq_ms(void)
{
    unsigned long long run = 0, wait = 0;
    FILE *f = fopen("/proc/thread-self/schedstat", "r");
    if (!f)
        return 0;
    if (fscanf(f, "%llu %llu", &run, &wait) != 2)
        wait = 0;
    fclose(f);
    return (double)wait / 1e6;
}

/* truth_add, for an event whose gaps between the program's clock reads
 * and hprof's probes include `delay_ms` of waiting for a CPU. */
static TRUTH_NOINLINE TRUTH_MAYBE_UNUSED void truth_add_delayed(int q, int thread, double ms, double delay_ms)
{
    truth_add(q, thread, ms);
    if (thread >= 0 && thread < TRUTH_THREADS)
        truth_delay[q][thread] += delay_ms;
}

/* Appends the nonzero slots of the nq quantities named by names[] to
 * $HPROF_TEST_TRUTH in one write (ranks append to the same file). */
static void truth_write(int rank, const char *const *names, int nq)
{
    const char *path = getenv("HPROF_TEST_TRUTH");
    static char buf[TRUTH_QUANTITIES * TRUTH_THREADS * 64];
    size_t len = 0;
    assert(nq <= TRUTH_QUANTITIES);
    if (!path || !*path)
        return;
    for (int q = 0; q < nq; q++)
        for (int t = 0; t < TRUTH_THREADS; t++)
            if (truth_count[q][t] && len < sizeof buf)
                len += (size_t)snprintf(buf + len, sizeof buf - len, "%d %d %s %.3f %ld %.3f\n", rank, t,
                                        names[q], truth_sum[q][t], truth_count[q][t],
                                        truth_delay[q][t]);
    if (len > sizeof buf)
        len = sizeof buf;
    int fd = open(path, O_WRONLY | O_CREAT | O_APPEND, 0644);
    if (fd < 0)
        return;
    if (write(fd, buf, len) != (ssize_t)len)
        perror("truth_write");
    close(fd);
}

#endif
