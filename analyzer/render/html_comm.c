/*
 * html_comm.c - the communication matrix of hprof-report's page (html.h):
 * a heat map of the bytes of point-to-point traffic from each sending rank
 * to each destination rank; above MATRIX_BINS ranks the ranks are binned
 * into blocks as hprof-query --matrix's text view bins them.  An
 * aggregated run's database has no such cells: a note, and
 * html_aggcomm.c's table per site and peer class.
 */
#include "config.h"
#include <assert.h>
#include <stdlib.h>
#include <string.h>
#include "html.h"
#include "query/matrix.h"
#include "query/report_util.h"

#define MATRIX_BINS 64          /* blocks per side at most, as hprof-query --matrix */
#define MATRIX_NUMBERS_MAX 16   /* up to this many ranks the cells show numbers */

/* ---- communication matrix ---- */

/* The ranks binned: nb blocks per side of `block` ranks each (1 when the
 * run has at most MATRIX_BINS ranks). */
typedef struct blocks {
    int n, block, nb;
} blocks;

static blocks blocks_of(int nranks)
{
    blocks b = {nranks, 1, nranks};
    if (nranks > MATRIX_BINS) {
        b.block = (nranks + MATRIX_BINS - 1) / MATRIX_BINS;
        b.nb = (nranks + b.block - 1) / b.block;
    }
    assert(b.nb <= MATRIX_BINS || b.block == 1);
    return b;
}

/* bytes[from block * nb + to block]: the bytes sent between the blocks'
 * ranks, as hprof-query --matrix counts them (matrix.c: point-to-point
 * messages, once each). */
static int matrix_bytes(const hpq_ctx *ctx, blocks b, double *bytes)
{
    hpq_table *cells = hpq_matrix_cells(ctx);
    if (!cells)
        return -1;
    for (size_t r = 0; r < cells->nrows; r++) {
        int64_t src = hpq_cell_at(cells, r, 0)->i, dst = hpq_cell_at(cells, r, 1)->i;
        const hpq_cell *c = hpq_cell_at(cells, r, 2);
        if (src >= 0 && src < b.n && dst >= 0 && dst < b.n)
            bytes[(src / b.block) * b.nb + dst / b.block] +=
                c->type == HPQ_INT ? (double)c->i : c->d;
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

/* A block's ranks as a header shows them: "7", or "64-79". */
static void put_block(FILE *out, blocks b, int i)
{
    int lo = i * b.block, hi = lo + b.block - 1 < b.n - 1 ? lo + b.block - 1 : b.n - 1;
    if (lo == hi)
        fprintf(out, "%d", lo);
    else
        fprintf(out, "%d-%d", lo, hi);
}

/* A cell; an empty one of a binned matrix is short (the page stays small). */
static void put_cell(FILE *out, blocks b, int s, int d, double v, double max)
{
    fprintf(out, "<td id=\"m-%d-%d\" data-bytes=\"%.0f\"", s, d, v);
    if (b.block > 1 && !(v > 0)) {
        fputs("></td>", out);
        return;
    }
    fputs(" title=\"", out);
    put_block(out, b, s);
    fputs(" &#8594; ", out);
    put_block(out, b, d);
    fprintf(out, ": %.0f bytes\" style=\"", v);
    put_heat(out, v, max);
    fputs("\">", out);
    if (b.nb <= MATRIX_NUMBERS_MAX)
        fprintf(out, "%.0f", v);
    fputs("</td>", out);
}

static void put_matrix_table(FILE *out, blocks b, const double *bytes)
{
    double max = 0;
    for (size_t i = 0; i < (size_t)b.nb * (size_t)b.nb; i++)
        max = bytes[i] > max ? bytes[i] : max;
    fprintf(out, "<table id=\"matrix\" data-block=\"%d\">\n<tr><th class=\"l\">from \\ to</th>",
            b.block);
    for (int d = 0; d < b.nb; d++) {
        fputs("<th>", out);
        put_block(out, b, d);
        fputs("</th>", out);
    }
    fputs("</tr>\n", out);
    for (int s = 0; s < b.nb; s++) {
        fputs("<tr><th>", out);
        put_block(out, b, s);
        fputs("</th>", out);
        for (int d = 0; d < b.nb; d++)
            put_cell(out, b, s, d, bytes[(size_t)s * (size_t)b.nb + (size_t)d], max);
        fputs("</tr>\n", out);
    }
    fputs("</table>\n", out);
}

int hpq_html_matrix(const hpq_ctx *ctx, FILE *out)
{
    int n = hpq_html_nranks(ctx);
    if (n < 0)
        return -1;
    if (hpq_is_aggregated(ctx)) {   /* no rank x rank cells to draw */
        fputs("<h2>Communication matrix</h2>\n<p class=\"note\" id=\"matrix-aggregated\">Not"
              " kept in an aggregated run (HPROF_AGGREGATE): its point-to-point communication"
              " is summed per calling context over all peers; run again with"
              " HPROF_AGGREGATE=0 for the rank &#215; rank matrix.</p>\n", out);
        return hpq_html_comm_classes(ctx, out);
    }
    blocks b = blocks_of(n);
    fputs("<h2>Communication matrix</h2>\n<p class=\"note\">Bytes sent by point-to-point"
          " messages, sending rank (row) to destination rank (column), each message"
          " counted once, at its sender, as hprof-query --matrix counts them; collectives"
          " and file I/O are left out.</p>\n", out);
    if (b.block > 1)
        fprintf(out, "<p class=\"note\" id=\"matrix-binned\">%d ranks binned into %d blocks"
                     " of %d ranks, as hprof-query --matrix bins them: a cell sums its blocks'"
                     " pairs.</p>\n", n, b.nb, b.block);
    double *bytes = calloc((size_t)b.nb * (size_t)b.nb + 1, sizeof *bytes);
    if (!bytes)
        return hpq_oom(ctx);
    int rc = matrix_bytes(ctx, b, bytes);
    if (rc == 0)
        put_matrix_table(out, b, bytes);
    free(bytes);
    return rc;
}
