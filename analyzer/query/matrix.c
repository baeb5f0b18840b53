/*
 * matrix.c - hprof-query --matrix: the rank x rank point-to-point
 * communication matrix (sender x receiver) from the `comm` table.
 *
 * A comm row is one (node, rank, thread, peer) of one side of the
 * transfers.  Every message is counted once, from its sender: a row whose
 * rank sent (bytes_sent > 0, or no bytes at all at a site named like a
 * send) is cell rank -> peer with its bytes_sent and its transfers; a
 * receiving row (bytes only received, or none at a receive site) adds
 * nothing to bytes and messages but its transmission and synchronization
 * time go to the message's cell peer -> rank.  A row that both sent and
 * received with one peer (MPI_Sendrecv with dest = source) counts half its
 * transfers as messages.  Times are therefore both sides' time spent on
 * the pair's messages.  Collective sites (site flag 4), whole-communicator
 * rows (peer -1) and file rows (peer -2) are not cells: the report says
 * how much traffic they carried.
 */
#include "config.h"
#include <assert.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "db/db_agg.h"
#include "matrix.h"
#include "report_util.h"
#include "sitesel.h"

#define MAX_BINS 64
static const char shades[] = " .:-=+*#%@";
static const char *const metric_names[] = {"bytes", "messages", "tran", "sync"};

int hpq_parse_metric(const char *s, hpq_metric *m)
{
    for (int i = 0; i < 4; i++)
        if (strcmp(s, metric_names[i]) == 0) {
            *m = (hpq_metric)i;
            return 0;
        }
    return -1;
}

/* The comm rows of a matrix: those of the SQL condition `where` on c
 * ("1" for all: the whole run's cells and what they leave out are stored
 * at merge, comm_matrix and comm_leftout); or, with `nodes` (an SQL list
 * of ids), the rows of those nodes in the virtual table of aggregate
 * mode, which hprof_comm_sums sums in C (db/detail_sums.h: 0.1 s, not
 * SQLite's 0.5 s for a site of 163 k rows). */
typedef struct matrix_rows {
    const char *where;
    const char *nodes;
} matrix_rows;

static const matrix_rows all_rows = {"1", NULL};

/* The cells: sender, receiver, bytes, messages, tran, sync, of the rows,
 * sorted by `order`. */
static char *cells_sql(const matrix_rows *rows, const char *order)
{
    char *sql;
    int rc = rows->nodes ? asprintf(&sql, hpf_matrix_sums_fmt, rows->nodes, order)
             : strcmp(rows->where, "1") == 0
                 ? asprintf(&sql, "SELECT sender, receiver, bytes, messages, tran, sync"
                                  " FROM comm_matrix ORDER BY %s", order)
                 : asprintf(&sql, hpf_matrix_cells_fmt, rows->where, order);
    return rc < 0 ? NULL : sql;
}

/* What the matrix leaves out, one row: collective bytes sent (the totals
 * of their peer -1 rows) and their share of all bytes sent, collective
 * calls (peer -1 rows), their time (transmission + synchronization), file
 * bytes (peer -2). */
static char *leftout_sql(const matrix_rows *rows)
{
    char *from, *sql;
    int rc = rows->nodes ? asprintf(&from, hpf_matrix_leftout_sums_fmt, rows->nodes)
             : strcmp(rows->where, "1") == 0
                 ? asprintf(&from, "SELECT * FROM comm_leftout")
                 : asprintf(&from, hpf_matrix_leftout_fmt, rows->where);
    if (rc < 0)
        return NULL;
    rc = asprintf(&sql, "SELECT coll_bytes AS collective_bytes, CASE WHEN coll_bytes +"
                  " p2p_bytes > 0 THEN 100.0 * coll_bytes / (coll_bytes + p2p_bytes)"
                  " ELSE 0.0 END AS collective_pct, coll_calls AS collective_calls,"
                  " coll_time AS collective_time, file_bytes FROM (%s)", from);
    free(from);
    return rc < 0 ? NULL : sql;
}

/* The columns of leftout_sql. */
enum { LO_COLL_BYTES, LO_COLL_PCT, LO_COLL_CALLS, LO_COLL_TIME, LO_FILE_BYTES, LO_NCOLS };

static hpq_table *leftout_table(const hpq_ctx *ctx, const matrix_rows *rows)
{
    char *sql = leftout_sql(rows);
    if (!sql) {
        hpq_oom(ctx);
        return NULL;
    }
    hpq_table *t = hpq_query_table(ctx, sql);
    free(sql);
    assert(!t || (t->nrows == 1 && t->ncols == LO_NCOLS));
    return t;
}

static double cell_value(const hpq_table *t, size_t row, int col)
{
    const hpq_cell *c = hpq_cell_at(t, row, col);
    return c->type == HPQ_INT ? (double)c->i : c->type == HPQ_REAL ? c->d : 0.0;
}

static int64_t int_value(const hpq_table *t, size_t row, int col)
{
    const hpq_cell *c = hpq_cell_at(t, row, col);
    return c->type == HPQ_INT ? c->i : c->type == HPQ_REAL ? (int64_t)c->d : 0;
}

/* ---- the text heat map ---- */

typedef struct heat {
    int nbins, block;   /* bins per side, ranks per bin */
    double *v;          /* nbins x nbins, row = sender bin */
    double max;
    int64_t max_from, max_to;
} heat;

static int heat_fill(heat *h, const hpq_table *cells, int col, int64_t nranks)
{
    h->block = nranks > MAX_BINS ? (int)((nranks + MAX_BINS - 1) / MAX_BINS) : 1;
    h->nbins = (int)((nranks + h->block - 1) / h->block);
    h->v = calloc((size_t)h->nbins * (size_t)h->nbins + 1, sizeof *h->v);
    if (!h->v)
        return -1;
    h->max = 0;
    for (size_t r = 0; r < cells->nrows; r++) {
        int64_t from = hpq_cell_at(cells, r, 0)->i, to = hpq_cell_at(cells, r, 1)->i;
        if (from < 0 || to < 0 || from >= nranks || to >= nranks)
            continue;
        double *cell = &h->v[(from / h->block) * h->nbins + to / h->block];
        *cell += cell_value(cells, r, col);
        if (*cell > h->max) {
            h->max = *cell;
            h->max_from = from / h->block;
            h->max_to = to / h->block;
        }
    }
    return 0;
}

static char shade_of(double v, double max)
{
    if (!(v > 0) || !(max > 0))
        return ' ';
    int i = 1 + (int)(v / max * 9.0);
    return shades[i > 9 ? 9 : i];
}

/* Column numbers of the bins, written downwards (tens then ones). */
static void print_ruler(FILE *out, int nbins)
{
    if (nbins > 10) {
        fprintf(out, "%8s", "");
        for (int b = 0; b < nbins; b++)
            fputc(b >= 10 ? '0' + (b / 10) % 10 : ' ', out);
        fputc('\n', out);
    }
    fprintf(out, "%8s", "");
    for (int b = 0; b < nbins; b++)
        fputc('0' + b % 10, out);
    fputc('\n', out);
}

static void print_heat(const hpq_ctx *ctx, const heat *h, hpq_metric metric)
{
    FILE *out = ctx->out;
    if (h->block > 1)
        fprintf(out, "(%d ranks per cell: ranks binned into %d blocks; a cell sums its"
                " block's pairs)\n", h->block, h->nbins);
    print_ruler(out, h->nbins);
    for (int s = 0; s < h->nbins; s++) {
        fprintf(out, "%6d |", s);
        for (int r = 0; r < h->nbins; r++)
            fputc(shade_of(h->v[s * h->nbins + r], h->max), out);
        fputs("|\n", out);
    }
    /* bytes with their unit, messages whole numbers, times in seconds */
    char max[32];
    if (metric == HPQ_M_BYTES)
        hpq_format_bytes(h->max, max, sizeof max);
    else
        snprintf(max, sizeof max, "%.*f %s", metric == HPQ_M_MESSAGES ? 0 : 6, h->max,
                 metric == HPQ_M_MESSAGES ? metric_names[metric]
                 : metric == HPQ_M_TRAN ? "s transmission" : "s synchronization");
    fprintf(out, "legend: \"%s\" from none to the max, '@' = %s", shades, max);
    if (h->max > 0)
        fprintf(out, " (%s %lld -> %lld)", h->block > 1 ? "block" : "rank",
                (long long)h->max_from, (long long)h->max_to);
    fputc('\n', out);
}

/* The sums over all the pairs, whatever --top shows: one row of bytes,
 * messages, tran and sync.  The bytes are all point-to-point bytes sent
 * (a receiving comm row has none). */
static hpq_table *pair_totals(const hpq_ctx *ctx, const hpq_table *cells)
{
    static const char *const names[] = {"bytes", "messages", "tran", "sync"};
    assert(cells->ncols == 6);
    hpq_table *t = hpq_table_new(4, names);
    if (!t) {
        hpq_oom(ctx);
        return NULL;
    }
    int64_t bytes = 0, messages = 0;
    double tran = 0, sync = 0;
    for (size_t r = 0; r < cells->nrows; r++) {
        bytes += int_value(cells, r, 2);
        messages += int_value(cells, r, 3);
        tran += cell_value(cells, r, 4);
        sync += cell_value(cells, r, 5);
    }
    hpq_table_add_row(t);
    hpq_set_int(t, 0, bytes);
    hpq_set_int(t, 1, messages);
    hpq_set_real(t, 2, tran);
    hpq_set_real(t, 3, sync);
    return t;
}

static int print_leftout(const hpq_ctx *ctx, const matrix_rows *rows, const hpq_table *cells)
{
    hpq_table *t = leftout_table(ctx, rows), *sums = t ? pair_totals(ctx, cells) : NULL;
    if (!sums) {
        hpq_table_free(t);
        return -1;
    }
    double coll = cell_value(t, 0, LO_COLL_BYTES), p2p = cell_value(sums, 0, 0);
    char cb[32], all[32], fb[32];
    hpq_format_bytes(coll, cb, sizeof cb);
    hpq_format_bytes(coll + p2p, all, sizeof all);
    hpq_format_bytes(cell_value(t, 0, LO_FILE_BYTES), fb, sizeof fb);
    fprintf(ctx->out, "left out (not cells): collective traffic %s sent (%.2f%% of the %s"
            " sent), %.0f collective calls, %.6f s; file I/O %s\n", cb,
            cell_value(t, 0, LO_COLL_PCT), all, cell_value(t, 0, LO_COLL_CALLS),
            cell_value(t, 0, LO_COLL_TIME), fb);
    hpq_table_free(sums);
    hpq_table_free(t);
    return 0;
}

static int64_t rank_count(const hpq_ctx *ctx, const hpq_table *cells)
{
    int64_t n = (int64_t)hpq_query_double(ctx, "SELECT COALESCE(MAX(rank) + 1, 0) FROM rank");
    for (size_t r = 0; r < cells->nrows; r++)
        for (int c = 0; c < 2; c++)
            if (hpq_cell_at(cells, r, c)->i >= n)
                n = hpq_cell_at(cells, r, c)->i + 1;
    return n;
}

static int print_text(const hpq_ctx *ctx, const matrix_rows *rows, const char *label,
                      hpq_metric metric)
{
    static const char *const order[] = {"bytes DESC, 1, 2", "messages DESC, 1, 2",
                                        "tran DESC, 1, 2", "sync DESC, 1, 2"};
    char *sql = cells_sql(rows, order[metric]);
    if (!sql)
        return hpq_oom(ctx);
    hpq_table *cells = hpq_query_table(ctx, sql);
    free(sql);
    if (!cells)
        return -1;
    int rc = -1;
    heat h = {0, 1, NULL, 0, 0, 0};
    if (heat_fill(&h, cells, 2 + (int)metric, rank_count(ctx, cells))) {
        hpq_oom(ctx);
        goto done;
    }
    fprintf(ctx->out, "point-to-point communication matrix of ");
    hpq_print_text_string(ctx->out, label);
    fprintf(ctx->out, ": %s\n(rows = sender rank, columns = receiver rank; each message"
            " counted once, at its sender)\n", metric_names[metric]);
    print_heat(ctx, &h, metric);
    if (print_leftout(ctx, rows, cells))
        goto done;
    fprintf(ctx->out, "\n%zu sender -> receiver pairs:\n", cells->nrows);
    hpq_time_columns(cells);
    rc = hpq_print_table(ctx, cells);
done:
    free(h.v);
    hpq_table_free(cells);
    return rc;
}

/* ---- CSV and JSON: the pairs, their sums and what is left out ---- */

/* CSV, one table: a row per pair (kind "pair", within --top), then rows
 * with no sender or receiver: "point-to-point" (the sums over all pairs),
 * "collective" (bytes sent, calls, time = transmission +
 * synchronization) and "file" (bytes read and written). */
static int print_csv(const hpq_ctx *ctx, const hpq_table *cells, size_t shown,
                     const hpq_table *sums, const hpq_table *lo)
{
    static const char *const names[] = {"kind", "sender", "receiver", "bytes", "messages",
                                        "tran", "sync", "calls", "time"};
    hpq_table *t = hpq_table_new(9, names);
    if (!t)
        return hpq_oom(ctx);
    for (size_t r = 0; r < shown; r++) {
        hpq_table_add_row(t);
        hpq_set_str(t, 0, "pair");
        for (int c = 0; c < 6; c++)
            hpq_set_cell(t, 1 + c, hpq_cell_at(cells, r, c));
    }
    hpq_table_add_row(t);
    hpq_set_str(t, 0, "point-to-point");
    for (int c = 0; c < 4; c++)
        hpq_set_cell(t, 3 + c, hpq_cell_at(sums, 0, c));
    hpq_table_add_row(t);
    hpq_set_str(t, 0, "collective");
    hpq_set_cell(t, 3, hpq_cell_at(lo, 0, LO_COLL_BYTES));
    hpq_set_cell(t, 7, hpq_cell_at(lo, 0, LO_COLL_CALLS));
    hpq_set_cell(t, 8, hpq_cell_at(lo, 0, LO_COLL_TIME));
    hpq_table_add_row(t);
    hpq_set_str(t, 0, "file");
    hpq_set_cell(t, 3, hpq_cell_at(lo, 0, LO_FILE_BYTES));
    int rc = hpq_table_print(t, ctx->out, HPQ_CSV) ? hpq_oom(ctx) : 0;
    hpq_table_free(t);
    return rc;
}

/* JSON, one object: {"site": the label or null for the whole run,
 * "ranks", "pairs": how many pairs there are, "cells": [the pairs within
 * --top], "point_to_point": {the sums over all pairs}, "left_out":
 * {collective_bytes, collective_pct, collective_calls, collective_time,
 * file_bytes}}. */
static int print_json(const hpq_ctx *ctx, const char *label, int64_t nranks,
                      const hpq_table *cells, size_t shown, const hpq_table *sums,
                      const hpq_table *lo)
{
    hpq_table view = *cells;
    view.nrows = shown;
    FILE *out = ctx->out;
    fputs("{\"site\": ", out);
    if (label)
        hpq_print_json_string(out, label);
    else
        fputs("null", out);
    fprintf(out, ", \"ranks\": %lld, \"pairs\": %zu,\n\"cells\": ", (long long)nranks,
            cells->nrows);
    if (hpq_table_print(&view, out, HPQ_JSON))
        return hpq_oom(ctx);
    fputs(", \"point_to_point\": ", out);
    hpq_print_json_row(sums, 0, out);
    fputs(",\n\"left_out\": ", out);
    hpq_print_json_row(lo, 0, out);
    fputs("}\n", out);
    return 0;
}

/* The pairs by sender and receiver (or --sort), within --top. */
static int print_data(const hpq_ctx *ctx, const matrix_rows *rows, const char *label)
{
    char *sql = cells_sql(rows, "1, 2");
    if (!sql)
        return hpq_oom(ctx);
    hpq_table *cells = hpq_query_table(ctx, sql), *lo = NULL, *sums = NULL;
    free(sql);
    int rc = -1, desc, col;
    if (!cells || !(lo = leftout_table(ctx, rows)) || !(sums = pair_totals(ctx, cells)))
        goto done;
    if ((col = hpq_sort_column(ctx, cells, &desc)) == -2)
        goto done;
    if (col >= 0 && hpq_table_sort(cells, col, desc)) {
        hpq_oom(ctx);
        goto done;
    }
    size_t shown = hpq_rows_allowed(ctx, cells->nrows);
    rc = ctx->opt->format == HPQ_CSV
             ? print_csv(ctx, cells, shown, sums, lo)
             : print_json(ctx, label, rank_count(ctx, cells), cells, shown, sums, lo);
done:
    hpq_table_free(sums);
    hpq_table_free(lo);
    hpq_table_free(cells);
    return rc;
}

hpq_table *hpq_matrix_cells(const hpq_ctx *ctx)
{
    char *sql = cells_sql(&all_rows, "1, 2");
    if (!sql) {
        hpq_oom(ctx);
        return NULL;
    }
    hpq_table *cells = hpq_query_table(ctx, sql);
    free(sql);
    return cells;
}

int hpq_report_matrix(const hpq_ctx *ctx, const char *site, hpq_metric metric)
{
    hpq_sel sel = {NULL, NULL};
    char *where = NULL;
    int rc = -1;
    assert(metric >= HPQ_M_BYTES && metric <= HPQ_M_SYNC);
    if (hpq_refuse_aggregated(ctx, "--matrix"))
        return -1;
    if (site && hpq_select(ctx->db, ctx->db_path, site, HPQ_WANT_COMM, &sel, ctx->err,
                           ctx->errlen))
        return -1;
    where = site ? hpq_comm_rows_of(ctx->db, sel.nodes, "c") : strdup("1");
    if (!where) {
        hpq_oom(ctx);
        goto done;
    }
    matrix_rows rows = {where, site && hpq_comm_is_virtual(ctx->db) ? sel.nodes : NULL};
    if (ctx->opt->format == HPQ_TEXT) {
        rc = print_text(ctx, &rows, site ? sel.label : "the run", metric);
        goto done;
    }
    rc = print_data(ctx, &rows, site ? sel.label : NULL);
done:
    free(where);
    if (site)
        hpq_sel_free(&sel);
    return rc;
}
