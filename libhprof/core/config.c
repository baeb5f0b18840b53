/*
 * config.c - parsing of the HPROF_* environment variables with strict
 * validation: a typo must not silently change what is measured.
 */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "hp_config.h"

hp_config hp_cfg = {NULL, HP_SUMMARY_ON, 0, 1000000, 0, 0, 10, 100000, 1000, NULL, 0, 1, 1, NULL, 0, 0, 3, 0,
                    HP_AGGREGATE_AUTO, 0};

static int parse_uint(const char *name, const char *v, uint64_t lo, uint64_t hi,
                      uint64_t *out, char *err, size_t errlen)
{
    char *end;
    errno = 0;
    unsigned long long x = strtoull(v, &end, 10);
    /* digits only: strtoull would skip leading spaces and take a sign */
    if (!isdigit((unsigned char)v[0]) || errno || *end || x < lo || x > hi) {
        snprintf(err, errlen, "%s='%s' is not a whole number from %llu to %llu",
                 name, v, (unsigned long long)lo, (unsigned long long)hi);
        return -1;
    }
    *out = x;
    return 0;
}

/* HPROF_FILTER names a rule file; a missing or unreadable one is reported
 * when it is loaded, a directory or an empty name here (reading it would
 * find no rules). */
static int check_filter(const char *v, char *err, size_t errlen)
{
    struct stat st;
    if (!*v) {
        snprintf(err, errlen, "HPROF_FILTER='' names no rule file (unset it to record every "
                 "site)");
        return -1;
    }
    if (stat(v, &st) != 0 || !S_ISDIR(st.st_mode))
        return 0;
    snprintf(err, errlen, "HPROF_FILTER='%s' is a directory, not a rule file", v);
    return -1;
}

/* HPROF_COUNTERS lists event names, comma-separated: a value that names
 * none (empty, or only commas and blanks) is a mistake, not "no counters"
 * (that is HPROF_COUNTERS unset). */
static int check_counters(const char *v, char *err, size_t errlen)
{
    if (v[strspn(v, ", \t")] != '\0')
        return 0;
    snprintf(err, errlen, "HPROF_COUNTERS='%s' names no event (unset it to read no counters)",
             v);
    return -1;
}

static int parse_choice(const char *name, const char *v, const char *const *choices,
                        int *out, char *err, size_t errlen)
{
    char list[128] = "";
    for (int i = 0; choices[i]; i++) {
        if (strcmp(v, choices[i]) == 0) {
            *out = i;
            return 0;
        }
        strncat(list, i ? "|" : "", sizeof list - strlen(list) - 1);
        strncat(list, choices[i], sizeof list - strlen(list) - 1);
    }
    snprintf(err, errlen, "%s='%s' is not one of %s", name, v, list);
    return -1;
}

int hp_config_parse(hp_config *cfg, const char *(*get)(const char *),
                    char *err, size_t errlen)
{
    static const char *const summary[] = {"off", "on", "full", NULL};
    static const char *const boolean[] = {"0", "1", NULL};
    static const char *const clock[] = {"tsc", "monotonic", NULL};
    static const char *const on_off[] = {"off", "on", NULL};
    static const char *const aggregate[] = {"0", "1", "auto", "both", NULL};
    const char *v;
    uint64_t n;

    /* Copies: a program may rewrite its environ strings before exit.  A
     * device or a missing directory is not refused here: the run goes on
     * and the writer says in one line that no profile was written. */
    if ((v = get("HPROF_OUTPUT")) && *v)
        cfg->output = strdup(v);
    if ((v = get("HPROF_SUMMARY")) && parse_choice("HPROF_SUMMARY", v, summary,
                                                   &cfg->summary, err, errlen))
        return -1;
    if ((v = get("HPROF_COLL_SYNC")) && parse_choice("HPROF_COLL_SYNC", v, boolean,
                                                     &cfg->coll_sync, err, errlen))
        return -1;
    if ((v = get("HPROF_VIRTUAL_TIME")) && parse_choice("HPROF_VIRTUAL_TIME", v, boolean,
                                                        &cfg->virtual_time, err, errlen))
        return -1;
    if ((v = get("HPROF_SIGNALS")) && parse_choice("HPROF_SIGNALS", v, boolean,
                                                   &cfg->signals, err, errlen))
        return -1;
    if ((v = get("HPROF_COMPENSATE")) && parse_choice("HPROF_COMPENSATE", v, on_off,
                                                      &cfg->compensate, err, errlen))
        return -1;
    if ((v = get("HPROF_AGGREGATE")) && parse_choice("HPROF_AGGREGATE", v, aggregate,
                                                     &cfg->aggregate, err, errlen))
        return -1;
    if ((v = get("HPROF_CLOCK")) && parse_choice("HPROF_CLOCK", v, clock,
                                                 &cfg->clock_monotonic, err, errlen))
        return -1;
    if ((v = get("HPROF_MAX_NODES"))) {
        if (parse_uint("HPROF_MAX_NODES", v, 1, 1u << 30, &n, err, errlen))
            return -1;
        cfg->max_nodes = n;
    }
    if ((v = get("HPROF_VERBOSE"))) {
        if (parse_uint("HPROF_VERBOSE", v, 0, 9, &n, err, errlen))
            return -1;
        cfg->verbose = (int)n;
    }
    if ((v = get("HPROF_THROTTLE_CALLS"))) {
        if (parse_uint("HPROF_THROTTLE_CALLS", v, 0, UINT32_MAX, &n, err, errlen))
            return -1;
        cfg->throttle_calls = n;
    }
    if ((v = get("HPROF_THROTTLE_NS"))) {
        if (parse_uint("HPROF_THROTTLE_NS", v, 0, 1000000000, &n, err, errlen))
            return -1;
        cfg->throttle_ns = n;
    }
    if ((v = get("HPROF_FILTER"))) {
        if (check_filter(v, err, errlen))
            return -1;
        cfg->filter = strdup(v);
    }
    if ((v = get("HPROF_TASK_TRACE"))) {
        if (parse_uint("HPROF_TASK_TRACE", v, 0, 1u << 24, &n, err, errlen))
            return -1;
        cfg->task_trace = (uint32_t)n;
    }
    if ((v = get("HPROF_COUNTERS"))) {
        if (check_counters(v, err, errlen))
            return -1;
        cfg->counters = strdup(v);
    }
    if ((v = get("HPROF_COUNTERS_FAKE")) && parse_choice("HPROF_COUNTERS_FAKE", v, boolean,
                                                         &cfg->counters_fake, err, errlen))
        return -1;
    if ((v = get("HPROF_COUNTERS_MULTIPLEX")) &&
        parse_choice("HPROF_COUNTERS_MULTIPLEX", v, boolean, &cfg->counters_multiplex, err,
                     errlen))
        return -1;
    if ((v = get("HPROF_CALLPATH"))) {
        if (parse_uint("HPROF_CALLPATH", v, 0, 16, &n, err, errlen))
            return -1;
        cfg->callpath = (uint32_t)n;
    }
    if ((v = get("HPROF_TOP"))) {
        if (parse_uint("HPROF_TOP", v, 1, 1000, &n, err, errlen))
            return -1;
        cfg->top = (int)n;
    }
    if ((v = get("HPROF_LIVE"))) {
        if (parse_uint("HPROF_LIVE", v, 0, 3600, &n, err, errlen))
            return -1;
        cfg->live = (uint32_t)n;
    }
    return 0;
}

static const char *process_getenv(const char *name)
{
    return getenv(name);
}

/* Before MPI_Init the rank is known only from the launcher's environment;
 * every rank exits, but only the first one says why. */
int hp_config_rank_is_first(void)
{
    static const char *const vars[] = {"OMPI_COMM_WORLD_RANK", "PMIX_RANK", "PMI_RANK", NULL};
    for (int i = 0; vars[i]; i++) {
        const char *v = getenv(vars[i]);
        if (v)
            return strcmp(v, "0") == 0;
    }
    return 1;
}

/* A local rank is numbered among the ranks of its host in world-rank
 * order, so a rank whose local rank equals its world rank N shares its
 * host with ranks 0 to N-1, rank 0 among them.  Without the launcher's
 * local rank the host is unknown. */
int hp_config_rank_shares_first_host(void)
{
    static const char *const pairs[][2] = {
        {"OMPI_COMM_WORLD_RANK", "OMPI_COMM_WORLD_LOCAL_RANK"}, /* Open MPI */
        {"PMI_RANK", "MPI_LOCALRANKID"},                        /* MPICH's hydra */
    };
    for (size_t i = 0; i < sizeof pairs / sizeof pairs[0]; i++) {
        const char *world = getenv(pairs[i][0]), *local = getenv(pairs[i][1]);
        if (world)
            return local && strcmp(world, local) == 0;
    }
    return getenv("PMIX_RANK") == NULL;  /* outside MPI: the only rank */
}

/* How long a rank that leaves the reason to the first rank waits for
 * the launcher to end the job before it says the reason itself. */
#define FIRST_RANK_WAIT_S 30

void hp_config_stop(const char *reason, int say_now)
{
    if (!say_now)
        sleep(FIRST_RANK_WAIT_S);
    fprintf(stderr, "hprof: %s\n", reason);
    exit(2);
}

void hp_config_load(void)
{
    char err[256];
    if (hp_config_parse(&hp_cfg, process_getenv, err, sizeof err) != 0)
        hp_config_stop(err, hp_config_rank_is_first());
}
