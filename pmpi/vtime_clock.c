/*
 * vtime_clock.c - virtual time's clock (hp_vtime_int.h, DESIGN.md
 * "Virtual time"): the real time since MPI_Init less the time the MPI
 * thread waited for a core, less the calibrated cost of the monitoring
 * events it took, plus what receives set it forward to; and the waits
 * the receives it controls record.
 */
#include <stdint.h>
#include <time.h>
#include <fcntl.h>
#include <unistd.h>
#include "hp_mpi.h"
#include "hp_calibrate.h"
#include "hp_vtime_int.h"

double hp_vt_ns_per_tick;
static int64_t origin;                  /* base_ns() at MPI_Init's barrier */
static uint64_t charged0;
static int64_t adjust;                  /* ns added to the clock by receives */
static hp_charge_cache charge_cache;

/* The calling thread's charged monitoring cost, ticks.  Summing it walks
 * every node of the thread (hp_calibrated_charge): it is summed again
 * only once CHARGE_SPAN times as long as the last walk took has passed,
 * and at least CHARGE_MIN_NS, so the walks cost at most 1/CHARGE_SPAN of
 * the run however many nodes there are; meanwhile the clock may run
 * ahead by the cost of the events taken since the last walk (its rises
 * stay lower bounds: hp_vt_clock_ns never goes back). */
#define CHARGE_SPAN 32
#define CHARGE_MIN_NS 20000
static uint64_t charged_ticks(void)
{
    static uint64_t charge, walked_at, next_after;
    uint64_t now = hp_ticks();
    if (walked_at && now - walked_at < next_after)
        return charge;
    charge = hp_calibrated_charge(&charge_cache);
    uint64_t took = hp_ticks() - now, least = (uint64_t)(CHARGE_MIN_NS / hp_vt_ns_per_tick);
    walked_at = now;
    next_after = took * CHARGE_SPAN > least ? took * CHARGE_SPAN : least;
    return charge;
}

/* A fresh sum, now (the clock's origin, a receive's decision). */
static uint64_t charged_ticks_now(void)
{
    return hp_calibrated_charge(&charge_cache);
}

/* CPU time of the calling thread, ns. */
static int64_t cpu_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/* The base of the clock leaves out the time the MPI thread waited for a
 * core (runnable, not running: the second field of Linux's
 * /proc/thread-self/schedstat), so that a loaded or oversubscribed node
 * does not count, while sleeps, I/O and waits do; the thread's CPU time
 * where that file cannot be read (DESIGN.md). */
static int schedstat_fd = -1;

/* The unsigned decimal number at *p, moving *p past it; -1 if none. */
static int parse_field(const char **p, unsigned long long *v)
{
    const char *c = *p;
    while (*c == ' ')
        c++;
    if (*c < '0' || *c > '9')
        return -1;
    for (*v = 0; *c >= '0' && *c <= '9'; c++)
        *v = *v * 10 + (unsigned long long)(*c - '0');
    *p = c;
    return 0;
}

/* The thread's time waiting for a core so far, ns; 0 when read.  Parsed
 * by hand: sscanf cost 2,600 instructions a read (callgrind). */
static int read_waited(unsigned long long *waited)
{
    char b[128];
    unsigned long long run;
    ssize_t n = pread(schedstat_fd, b, sizeof b - 1, 0);
    if (n <= 0)
        return -1;
    b[n] = 0;
    const char *p = b;
    return parse_field(&p, &run) == 0 && parse_field(&p, waited) == 0 ? 0 : -1;
}

/* The file is read at most every VT_WAITED_NS of real time (a system
 * call, 1-2 us: three a message made the mode cost 5.6 us a message);
 * the clock may then lag by that much of a wait for a core. */
#define VT_WAITED_NS 200000

static int64_t base_ns(void)
{
    static unsigned long long waited;
    static uint64_t read_at;
    uint64_t now = hp_monotonic_ns();
    if (schedstat_fd < 0)
        return cpu_ns();
    if (now - read_at >= VT_WAITED_NS && read_waited(&waited) == 0)
        read_at = now;
    return (int64_t)now - (int64_t)waited;
}

void hp_vt_clock_init(void)
{
    unsigned long long waited;
    hp_vt_ns_per_tick = 1e9 / hp_clock_ticks_per_sec();
    schedstat_fd = open("/proc/thread-self/schedstat", O_RDONLY | O_CLOEXEC);
    if (schedstat_fd >= 0 && read_waited(&waited) != 0) {   /* unreadable: CPU time throughout */
        close(schedstat_fd);
        schedstat_fd = -1;
    }
    origin = base_ns();
    charged0 = charged_ticks_now();
}

/* Virtual time now, as computed. */
static int64_t raw_clock_ns(void)
{
    int64_t charged = (int64_t)((double)(charged_ticks() - charged0) * hp_vt_ns_per_tick);
    return base_ns() - origin - charged + adjust;
}

int64_t hp_vt_clock_ns(void)
{
    static int64_t last = INT64_MIN;
    int64_t v = raw_clock_ns();
    if (v < last)
        v = last;
    last = v;
    return v;
}

void hp_vt_clock_exclude(int64_t ns)
{
    adjust -= ns;
}

/* The last controlled receive's virtual wait, ns; -1: none to record. */
static int64_t last_wait_ns = -1;

void hp_vt_clock_forget_wait(void)
{
    last_wait_ns = -1;
}

/* Never below what this process promised others: hp_vt_clock_ns keeps
 * the clock from going back. */
void hp_vt_clock_received(int64_t entry_vt, int64_t send_vt)
{
    int64_t target = entry_vt > send_vt ? entry_vt : send_vt;
    last_wait_ns = send_vt == INT64_MIN ? -1 : target - entry_vt;
    adjust += target - raw_clock_ns();
}

/* The real waits recorded as virtual ones have been this much longer
 * (ticks): a later virtual wait longer than its real one may use it, so
 * that the times recorded never sum to more than the real ones. */
static double wait_bank;

uint64_t hp_vt_wait_ticks(uint64_t real)
{
    if (last_wait_ns < 0)
        return real;
    double ticks = (double)last_wait_ns / hp_vt_ns_per_tick;
    last_wait_ns = -1;
    if (ticks > (double)real + wait_bank)
        ticks = (double)real + wait_bank;
    wait_bank += (double)real - ticks;
    return (uint64_t)ticks;
}

double hp_vt_seconds_since(uint64_t ticks0)
{
    return (double)(hp_ticks() - ticks0) * hp_vt_ns_per_tick * 1e-9;
}
