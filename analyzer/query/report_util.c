/*
 * report_util.c - helpers the reports of hprof-query share (report_util.h):
 * error messages, running a query into a table, time columns and text
 * headings, printing a table within --top and --sort.
 */
#include "config.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "report_util.h"

#define TIME_DECIMALS 6

int hpq_db_error(const hpq_ctx *ctx)
{
    snprintf(ctx->err, ctx->errlen, "%s: %s", ctx->db_path, sqlite3_errmsg(ctx->db));
    return -1;
}

int hpq_oom(const hpq_ctx *ctx)
{
    snprintf(ctx->err, ctx->errlen, "out of memory");
    return -1;
}

/* The rows --top lets a report print: all of them in CSV and JSON unless
 * --top was given. */
size_t hpq_rows_allowed(const hpq_ctx *ctx, size_t nrows)
{
    const hpq_options *o = ctx->opt;
    if (o->top <= 0 || (o->format != HPQ_TEXT && !o->top_given) || nrows <= (size_t)o->top)
        return nrows;
    return (size_t)o->top;
}

void hpq_print_more(const hpq_ctx *ctx, double more)
{
    if (more > 0 && ctx->opt->format == HPQ_TEXT)
        fprintf(ctx->out, "(%.0f more row%s; --top 0 lists them all)\n", more,
                more == 1 ? "" : "s");
}

int hpq_sort_column(const hpq_ctx *ctx, const hpq_table *t, int *desc)
{
    const char *name = ctx->opt->sort;
    if (!name)
        return -1;
    int col = hpq_table_column(t, name);
    if (col < 0) {
        int n = snprintf(ctx->err, ctx->errlen, "--sort: this report has no column '%s'"
                         " (its columns:", name);
        for (int c = 0; c < t->ncols && n >= 0 && (size_t)n < ctx->errlen; c++)
            n += snprintf(ctx->err + n, ctx->errlen - (size_t)n, "%s %s", c ? "," : "",
                          t->names[c]);
        if (n >= 0 && (size_t)n < ctx->errlen)
            snprintf(ctx->err + n, ctx->errlen - (size_t)n, ")");
        return -2;
    }
    *desc = ctx->opt->sort_dir > 0;
    if (ctx->opt->sort_dir == 0) {
        *desc = 1;      /* numbers: the largest first; text: alphabetical */
        for (size_t r = 0; r < t->nrows; r++)
            if (hpq_cell_at(t, r, col)->type != HPQ_NULL) {
                *desc = hpq_cell_at(t, r, col)->type != HPQ_STR;
                break;
            }
    }
    return col;
}

#define TEXT_WIDTH 120    /* text tables fit this many columns */

static int in_list(const char *list, const char *name);

/* Text headings shorter than the column names, numbers of bytes with a
 * unit (CSV and JSON keep the names and the raw integers). */
static void text_headings(hpq_table *t)
{
    static const char *const names[][2] = {
        {"imbalance", "imb"}, {"worst_rank", "wrank"}, {"worst_thread", "wthr"},
    };
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        int col = hpq_table_column(t, names[i][0]);
        if (col >= 0)
            hpq_table_text_heading(t, col, names[i][1]);
    }
    for (int c = 0; c < t->ncols; c++)
        if (in_list("bytes,bytes_sent,bytes_recv,collective_bytes,file_bytes", t->names[c]))
            hpq_table_text_bytes(t, c);
    t->text_width = TEXT_WIDTH;
}

void hpq_text_hide(hpq_table *t, const char *cols)
{
    for (int c = 0; c < t->ncols; c++)
        if (in_list(cols, t->names[c]))
            hpq_table_text_hide(t, c);
}

/* Prints t within --top, and in text a last line saying how many rows it
 * left out. */
int hpq_print_rows(const hpq_ctx *ctx, const hpq_table *t)
{
    hpq_table shown = *t;
    shown.nrows = hpq_rows_allowed(ctx, t->nrows);
    if (ctx->opt->format == HPQ_TEXT)
        text_headings(&shown);
    if (hpq_table_print(&shown, ctx->out, ctx->opt->format))
        return hpq_oom(ctx);
    hpq_print_more(ctx, (double)(t->nrows - shown.nrows));
    return 0;
}

/* The rows sorted by --sort's column (a report's own order otherwise),
 * then printed as hpq_print_rows does. */
int hpq_print_table(const hpq_ctx *ctx, hpq_table *t)
{
    int desc, col = hpq_sort_column(ctx, t, &desc);
    if (col == -2)
        return -1;
    if (col >= 0 && hpq_table_sort(t, col, desc))
        return hpq_oom(ctx);
    return hpq_print_rows(ctx, t);
}

/* Runs `sql` (with an optional integer ?1) into a new table whose columns
 * are the statement's.  NULL on failure, with the message set. */
hpq_table *hpq_query_table(const hpq_ctx *ctx, const char *sql)
{
    sqlite3_stmt *st;
    const char *tail;
    hpq_table *t = NULL;
    if (sqlite3_prepare_v2(ctx->db, sql, -1, &st, &tail) != SQLITE_OK) {
        hpq_db_error(ctx);
        return NULL;
    }
    if (!st) {
        snprintf(ctx->err, ctx->errlen, "empty SQL statement");
        return NULL;
    }
    tail += strspn(tail, " \t\r\n;");
    if (*tail) {
        snprintf(ctx->err, ctx->errlen, "only one SQL statement may be given");
        goto done;
    }
    int ncols = sqlite3_column_count(st);
    const char **names = calloc((size_t)ncols + 1, sizeof *names);
    if (!names) {
        hpq_oom(ctx);
        goto done;
    }
    for (int c = 0; c < ncols; c++)
        names[c] = sqlite3_column_name(st, c);
    t = hpq_table_new(ncols, names);
    free(names);
    if (!t) {
        hpq_oom(ctx);
        goto done;
    }
    int rc;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        hpq_table_add_row(t);
        for (int c = 0; c < ncols; c++)
            hpq_set_column(t, c, st, c);
    }
    if (rc != SQLITE_DONE) {
        hpq_db_error(ctx);
        hpq_table_free(t);
        t = NULL;
    }
done:
    sqlite3_finalize(st);
    return t;
}

/* Is `name` one of the comma-separated names of `list`? */
static int in_list(const char *list, const char *name)
{
    size_t len = strlen(name);
    for (const char *p = list; *p;) {
        size_t n = strcspn(p, ",");
        if (n == len && strncmp(p, name, len) == 0)
            return 1;
        p += n + (p[n] == ',');
    }
    return 0;
}

/* Sets text-mode decimals on the columns named in `cols` ("a,b,c"). */
static void decimals(hpq_table *t, const char *cols, int n)
{
    for (int c = 0; c < t->ncols; c++)
        if (in_list(cols, t->names[c]))
            hpq_table_decimals(t, c, n);
}

void hpq_time_columns(hpq_table *t)
{
    decimals(t, "time,excl,mean,max,min,tran,sync,wall,mpi_time,work,ibarrier,barrier,crit_wait,"
                "crit_hold,lock_wait,lock_hold,task_time,taskwait,ord_wait,ord_hold,red_wait,"
                "worst_time", TIME_DECIMALS);
    decimals(t, "imbalance", 2);
    decimals(t, "pct", 1);
}

const char hpq_node_times_sql[] =
    "SELECT node, time, excl FROM node_excl ORDER BY node";

double hpq_query_double(const hpq_ctx *ctx, const char *sql)
{
    sqlite3_stmt *st;
    double v = 0;
    if (sqlite3_prepare_v2(ctx->db, sql, -1, &st, NULL) == SQLITE_OK &&
        sqlite3_step(st) == SQLITE_ROW)
        v = sqlite3_column_double(st, 0);
    sqlite3_finalize(st);
    return v;
}

int hpq_aggregate_stored(const hpq_ctx *ctx, const char *name)
{
    char sql[256];
    snprintf(sql, sizeof sql, "SELECT NOT EXISTS (SELECT 1 FROM sqlite_temp_master"
                              " WHERE name = '%s') AND EXISTS (SELECT 1 FROM"
                              " main.sqlite_master WHERE name = '%s' AND type = 'table')",
             name, name);
    return hpq_query_double(ctx, sql) != 0;
}

int hpq_is_aggregated(const hpq_ctx *ctx)
{
    return hpq_query_double(ctx, "SELECT value FROM run WHERE key = 'aggregated'") == 1;
}

int hpq_refuse_aggregated(const hpq_ctx *ctx, const char *what)
{
    if (!hpq_is_aggregated(ctx))
        return 0;
    snprintf(ctx->err, ctx->errlen, "%s needs the per-rank records: %s is the database of an"
             " aggregated profile (HPROF_AGGREGATE); run again with HPROF_AGGREGATE=0", what,
             ctx->db_path);
    return -1;
}
