/*
 * runtime.c - start-up of the runtime (hp_runtime.h), exactly once per
 * process whichever event comes first: the library constructor, a unit
 * registration from another constructor, or MPI_Init.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include "hp_calibrate.h"
#include "hp_clock.h"
#include "hp_config.h"
#include "hp_counters.h"
#include "hp_event.h"
#include "hp_log.h"
#include "hp_process.h"
#include "hp_runtime.h"
#include "hp_source.h"

static pthread_once_t once = PTHREAD_ONCE_INIT;
static hp_filter *filter;

/* A rule file that cannot be read stops the run (exit status 2, before
 * it starts).  Said once per job: by the first rank, and by any rank that
 * may see other files than the first rank does (another host's file
 * system), so the line is never lost when the first rank could read it.
 * The other ranks of the first rank's host leave it to the first rank,
 * which fails alike: they wait (were they to exit first, the launcher
 * could stop the first rank before it printed) until the launcher ends
 * the job, or, should the file have appeared for the first rank
 * meanwhile, 30 s and then say it themselves (hp_config_stop). */
static void load_filter(void)
{
    char err[512], reason[600];
    if (!hp_cfg.filter)
        return;
    filter = hp_filter_load(hp_cfg.filter, err, sizeof err);
    if (!filter) {
        snprintf(reason, sizeof reason, "HPROF_FILTER: %s", err);
        hp_config_stop(reason, hp_config_rank_is_first() || !hp_config_rank_shares_first_host());
    }
}

static void init_once(void)
{
    hp_config_load();
    hp_log_set_verbose(hp_cfg.verbose);
    hp_clock_init(hp_cfg.clock_monotonic, 250);
    hp_calibrate(); /* before throttling is set: its batches stay timed */
    /* after the calibration: its scratch threads open no event sets */
    hp_counters_setup(hp_cfg.counters, hp_cfg.counters_fake, hp_cfg.counters_multiplex,
                      hp_config_rank_is_first());
    hp_records_set_max_nodes(hp_cfg.max_nodes);
    hp_throttle_set(hp_cfg.throttle_calls,
                    (uint64_t)(hp_cfg.throttle_ns * hp_clock_ticks_per_sec() / 1e9));
    load_filter();
    hp_callpath_init(hp_cfg.callpath);
    hp_process_at_exit();
    hp_sources_init();
}

void hp_runtime_init(void)
{
    pthread_once(&once, init_once);
}

const hp_filter *hp_runtime_filter(void)
{
    return filter;
}

__attribute__((constructor)) static void hp_runtime_constructor(void)
{
    hp_runtime_init();
}
