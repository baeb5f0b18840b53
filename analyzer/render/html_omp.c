/*
 * html_omp.c - the OpenMP sections of hprof-report's page (html.h): a
 * per-thread table of each of the parallel regions that take the most
 * time (as hprof-query --threads: time, waits recorded inside, work) up
 * to THREAD_RANKS ranks when the per-rank rows are few (hpq_html_rows_few),
 * else one row per region from the aggregates (node_time, node_worst_rank,
 * node_worst_thread: no per-rank row, no profile opened), and
 * the task timeline (table `task`, HPROF_TASK_TRACE) as an SVG with a
 * lane per rank and thread, and below it a lane per level of nesting: a
 * task run while an earlier one on the thread had not ended (it was
 * suspended, e.g. at a taskwait) goes one lane lower.  Both are left out
 * when the run has none.
 */
#include "config.h"
#include <assert.h>
#include <stdlib.h>
#include <string.h>
#include "html.h"
#include "query/report_util.h"

#define REGIONS 3               /* parallel regions with a table */
#define THREAD_RANKS 64         /* up to this many ranks: a row per rank and thread */
#define TL_WIDTH 1100.0         /* px of the timeline's time axis */
#define TL_LEFT 90.0            /* px left of it for the lane names */
#define TL_LANE 16.0            /* px per lane */
#define TL_MAX_TASKS 20000      /* task executions drawn */

/* ---- per-thread tables ---- */

/* Per rank and thread of region ?1: calls, time, the waits recorded
 * strictly inside it (barriers, critical, lock and ordered waits,
 * taskwait), and work = time - waits. */
static const char threads_sql[] =
    "SELECT st.rank, st.thread, SUM(st.count), SUM(st.time),"
    " COALESCE((SELECT SUM(x.time) FROM stat x JOIN node c ON c.id = x.node"
    "  JOIN site cs ON cs.id = c.site JOIN node p ON p.id = ?1"
    "  WHERE cs.kind = 'omp' AND cs.name IN ('implicit barrier', 'barrier', 'critical wait',"
    "  'lock wait', 'ordered wait', 'taskwait', 'reduction') AND c.lo > p.lo AND c.lo <= p.hi"
    "  AND x.rank = st.rank AND x.thread = st.thread), 0)"
    " FROM stat st WHERE st.node = ?1 GROUP BY st.rank, st.thread ORDER BY 1, 2";

/* The same over ranks and threads from the aggregates, for region ?1:
 * calls, time, mean per rank, the slowest rank, its time and its slowest
 * thread, and the waits inside (node_time of the wait nodes). */
static const char summary_sql[] =
    "SELECT t.calls, t.time, t.mean, COALESCE(w.rank, -1), COALESCE(w.time, 0),"
    " COALESCE(wt.thread, -1),"
    " COALESCE((SELECT SUM(x.time) FROM node c JOIN site cs ON cs.id = c.site"
    "  JOIN node_time x ON x.node = c.id JOIN node p ON p.id = ?1"
    "  WHERE cs.kind = 'omp' AND cs.name IN ('implicit barrier', 'barrier', 'critical wait',"
    "  'lock wait', 'ordered wait', 'taskwait', 'reduction') AND c.lo > p.lo AND c.lo <= p.hi),"
    " 0) FROM node_time t LEFT JOIN node_worst_rank w ON w.node = t.node"
    " LEFT JOIN node_worst_thread wt ON wt.node = t.node WHERE t.node = ?1";

static const char regions_sql[] =
    "SELECT n.id FROM node n JOIN site s ON s.id = n.site"
    " WHERE s.kind = 'omp' AND s.name = 'parallel'";

static int put_thread_table(const hpq_ctx *ctx, FILE *out, const hpq_fnode *nd)
{
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(ctx->db, threads_sql, -1, &st, NULL) != SQLITE_OK)
        return hpq_db_error(ctx);
    sqlite3_bind_int64(st, 1, nd->id);
    fprintf(out, "<h3>");
    hpq_html_text(out, nd->label);
    fprintf(out, " (node %lld)</h3>\n<table class=\"threads\" data-node=\"%lld\">\n"
                 "<tr><th>rank</th><th>thread</th><th>calls</th><th>time</th><th>waits</th>"
                 "<th>work</th></tr>\n", (long long)nd->id, (long long)nd->id);
    int rc;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        double time = sqlite3_column_double(st, 3), waits = sqlite3_column_double(st, 4);
        fprintf(out, "<tr><td>%d</td><td>%d</td><td>%lld</td><td>", sqlite3_column_int(st, 0),
                sqlite3_column_int(st, 1), (long long)sqlite3_column_int64(st, 2));
        hpq_html_time(out, time);
        fputs("</td><td>", out);
        hpq_html_time(out, waits);
        fputs("</td><td>", out);
        hpq_html_time(out, time > waits ? time - waits : 0.0);
        fputs("</td></tr>\n", out);
    }
    sqlite3_finalize(st);
    fputs("</table>\n", out);
    return rc == SQLITE_DONE ? 0 : hpq_db_error(ctx);
}

static void put_time_cell(FILE *out, double seconds)
{
    fputs("<td>", out);
    hpq_html_time(out, seconds);
    fputs("</td>", out);
}

/* Region nd's row of the summary table. */
static int put_summary_row(const hpq_ctx *ctx, FILE *out, const hpq_fnode *nd)
{
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(ctx->db, summary_sql, -1, &st, NULL) != SQLITE_OK)
        return hpq_db_error(ctx);
    sqlite3_bind_int64(st, 1, nd->id);
    int rc = sqlite3_step(st);
    if (rc == SQLITE_ROW) {
        double time = sqlite3_column_double(st, 1), waits = sqlite3_column_double(st, 6);
        fprintf(out, "<tr data-node=\"%lld\"><td class=\"l\">", (long long)nd->id);
        hpq_html_text(out, nd->label);
        fprintf(out, " (node %lld)</td><td>%lld</td>", (long long)nd->id,
                (long long)sqlite3_column_int64(st, 0));
        put_time_cell(out, time);
        put_time_cell(out, sqlite3_column_double(st, 2));
        put_time_cell(out, sqlite3_column_double(st, 4));
        fprintf(out, "<td>%d</td><td>%d</td>", sqlite3_column_int(st, 3),
                sqlite3_column_int(st, 5));
        put_time_cell(out, waits);
        put_time_cell(out, time > waits ? time - waits : 0.0);
        fputs("</tr>\n", out);
    }
    sqlite3_finalize(st);
    return rc == SQLITE_ROW || rc == SQLITE_DONE ? 0 : hpq_db_error(ctx);
}

/* The regions over ranks and threads, a row each. */
static int put_summary(const hpq_ctx *ctx, FILE *out, const hpq_fnode **top, size_t k)
{
    fputs("<table id=\"omp-summary\">\n<tr><th class=\"l\">region</th><th>calls</th>"
          "<th>time</th><th>mean per rank</th><th>slowest rank's time</th><th>slowest rank"
          "</th><th>its slowest thread</th><th>waits</th><th>work</th></tr>\n", out);
    int rc = 0;
    for (size_t i = 0; i < k && rc == 0; i++)
        rc = put_summary_row(ctx, out, top[i]);
    fputs("</table>\n", out);
    return rc;
}

/* The REGIONS parallel regions with the largest inclusive time > 0. */
static int top_regions(const hpq_ctx *ctx, const hpq_ftree *tr, const hpq_fnode **top,
                       size_t *k)
{
    sqlite3_stmt *st;
    *k = 0;
    if (sqlite3_prepare_v2(ctx->db, regions_sql, -1, &st, NULL) != SQLITE_OK)
        return hpq_db_error(ctx);
    int rc;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        const hpq_fnode *nd = hpq_ftree_find(tr, sqlite3_column_int64(st, 0));
        if (!nd || nd->incl <= 0)
            continue;
        size_t i = *k < REGIONS ? (*k)++ : REGIONS;     /* insertion by time, id */
        while (i > 0 && (top[i - 1]->incl < nd->incl ||
                         (top[i - 1]->incl == nd->incl && top[i - 1]->id > nd->id))) {
            if (i < REGIONS)
                top[i] = top[i - 1];
            i--;
        }
        if (i < REGIONS)
            top[i] = nd;
    }
    sqlite3_finalize(st);
    return rc == SQLITE_DONE ? 0 : hpq_db_error(ctx);
}

int hpq_html_threads(const hpq_ctx *ctx, const hpq_ftree *tr, FILE *out)
{
    const hpq_fnode *top[REGIONS];
    size_t k;
    if (top_regions(ctx, tr, top, &k))
        return -1;
    if (k == 0)
        return 0;
    int n = hpq_html_nranks(ctx);
    if (n < 0)
        return -1;
    int per_thread = n <= THREAD_RANKS && hpq_html_rows_few(ctx);
    if (per_thread)
        fputs("<h2>OpenMP threads</h2>\n<p class=\"note\">Per rank and thread, the parallel"
              " regions with the most time (s): waits recorded inside (barriers, critical,"
              " lock and ordered waits, taskwait) and work = time - waits.</p>\n"
              "<div id=\"omp\">\n", out);
    else
        fprintf(out, "<h2>OpenMP threads</h2>\n<p class=\"note\">The parallel regions with the"
                     " most time (s), summed over the %d ranks and their threads (the"
                     " database's aggregates): waits recorded inside (barriers, critical, lock"
                     " and ordered waits, taskwait), work = time - waits, and the slowest rank"
                     " and its slowest thread.  <code>hprof-query RUN --threads '#NODE'</code>"
                     " gives the table per rank and thread.</p>\n<div id=\"omp\">\n", n);
    int rc = per_thread ? 0 : put_summary(ctx, out, top, k);
    for (size_t i = 0; per_thread && i < k && rc == 0; i++)
        rc = put_thread_table(ctx, out, top[i]);
    fputs("</div>\n", out);
    return rc;
}

/* ---- task timeline ---- */

/* Task executions on a common clock (each rank's start offset added, as
 * hprof-query --task-trace does), by rank, thread and start. */
static const char tasks_sql[] =
    "SELECT t.rank, t.thread,"
    " t.begin + (r.start_ns - (SELECT MIN(start_ns) FROM rank)) / 1e9 AS b,"
    " t.end + (r.start_ns - (SELECT MIN(start_ns) FROM rank)) / 1e9 AS e, s.label"
    " FROM task t JOIN rank r ON r.rank = t.rank LEFT JOIN site s ON s.id = t.site"
    " WHERE t.kind = 'run' ORDER BY t.rank, t.thread, b, e DESC LIMIT 20000";

typedef struct span {
    int rank, thread;
    double b, e;
    char *label;
    int depth;      /* earlier spans of its rank and thread not ended at b */
} span;

static void free_spans(span *s, size_t n)
{
    for (size_t i = 0; i < n; i++)
        free(s[i].label);
    free(s);
}

static int load_spans(const hpq_ctx *ctx, span **out, size_t *n)
{
    sqlite3_stmt *st;
    _Static_assert(TL_MAX_TASKS == 20000, "tasks_sql's LIMIT");
    *out = NULL;
    *n = 0;
    if (sqlite3_prepare_v2(ctx->db, tasks_sql, -1, &st, NULL) != SQLITE_OK)
        return hpq_db_error(ctx);
    span *s = calloc(TL_MAX_TASKS, sizeof *s);
    if (!s) {
        sqlite3_finalize(st);
        return hpq_oom(ctx);
    }
    int rc;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW && *n < TL_MAX_TASKS) {
        span *p = &s[(*n)++];
        p->rank = sqlite3_column_int(st, 0);
        p->thread = sqlite3_column_int(st, 1);
        p->b = sqlite3_column_double(st, 2);
        p->e = sqlite3_column_double(st, 3);
        const char *lab = (const char *)sqlite3_column_text(st, 4);
        p->label = strdup(lab ? lab : "task");
        if (!p->label)
            rc = SQLITE_NOMEM;
    }
    sqlite3_finalize(st);
    *out = s;
    if (rc == SQLITE_NOMEM)
        return hpq_oom(ctx);
    return rc == SQLITE_DONE || rc == SQLITE_ROW ? 0 : hpq_db_error(ctx);
}

static int same_lane_group(const span *s, size_t i)
{
    return i > 0 && s[i].rank == s[i - 1].rank && s[i].thread == s[i - 1].thread;
}

/* Each span's nesting depth: the spans of its rank and thread (sorted by
 * start, the longer first) that began before it and end after its start
 * (a stack of their ends).  The deepest depth, or -1 when out of memory. */
static int set_depths(span *s, size_t n)
{
    double *ends = malloc((n + 1) * sizeof *ends);
    if (!ends)
        return -1;
    size_t top = 0;
    int deepest = 0;
    for (size_t i = 0; i < n; i++) {
        if (!same_lane_group(s, i))
            top = 0;
        while (top > 0 && ends[top - 1] <= s[i].b)
            top--;
        s[i].depth = (int)top;
        deepest = s[i].depth > deepest ? s[i].depth : deepest;
        ends[top++] = s[i].e;
    }
    free(ends);
    return deepest;
}

/* first_lane[i]: the first lane of span i's rank and thread; their number. */
static size_t assign_lanes(const span *s, size_t n, size_t *first_lane)
{
    size_t lanes = 0, group_start = 0;
    int group_depth = 0;
    for (size_t i = 0; i <= n; i++) {
        if (i == n || (i > 0 && !same_lane_group(s, i))) {
            for (size_t j = group_start; j < i; j++)
                first_lane[j] = lanes;
            lanes += (size_t)group_depth + 1;
            group_start = i;
            group_depth = 0;
        }
        if (i < n && s[i].depth > group_depth)
            group_depth = s[i].depth;
    }
    return lanes;
}

static void put_span(FILE *out, const span *p, double x, double w, double y)
{
    fprintf(out, "<rect class=\"task\" data-depth=\"%d\" x=\"%.2f\" y=\"%.0f\" width=\"%.2f\""
                 " height=\"%.0f\" fill=\"%s\"><title>", p->depth, x, y + 2, w > 0.5 ? w : 0.5,
            TL_LANE - 4, p->depth > 0 ? "#2b7d52" : "#3fae73");
    hpq_html_text(out, p->label);
    fprintf(out, " rank %d thread %d: %.6f s%s</title></rect>\n", p->rank, p->thread,
            p->e - p->b, p->depth > 0 ? " (nested)" : "");
}

static void put_timeline(FILE *out, const span *s, size_t n, const size_t *first_lane,
                         size_t lanes)
{
    double t0 = s[0].b, t1 = s[0].e;
    for (size_t i = 0; i < n; i++) {
        t0 = s[i].b < t0 ? s[i].b : t0;
        t1 = s[i].e > t1 ? s[i].e : t1;
    }
    double scale = t1 > t0 ? TL_WIDTH / (t1 - t0) : 0;
    double height = (double)lanes * TL_LANE + 20;
    fprintf(out, "<svg id=\"timeline\" width=\"%.0f\" height=\"%.0f\" font-family=\"monospace\""
                 " font-size=\"11\">\n", TL_LEFT + TL_WIDTH + 10, height);
    int shown_depth = 0;
    for (size_t i = 0; i < n; i++) {
        double y = (double)(first_lane[i] + (size_t)s[i].depth) * TL_LANE;
        if (!same_lane_group(s, i)) {
            fprintf(out, "<text x=\"0\" y=\"%.0f\">r%d t%d</text>\n", y + 12, s[i].rank,
                    s[i].thread);
            shown_depth = 0;
        }
        if (s[i].depth > shown_depth) {
            shown_depth = s[i].depth;
            fprintf(out, "<text x=\"12\" y=\"%.0f\">nested %d</text>\n", y + 12, s[i].depth);
        }
        put_span(out, &s[i], TL_LEFT + (s[i].b - t0) * scale, (s[i].e - s[i].b) * scale, y);
    }
    fprintf(out, "<text x=\"%.0f\" y=\"%.0f\">0 s</text><text x=\"%.0f\" y=\"%.0f\""
                 " text-anchor=\"end\">%.6f s</text>\n</svg>\n", TL_LEFT, height - 4,
            TL_LEFT + TL_WIDTH, height - 4, t1 - t0);
}

int hpq_html_tasks(const hpq_ctx *ctx, FILE *out)
{
    span *s;
    size_t n;
    if (hpq_is_aggregated(ctx)) {   /* no task events, whatever HPROF_TASK_TRACE said */
        if (hpq_query_double(ctx, "SELECT EXISTS (SELECT 1 FROM site WHERE kind = 'omp'"
                                  " AND name = 'task')") == 1)
            fputs("<h2>Task timeline</h2>\n<p class=\"note\" id=\"tasks-aggregated\">Not"
                  " kept in an aggregated run (HPROF_AGGREGATE): run again with"
                  " HPROF_AGGREGATE=0 and HPROF_TASK_TRACE for it.</p>\n", out);
        return 0;
    }
    if (load_spans(ctx, &s, &n)) {
        free_spans(s, n);
        return -1;
    }
    size_t *first_lane = malloc((n + 1) * sizeof *first_lane);
    int rc = first_lane && set_depths(s, n) >= 0 ? 0 : hpq_oom(ctx);
    if (rc == 0 && n > 0) {
        size_t lanes = assign_lanes(s, n, first_lane);
        fprintf(out, "<h2>Task timeline</h2>\n<p class=\"note\">%zu task executions%s, a lane"
                     " per rank and thread, nested tasks (run while an earlier task of the"
                     " thread was suspended) on a lane per level below it.</p>\n", n,
                n == TL_MAX_TASKS ? " (the first ones)" : "");
        put_timeline(out, s, n, first_lane, lanes);
    }
    free(first_lane);
    free_spans(s, n);
    return rc;
}
