/*
 * report_util.h - helpers the reports of hprof-query share (report_util.c):
 * running a query into a table, error messages, time columns.
 */
#ifndef HPQ_REPORT_UTIL_H
#define HPQ_REPORT_UTIL_H

#include "report.h"

/* Set ctx->err ("DB: sqlite message", "out of memory") and return -1. */
int hpq_db_error(const hpq_ctx *ctx);
int hpq_oom(const hpq_ctx *ctx);

/* Runs one statement `sql` into a new table whose columns are the
 * statement's.  NULL on failure, with the message set. */
hpq_table *hpq_query_table(const hpq_ctx *ctx, const char *sql);

/* The first column of the first row of `sql` as a double (0 if none). */
double hpq_query_double(const hpq_ctx *ctx, const char *sql);

/* Is the aggregate `name` (node_time, node_excl, ...) a stored table (not
 * a view, not shadowed by a TEMP view of --raw)?  A view aggregates every
 * row when asked for one node, so a report reads the node's rows instead. */
int hpq_aggregate_stored(const hpq_ctx *ctx, const char *name);

/* Is the database that of an aggregated profile (run key aggregated,
 * db/db_fromagg.h: aggregates only, no per-rank rows)? */
int hpq_is_aggregated(const hpq_ctx *ctx);
/* 0, or -1 with ctx->err saying in one line that the view `what` needs
 * a full profile, when the database is an aggregated profile's. */
int hpq_refuse_aggregated(const hpq_ctx *ctx, const char *what);

/* Text-mode decimals of the time, imbalance and pct columns. */
void hpq_time_columns(hpq_table *t);
/* Text output leaves out the columns named in `cols` ("a,b,c"): what the
 * text shows otherwise (the indentation a depth, a mean time / ranks). */
void hpq_text_hide(hpq_table *t, const char *cols);

/* Every node's inclusive and exclusive time (columns node, time, excl):
 * per rank and thread the node's time less its children's, at least 0,
 * then summed over ranks and threads. */
extern const char hpq_node_times_sql[];

/* The column of t that --sort names and in *desc its direction; -1 when
 * --sort was not given, -2 (message set) when t has no such column. */
int hpq_sort_column(const hpq_ctx *ctx, const hpq_table *t, int *desc);

/* Prints t in the requested format, sorted in place by --sort's column,
 * within --top (text output always, CSV and JSON when --top was given),
 * with a last line in text saying how many rows it left out; 0 or -1 (out
 * of memory). */
int hpq_print_table(const hpq_ctx *ctx, hpq_table *t);
/* How many of a report's nrows --top lets it print: all of them in CSV
 * and JSON unless --top was given. */
size_t hpq_rows_allowed(const hpq_ctx *ctx, size_t nrows);
/* "(N more rows; --top 0 lists them all)" in text output, when N > 0. */
void hpq_print_more(const hpq_ctx *ctx, double more);
/* The listing table of report_tree.c as nested JSON for hatchet's
 * literal reader (hatchet.c); 0 or -1. */
int hpq_print_hatchet(const hpq_ctx *ctx, const hpq_table *t);
/* hpq_print_table without --sort: for the tree reports, whose rows keep
 * their tree order (they sort siblings themselves). */
int hpq_print_rows(const hpq_ctx *ctx, const hpq_table *t);

#endif
