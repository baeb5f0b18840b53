/*
 * trace.c - hprof-query --task-trace: the task timeline recorded with
 * HPROF_TASK_TRACE, as Chrome trace-event JSON (chrome://tracing,
 * Perfetto): a process per rank, a thread per thread, a slice per task
 * execution and per task creation, and a flow arrow from each creation to
 * its execution when both are in the trace.  Times are microseconds since
 * the earliest rank's start.  With --format csv, the same events as a
 * table (seconds).
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include "report.h"
#include "report_util.h"

static const char *const events_sql =
    "SELECT t.rank, t.thread, t.kind, t.id, t.parent, t.team,"
    " t.begin + (r.start_ns - (SELECT MIN(start_ns) FROM rank)) / 1e9 AS b,"
    " t.end + (r.start_ns - (SELECT MIN(start_ns) FROM rank)) / 1e9 AS e, s.label,"
    " EXISTS (SELECT 1 FROM task x WHERE x.rank = t.rank AND x.id = t.id"
    "  AND x.kind <> t.kind) AS linked"
    " FROM task t JOIN rank r ON r.rank = t.rank JOIN site s ON s.id = t.site"
    " ORDER BY t.rank, t.thread, b, t.kind DESC";

typedef struct trace_event {
    int64_t rank, thread, team;
    uint64_t id, parent;
    int create, linked;
    double begin, end;    /* microseconds */
    const char *label;
} trace_event;

static void read_event(sqlite3_stmt *st, trace_event *ev)
{
    ev->rank = sqlite3_column_int64(st, 0);
    ev->thread = sqlite3_column_int64(st, 1);
    ev->create = strcmp((const char *)sqlite3_column_text(st, 2), "create") == 0;
    ev->id = (uint64_t)sqlite3_column_int64(st, 3);
    ev->parent = (uint64_t)sqlite3_column_int64(st, 4);
    ev->team = sqlite3_column_int64(st, 5);
    ev->begin = sqlite3_column_double(st, 6) * 1e6;
    ev->end = sqlite3_column_double(st, 7) * 1e6;
    const unsigned char *label = sqlite3_column_text(st, 8);
    ev->label = label ? (const char *)label : "task";
    ev->linked = sqlite3_column_int(st, 9);
}

/* Process and thread names, once each (events come sorted by rank, thread). */
static void print_names(FILE *out, const trace_event *ev, int64_t *last_rank,
                        int64_t *last_thread, int *first)
{
    if (ev->rank != *last_rank) {
        fprintf(out, "%s\n{\"ph\":\"M\",\"name\":\"process_name\",\"pid\":%" PRId64
                ",\"args\":{\"name\":\"rank %" PRId64 "\"}}", *first ? "" : ",", ev->rank,
                ev->rank);
        *first = 0;
        *last_rank = ev->rank;
        *last_thread = -1;
    }
    if (ev->thread != *last_thread) {
        fprintf(out, ",\n{\"ph\":\"M\",\"name\":\"thread_name\",\"pid\":%" PRId64
                ",\"tid\":%" PRId64 ",\"args\":{\"name\":\"thread %" PRId64 "\"}}",
                ev->rank, ev->thread, ev->thread);
        *last_thread = ev->thread;
    }
}

static void print_slice(FILE *out, const trace_event *ev)
{
    fputs(",\n{\"name\":", out);
    hpq_print_json_string(out, ev->label);
    fprintf(out, ",\"cat\":\"%s\",\"ph\":\"X\",\"pid\":%" PRId64 ",\"tid\":%" PRId64
            ",\"ts\":%.3f,\"dur\":%.3f,\"args\":{\"id\":\"0x%" PRIx64 "\"",
            ev->create ? "task create" : "task", ev->rank, ev->thread, ev->begin,
            ev->end - ev->begin, ev->id);
    if (ev->create)
        fprintf(out, ",\"parent\":\"0x%" PRIx64 "\"", ev->parent);
    fprintf(out, ",\"team\":%" PRId64 "}}", ev->team);
}

/* The arrow leaves the middle of the creation slice and binds to the
 * execution slice that starts where it ends. */
static void print_flow(FILE *out, const trace_event *ev)
{
    if (!ev->linked)
        return;
    double ts = ev->create ? (ev->begin + ev->end) / 2 : ev->begin;
    fprintf(out, ",\n{\"name\":\"task\",\"cat\":\"task\",\"ph\":\"%s\",%s\"id\":\"%" PRId64
            ":0x%" PRIx64 "\",\"pid\":%" PRId64 ",\"tid\":%" PRId64 ",\"ts\":%.3f}",
            ev->create ? "s" : "f", ev->create ? "" : "\"bp\":\"e\",", ev->rank, ev->id,
            ev->rank, ev->thread, ts);
}

/* --format csv: the events as a table (seconds since the earliest rank's
 * start), one row per task creation and execution. */
static int task_trace_csv(const hpq_ctx *ctx)
{
    hpq_table *t = hpq_query_table(ctx,
        "SELECT t.rank, t.thread, t.kind, s.label AS site, t.id, t.parent, t.team,"
        " t.begin + (r.start_ns - (SELECT MIN(start_ns) FROM rank)) / 1e9 AS begin,"
        " t.end + (r.start_ns - (SELECT MIN(start_ns) FROM rank)) / 1e9 AS end"
        " FROM task t JOIN rank r ON r.rank = t.rank JOIN site s ON s.id = t.site"
        " ORDER BY t.rank, t.thread, begin, t.kind DESC");
    if (!t)
        return -1;
    int rc = -1;
    if (t->failed)
        hpq_oom(ctx);
    else if (t->nrows == 0)
        snprintf(ctx->err, ctx->errlen, "%s: no task timeline (run the program with "
                 "HPROF_TASK_TRACE=N)", ctx->db_path);
    else
        rc = hpq_print_table(ctx, t);
    hpq_table_free(t);
    return rc;
}

int hpq_report_task_trace(const hpq_ctx *ctx)
{
    sqlite3_stmt *st;
    if (hpq_refuse_aggregated(ctx, "--task-trace"))
        return -1;
    if (ctx->opt->format == HPQ_CSV)
        return task_trace_csv(ctx);
    if (sqlite3_prepare_v2(ctx->db, events_sql, -1, &st, NULL) != SQLITE_OK) {
        snprintf(ctx->err, ctx->errlen, "%s: %s", ctx->db_path, sqlite3_errmsg(ctx->db));
        return -1;
    }
    int64_t last_rank = -1, last_thread = -1;
    int first = 1, rc;
    trace_event ev;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        read_event(st, &ev);
        if (first)
            fputs("{\"displayTimeUnit\":\"ms\",\"traceEvents\":[", ctx->out);
        print_names(ctx->out, &ev, &last_rank, &last_thread, &first);
        print_slice(ctx->out, &ev);
        print_flow(ctx->out, &ev);
    }
    sqlite3_finalize(st);
    if (rc != SQLITE_DONE) {
        snprintf(ctx->err, ctx->errlen, "%s: %s", ctx->db_path, sqlite3_errmsg(ctx->db));
        return -1;
    }
    if (first) {
        snprintf(ctx->err, ctx->errlen, "%s: no task timeline (run the program with "
                 "HPROF_TASK_TRACE=N)", ctx->db_path);
        return -1;
    }
    fputs("\n]}\n", ctx->out);
    return 0;
}
