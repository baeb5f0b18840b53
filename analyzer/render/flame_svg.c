/*
 * flame_svg.c - the calling-context tree as one self-contained SVG flame
 * graph (hprof-query --flamegraph): the root at the bottom, each node a
 * rectangle as wide as its inclusive time's share of the root, children
 * left to right by label, coloured by class, a <title> tooltip per node
 * and its label drawn when it fits.  No script, no external reference;
 * the same database gives the same bytes.  hprof-report's folded tree
 * (html_fold.c) has entries of folded nodes (id < 0): grey, data-fold
 * their parent's id.
 */
#include "config.h"
#include <assert.h>
#include <string.h>
#include "flame_out.h"

#define SVG_WIDTH 1200.0
#define SVG_MARGIN 10.0
#define ROW_HEIGHT 17.0
#define TOP_HEIGHT 56.0     /* title and legend */
#define CHAR_WIDTH 7.0      /* of the 12px monospace labels */
#define MIN_TEXT_WIDTH 24.0
#define MIN_WIDTH 0.001     /* px: narrower nodes are left out */
#define FOLD_FILL "#d4d4d4" /* folded nodes */

static const struct {
    const char *name, *legend, *fill;
} classes[HPQ_FC_COUNT] = {
    [HPQ_FC_ROOT] = {"root", "all ranks and threads", "#b8b8b8"},
    [HPQ_FC_COMPUTE] = {"compute", "compute", "#f0a55a"},
    [HPQ_FC_MPI_TRAN] = {"mpi-tran", "MPI transmission", "#4f8fd6"},
    [HPQ_FC_MPI_SYNC] = {"mpi-sync", "MPI synchronization", "#d9534f"},
    [HPQ_FC_MPI_CONTROL] = {"mpi-control", "MPI control", "#5fb8c2"},
    [HPQ_FC_OMP_SYNC] = {"omp-sync", "OpenMP synchronization", "#9b6bc0"},
    [HPQ_FC_OMP_CONTROL] = {"omp-control", "OpenMP control", "#3fae73"},
};

/* At most max bytes of s, XML-escaped, not cutting a UTF-8 sequence;
 * control characters, which XML 1.0 does not allow, become '?'. */
static void put_xml(FILE *out, const char *s, size_t max)
{
    size_t n = strlen(s);
    if (n > max) {
        n = max;
        while (n > 0 && ((unsigned char)s[n] & 0xc0) == 0x80)
            n--;
    }
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)s[i];
        if (c == '&')
            fputs("&amp;", out);
        else if (c == '<')
            fputs("&lt;", out);
        else if (c == '>')
            fputs("&gt;", out);
        else if (c == '"')
            fputs("&quot;", out);
        else if (c < 0x20 || c == 0x7f)
            fputc('?', out);
        else
            fputc(c, out);
    }
}

static void put_header(FILE *out, const hpq_ftree *tr, double height)
{
    fprintf(out, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
                 "<svg xmlns=\"http://www.w3.org/2000/svg\" version=\"1.1\""
                 " width=\"%.0f\" height=\"%.0f\" viewBox=\"0 0 %.0f %.0f\""
                 " font-family=\"monospace\" font-size=\"12\">\n",
            SVG_WIDTH, height, SVG_WIDTH, height);
    fprintf(out, "<rect x=\"0\" y=\"0\" width=\"%.0f\" height=\"%.0f\" fill=\"#ffffff\"/>\n",
            SVG_WIDTH, height);
    fprintf(out, "<text x=\"%.0f\" y=\"18\" font-size=\"14\">hprof flame graph: inclusive"
                 " time, root at the bottom (%d levels)</text>\n",
            SVG_MARGIN, tr->max_depth + 1);
    double x = SVG_MARGIN;
    for (int c = 0; c < HPQ_FC_COUNT; c++) {
        fprintf(out, "<rect class=\"legend\" data-class=\"%s\" x=\"%.0f\" y=\"30\" width=\"12\""
                     " height=\"12\" fill=\"%s\"/><text x=\"%.0f\" y=\"40\">%s</text>\n",
                classes[c].name, x, classes[c].fill, x + 16, classes[c].legend);
        x += 16 + CHAR_WIDTH * (double)strlen(classes[c].legend) + 14;
    }
}

static int is_mpi(const hpq_fnode *nd)
{
    return nd->cls == HPQ_FC_MPI_TRAN || nd->cls == HPQ_FC_MPI_SYNC;
}

/* The parts of an MPI node over its rectangle: transmission on the left,
 * synchronization delay on the right, as wide as their shares of the
 * node's time (the delay is part of it). */
static void put_mpi_parts(FILE *out, const hpq_fnode *nd, double x, double w, double y)
{
    double share = nd->incl > 0 && nd->sync > 0 ? nd->sync / nd->incl : 0.0;
    if (share <= 0)
        return;
    share = share < 1 ? share : 1;
    double tw = w * (1 - share), sw = w * share;
    if (tw >= MIN_WIDTH)
        fprintf(out, "<rect data-part=\"mpi-tran\" x=\"%.3f\" y=\"%.1f\" width=\"%.3f\""
                     " height=\"%.1f\" fill=\"%s\"/>",
                x, y, tw, ROW_HEIGHT - 1, classes[HPQ_FC_MPI_TRAN].fill);
    if (sw >= MIN_WIDTH)
        fprintf(out, "<rect data-part=\"mpi-sync\" x=\"%.3f\" y=\"%.1f\" width=\"%.3f\""
                     " height=\"%.1f\" fill=\"%s\"/>",
                x + tw, y, sw, ROW_HEIGHT - 1, classes[HPQ_FC_MPI_SYNC].fill);
}

static void put_node(FILE *out, const hpq_fnode *nd, double root_time, double x, double w,
                     double y)
{
    double ipct = root_time > 0 ? 100.0 * nd->incl / root_time : 0.0;
    double epct = root_time > 0 ? 100.0 * nd->excl / root_time : 0.0;
    fprintf(out, "<g><title>");
    put_xml(out, nd->label, strlen(nd->label));
    fprintf(out, "\ninclusive %.6f s (%.2f%%)\nexclusive %.6f s (%.2f%%)", nd->incl,
            ipct, nd->excl, epct);
    if (is_mpi(nd))
        fprintf(out, "\nsynchronization delay %.6f s", nd->sync);
    fputs("</title>", out);
    if (nd->id < 0)
        fprintf(out, "<rect data-fold=\"%lld\" x=\"%.3f\" y=\"%.1f\" width=\"%.3f\""
                     " height=\"%.1f\" fill=\"%s\" stroke=\"#ffffff\" stroke-width=\"0.5\"/>",
                (long long)nd->parent, x, y, w, ROW_HEIGHT - 1, FOLD_FILL);
    else
        fprintf(out, "<rect data-node=\"%lld\" data-class=\"%s\" x=\"%.3f\" y=\"%.1f\""
                     " width=\"%.3f\" height=\"%.1f\" fill=\"%s\" stroke=\"#ffffff\""
                     " stroke-width=\"0.5\"/>",
                (long long)nd->id, classes[nd->cls].name, x, y, w, ROW_HEIGHT - 1,
                classes[nd->cls].fill);
    if (is_mpi(nd))
        put_mpi_parts(out, nd, x, w, y);
    if (w >= MIN_TEXT_WIDTH) {
        fprintf(out, "<text x=\"%.3f\" y=\"%.1f\">", x + 3, y + ROW_HEIGHT - 5);
        put_xml(out, nd->label, (size_t)((w - 6) / CHAR_WIDTH));
        fputs("</text>", out);
    }
    fputs("</g>\n", out);
}

typedef struct layout {
    FILE *out;
    double root_time, scale, bottom;
} layout;

/* Draws nd at x (width w) and its children left to right inside it;
 * nodes narrower than MIN_WIDTH (no time, or too little to show) are
 * left out. */
static void draw(const layout *lo, const hpq_fnode *nd, double x, double w)
{
    put_node(lo->out, nd, lo->root_time, x, w, lo->bottom - (nd->depth + 1) * ROW_HEIGHT);
    double cx = x, end = x + w;
    for (size_t i = 0; i < nd->nkids; i++) {
        const hpq_fnode *k = nd->kids[i];
        double kw = k->incl * lo->scale;
        if (kw > end - cx)
            kw = end - cx;      /* never wider than what the parent has left */
        if (kw >= MIN_WIDTH)
            draw(lo, k, cx, kw);
        cx += kw;
    }
}

int hpq_write_flamegraph(const hpq_ctx *ctx, const hpq_ftree *tr, FILE *out)
{
    (void)ctx;
    double height = TOP_HEIGHT + (tr->max_depth + 1) * ROW_HEIGHT + SVG_MARGIN;
    put_header(out, tr, height);
    if (tr->root) {
        double full = SVG_WIDTH - 2 * SVG_MARGIN;
        layout lo = {out, tr->root->incl, tr->root->incl > 0 ? full / tr->root->incl : 0.0,
                     height - SVG_MARGIN};
        draw(&lo, tr->root, SVG_MARGIN, full);
    }
    fputs("</svg>\n", out);
    return 0;
}
