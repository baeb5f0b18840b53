/*
 * html_comm.c - two sections of hprof-report's page (html.h): the
 * communication matrix as a heat map (bytes of point-to-point traffic
 * from each sending rank to each destination rank) and per-rank bars of
 * the nodes that take the most time, which show their imbalance.
 */
#include "config.h"
#include <assert.h>
#include <stdlib.h>
#include <string.h>
#include "html.h"
#include "query/matrix.h"
#include "query/report_util.h"

#define MATRIX_MAX_RANKS 128    /* larger runs: hprof-query --matrix */
#define MATRIX_NUMBERS_MAX 16   /* up to this many ranks the cells show numbers */
#define BAR_NODES 10            /* nodes with per-rank bars */
#define BAR_WIDTH 400.0         /* px of the longest bar of a node */

/* ---- communication matrix ---- */

/* bytes[src * n + dst]: the bytes src sent to dst, as hprof-query
 * --matrix counts them (matrix.c: point-to-point messages, once each). */
static int matrix_bytes(const hpq_ctx *ctx, int n, double *bytes)
{
    hpq_table *cells = hpq_matrix_cells(ctx);
    if (!cells)
        return -1;
    for (size_t r = 0; r < cells->nrows; r++) {
        int64_t src = hpq_cell_at(cells, r, 0)->i, dst = hpq_cell_at(cells, r, 1)->i;
        const hpq_cell *b = hpq_cell_at(cells, r, 2);
        if (src >= 0 && src < n && dst >= 0 && dst < n)
            bytes[src * n + dst] += b->type == HPQ_INT ? (double)b->i : b->d;
    }
    int failed = cells->failed;
    hpq_table_free(cells);
    return failed ? hpq_oom(ctx) : 0;
}

/* White for no traffic to red for the largest cell. */
static void put_heat(FILE *out, double v, double max)
{
    double f = max > 0 ? v / max : 0;
    assert(f >= 0 && f <= 1);
    fprintf(out, "background:rgb(%d,%d,%d)", 255 - (int)(38 * f), 255 - (int)(172 * f),
            255 - (int)(176 * f));
}

static void put_matrix_table(FILE *out, int n, const double *bytes)
{
    double max = 0;
    for (size_t i = 0; i < (size_t)n * (size_t)n; i++)
        max = bytes[i] > max ? bytes[i] : max;
    fputs("<table id=\"matrix\">\n<tr><th class=\"l\">from \\ to</th>", out);
    for (int d = 0; d < n; d++)
        fprintf(out, "<th>%d</th>", d);
    fputs("</tr>\n", out);
    for (int s = 0; s < n; s++) {
        fprintf(out, "<tr><th>%d</th>", s);
        for (int d = 0; d < n; d++) {
            double v = bytes[(size_t)s * (size_t)n + (size_t)d];
            fprintf(out, "<td id=\"m-%d-%d\" data-bytes=\"%.0f\" title=\"%d &#8594; %d: %.0f"
                         " bytes\" style=\"", s, d, v, s, d, v);
            put_heat(out, v, max);
            fputs("\">", out);
            if (n <= MATRIX_NUMBERS_MAX)
                fprintf(out, "%.0f", v);
            fputs("</td>", out);
        }
        fputs("</tr>\n", out);
    }
    fputs("</table>\n", out);
}

int hpq_html_matrix(const hpq_ctx *ctx, FILE *out)
{
    int n = hpq_html_nranks(ctx);
    if (n < 0)
        return -1;
    fputs("<h2>Communication matrix</h2>\n<p class=\"note\">Bytes sent by point-to-point"
          " messages, sending rank (row) to destination rank (column), each message"
          " counted once, at its sender, as hprof-query --matrix counts them; collectives"
          " and file I/O are left out.</p>\n", out);
    if (n > MATRIX_MAX_RANKS) {
        fprintf(out, "<p class=\"note\">%d ranks: too many for a page; see hprof-query"
                     " --matrix.</p>\n", n);
        return 0;
    }
    double *bytes = calloc((size_t)n * (size_t)n + 1, sizeof *bytes);
    if (!bytes)
        return hpq_oom(ctx);
    int rc = matrix_bytes(ctx, n, bytes);
    if (rc == 0)
        put_matrix_table(out, n, bytes);
    free(bytes);
    return rc;
}

/* ---- per-rank bars of the top nodes ---- */

static int by_time_desc(const void *a, const void *b)
{
    const hpq_fnode *x = *(hpq_fnode *const *)a, *y = *(hpq_fnode *const *)b;
    if (x->incl != y->incl)
        return x->incl > y->incl ? -1 : 1;
    return x->id < y->id ? -1 : x->id > y->id;
}

/* The (at most BAR_NODES) nodes other than the root with the largest
 * inclusive time > 0, into top; their number. */
static size_t top_nodes(const hpq_ftree *tr, const hpq_fnode **top, hpq_fnode **all)
{
    size_t n = 0;
    for (size_t i = 0; i < tr->n; i++)
        if (&tr->nodes[i] != tr->root && tr->nodes[i].incl > 0)
            all[n++] = &tr->nodes[i];
    qsort(all, n, sizeof *all, by_time_desc);
    size_t k = n < BAR_NODES ? n : BAR_NODES;
    for (size_t i = 0; i < k; i++)
        top[i] = all[i];
    return k;
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

static void put_bars(FILE *out, const hpq_fnode *nd, int n, const double *t)
{
    double max = 0, sum = 0;
    for (int r = 0; r < n; r++) {
        max = t[r] > max ? t[r] : max;
        sum += t[r];
    }
    fprintf(out, "<div class=\"inode\" data-node=\"%lld\"><p><b>", (long long)nd->id);
    hpq_html_text(out, nd->label);
    fprintf(out, "</b> (node %lld): max/mean %.2f</p>\n", (long long)nd->id,
            sum > 0 ? max * n / sum : 0.0);
    for (int r = 0; r < n; r++) {
        fprintf(out, "<div class=\"irow\"><span class=\"r\">rank %d</span><span class=\"ibar\""
                     " data-node=\"%lld\" data-rank=\"%d\" style=\"width:%.1fpx\"></span> ",
                r, (long long)nd->id, r, max > 0 ? BAR_WIDTH * t[r] / max : 0.0);
        hpq_html_time(out, t[r]);
        fputs(" s</div>\n", out);
    }
    fputs("</div>\n", out);
}

int hpq_html_rank_bars(const hpq_ctx *ctx, const hpq_ftree *tr, FILE *out)
{
    int n = hpq_html_nranks(ctx);
    if (n < 0)
        return -1;
    fputs("<h2>Imbalance over ranks</h2>\n<p class=\"note\">Per-rank time (s, summed over"
          " threads) of the nodes with the most inclusive time; bars relative to each node's"
          " slowest rank.</p>\n<div id=\"imbalance\">\n", out);
    const hpq_fnode *top[BAR_NODES];
    hpq_fnode **all = malloc((tr->n + 1) * sizeof *all);
    double *t = malloc(((size_t)n + 1) * sizeof *t);
    int rc = all && t ? 0 : hpq_oom(ctx);
    size_t k = rc == 0 ? top_nodes(tr, top, all) : 0;
    for (size_t i = 0; i < k && rc == 0; i++) {
        rc = rank_times(ctx, top[i]->id, n, t);
        if (rc == 0)
            put_bars(out, top[i], n, t);
    }
    fputs("</div>\n", out);
    free(all);
    free(t);
    return rc;
}
