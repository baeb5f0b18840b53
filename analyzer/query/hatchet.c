/*
 * hatchet.c - the top-down listing as nested JSON in the form of hatchet's
 * literal reader (GraphFrame.from_literal): a list holding the root, each
 * node {"frame": {"name", "type"}, "metrics": {...}, "children": [...]}.
 * Inclusive metrics carry "(inc)" in their name, as hatchet expects;
 * "time" is the exclusive time.  Every node but the root also carries its
 * node id as "_hatchet_nid", so that two contexts of one site stay two
 * nodes (the reader otherwise merges nodes whose frames are equal); the
 * ids are also plain metrics "node" and "parent" (null for the root).
 */
#include "config.h"
#include <assert.h>
#include <stdio.h>
#include "report.h"
#include "report_util.h"

/* The columns of the listing (report_tree.c) this file reads. */
enum { COL_NODE, COL_DEPTH, COL_SITE, COL_CALLS, COL_TIME, COL_MEAN, COL_MAX, COL_IMBALANCE,
       COL_PCT, COL_PARENT, COL_EXCL, COL_WORST_RANK, COL_WORST_THREAD };

static void print_number(FILE *out, const hpq_cell *c)
{
    if (c->type == HPQ_INT)
        fprintf(out, "%lld", (long long)c->i);
    else if (c->type == HPQ_REAL)
        fprintf(out, "%.17g", c->d);
    else
        fputs("null", out);
}

static void print_metric(FILE *out, const char *name, const hpq_table *t, size_t r, int col)
{
    fprintf(out, ", \"%s\": ", name);
    print_number(out, hpq_cell_at(t, r, col));
}

/* The kind of node `id`'s site ("procedure", "loop", "comm", ...). */
static int print_kind(const hpq_ctx *ctx, sqlite3_stmt *st, int64_t id)
{
    sqlite3_bind_int64(st, 1, id);
    int rc = sqlite3_step(st);
    const unsigned char *kind = rc == SQLITE_ROW ? sqlite3_column_text(st, 0) : NULL;
    hpq_print_json_string(ctx->out, kind ? (const char *)kind : "");
    sqlite3_reset(st);
    return rc == SQLITE_ROW || rc == SQLITE_DONE ? 0 : hpq_db_error(ctx);
}

static int print_node(const hpq_ctx *ctx, sqlite3_stmt *kinds, const hpq_table *t, size_t r)
{
    FILE *out = ctx->out;
    const hpq_cell *parent = hpq_cell_at(t, r, COL_PARENT);
    fputs("{\"frame\": {\"name\": ", out);
    hpq_print_json_string(out, hpq_cell_at(t, r, COL_SITE)->s ? hpq_cell_at(t, r, COL_SITE)->s
                                                               : "");
    fputs(", \"type\": ", out);
    if (print_kind(ctx, kinds, hpq_cell_at(t, r, COL_NODE)->i))
        return -1;
    fputs("}, \"metrics\": {\"time (inc)\": ", out);
    print_number(out, hpq_cell_at(t, r, COL_TIME));
    print_metric(out, "time", t, r, COL_EXCL);
    print_metric(out, "calls", t, r, COL_CALLS);
    print_metric(out, "mean (inc)", t, r, COL_MEAN);
    print_metric(out, "max (inc)", t, r, COL_MAX);
    print_metric(out, "imbalance (inc)", t, r, COL_IMBALANCE);
    print_metric(out, "pct (inc)", t, r, COL_PCT);
    print_metric(out, "worst_rank", t, r, COL_WORST_RANK);
    print_metric(out, "worst_thread", t, r, COL_WORST_THREAD);
    print_metric(out, "node", t, r, COL_NODE);
    print_metric(out, "parent", t, r, COL_PARENT);
    if (parent->type != HPQ_NULL)
        print_metric(out, "_hatchet_nid", t, r, COL_NODE);
    fputc('}', out);
    return 0;
}

int hpq_print_hatchet(const hpq_ctx *ctx, const hpq_table *t)
{
    sqlite3_stmt *kinds;
    FILE *out = ctx->out;
    int64_t depth = -1;
    int rc = 0;
    if (sqlite3_prepare_v2(ctx->db, "SELECT s.kind FROM node n JOIN site s ON s.id = n.site"
                                    " WHERE n.id = ?1", -1, &kinds, NULL) != SQLITE_OK)
        return hpq_db_error(ctx);
    fputc('[', out);
    /* rows are in preorder: a row one level deeper opens the children of
     * the row before it; a row at the same or a shallower depth closes
     * that many levels first */
    for (size_t r = 0; r < t->nrows && rc == 0; r++) {
        int64_t d = hpq_cell_at(t, r, COL_DEPTH)->i;
        if (r > 0 && d > depth) {
            assert(d == depth + 1);
            fputs(", \"children\": [\n", out);
        } else if (r > 0) {
            for (; depth > d; depth--)
                fputs("}]", out);
            fputs("},\n", out);
        }
        depth = d;
        rc = print_node(ctx, kinds, t, r);
    }
    if (t->nrows > 0) {
        for (int64_t d = depth; d > hpq_cell_at(t, 0, COL_DEPTH)->i; d--)
            fputs("}]", out);
        fputc('}', out);
    }
    fputs("]\n", out);
    sqlite3_finalize(kinds);
    return rc;
}
