/*
 * db_rows.h - the per rank/thread rows of the database and the aggregates
 * computed while they are written (db_rows.c, db_aggregator.h).
 */
#ifndef HPF_DB_ROWS_H
#define HPF_DB_ROWS_H

#include <stddef.h>
#include <sqlite3.h>
#include "dbcomp.h"
#include "merge.h"

/* Inserts the stat, comm and task rows of every rank of p into the tables
 * of db.c's schema, compensating each rank into comp (started with
 * hpf_comp_start) on the way, and writes the aggregators' tables;
 * without node_aggregates the per-node ones are left out (a profile of
 * one rank and one thread has views instead: db_agg.h; and no overhead
 * tables: ovh_class.h); without rows, only the task rows, comm_range
 * (the ids the comm rows would have) and the aggregates (aggregate mode:
 * detail.h).  Frees every
 * rank's comm records, success or not, and its node records and
 * compensated times once it is written (comp->stats stay).  0, or -1
 * with err set. */
int hpf_db_write_rows(sqlite3 *db, hpf_profile *p, const hpf_merged *m, hpf_comp *comp,
                      int node_aggregates, int rows, char *err, size_t errlen);

#endif
