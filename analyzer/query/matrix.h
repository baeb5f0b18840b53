/*
 * matrix.h - hprof-query's rank x rank communication matrix (--matrix)
 * and its comparison of runs (diff, scaling: compare.c).
 */
#ifndef HPQ_MATRIX_H
#define HPQ_MATRIX_H

#include "report.h"

typedef enum hpq_metric { HPQ_M_BYTES, HPQ_M_MESSAGES, HPQ_M_TRAN, HPQ_M_SYNC } hpq_metric;

/* "bytes", "messages", "tran" or "sync"; -1 for anything else. */
int hpq_parse_metric(const char *s, hpq_metric *m);

/* The point-to-point matrix of the run, or of the communication sites
 * `site` selects (NULL: all): a heat map of `metric` in text, one row per
 * non-zero (sender, receiver) pair with every metric in CSV and JSON,
 * which also give the sums over the pairs and what the matrix leaves out
 * (CSV: rows of their own kind; JSON: one object, matrix.c).  0, or -1
 * with the message in ctx->err. */
int hpq_report_matrix(const hpq_ctx *ctx, const char *site, hpq_metric metric);

/* The non-zero cells of the run's point-to-point matrix, as --matrix
 * counts them (each message once, at its sender; collectives and files
 * left out): columns sender, receiver, bytes, messages, tran, sync, by
 * sender then receiver.  NULL with the message in ctx->err. */
hpq_table *hpq_matrix_cells(const hpq_ctx *ctx);

/* `hprof-query diff A B` and `hprof-query scaling A B C...`: the runs are
 * profiles or databases (opened as hpq_open does); ctx->db is the first,
 * the others are attached.  scaling's CSV and JSON carry each run's size
 * (CSV: rows of kind "run"; JSON: {"runs": [...], "nodes": [...]}).  0,
 * or -1 with the message in ctx->err. */
int hpq_report_diff(const hpq_ctx *ctx, char *const *paths, int npaths);
int hpq_report_scaling(const hpq_ctx *ctx, char *const *paths, int npaths);

#endif
