/*
 * truth.h - the OpenMP test programs' own measurement of what they know,
 * for the test scripts to compare hprof's records with: time a thread
 * spends inside a hold, time from just before a construct that can wait
 * (critical, ordered, omp_set_lock) to its first statement inside, time of
 * its work.  Scheduling on a loaded machine moves these times; both hprof
 * and the program see the same moves, so a comparison with this truth
 * needs no tolerance for load.
 *
 * Each thread adds to its own slot (its omp_get_thread_num() in the
 * outermost team); truth_write() appends one line per rank, thread and
 * quantity to the file named by $HPROF_TEST_TRUTH (nothing when unset):
 *     RANK THREAD NAME MS COUNT
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

/* Not inlined: an inlined clock read next to a runtime call would give
 * that call's site a line of this file (gcc -O2), not the construct's. */
#define TRUTH_NOINLINE __attribute__((noinline))

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
                len += (size_t)snprintf(buf + len, sizeof buf - len, "%d %d %s %.3f %ld\n", rank,
                                        t, names[q], truth_sum[q][t], truth_count[q][t]);
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
