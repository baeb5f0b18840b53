/*
 * phases.c - hprof-merge's phase times on stderr (phases.h).
 */
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>
#include "phases.h"

static double clock_s(clockid_t id)
{
    struct timespec ts;
    clock_gettime(id, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* Resident memory now, in MB (second field of /proc/self/statm). */
static double resident_mb(void)
{
    long pages = 0, resident = 0;
    FILE *f = fopen("/proc/self/statm", "r");
    if (f) {
        if (fscanf(f, "%ld %ld", &pages, &resident) != 2)
            resident = 0;
        fclose(f);
    }
    return (double)resident * (double)sysconf(_SC_PAGESIZE) / 1048576.0;
}

void hpf_phase_mark(const char *name)
{
    static int enabled = -1;
    static double wall0, cpu0;
    if (enabled < 0)
        enabled = getenv("HPROF_MERGE_PHASES") != NULL;
    if (!enabled)
        return;
    double wall = clock_s(CLOCK_MONOTONIC), cpu = clock_s(CLOCK_PROCESS_CPUTIME_ID);
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    if (wall0 > 0)
        fprintf(stderr, "hprof-merge: phase %-16s %7.3f s %7.3f s CPU  rss %6.0f MB  peak %6.0f MB\n",
                name, wall - wall0, cpu - cpu0, resident_mb(), (double)ru.ru_maxrss / 1024.0);
    wall0 = wall;
    cpu0 = cpu;
}
