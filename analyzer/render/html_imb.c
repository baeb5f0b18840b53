/*
 * html_imb.c - the imbalance section of hprof-report's page (html.h): the
 * nodes with the largest imbalance cost, time x (max/mean - 1) over ranks
 * (node_time), and per node its time on each rank.
 *
 * Up to BAR_RANKS ranks a node gets one bar per rank (node_rank).  Above,
 * the page would grow with the ranks, so a node gets the distribution of
 * its per-rank times instead (node_hist: 10 bins from its min to its max)
 * and its worst ranks: the slowest (node_worst_rank) and, up to
 * DETAIL_RANKS ranks, the WORST_RANKS slowest read from node_rank.  Both
 * read per-rank rows only when they are few (hpq_html_rows_few: else the
 * distribution and node_worst_rank's slowest rank, at any number of
 * ranks), so the page of an aggregate-mode database reads only its
 * aggregates and never the profile.  The database of an aggregated run
 * (HPROF_AGGREGATE) has no per-rank times: its fixed bins
 * (html_aggimb.c) and node_worst_rank's slowest rank.
 */
#include "config.h"
#include <assert.h>
#include <stdlib.h>
#include <string.h>
#include "html.h"
#include "query/report_util.h"

#define BAR_WIDTH 400.0     /* px of the longest bar of a node */
#define BAR_RANKS 64        /* up to this many ranks: one bar per rank */
#define DETAIL_RANKS 512    /* up to this many ranks: worst ranks from node_rank */
#define WORST_RANKS 5       /* worst ranks listed above BAR_RANKS */
#define HIST_BINS 10        /* node_hist's h0..h9 */

/* A node's aggregates over ranks (node_time, node_worst_rank). */
typedef struct imb_node {
    const hpq_fnode *nd;
    double time, mean, max, min, cost, worst_time;
    int worst_rank;
} imb_node;

/* The nodes other than the root with time, by decreasing imbalance cost
 * (then time, then id): node, time, mean, max, min, cost, worst rank and
 * its time. */
static const char cost_sql[] =
    "SELECT t.node, t.time, t.mean, t.max, t.min,"
    " CASE WHEN t.mean > 0 THEN t.time * (t.max / t.mean - 1) ELSE 0 END AS cost,"
    " COALESCE(w.rank, -1), COALESCE(w.time, 0)"
    " FROM node_time t LEFT JOIN node_worst_rank w ON w.node = t.node"
    " WHERE t.time > 0 AND t.node <> ?1 ORDER BY cost DESC, t.time DESC, t.node";

/* The (at most BAR_NODES) costliest nodes of the tree into top; their
 * number, or -1 with ctx->err set. */
static int top_nodes(const hpq_ctx *ctx, const hpq_ftree *tr, imb_node *top)
{
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(ctx->db, cost_sql, -1, &st, NULL) != SQLITE_OK)
        return hpq_db_error(ctx);
    sqlite3_bind_int64(st, 1, tr->root ? tr->root->id : -1);
    int k = 0, rc = SQLITE_DONE;
    while (k < BAR_NODES && (rc = sqlite3_step(st)) == SQLITE_ROW) {
        const hpq_fnode *nd = hpq_ftree_find(tr, sqlite3_column_int64(st, 0));
        if (!nd)
            continue;
        top[k] = (imb_node){nd, sqlite3_column_double(st, 1), sqlite3_column_double(st, 2),
                            sqlite3_column_double(st, 3), sqlite3_column_double(st, 4),
                            sqlite3_column_double(st, 5), sqlite3_column_double(st, 7),
                            sqlite3_column_int(st, 6)};
        k++;
    }
    if (k < BAR_NODES && rc != SQLITE_DONE) {
        sqlite3_finalize(st);
        return hpq_db_error(ctx);
    }
    sqlite3_finalize(st);
    return k;
}

int hpq_html_costliest(const hpq_ctx *ctx, const hpq_ftree *tr, const hpq_fnode **top, int max)
{
    imb_node nodes[BAR_NODES];
    int k = top_nodes(ctx, tr, nodes);
    for (int i = 0; i < k && i < max; i++)
        top[i] = nodes[i].nd;
    return k < max ? k : max;
}

/* One node's time per rank (ranks without records: 0). */
static int rank_times(const hpq_ctx *ctx, int64_t node, int n, double *t)
{
    sqlite3_stmt *st;
    memset(t, 0, (size_t)n * sizeof *t);
    if (sqlite3_prepare_v2(ctx->db, "SELECT rank, time FROM node_rank WHERE node = ?1", -1,
                           &st, NULL) != SQLITE_OK)
        return hpq_db_error(ctx);
    sqlite3_bind_int64(st, 1, node);
    int rc;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        int r = sqlite3_column_int(st, 0);
        if (r >= 0 && r < n)
            t[r] += sqlite3_column_double(st, 1);
    }
    sqlite3_finalize(st);
    return rc == SQLITE_DONE ? 0 : hpq_db_error(ctx);
}

static void put_node_head(FILE *out, const imb_node *m)
{
    fprintf(out, "<div class=\"inode\" data-node=\"%lld\" data-cost=\"%.6f\"><p><b>",
            (long long)m->nd->id, m->cost);
    hpq_html_text(out, m->nd->label);
    fprintf(out, "</b> (node %lld): max/mean %.2f, imbalance cost ", (long long)m->nd->id,
            m->mean > 0 ? m->max / m->mean : 0.0);
    hpq_html_time(out, m->cost);
    fputs(" s</p>\n", out);
}

static void put_bar(FILE *out, const imb_node *m, int rank, double t, double max,
                    const char *cls)
{
    fprintf(out, "<div class=\"irow\"><span class=\"r\">rank %d</span><span class=\"%s\""
                 " data-node=\"%lld\" data-rank=\"%d\" style=\"width:%.1fpx\"></span> ",
            rank, cls, (long long)m->nd->id, rank, max > 0 ? BAR_WIDTH * t / max : 0.0);
    hpq_html_time(out, t);
    fputs(" s</div>\n", out);
}

/* Today's view of a small run: a bar per rank. */
static void put_rank_bars(FILE *out, const imb_node *m, int n, const double *t)
{
    double max = 0;
    for (int r = 0; r < n; r++)
        max = t[r] > max ? t[r] : max;
    for (int r = 0; r < n; r++)
        put_bar(out, m, r, t[r], max, "ibar");
}

/* node_hist's counts of one node into h; 0 or -1 with ctx->err set. */
static int hist_of(const hpq_ctx *ctx, int64_t node, long long *h)
{
    sqlite3_stmt *st;
    memset(h, 0, HIST_BINS * sizeof *h);
    if (sqlite3_prepare_v2(ctx->db, "SELECT h0, h1, h2, h3, h4, h5, h6, h7, h8, h9"
                           " FROM node_hist WHERE node = ?1", -1, &st, NULL) != SQLITE_OK)
        return hpq_db_error(ctx);
    sqlite3_bind_int64(st, 1, node);
    int rc = sqlite3_step(st);
    for (int i = 0; rc == SQLITE_ROW && i < HIST_BINS; i++)
        h[i] = sqlite3_column_int64(st, i);
    sqlite3_finalize(st);
    return rc == SQLITE_ROW || rc == SQLITE_DONE ? 0 : hpq_db_error(ctx);
}

/* The distribution: a bar per bin, as long as its share of the fullest. */
static void put_hist(FILE *out, const imb_node *m, const long long *h)
{
    long long most = 0;
    for (int i = 0; i < HIST_BINS; i++)
        most = h[i] > most ? h[i] : most;
    double w = (m->max - m->min) / HIST_BINS;
    for (int i = 0; i < HIST_BINS; i++) {
        fputs("<div class=\"irow\"><span class=\"r\" style=\"width:16em\">", out);
        hpq_html_time(out, m->min + w * i);
        fputs("&#8211;", out);
        hpq_html_time(out, i == HIST_BINS - 1 ? m->max : m->min + w * (i + 1));
        fprintf(out, " s</span><span class=\"hbin\" data-node=\"%lld\" data-bin=\"%d\""
                     " data-ranks=\"%lld\" style=\"width:%.1fpx\"></span> %lld ranks</div>\n",
                (long long)m->nd->id, i, h[i], most > 0 ? BAR_WIDTH * (double)h[i] / most : 0.0,
                h[i]);
    }
}

/* The worst ranks: the WORST_RANKS slowest of t (NULL: node_worst_rank's). */
static void put_worst(FILE *out, const imb_node *m, int n, double *t)
{
    fputs("<p class=\"note\">Slowest ranks:</p>\n", out);
    if (!t) {
        if (m->worst_rank >= 0)
            put_bar(out, m, m->worst_rank, m->worst_time, m->max, "wbar");
        return;
    }
    for (int k = 0; k < WORST_RANKS && k < n; k++) {
        int w = 0;
        for (int r = 1; r < n; r++)
            w = t[r] > t[w] ? r : w;
        if (!(t[w] >= 0))
            break;
        put_bar(out, m, w, t[w], m->max, "wbar");
        t[w] = -1;     /* taken */
    }
}

/* How a node's ranks are shown. */
typedef enum imb_view { BARS, HIST_SLOWEST, HIST_WORST, FIXED_BINS } imb_view;

static imb_view choose_view(const hpq_ctx *ctx, int n)
{
    if (hpq_is_aggregated(ctx))
        return FIXED_BINS;
    if (!hpq_html_rows_few(ctx))
        return HIST_WORST;
    return n <= BAR_RANKS ? BARS : n <= DETAIL_RANKS ? HIST_SLOWEST : HIST_WORST;
}

static int put_node(const hpq_ctx *ctx, FILE *out, const imb_node *m, int n, double *t,
                    imb_view view)
{
    put_node_head(out, m);
    int rc = 0;
    if (view == FIXED_BINS) {
        rc = hpq_html_fixed_hist(ctx, out, m->nd->id);
        if (rc == 0)
            put_worst(out, m, n, NULL);
    } else if (view == BARS) {
        rc = rank_times(ctx, m->nd->id, n, t);
        if (rc == 0)
            put_rank_bars(out, m, n, t);
    } else {
        long long h[HIST_BINS];
        rc = hist_of(ctx, m->nd->id, h);
        if (rc == 0)
            put_hist(out, m, h);
        if (rc == 0 && view == HIST_SLOWEST)
            rc = rank_times(ctx, m->nd->id, n, t);
        if (rc == 0)
            put_worst(out, m, n, view == HIST_SLOWEST ? t : NULL);
    }
    fputs("</div>\n", out);
    return rc;
}

int hpq_html_rank_bars(const hpq_ctx *ctx, const hpq_ftree *tr, FILE *out)
{
    int n = hpq_html_nranks(ctx);
    if (n < 0)
        return -1;
    fputs("<h2>Imbalance over ranks</h2>\n<p class=\"note\" id=\"imbalance-note\">The nodes"
          " with the largest imbalance cost, time &#215; (max/mean &#8722; 1) over ranks (the"
          " time lost to the slowest rank), not the most inclusive time; per-rank time in s,"
          " summed over threads.", out);
    imb_view view = choose_view(ctx, n);
    if (view == FIXED_BINS)
        fputs(" An aggregated run (HPROF_AGGREGATE) keeps no per-rank times: the distribution"
              " of the ranks' times in fixed bins and the slowest rank.</p>\n", out);
    else if (view == BARS)
        fputs(" Bars relative to each node's slowest rank.</p>\n", out);
    else
        fprintf(out, " %d ranks: the distribution of the ranks' times (10 bins from the"
                     " fastest to the slowest rank) and the slowest %s.</p>\n", n,
                view == HIST_SLOWEST ? "ranks"
                                     : "rank (the database's aggregates; hprof-query RUN"
                                       " --ranks '#NODE' lists every rank)");
    fputs("<div id=\"imbalance\">\n", out);
    imb_node top[BAR_NODES];
    double *t = malloc(((size_t)n + 1) * sizeof *t);
    int rc = t ? 0 : hpq_oom(ctx);
    int k = rc == 0 ? top_nodes(ctx, tr, top) : 0;
    rc = k < 0 ? -1 : rc;
    for (int i = 0; i < k && rc == 0; i++)
        rc = put_node(ctx, out, &top[i], n, t, view);
    fputs("</div>\n", out);
    free(t);
    return rc;
}
