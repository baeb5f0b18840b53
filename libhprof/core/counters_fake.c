/*
 * counters_fake.c - the counter back end for tests (HPROF_COUNTERS_FAKE=1):
 * no hardware, exact values.  Event k of a thread reads (k + 1) * r at the
 * thread's r-th read, so every interval between two reads of a thread adds
 * exactly k + 1 to event k, and a node's expected value follows from how
 * many reads its activations enclose (hp_counters.h).  Every name counts
 * but those beginning with "UNAVAILABLE", which stand for an event this
 * machine lacks.
 */
#include <stdlib.h>
#include <string.h>
#include "hp_counters.h"

static int fake_start(int multiplex, char *why, size_t len)
{
    (void)multiplex;
    (void)why;
    (void)len;
    return 0;
}

static int fake_usable(const char *const *events, uint32_t n)
{
    for (uint32_t k = 0; k < n; k++)
        if (strncmp(events[k], "UNAVAILABLE", 11) == 0)
            return 0;
    return 1;
}

static int fake_open(const char *const *events, uint32_t n, long *handle)
{
    (void)events;
    (void)n;
    uint64_t *reads = calloc(1, sizeof *reads);
    if (!reads)
        return -1;
    *handle = (long)(uintptr_t)reads;
    return 0;
}

static void fake_read(long handle, uint64_t *values, uint32_t n)
{
    uint64_t *reads = (uint64_t *)(uintptr_t)handle;
    uint64_t r = ++*reads;
    for (uint32_t k = 0; k < n; k++)
        values[k] = (k + 1) * r;
}

static void fake_close(long handle)
{
    free((void *)(uintptr_t)handle);
}

const hp_counter_backend hp_counters_fake = {
    "fake", fake_start, fake_usable, fake_open, fake_read, fake_close,
};
