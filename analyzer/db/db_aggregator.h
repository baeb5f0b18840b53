/*
 * db_aggregator.h - the aggregates hprof-merge computes in C while it
 * writes the per rank/thread rows (db_rows.c): each aggregator sees every
 * rank's records once, in rank order, while they are in memory (the comm
 * records are freed after their rank), and then writes its tables.
 *
 * Each table an aggregator writes has one definition in SQL, the text of
 * a view in db_agg.c: `hprof-merge --aggregate` re-runs it over the rows,
 * `hprof-query --raw` makes it a TEMP view over the raw times, and
 * tests/unit/test_scale.sh checks that both give what the aggregator
 * stored.  The sums run in rank order, then record order.
 */
#ifndef HPF_DB_AGGREGATOR_H
#define HPF_DB_AGGREGATOR_H

#include <stddef.h>
#include <sqlite3.h>
#include "read/hpf_read.h"
#include "merge.h"

/* One rank's records as the rows of the database see them. */
typedef struct hpf_rank_rows {
    uint32_t rank;
    const hp_rank_data *rd;     /* nodes, sites, strings, comms, tasks */
    const uint32_t *node_map;   /* local node -> merged node id (merge.h) */
    const uint32_t *site_map;   /* local site -> global site id */
    const double *time;         /* compensated time of local node i (stat.time);
                                   min at time[nnodes + i], max at time[2 nnodes + i] */
} hpf_rank_rows;

typedef struct hpf_aggregator {
    const char *name;           /* for messages */
    /* The accumulator for a profile and its merge, NULL without memory;
     * with per_rank 0 (aggregate mode) the tables of a row per rank and
     * site or node (rank_site, comm_node_rank) are not kept: they become
     * views over the rows (hpf_db_write_aggregates). */
    void *(*start)(const hpf_profile *p, const hpf_merged *m, int per_rank);
    /* Folds one rank in (ranks come in order, missing ranks included:
     * rows->rd->info.flags & HP_RANKF_MISSING).  0, or -1 without memory. */
    int (*add_rank)(void *acc, const hpf_rank_rows *rows);
    /* Creates and fills its tables and their indices.  0, or -1 with err. */
    int (*write)(void *acc, sqlite3 *db, char *err, size_t errlen);
    void (*finish)(void *acc);  /* frees acc */
} hpf_aggregator;

/* The bins of node_hist: equal widths from a node's least per-rank time
 * to its largest. */
#define HPF_HIST_BINS 10

/* For the aggregators' writes (db_aggregator.c): err = "sqlite: MESSAGE" of
 * db, and -1; and a bound insert run and reset, 0 or that failure. */
int hpf_agg_fail(sqlite3 *db, char *err, size_t errlen);
int hpf_agg_step(sqlite3 *db, sqlite3_stmt *st, char *err, size_t errlen);

/* A table's rows appended HPF_AGG_BATCH to an INSERT statement: one step
 * per batch instead of one per row (half the time of the comm tables'
 * million rows).  Rows are put value by value, hpf_agg_row_end after
 * each; hpf_agg_rows_close inserts the rest and frees the statements.
 * Each returns 0, or -1 with err. */
#define HPF_AGG_BATCH 32
#define HPF_AGG_MAX_COLS 12
typedef struct hpf_agg_rows {
    sqlite3 *db;
    sqlite3_stmt *batch, *one;
    int cols, rows, col;        /* columns per row; rows held; next column */
    struct hpf_agg_value {
        int real;
        union {
            int64_t i;
            double d;
        } v;
    } vals[HPF_AGG_BATCH * HPF_AGG_MAX_COLS];
} hpf_agg_rows;
int hpf_agg_rows_open(hpf_agg_rows *w, sqlite3 *db, const char *table, int cols, char *err,
                      size_t errlen);
void hpf_agg_put_int(hpf_agg_rows *w, int64_t v);
void hpf_agg_put_real(hpf_agg_rows *w, double v);
int hpf_agg_row_end(hpf_agg_rows *w, char *err, size_t errlen);
int hpf_agg_rows_flush(hpf_agg_rows *w, char *err, size_t errlen);     /* the rest in */
int hpf_agg_rows_close(hpf_agg_rows *w, char *err, size_t errlen);
void hpf_agg_rows_free(hpf_agg_rows *w);        /* the statements only, rows held dropped */

/* The aggregators of db_aggnode.c (node_time, node_worst_rank, node_excl),
 * db_aggsite.c (rank_site, site_time, site_worst, rank_mpi) and
 * db_aggcomm.c (comm_matrix, comm_leftout, node_peer, node_rank_comm). */
extern const hpf_aggregator hpf_node_aggregator;
extern const hpf_aggregator hpf_site_aggregator;
extern const hpf_aggregator hpf_comm_aggregator;
/* db_aggovh.c: the overhead classes' ovh_x and ovh_rank (ovh_class.h). */
extern const hpf_aggregator hpf_ovh_aggregator;

#endif
