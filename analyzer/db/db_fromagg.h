/*
 * db_fromagg.h - the database of an aggregated profile (HPROF_AGGREGATE,
 * read/hpf_agg.h): hprof-merge writes the same aggregate tables a full
 * profile's merge stores (db_fromagg.c: run, rank, site, node; the tables
 * of db_fromagg_tab.c), from the per-node distributions, so that every
 * aggregate view reads it unchanged.  Run key `aggregated` is 1; there
 * are no per-rank rows (stat and comm say so in one line when read).
 */
#ifndef HPF_DB_FROMAGG_H
#define HPF_DB_FROMAGG_H

#include <stddef.h>
#include <sqlite3.h>
#include "read/hpf_agg.h"
#include "db.h"
#include "db_agg.h"
#include "db_aggregator.h"
#include "merge.h"

/* Writes f (read from source) to db_path as hpf_db_write does a full
 * profile: refused over an existing file unless force; 0, or -1 with a
 * one-line err and nothing left at db_path. */
int hpf_db_write_aggregated(const hpf_aggfile *f, const char *source, const char *db_path,
                            int force, hpf_db_summary *sum, char *err, size_t errlen);

/* The same from the profile file at path (read whole, checked). */
int hpf_db_merge_aggregated(const char *path, const char *db_path, int force,
                            hpf_db_summary *sum, char *err, size_t errlen);

/* The conversion under way, for the table writers of db_fromagg_tab.c. */
typedef struct hpf_agg_conv {
    sqlite3 *db;
    const hpf_aggfile *f;
    hpf_merged m;           /* sites (labels), nodes (depth, lo, hi, outer) */
    uint32_t present;       /* ranks with a rank row (not missing) */
    char *err;
    size_t errlen;
} hpf_agg_conv;

/* node_time, node_worst_rank, node_worst_thread, node_excl, node_hist
 * (NULL bins) and node_hist_fixed (the profile's bins). */
int hpf_agg_node_tables(hpf_agg_conv *c);
/* site_time, site_worst, rank_mpi. */
int hpf_agg_site_tables(hpf_agg_conv *c);
/* comm_node_peer (peer classes), comm_node_class (per class its ranks
 * and worst rank), comm_leftout, comm_matrix (empty). */
int hpf_agg_comm_tables(hpf_agg_conv *c);
/* ovh_x (no loss) and ovh_rank (wall and threads only). */
int hpf_agg_ovh_tables(hpf_agg_conv *c);

#endif
