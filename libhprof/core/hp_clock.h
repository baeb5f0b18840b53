/*
 * hp_clock.h - the time base: invariant TSC ticks when the CPU has one,
 * CLOCK_MONOTONIC nanoseconds otherwise.  hp_ticks() is the only call on
 * the hot path; conversion to seconds happens when records are written.
 */
#ifndef HP_CLOCK_H
#define HP_CLOCK_H

#include <stdint.h>
#include <time.h>

/* set once by hp_clock_init(); hidden: read without the GOT (callgrind) */
extern int hp_clock_use_tsc __attribute__((visibility("hidden")));

static inline uint64_t hp_monotonic_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* Forced inline: it is on every event's hot path, and a unit with many
 * callers (the ~350 generated MPI wrappers) exceeds what gcc inlines. */
static inline __attribute__((always_inline)) uint64_t hp_ticks(void)
{
#if defined(__x86_64__) || defined(__i386__)
    if (hp_clock_use_tsc) {
        uint32_t lo, hi;
        __asm__ __volatile__("rdtsc" : "=a"(lo), "=d"(hi));
        return (uint64_t)hi << 32 | lo;
    }
#endif
    return hp_monotonic_ns();
}

/* Detect the TSC and calibrate it over `calib_us` microseconds (spun):
 * a first rate, for the few conversions made during the run.
 * force_monotonic != 0 skips the TSC (HPROF_CLOCK=monotonic). */
void hp_clock_init(int force_monotonic, unsigned calib_us);
/* Recalibrate over the whole interval since hp_clock_init (called at the
 * end of a run, 1 ms or more after the start: the records are converted
 * with this rate, precise to 1e-4 at 1 ms and better the longer the run). */
void hp_clock_refine(void);
int hp_clock_kind(void);              /* HP_CLOCK_TSC or HP_CLOCK_MONOTONIC */
double hp_clock_ticks_per_sec(void);
double hp_ticks_to_sec(uint64_t ticks);
int hp_cpu_has_invariant_tsc(void);
uint64_t hp_unix_ns(void);

#endif
