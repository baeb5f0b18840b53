/*
 * live.c - the live snapshot thread (hp_live.h): every HPROF_LIVE seconds
 * this rank's records, read while the program runs, go to
 * PATH.live/rank<N>.hpf through a temporary name.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <limits.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include "hp_clock.h"
#include "hp_config.h"
#include "hp_finish.h"
#include "hp_live.h"
#include "hp_log.h"
#include "hp_process.h"
#include "hp_resolve.h"
#include "hp_site.h"
#include "hp_snapshot_image.h"

static char live_dir[PATH_MAX], live_file[PATH_MAX + 32];
static uint32_t live_rank, live_nranks;
static uint32_t interval_ms; /* between this rank's snapshots (job_interval_ms) */
static int stop_fd[2] = {-1, -1};
#define STOP_WAIT_S 3

/* The bound at scale: the job's ranks together write at most this many
 * snapshot files per second (a parallel file system's metadata server
 * takes a few thousand creates and renames a second from all jobs), so a
 * rank's interval grows with the rank count: HPROF_LIVE=1 is 1 s up to
 * 100 ranks, 10 s at 1000, 100 s at 10^4 (DESIGN.md). */
#define JOB_FILES_PER_S 100u

static uint32_t job_interval_ms(uint32_t nranks)
{
    uint64_t asked = (uint64_t)hp_cfg.live * 1000u;
    uint64_t bound = (uint64_t)nranks * 1000u / JOB_FILES_PER_S;
    return (uint32_t)(asked > bound ? asked : bound);
}
static pthread_t live_thread;
static int running;
/* the last snapshot, kept for the next: only its changed records cost */
static hp_snapshot_image image;

/* PATH.live from the profile's path PATH.hpf (as the end of run names it). */
static int name_live_dir(uint32_t rank)
{
    hp_run_info run = {0};
    char path[PATH_MAX];
    hp_process_command_line(&run);
    int rc = hp_process_profile_path(run.program, NULL, PATH_MAX - 32, path, sizeof path);
    hp_run_info_free(&run);
    if (rc != 0)
        return -1;
    size_t n = strlen(path);
    if (n > 4 && strcmp(path + n - 4, ".hpf") == 0)
        path[n - 4] = 0;
    snprintf(live_dir, sizeof live_dir, "%s.live", path);
    snprintf(live_file, sizeof live_file, "%s/rank%u.hpf", live_dir, rank);
    return 0;
}

/* Whether a dynamic site (a return address) registered since the last
 * call has no file and line yet.  A site that the resolution left without
 * them is not asked about again: resolving reads /proc/self/maps and every
 * module's symbols, most of a small tree's snapshot. */
static int unresolved_sites(void)
{
    static uint32_t checked; /* sites before it were resolved or tried */
    uint32_t n = hp_site_count();
    for (; checked < n; checked++) {
        const hp_site *s = hp_site_get(checked);
        if ((s->flags & HP_SITEF_DYNAMIC) && !s->module) {
            checked = n;
            return 1;
        }
    }
    return 0;
}

int hp_live_write(void)
{
    hp_run_info run = {0};
    hp_rank_info info = {0};
    uint64_t start_ns, start_ticks;

    /* named as the final profile names them, so that a killed rank's
     * snapshot merges site by site with the other ranks' files */
    if (unresolved_sites())
        hp_resolve_dynamic_sites();
    hp_process_start(&start_ns, &start_ticks);
    hp_process_command_line(&run);
    hp_process_rank_info(&info, live_rank, start_ns, start_ticks, hp_ticks());
    int rc = hp_snapshot_image_take(&image, &info, start_ticks);
    run.nranks = live_nranks;
    run.clock = (uint32_t)hp_clock_kind();
    run.ticks_per_sec = hp_clock_ticks_per_sec();
    run.start_ns = start_ns;
    run.end_ns = image.rd.info.end_ns;
    if (rc == 0)
        rc = hp_snapshot_image_write(&image, &run, live_file);
    else
        errno = ENOMEM;
    hp_run_info_free(&run);
    return rc;
}

/* Waits ms milliseconds or until hp_live_stop; 1 when it is time to stop. */
static int wait_or_stop(int ms)
{
    struct pollfd p = {stop_fd[0], POLLIN, 0};
    uint64_t until = hp_unix_ns() + (uint64_t)ms * 1000000u;
    for (;;) {
        int n = poll(&p, 1, ms);
        if (n != 0)
            return n > 0 || errno != EINTR;
        uint64_t now = hp_unix_ns();
        if (now >= until)
            return 0;
        ms = (int)((until - now) / 1000000u) + 1;
    }
}

static void *live_main(void *unused)
{
    sigset_t all;
    int warned = 0;
    (void)unused;
    sigfillset(&all);
    pthread_sigmask(SIG_BLOCK, &all, NULL); /* signals go to the program's threads */
    /* the ranks' first snapshots spread over one interval, and so all
     * the later ones: the file system sees a steady rate, not bursts */
    int first = (int)((uint64_t)interval_ms * live_rank / (live_nranks ? live_nranks : 1));
    if (wait_or_stop(first))
        return NULL;
    while (!wait_or_stop((int)interval_ms)) {
        if (hp_live_write() != 0 && !warned++)
            hp_warn("HPROF_LIVE: cannot write %s: %s (later snapshots are tried, silently)",
                    live_file, strerror(errno));
    }
    return NULL;
}

void hp_live_start(uint32_t rank, uint32_t nranks)
{
    if (!hp_cfg.live || running || name_live_dir(rank) != 0)
        return;
    live_rank = rank;
    live_nranks = nranks;
    interval_ms = job_interval_ms(nranks);
    if (mkdir(live_dir, 0755) != 0 && errno != EEXIST) {
        hp_warn("HPROF_LIVE: cannot make %s: %s; no live snapshots", live_dir, strerror(errno));
        return;
    }
    if (pipe(stop_fd) != 0)
        return;
    running = pthread_create(&live_thread, NULL, live_main, NULL) == 0;
    if (running) /* its own CPU time in /proc (bench/live.sh) and top -H */
        pthread_setname_np(live_thread, "hprof-live");
}

void hp_live_stop(void)
{
    if (!running)
        return;
    running = 0;
    unsigned char stop = 1;
    while (write(stop_fd[1], &stop, 1) < 0 && errno == EINTR)
        ;
    /* at most a few seconds: a dying process's writer must not wait on a
     * snapshot thread that the fatal signal itself stopped */
    struct timespec until;
    clock_gettime(CLOCK_REALTIME, &until);
    until.tv_sec += STOP_WAIT_S;
    if (pthread_timedjoin_np(live_thread, NULL, &until) != 0)
        return; /* left running: its pipe stays open for it */
    hp_snapshot_image_free(&image); /* its memory back before the profile is taken */
    close(stop_fd[0]);
    close(stop_fd[1]);
    stop_fd[0] = stop_fd[1] = -1;
}

void hp_live_remove(void)
{
    if (!live_file[0])
        return;
    unlink(live_file);
    rmdir(live_dir); /* fails while another rank's snapshot is there */
}
