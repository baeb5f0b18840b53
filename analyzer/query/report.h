/*
 * report.h - the reports of hprof-query, each read from the database
 * into tables and printed only once complete.
 */
#ifndef HPQ_REPORT_H
#define HPQ_REPORT_H

#include <stdio.h>
#include <sqlite3.h>
#include "table.h"

typedef struct hpq_options {
    hpq_format format;
    long depth;        /* deepest level listed, -1 = all */
    long top;          /* rows listed, 0 = all */
    int top_given;     /* --top was on the command line: CSV and JSON honour it
                          too (text output always does) */
    int by_rank;       /* --comm: per (source rank, peer) */
    const char *sort;  /* --sort COLUMN: rows (siblings in a tree) by it, or NULL */
    int sort_dir;      /* --sort COLUMN:asc -1, :desc 1, else 0: numbers descending,
                          text ascending */
    const char *root;  /* --root: list the subtree under this node (nodepath.h) */
    int no_run_header; /* the listing without the run header (interactive mode) */
    int kids_only;     /* the listing without the row of its top node (ls) */
} hpq_options;

typedef struct hpq_ctx {
    sqlite3 *db;
    const char *db_path;
    const hpq_options *opt;
    FILE *out;
    char *err;
    size_t errlen;
} hpq_ctx;

/* Each returns 0, or -1 with a one-line message in ctx->err. */
int hpq_report_tree(const hpq_ctx *ctx);
int hpq_report_flat(const hpq_ctx *ctx);
/* A filter file excluding the procedures called often whose mean time per
 * call is below factor x the probe cost (suggest.c), to path or, when
 * path is NULL, ctx->out. */
int hpq_suggest_filter(const hpq_ctx *ctx, const char *path, double factor);
int hpq_report_comm(const hpq_ctx *ctx, const char *site);
int hpq_report_ranks(const hpq_ctx *ctx, const char *site);
/* Per-thread table of an OpenMP construct: its time, the waits and holds
 * recorded inside it, executions and tasks. */
int hpq_report_threads(const hpq_ctx *ctx, const char *site);
/* Bottom-up view of one site: the site over all its contexts, then its
 * callers, theirs, ... each with the site's calls and time (callers.c). */
int hpq_report_callers(const hpq_ctx *ctx, const char *site);
/* Tasks created per (parent construct, child construct). */
int hpq_report_tasks(const hpq_ctx *ctx);
/* The task timeline (HPROF_TASK_TRACE) as Chrome trace-event JSON: a
 * slice per task execution and creation (process = rank, thread =
 * thread), an arrow from each creation to the execution (trace.c). */
int hpq_report_task_trace(const hpq_ctx *ctx);
/* Overhead classes per node of the subtree at path (NULL: the root):
 * overheads.c. */
int hpq_report_overheads(const hpq_ctx *ctx, const char *path);
/* The same rows as a table with the columns of its CSV (node, parent,
 * depth, label, total, computation, data_movement, synchronization,
 * control, loss, unidentified: seconds), down to depth levels below the
 * node (-1: all), for other reports (hprof-report).  NULL with ctx->err. */
hpq_table *hpq_overheads_rows(const hpq_ctx *ctx, const char *path, long depth);
int hpq_report_sql(const hpq_ctx *ctx, const char *sql);

#endif
