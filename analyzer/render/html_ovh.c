/*
 * html_ovh.c - the overhead-classes section of hprof-report's page
 * (html.h): for the top of the calling-context tree (the root and
 * OVH_DEPTH levels below it, in preorder) a stacked bar per node of its
 * time split into computation, data movement, synchronization, control of
 * parallelism, loss of parallelism and unidentified time, with the
 * seconds.  The numbers are hprof-query --overheads' (overheads.c:
 * hpq_overheads_rows), not computed again here.
 *
 * Each row is <tr id="ovh-<node>">; its cells carry class "oc-<class>"
 * and data-s="<seconds>" (%.6f, as the text shows them), so a browser
 * test reads them back.
 */
#include "config.h"
#include <assert.h>
#include <stdlib.h>
#include "html.h"
#include "query/report.h"
#include "query/report_util.h"

#define OVH_DEPTH 2         /* levels below the root listed */
#define OVH_ROWS 40         /* rows at most; the rest: hprof-query --overheads */
#define OVH_BAR_PX 300.0    /* width of a node's bar */
#define OVH_NCLASS 6
#define COL_TOTAL 4         /* columns of hpq_overheads_rows */
#define COL_FIRST_CLASS 5

static const struct {
    const char *name, *title, *colour;
} classes[OVH_NCLASS] = {
    {"comp", "computation", "#4f8fd6"},
    {"data", "data movement (MPI transmission)", "#e8a33d"},
    {"sync", "synchronization (MPI sync delay, OpenMP waits)", "#d64f4f"},
    {"ctrl", "control of parallelism (fork, join, task creation, MPI calls)", "#8e6bbf"},
    {"loss", "loss of parallelism (idle threads while one runs serially)", "#9a9a9a"},
    {"unid", "unidentified (outside recorded nodes)", "#d9d9d9"},
};

static double number(const hpq_table *t, size_t row, int col)
{
    const hpq_cell *c = hpq_cell_at(t, row, col);
    return c->type == HPQ_INT ? (double)c->i : c->d;
}

static void put_legend(FILE *out)
{
    fputs("<p id=\"ovh-legend\">", out);
    for (int k = 0; k < OVH_NCLASS; k++)
        fprintf(out, "<span class=\"ovh-key\"><span class=\"ovh-sw\" style=\"background:%s\">"
                     "</span> %s</span> ", classes[k].colour, classes[k].title);
    fputs("</p>\n", out);
}

/* The bar of one node: a segment per class, width by its share. */
static void put_bar(FILE *out, const hpq_table *t, size_t r, double total)
{
    fputs("<td class=\"l\"><span class=\"ovh-bar\">", out);
    for (int k = 0; k < OVH_NCLASS && total > 0; k++) {
        double v = number(t, r, COL_FIRST_CLASS + k), px = OVH_BAR_PX * v / total;
        if (px < 0.05)
            continue;
        fprintf(out, "<span style=\"width:%.1fpx;background:%s\" title=\"%s: ", px,
                classes[k].colour, classes[k].name);
        hpq_html_time(out, v);
        fputs(" s (", out);
        hpq_html_pct(out, v, total);
        fputs("%)\"></span>", out);
    }
    fputs("</span></td>", out);
}

static void put_row(FILE *out, const hpq_table *t, size_t r)
{
    const hpq_cell *label = hpq_cell_at(t, r, 3);
    int64_t id = hpq_cell_at(t, r, 0)->i, depth = hpq_cell_at(t, r, 2)->i;
    double total = number(t, r, COL_TOTAL);
    fprintf(out, "<tr id=\"ovh-%lld\"><td class=\"l\" style=\"padding-left:%.1fem\">",
            (long long)id, 0.4 + 1.4 * (double)depth);
    hpq_html_text(out, label->s);
    fputs("</td><td class=\"oc-total\" data-s=\"", out);
    hpq_html_time(out, total);
    fputs("\">", out);
    hpq_html_time(out, total);
    fputs("</td>", out);
    put_bar(out, t, r, total);
    for (int k = 0; k < OVH_NCLASS; k++) {
        double v = number(t, r, COL_FIRST_CLASS + k);
        if (hpq_cell_at(t, r, COL_FIRST_CLASS + k)->type == HPQ_NULL) {
            /* not known (an aggregated run's loss of parallelism) */
            fprintf(out, "<td class=\"oc-%s\" title=\"not kept in an aggregated run\">"
                         "&#8211;</td>", classes[k].name);
            continue;
        }
        fprintf(out, "<td class=\"oc-%s\" data-s=\"", classes[k].name);
        hpq_html_time(out, v);
        fputs("\">", out);
        hpq_html_time(out, v);
        fputs(" <small>(", out);
        hpq_html_pct(out, v, total);
        fputs("%)</small></td>", out);
    }
    fputs("</tr>\n", out);
}

int hpq_html_overheads(const hpq_ctx *ctx, FILE *out)
{
    hpq_table *t = hpq_overheads_rows(ctx, NULL, OVH_DEPTH);
    if (!t)
        return -1;
    if (t->failed) {
        hpq_table_free(t);
        return hpq_oom(ctx);
    }
    fputs("<h2 id=\"ovh-title\">Overhead classes</h2>\n<p class=\"note\">Each node's time"
          " summed over ranks and threads (its inclusive thread time plus its loss of"
          " parallelism; the root: wall &#215; threads summed over ranks), split by class"
          " of the exclusive time below it, as <code>hprof-query --overheads</code>"
          " computes it; seconds and % of the node.</p>\n", out);
    put_legend(out);
    fputs("<table id=\"overheads\">\n<tr><th class=\"l\">node</th><th>total s</th>"
          "<th class=\"l\">classes</th>", out);
    for (int k = 0; k < OVH_NCLASS; k++)
        fprintf(out, "<th title=\"%s\">%s s</th>", classes[k].title, classes[k].name);
    fputs("</tr>\n", out);
    size_t shown = t->nrows < OVH_ROWS ? t->nrows : OVH_ROWS;
    for (size_t r = 0; r < shown; r++)
        put_row(out, t, r);
    fputs("</table>\n", out);
    if (t->nrows > shown)
        fprintf(out, "<p class=\"note\" id=\"ovh-more\">(%zu more nodes: hprof-query"
                     " --overheads --depth %d)</p>\n", t->nrows - shown, OVH_DEPTH);
    hpq_table_free(t);
    return 0;
}
