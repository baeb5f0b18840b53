/*
 * db_agg.h - the aggregates stored by hprof-merge (per node, site and
 * rank: db_agg.c) and the database format version.
 */
#ifndef HPF_DB_AGG_H
#define HPF_DB_AGG_H

#include <stddef.h>
#include <sqlite3.h>
#include "dbcomp.h"
#include "merge.h"

/* The database format, PRAGMA user_version of every database hprof-merge
 * writes.  0: an older hprof's (no aggregates); 1: aggregates stored;
 * 2: comm_node_peer and comm_node_rank too; 3: rows in node order, stat
 * keyed by (node, rank, thread), a node's comm rows the ids of comm_range
 * (no index on stat or comm to sort); 4: the rows stored only at most
 * HPF_DETAIL_ROWS of them or with --detail (run key detail), else stat
 * and comm are virtual tables over the profile (detail.h), node_hist;
 * 5: in that mode the per-node index of their rows, rank_index (rankidx.h). */
#define HPF_DB_FORMAT 5

/* The peer of comm_node_peer's row of a node's point-to-point class in
 * the database of an aggregated profile (db_fromagg.h): every rank peer
 * in one row ("*ranks*"). */
#define HPF_PEER_RANKS (-3)

/* The SQL of the communication matrix's cells (printf format: a condition
 * on the comm row c, then the ORDER BY), stored for the whole run as the
 * table comm_matrix (sender, receiver, bytes, messages, tran, sync). */
extern const char hpf_matrix_cells_fmt[];
/* What the matrix leaves out, one row (a condition on c), stored for the
 * whole run as comm_leftout. */
extern const char hpf_matrix_leftout_fmt[];
/* Both for the rows of some nodes (printf format: their SQL list of ids,
 * then for the cells the ORDER BY) of the virtual table `comm`, summed in
 * C by hprof_comm_sums (detail_sums.h): the same numbers. */
extern const char hpf_matrix_sums_fmt[];
extern const char hpf_matrix_leftout_sums_fmt[];

/* The aggregates' definitions, "CREATE VIEW name AS ...;\n" each. */
const char *hpf_db_agg_sql(void);

/* After the aggregators of db_aggregator.h wrote their tables: indexes
 * them, and with node_views (a profile of one rank and one thread: one
 * stat row per node, nothing to aggregate; the per-node aggregator did
 * not run) makes the per-node aggregates views, which cost no space;
 * with per_rank_views (aggregate mode: no stat or comm rows stored) so
 * are rank_site and comm_node_rank, a row per rank and site or node.
 * The views of db.c must exist.  0, or -1 with err set. */
int hpf_db_write_aggregates(sqlite3 *db, int node_views, int per_rank_views, char *err,
                            size_t errlen);

/* Recomputes every stored aggregate of an hprof database from its rows,
 * in one transaction (hprof-merge --aggregate DB: after rows were edited
 * by hand, as tests do to make variants of a run).  0, or -1 with err. */
int hpf_db_reaggregate(sqlite3 *db, char *err, size_t errlen);

/* Records the names of the database's tables and views (run key
 * objects, space-separated; not rank_index, which may be dropped: rankidx.h),
 * for hpf_db_check_complete. */
extern const char hpf_db_record_objects_sql[];

/* 0 when every table and view the database was written with is there,
 * else -1 with a one-line err naming the first missing one.  A database
 * without the list (written before it was kept) is taken as complete. */
int hpf_db_check_complete(sqlite3 *db, const char *db_path, char *err, size_t errlen);

/* The database's format (PRAGMA user_version), -1 when it cannot be read. */
int hpf_db_format(sqlite3 *db);

/* 0 when the database's format is HPF_DB_FORMAT, else -1 with a one-line
 * err (older: merge again; newer: this hprof is too old). */
int hpf_db_check_version(sqlite3 *db, const char *db_path, char *err, size_t errlen);

#endif
