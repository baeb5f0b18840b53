/*
 * process.c - the process-level parts of a profile (hp_process.h): the
 * command line captured at start-up, host, pid, times, the file writer; and the
 * exit handler that runs the end-of-run pipeline (hp_finish.h) for
 * programs that never call MPI_Init: tiers 1 and 2 also profile serial
 * and OpenMP-only code.
 */
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include "hp_clock.h"
#include "hp_config.h"
#include "hp_crash.h"
#include "hp_finish.h"
#include "hp_log.h"
#include "hp_process.h"
#include "hp_thread.h"

static int mpi_started, mpi_finished, no_report;
static uint64_t start_ns, start_ticks;

/* The command line as the process started, before the program could
 * rewrite its argv or environ (a process title): read at start-up. */
static char start_cmdline[8192];
static ssize_t start_cmdline_len;

static void capture_command_line(void)
{
    int fd = open("/proc/self/cmdline", O_RDONLY);
    ssize_t n = fd >= 0 ? read(fd, start_cmdline, sizeof start_cmdline - 1) : -1;
    if (fd >= 0)
        close(fd);
    start_cmdline_len = n > 0 ? n : 0;
    start_cmdline[start_cmdline_len] = 0;
}

void hp_process_command_line(hp_run_info *r)
{
    const char *buf = start_cmdline;
    ssize_t n = start_cmdline_len;
    if (n <= 0) {
        r->program = strdup("?");
        return;
    }
    for (ssize_t i = 0; i < n; i += (ssize_t)strlen(buf + i) + 1)
        r->argc++;
    r->argv = calloc(r->argc, sizeof *r->argv);
    uint32_t k = 0;
    for (ssize_t i = 0; i < n && r->argv; i += (ssize_t)strlen(buf + i) + 1)
        r->argv[k++] = strdup(buf + i);
    if (!r->argv)
        r->argc = 0;
    r->program = strdup(buf);
}

/* The OpenMP team size, when the program has an OpenMP runtime loaded
 * (found without linking one into libhprof). */
static uint32_t openmp_threads(void)
{
    int (*max_threads)(void);
    *(void **)&max_threads = dlsym(RTLD_DEFAULT, "omp_get_max_threads");
    return max_threads ? (uint32_t)max_threads() : 0;
}

void hp_process_rank_info(hp_rank_info *ri, uint32_t rank, uint64_t start_ns_,
                          uint64_t start_ticks_, uint64_t end_ticks)
{
    char host[256] = "";
    gethostname(host, sizeof host - 1);
    ri->rank = rank;
    ri->pid = (uint32_t)getpid();
    ri->omp_threads = openmp_threads();
    ri->host = strdup(host);
    ri->start_ns = start_ns_;
    ri->end_ns = hp_unix_ns();
    ri->wall = hp_ticks_to_sec(end_ticks - start_ticks_);
}

void hp_process_no_exit_report(void)
{
    no_report = 1;
}

void hp_process_mpi_started(void)
{
    mpi_started = 1;
}

void hp_process_mpi_finished(void)
{
    mpi_finished = 1;
}

int hp_process_write_file(const char *path, const hp_buf *b)
{
    char tmp[PATH_MAX + 16];
    snprintf(tmp, sizeof tmp, "%s.partial", path);
    int fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL, 0644);
    if (fd < 0)
        return -1;
    size_t done = 0;
    while (done < b->len) {
        ssize_t n = write(fd, b->data + done, b->len - done);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0) {
            if (n == 0)
                errno = ENOSPC;
            break;
        }
        done += (size_t)n;
    }
    int saved = errno;
    int ok = done == b->len;
    if (close(fd) != 0 && ok) {
        ok = 0;
        saved = errno;
    }
    if (ok && rename(tmp, path) != 0) {
        ok = 0;
        saved = errno;
    }
    if (!ok) {
        unlink(tmp);
        errno = saved;
    }
    return ok ? 0 : -1;
}

/* Did anything record an event (beyond each thread's root and overflow)? */
static int anything_recorded(void)
{
    for (uint32_t i = 0; i < hp_thread_count(); i++) {
        const hp_thread *t = hp_thread_get(i);
        for (uint32_t n = 0; n < t->nnodes; n++)
            if (hp_node_at(t, n)->count || t->nactive)
                return 1;
    }
    return 0;
}

static void at_exit(void)
{
    if (mpi_started) {
        if (!mpi_finished)
            hp_crash_write_unfinalized();
        return;
    }
    if (!no_report && anything_recorded() && hp_crash_claim()) {
        hp_finish_serial();
        hp_crash_release(1);
    }
}

void hp_process_start(uint64_t *ns, uint64_t *ticks)
{
    *ns = start_ns;
    *ticks = start_ticks;
}

void hp_process_at_exit(void)
{
    capture_command_line();
    start_ns = hp_unix_ns();
    start_ticks = hp_ticks();
    atexit(at_exit);
    hp_crash_set_writer(hp_finish_serial_dying);
    hp_crash_arm();
}
