/*
 * html_aggimb.c - the imbalance section's distribution of a node's
 * per-rank times for the database of an aggregated profile (html.h,
 * db/db_fromagg.h): the profile keeps them in fixed bins (below 1 us,
 * half-decades from 1 us to 10 s, 10 s and more: node_hist_fixed), not
 * in html_imb.c's 10 bins from the node's min to its max, and no
 * per-rank times to draw a bar per rank from.
 */
#include "config.h"
#include <string.h>
#include "html.h"
#include "hp_aggprof.h"
#include "query/report_util.h"

#define BAR_WIDTH 400.0     /* px of the fullest bin, as html_imb.c's */

/* The node's bins, ranks without it counted in the first (time 0, as
 * node_hist counts them).  0, or -1 with ctx->err set. */
static int fixed_bins(const hpq_ctx *ctx, int64_t node, long long *h)
{
    sqlite3_stmt *st;
    memset(h, 0, HP_AGG_BINS * sizeof *h);
    if (sqlite3_prepare_v2(ctx->db, "SELECT (SELECT COUNT(*) FROM rank) - ranks, b0, b1, b2,"
                           " b3, b4, b5, b6, b7, b8, b9, b10, b11, b12, b13, b14, b15"
                           " FROM node_hist_fixed WHERE node = ?1", -1, &st, NULL) != SQLITE_OK)
        return hpq_db_error(ctx);
    sqlite3_bind_int64(st, 1, node);
    int rc = sqlite3_step(st);
    for (int k = 0; rc == SQLITE_ROW && k < HP_AGG_BINS; k++)
        h[k] = sqlite3_column_int64(st, k + 1) + (k == 0 ? sqlite3_column_int64(st, 0) : 0);
    sqlite3_finalize(st);
    return rc == SQLITE_ROW || rc == SQLITE_DONE ? 0 : hpq_db_error(ctx);
}

int hpq_html_fixed_hist(const hpq_ctx *ctx, FILE *out, int64_t node)
{
    long long h[HP_AGG_BINS], most = 0;
    int first = HP_AGG_BINS, last = -1;
    if (fixed_bins(ctx, node, h))
        return -1;
    for (int k = 0; k < HP_AGG_BINS; k++) {
        most = h[k] > most ? h[k] : most;
        first = h[k] && k < first ? k : first;
        last = h[k] ? k : last;
    }
    for (int k = first; k <= last; k++) {
        fputs("<div class=\"irow\"><span class=\"r\" style=\"width:16em\">", out);
        hpq_html_time(out, hp_agg_bin_low((uint32_t)k));
        fputs("&#8211;", out);
        if (k + 1 < HP_AGG_BINS)
            hpq_html_time(out, hp_agg_bin_low((uint32_t)k + 1));
        fprintf(out, " s</span><span class=\"hbin\" data-node=\"%lld\" data-bin=\"%d\""
                     " data-ranks=\"%lld\" style=\"width:%.1fpx\"></span> %lld ranks</div>\n",
                (long long)node, k, h[k], most > 0 ? BAR_WIDTH * (double)h[k] / most : 0.0,
                h[k]);
    }
    return 0;
}
