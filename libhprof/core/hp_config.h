/*
 * hp_config.h - run-time settings read from HPROF_* environment variables.
 * A malformed value is reported on one line naming the variable.
 */
#ifndef HP_CONFIG_H
#define HP_CONFIG_H

#include <stdint.h>

enum hp_summary_mode { HP_SUMMARY_OFF, HP_SUMMARY_ON, HP_SUMMARY_FULL };
/* HPROF_AGGREGATE: auto writes the aggregated profile from
 * HP_AGGREGATE_AUTO_RANKS ranks on (pmpi/reduce_tree.c); both writes the
 * full one and the aggregated one (NAME.agg.hpf) of the same records. */
enum hp_aggregate_mode { HP_AGGREGATE_OFF, HP_AGGREGATE_ON, HP_AGGREGATE_AUTO, HP_AGGREGATE_BOTH };
#define HP_AGGREGATE_AUTO_RANKS 4096

typedef struct hp_config {
    const char *output;      /* HPROF_OUTPUT or NULL */
    int summary;             /* HPROF_SUMMARY */
    int coll_sync;           /* HPROF_COLL_SYNC */
    uint64_t max_nodes;      /* HPROF_MAX_NODES */
    int verbose;             /* HPROF_VERBOSE */
    int clock_monotonic;     /* HPROF_CLOCK=monotonic */
    int top;                 /* HPROF_TOP: rows of the summary */
    uint64_t throttle_calls; /* HPROF_THROTTLE_CALLS (0: never throttle) */
    uint64_t throttle_ns;    /* HPROF_THROTTLE_NS: mean below which to throttle */
    const char *filter;      /* HPROF_FILTER rule file or NULL */
    uint32_t task_trace;     /* HPROF_TASK_TRACE: timeline events per thread, 0: none */
    int signals;             /* HPROF_SIGNALS: write the records of a dying process */
    int compensate;          /* HPROF_COMPENSATE=on|off: the summary shows times with
                                the measurement's calibrated cost taken out (on) */
    const char *counters;    /* HPROF_COUNTERS: event names, comma-separated, or NULL */
    int counters_fake;       /* HPROF_COUNTERS_FAKE=1: the fake back end (tests) */
    int counters_multiplex;  /* HPROF_COUNTERS_MULTIPLEX=1: PAPI's multiplexing */
    uint32_t callpath;       /* HPROF_CALLPATH: return addresses keying a tier-0 call
                                site (its own included; 0, 1: its own only) */
    uint32_t live;           /* HPROF_LIVE: seconds between live snapshots, 0: none */
    int aggregate;           /* HPROF_AGGREGATE: enum hp_aggregate_mode */
    int virtual_time;        /* HPROF_VIRTUAL_TIME=1: wildcard receives keep the
                                unmonitored run's order (pmpi/hp_vtime.h) */
} hp_config;

extern hp_config hp_cfg;

/* Reads the environment through `getenv_fn` into *cfg.  Returns 0, or -1
 * with a one-line message in err. */
int hp_config_parse(hp_config *cfg, const char *(*getenv_fn)(const char *),
                    char *err, size_t errlen);
/* Reads the process environment into hp_cfg; on error prints it and exits
 * with status 2 (before any measurement has started): hp_config_stop,
 * said by the first rank (every rank reads the same settings). */
void hp_config_load(void);
/* Stops the process before it runs: status 2 and "hprof: REASON" on
 * stderr, at once when say_now; otherwise the first rank says it and
 * ends the job (this process exiting first, the launcher could stop the
 * first rank before it printed), so this one waits, and says it itself
 * should it still run after 30 s. */
void hp_config_stop(const char *reason, int say_now);
/* Whether this process is the first rank as its launcher tells (1 outside
 * MPI): who prints a warning all ranks would print alike. */
int hp_config_rank_is_first(void);
/* Whether this process certainly runs on the first rank's host (1 outside
 * MPI): a file that cannot be read there cannot be read by the first rank
 * either, which then says so for both. */
int hp_config_rank_shares_first_host(void);

#endif
