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
 * Without counters (or in a database from before them) nothing changes.
 */
#ifndef HPQ_COUNTER_COLS_H
#define HPQ_COUNTER_COLS_H

#include "report.h"

/* Replaces *t by a copy with the counter columns appended, each row's
 * values those of the node (by_site 0) or of the site's outermost nodes
 * (by_site 1) whose id is in column key_col.  0, or -1 with ctx->err. */
int hpq_counter_columns(const hpq_ctx *ctx, hpq_table **t, int key_col, int by_site);

#endif
