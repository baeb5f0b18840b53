/*
 * html.h - hprof-report's one self-contained HTML page of a run: the run
 * header, the expandable calling-context tree, the flame graph, the
 * communication matrix, the imbalance over ranks of the costliest nodes, the overhead
 * classes of the top of the tree, the OpenMP
 * per-thread tables and the task timeline.  No network: the CSS and the
 * small script are inline.  Every string from the database is escaped.
 *
 * html_page.c writes the page, its header, tree and flame graph;
 * html_comm.c the matrix; html_imb.c the imbalance; html_ovh.c the overhead
 * classes; html_omp.c the thread tables and the task timeline;
 * html_util.c escaping and formatting.
 */
#ifndef HPQ_HTML_H
#define HPQ_HTML_H

#include <stdio.h>
#include "flame_out.h"

/* The whole page of the run in ctx->db, its tree tr (flame.h), to out.
 * 0, or -1 with ctx->err set. */
int hpq_write_html(const hpq_ctx *ctx, const hpq_ftree *tr, FILE *out);

/* The next pages are of a running job (hprof-report --live): each reloads
 * itself every refresh_s seconds and shows header (the snapshots' ages,
 * the last interval's rates) above the run's.  refresh_s 0: a plain page. */
void hpq_html_set_live(int refresh_s, const char *header);

/* Sections (each 0 or -1 with ctx->err set). */
int hpq_html_matrix(const hpq_ctx *ctx, FILE *out);
int hpq_html_rank_bars(const hpq_ctx *ctx, const hpq_ftree *tr, FILE *out);
int hpq_html_threads(const hpq_ctx *ctx, const hpq_ftree *tr, FILE *out);
int hpq_html_tasks(const hpq_ctx *ctx, FILE *out);
int hpq_html_overheads(const hpq_ctx *ctx, FILE *out);

/* s escaped for HTML text and attribute values; control characters
 * other than tab and newline become '?'.  NULL prints nothing. */
void hpq_html_text(FILE *out, const char *s);
/* A time in seconds as every section of the page shows it: "%.6f". */
void hpq_html_time(FILE *out, double seconds);
/* Percent of total with one decimal, "0.0" when total is not positive. */
void hpq_html_pct(FILE *out, double part, double total);

/* Ranks in the run (MAX(rank) + 1, 0 if none), -1 on a database error. */
int hpq_html_nranks(const hpq_ctx *ctx);
/* The distribution of node's per-rank times in the fixed bins of an
 * aggregated profile's database (html_aggimb.c).  0, or -1 with ctx->err. */
int hpq_html_fixed_hist(const hpq_ctx *ctx, FILE *out, int64_t node);

#endif
