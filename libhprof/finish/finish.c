/*
 * finish.c - the end-of-run pipeline (hp_finish.h): take the records,
 * write a profile without MPI, print the summary.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include "hp_clock.h"
#include "hp_config.h"
#include "hp_crash.h"
#include "hp_event.h"
#include "hp_finish.h"
#include "hp_log.h"
#include "hp_process.h"
#include "hp_calibrate.h"
#include "hp_resolve.h"
#include "hp_snapshot.h"
#include "hp_source.h"

int hp_finish_take(hp_rank_data *rd, hp_run_info *run, uint32_t rank, uint32_t nranks)
{
    uint64_t end_ticks = hp_ticks(), start_ns, start_ticks;
    hp_process_start(&start_ns, &start_ticks);
    hp_sources_before_snapshot();
    hp_clock_refine();
    hp_resolve_dynamic_sites();
    hp_callpath_report();
    memset(rd, 0, sizeof *rd);
    if (!run->program)
        hp_process_command_line(run);
    hp_process_rank_info(&rd->info, rank, start_ns, start_ticks, end_ticks);
    int rc = hp_snapshot(rd, start_ticks, end_ticks);
    run->nranks = nranks;
    run->clock = (uint32_t)hp_clock_kind();
    run->ticks_per_sec = hp_clock_ticks_per_sec();
    run->start_ns = start_ns;
    run->end_ns = rd->info.end_ns;
    return rc;
}

void hp_finish_encode_missing_rank(hp_buf *b, uint32_t rank)
{
    char *empty[] = {""};
    hp_rank_data rd;
    memset(&rd, 0, sizeof rd);
    rd.info.rank = rank;
    rd.info.flags = HP_RANKF_MISSING;
    rd.info.host = "";
    rd.nstrings = 1;
    rd.strings = empty;
    hp_encode_rank(b, &rd);
}

int hp_finish_write_local_at(const hp_rank_data *rd, const hp_run_info *run, const char *path)
{
    hp_buf b = {0};
    if (rd->info.rank >= run->nranks) {
        errno = EINVAL;
        return -1;
    }
    hp_encode_preamble(&b);
    hp_encode_run(&b, run);
    for (uint32_t i = 0; i < run->nranks; i++) {
        if (i == rd->info.rank)
            hp_encode_rank(&b, rd);
        else
            hp_finish_encode_missing_rank(&b, i);
    }
    hp_encode_end(&b, run->nranks, b.len);
    int rc = -1;
    if (b.failed)
        errno = ENOMEM;
    else
        rc = hp_process_write_file(path, &b);
    hp_buf_free(&b);
    return rc;
}

int hp_finish_write_local(const hp_rank_data *rd, const hp_run_info *run, const char *tag,
                          char *path, size_t len)
{
    if (hp_process_profile_path(run->program, tag, len - 1, path, len) != 0) {
        path[0] = 0;
        errno = ENOENT;
        return -1;
    }
    return hp_finish_write_local_at(rd, run, path);
}

void hp_finish_print(const hp_agg *agg, const hp_run_info *run, const char *path)
{
    if (hp_cfg.summary == HP_SUMMARY_OFF)
        return;
    hp_summary_info si = {run->program, path, hp_cfg.summary == HP_SUMMARY_FULL, hp_cfg.top,
                          hp_cfg.coll_sync};
    hp_summary_print(stderr, agg, &si);
}

const char *hp_finish_ending(uint32_t flags, const char *who, char *buf, size_t len)
{
    char name[32];
    if (flags & HP_RANKF_SIGNALED)
        snprintf(buf, len, "%s ended %s", hp_rank_ending(flags, name, sizeof name), who);
    else if (flags & HP_RANKF_UNFINALIZED)
        snprintf(buf, len, "%s exited without MPI_Finalize", who);
    else
        snprintf(buf, len, "%s ended", who);
    return buf;
}

/* A process without MPI that ends normally (flags 0: the summary follows)
 * or dies (a signal: one line instead of the summary). */
static void finish_serial(uint32_t flags)
{
    hp_run_info run;
    hp_rank_data rd;
    hp_agg agg;
    char path[PATH_MAX] = "", how[96];

    memset(&run, 0, sizeof run);
    int taken = hp_finish_take(&rd, &run, 0, 1) == 0;
    if (taken && !flags)
        hp_calibrate_hooks(rd.info.cost);
    if (!taken || hp_agg_from_rank(&agg, &rd) != 0) {
        hp_warn("out of memory at exit: no profile written");
        hp_rank_data_free(&rd);
        hp_run_info_free(&run);
        return;
    }
    rd.info.flags |= flags;
    int written = hp_finish_write_local(&rd, &run, NULL, path, sizeof path) == 0;
    if (!written && path[0])
        hp_warn("cannot write profile %s: %s", path,
                errno == ENOMEM ? "out of memory" : strerror(errno));
    if (!flags)
        hp_finish_print(&agg, &run, written ? path : NULL);
    else if (written)
        hp_warn("%s; its records up to then are in %s", hp_finish_ending(flags, "the process", how, sizeof how),
                path);
    hp_agg_free(&agg);
    hp_rank_data_free(&rd);
    hp_run_info_free(&run);
}

void hp_finish_serial(void)
{
    finish_serial(0);
}

void hp_finish_serial_dying(uint32_t flags)
{
    finish_serial(flags);
}
