/*
 * counter_cols.h - the counter columns of hprof-query's listing and --flat
 * when the database has counters (HPROF_COUNTERS): one column per event,
 * summed over ranks and threads, then the derived metrics the events
 * allow:
 *   IPC                 PAPI_TOT_INS / PAPI_TOT_CYC
 *   EV/kins             1000 x EV / PAPI_TOT_INS, for each miss event EV
 *                       (a name with _TCM, _DCM, _ICM or MISS in it)
 *   EV/ACC              EV / ACC, a miss ratio: EV ends in CM and ACC is
 *                       the same name ending in CA (PAPI_L2_TCM/PAPI_L2_TCA)
 * Without counters (or in a database from before them) nothing changes;
 * an aggregated profile keeps none, and the text says so when the run
 * counted them.
 */
#ifndef HPQ_COUNTER_COLS_H
#define HPQ_COUNTER_COLS_H

#include "report.h"

/* Replaces *t by a copy with the counter columns appended, each row's
 * values those of the node (by_site 0) or of the site's outermost nodes
 * (by_site 1) whose id is in column key_col.  0, or -1 with ctx->err. */
int hpq_counter_columns(const hpq_ctx *ctx, hpq_table **t, int key_col, int by_site);

/* Why an aggregated profile's views have no counter columns, in one
 * line (the text's "counters:" line, hprof-report's page). */
#define HPQ_COUNTERS_DROPPED "counted (HPROF_COUNTERS), not kept: an aggregated profile" \
    " (HPROF_AGGREGATE) has no counter columns; HPROF_AGGREGATE=0 keeps them"

/* Is the database that of an aggregated profile (HPROF_AGGREGATE) whose
 * run counted hardware counters (a rank flagged HP_RANKF_COUNTERS_DROPPED)? */
int hpq_counters_dropped(const hpq_ctx *ctx);

/* The database of an aggregated profile (HPROF_AGGREGATE) whose run
 * counted hardware counters (HPROF_COUNTERS: a rank flagged
 * HP_RANKF_COUNTERS_DROPPED), which such a profile does not keep: writes
 * one line saying so to the text output (the listing's header, --flat)
 * and returns 1; else 0. */
int hpq_note_counters_dropped(const hpq_ctx *ctx);

#endif
