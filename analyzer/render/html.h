/*
 * html.h - hprof-report's one self-contained HTML page of a run: the run
 * header, the expandable calling-context tree, the flame graph, the
 * communication matrix, the imbalance over ranks of the costliest nodes, the overhead
 * classes of the top of the tree, the OpenMP
 * per-thread tables and the task timeline.  No network: the CSS and the
 * small script are inline.  Every string from the database is escaped.
 *
 * html_page.c writes the page, its header, tree and flame graph;
 * html_comm.c the matrix (html_aggcomm.c an aggregated run's per-site
 * table instead); html_imb.c the imbalance; html_ovh.c the overhead
 * classes; html_omp.c the thread tables and the task timeline;
 * html_fold.c the tree the page shows (small nodes folded in a large
 * one); html_util.c escaping and formatting.
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

/* The imbalance section's nodes (html_imb.c), which the tree also shows. */
#define BAR_NODES 10
/* Folding (html_fold.c): a tree of more nodes than FOLD_BUDGET shows the
 * nodes with at least FOLD_SHARE of the root's time within that many
 * entries, and one "N smaller nodes" entry per parent for the rest. */
#define FOLD_BUDGET 2000
#define FOLD_SHARE 0.001

/* The tree the page shows of full: when full has more than FOLD_BUDGET
 * nodes, out is a copy with the small nodes folded (*nfolded of them:
 * free it with hpq_ftree_free); else out is empty (no root) and
 * *nfolded 0, and the page shows full.  0, or -1 with ctx->err set. */
int hpq_html_fold(const hpq_ctx *ctx, const hpq_ftree *full, hpq_ftree *out,
                  size_t *nfolded);
/* The (at most max) nodes with the largest imbalance cost into top, their
 * number, or -1 with ctx->err set. */
int hpq_html_costliest(const hpq_ctx *ctx, const hpq_ftree *tr, const hpq_fnode **top, int max);

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

/* Are the run's per rank/thread rows few enough for the page to read
 * (stat, comm, node_rank)?  1 when an upper bound of their number, (nodes
 * + node-peer pairs) x ranks x threads, is at most what hprof-merge
 * stores by default (HPF_DETAIL_ROWS): then the database holds them,
 * unless merged with --no-detail; else 0, and the page reads only the
 * aggregates, which never opens the profile of an aggregate-mode
 * database.  The same in both modes, so both give the same page.  0 for
 * the database of an aggregated run, which has none. */
int hpq_html_rows_few(const hpq_ctx *ctx);

/* The aggregated profile's communication per site and peer class, with
 * comm_node_class's ranks and worst rank (html_aggcomm.c); nothing when
 * the run had none.  0, or -1 with ctx->err set. */
int hpq_html_comm_classes(const hpq_ctx *ctx, FILE *out);

/* Ranks in the run (MAX(rank) + 1, 0 if none), -1 on a database error. */
int hpq_html_nranks(const hpq_ctx *ctx);
/* The distribution of node's per-rank times in the fixed bins of an
 * aggregated profile's database (html_aggimb.c).  0, or -1 with ctx->err. */
int hpq_html_fixed_hist(const hpq_ctx *ctx, FILE *out, int64_t node);

#endif
