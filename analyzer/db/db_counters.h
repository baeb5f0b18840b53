/*
 * db_counters.h - the counter table of the database (HPROF_COUNTERS):
 * counter(node, rank, thread, event, value), one row per merged node,
 * rank, thread and event whose value is not 0; event is the event's name
 * as the run gave it ("PAPI_TOT_CYC", "perf::PAGE-FAULTS").
 */
#ifndef HPF_DB_COUNTERS_H
#define HPF_DB_COUNTERS_H

#include <stddef.h>
#include <sqlite3.h>
#include "merge.h"

/* Creates the table and inserts the rows of every rank of p (before its
 * node records are freed: a row's thread is its node's).  0, or -1 with
 * err set. */
int hpf_db_write_counters(sqlite3 *db, hpf_profile *p, const hpf_merged *m, char *err,
                          size_t errlen);

#endif
