/*
 * clock.c - detection and calibration of the invariant TSC against
 * CLOCK_MONOTONIC, with a fallback to clock_gettime.
 */
#include <stdint.h>
#include <time.h>
#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#endif
#include "hp_clock.h"
#include "hp_format.h"

int hp_clock_use_tsc;
static double ticks_per_sec = 1e9;
static uint64_t base_ticks, base_ns;

int hp_cpu_has_invariant_tsc(void)
{
#if defined(__x86_64__) || defined(__i386__)
    unsigned a, b, c, d;
    if (!__get_cpuid(0x80000000u, &a, &b, &c, &d) || a < 0x80000007u)
        return 0;
    __get_cpuid(0x80000007u, &a, &b, &c, &d);
    return (d >> 8) & 1;
#else
    return 0;
#endif
}

/* Waits us microseconds of CLOCK_MONOTONIC, spinning (a sleep would
 * cost a scheduler round trip, often more than the wait itself). */
static void spin_us(unsigned us)
{
    uint64_t end = hp_monotonic_ns() + (uint64_t)us * 1000u;
    while (hp_monotonic_ns() < end)
        ;
}

/* A simultaneous reading of both clocks: the TSC read on both sides of
 * clock_gettime, the narrowest of a few tries (a preemption in between
 * would skew the rate), the TSC taken in the middle. */
static void paired_reading(uint64_t *ticks, uint64_t *ns)
{
    uint64_t best = UINT64_MAX;
    for (int i = 0; i < 8; i++) {
        uint64_t a = hp_ticks();
        uint64_t n = hp_monotonic_ns();
        uint64_t b = hp_ticks();
        if (b - a < best) {
            best = b - a;
            *ticks = a + (b - a) / 2;
            *ns = n;
        }
    }
}

void hp_clock_init(int force_monotonic, unsigned calib_us)
{
    hp_clock_use_tsc = !force_monotonic && hp_cpu_has_invariant_tsc();
    if (!hp_clock_use_tsc) {
        ticks_per_sec = 1e9;
        return;
    }
    paired_reading(&base_ticks, &base_ns);
    spin_us(calib_us ? calib_us : 1);
    uint64_t ns, t;
    paired_reading(&t, &ns);
    ticks_per_sec = (double)(t - base_ticks) * 1e9 / (double)(ns - base_ns);
}

void hp_clock_refine(void)
{
    if (!hp_clock_use_tsc)
        return;
    uint64_t ns, t;
    paired_reading(&t, &ns);
    /* the whole run as the baseline: each paired reading is good to tens
     * of ns, so 1 ms gives the rate to 1e-4 and a long run far better */
    if (ns - base_ns >= 1000000u)
        ticks_per_sec = (double)(t - base_ticks) * 1e9 / (double)(ns - base_ns);
}

int hp_clock_kind(void)
{
    return hp_clock_use_tsc ? HP_CLOCK_TSC : HP_CLOCK_MONOTONIC;
}

double hp_clock_ticks_per_sec(void)
{
    return ticks_per_sec;
}

double hp_ticks_to_sec(uint64_t ticks)
{
    return (double)ticks / ticks_per_sec;
}

uint64_t hp_unix_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}
