/*
 * compare.c - hprof-query diff A B and hprof-query scaling A B C...: runs
 * compared context by context.  Node ids differ between runs, so calling
 * contexts are matched by their path of site labels from the root (the
 * node_path view) and sites by their label.  The first run is ctx->db;
 * the others are opened as hpq_open does (a profile is merged on first
 * use) and attached as r1, r2, ...
 */
#include "config.h"
#include <assert.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "matrix.h"
#include "qopen.h"
#include "report_util.h"

#define MAX_RUNS 11      /* the first run and SQLite's default limit of 10 attached databases */

/* The schema name of run i: "main" for the first, then r1, r2, ... */
static void schema_of(int i, char *buf, size_t len)
{
    if (i == 0)
        snprintf(buf, len, "main");
    else
        snprintf(buf, len, "r%d", i);
}

static int attach_one(const hpq_ctx *ctx, char *path, int i)
{
    sqlite3 *db;
    char *db_path, name[16];
    sqlite3_stmt *st = NULL;
    if (hpq_open(1, &path, &db, &db_path, ctx->err, ctx->errlen))
        return -1;
    sqlite3_close(db);
    schema_of(i, name, sizeof name);
    char *sql = sqlite3_mprintf("ATTACH DATABASE %Q AS %s", db_path, name);
    int rc = -1;
    if (sql && sqlite3_prepare_v2(ctx->db, sql, -1, &st, NULL) == SQLITE_OK &&
        sqlite3_step(st) == SQLITE_DONE)
        rc = 0;
    else if (!sql)
        hpq_oom(ctx);
    else
        snprintf(ctx->err, ctx->errlen, "%s: %s", db_path, sqlite3_errmsg(ctx->db));
    sqlite3_finalize(st);
    sqlite3_free(sql);
    free(db_path);
    return rc;
}

/* Attaches paths[1..npaths-1]. */
static int attach_runs(const hpq_ctx *ctx, char *const *paths, int npaths)
{
    for (int i = 1; i < npaths; i++)
        if (attach_one(ctx, paths[i], i))
            return -1;
    return 0;
}

/* Text decimals by column name: times 6, shares 2, speedups and
 * efficiencies 3. */
static void compare_decimals(hpq_table *t)
{
    for (int c = 0; c < t->ncols; c++) {
        const char *n = t->names[c];
        if (strncmp(n, "d_", 2) == 0)
            n += 2;
        if (strncmp(n, "time", 4) == 0 || strcmp(n, "loss") == 0)
            hpq_table_decimals(t, c, 6);
        else if (strncmp(n, "share", 5) == 0)
            hpq_table_decimals(t, c, 2);
        else if (strncmp(n, "speedup", 7) == 0 || strncmp(n, "efficiency", 10) == 0)
            hpq_table_decimals(t, c, 3);
    }
}

/* ---- diff ---- */

/* Per path (nodes) or label (sites) of run s: time, count, share of the
 * run's thread time (each rank's wall x its threads, summed), which is the
 * root's time, as in the default report (the root site is left to the
 * root node). */
static char *diff_side_sql(const char *s, int sites)
{
    if (sites)
        return sqlite3_mprintf(
            "SELECT label AS name, SUM(time) AS time, SUM(calls) AS count,"
            " 100.0 * SUM(time) / (SELECT SUM(wall * MAX(threads, 1)) FROM %s.rank) AS share"
            " FROM %s.site_time WHERE kind != 'root' GROUP BY label", s, s);
    return sqlite3_mprintf(
        "WITH tt AS (SELECT SUM(wall * MAX(threads, 1)) AS t FROM %s.rank),"
        " n AS (SELECT p.path AS name, CASE WHEN p.path = '/' THEN (SELECT t FROM tt)"
        "  ELSE SUM(st.time) END AS time, SUM(st.count) AS count"
        "  FROM %s.node_path p JOIN %s.stat st ON st.node = p.id GROUP BY p.path)"
        " SELECT name, time, count, 100.0 * time / (SELECT t FROM tt) AS share FROM n", s, s, s);
}

/* What diff counts as a change of time: more than this share of the
 * larger of the two times, and more than half the last digit text
 * prints (1 us): a smaller one is rounding (the same time summed in
 * another order, converted from another clock, printed and read back),
 * not a change of the run.  A changed call count always counts. */
#define DIFF_REL_TOLERANCE "1e-4"
#define DIFF_ABS_TOLERANCE "5e-7"

/* Nodes and sites of main (A) matched with r1's (B): those whose time or
 * count changed, or that only one run has, by |change in time|. */
static char *diff_sql(void)
{
    char *na = diff_side_sql("main", 0), *nb = diff_side_sql("r1", 0);
    char *sa = diff_side_sql("main", 1), *sb = diff_side_sql("r1", 1);
    char *sql = NULL;
    if (na && nb && sa && sb)
        sql = sqlite3_mprintf(
            "WITH na AS (%s), nb AS (%s), sa AS (%s), sb AS (%s),"
            " j AS (SELECT 'node' AS what, a.name AS name, a.time AS ta, b.time AS tb,"
            "   a.count AS ca, b.count AS cb, a.share AS sa, b.share AS sb"
            "  FROM na a LEFT JOIN nb b ON b.name = a.name"
            " UNION ALL SELECT 'node', b.name, NULL, b.time, NULL, b.count, NULL, b.share"
            "  FROM nb b WHERE b.name NOT IN (SELECT name FROM na)"
            " UNION ALL SELECT 'site', a.name, a.time, b.time, a.count, b.count, a.share, b.share"
            "  FROM sa a LEFT JOIN sb b ON b.name = a.name"
            " UNION ALL SELECT 'site', b.name, NULL, b.time, NULL, b.count, NULL, b.share"
            "  FROM sb b WHERE b.name NOT IN (SELECT name FROM sa))"
            " SELECT what, name, CASE WHEN ta IS NULL THEN 'added' WHEN tb IS NULL"
            "  THEN 'removed' ELSE 'changed' END AS status,"
            " ta AS time_a, tb AS time_b, COALESCE(tb, 0) - COALESCE(ta, 0) AS d_time,"
            " ca AS count_a, cb AS count_b, COALESCE(cb, 0) - COALESCE(ca, 0) AS d_count,"
            " sa AS share_a, sb AS share_b, COALESCE(sb, 0) - COALESCE(sa, 0) AS d_share"
            " FROM j WHERE ta IS NULL OR tb IS NULL OR ca != cb"
            " OR ABS(tb - ta) > MAX(" DIFF_REL_TOLERANCE " * MAX(ABS(ta), ABS(tb)), "
            DIFF_ABS_TOLERANCE ")"
            " ORDER BY ABS(d_time) DESC, what, name", na, nb, sa, sb);
    sqlite3_free(na);
    sqlite3_free(nb);
    sqlite3_free(sa);
    sqlite3_free(sb);
    return sql;
}

/* Text prints each context once: a site row with the same numbers (times
 * within 1e-9, summed in another order) as a node row whose path ends in
 * the site's label (a site of one context) is that node again.  %s is
 * diff_sql's statement. */
static const char diff_text_fmt[] =
    "WITH d AS (%s) SELECT * FROM d WHERE NOT (d.what = 'site' AND EXISTS (SELECT 1 FROM d n"
    " WHERE n.what = 'node' AND substr(n.name, -length(d.name) - 1) = '/' || d.name"
    " AND (n.time_a IS d.time_a OR ABS(n.time_a - d.time_a) <= 1e-9 * ABS(n.time_a))"
    " AND (n.time_b IS d.time_b OR ABS(n.time_b - d.time_b) <= 1e-9 * ABS(n.time_b))"
    " AND n.count_a IS d.count_a AND n.count_b IS d.count_b))"
    " ORDER BY ABS(d_time) DESC, what, name";

int hpq_report_diff(const hpq_ctx *ctx, char *const *paths, int npaths)
{
    assert(npaths >= 1);
    if (npaths != 2) {
        snprintf(ctx->err, ctx->errlen, "diff needs two runs (profiles or databases), not %d",
                 npaths);
        return -1;
    }
    if (attach_runs(ctx, paths, npaths))
        return -1;
    char *sql = diff_sql(), *once = NULL;
    if (!sql)
        return hpq_oom(ctx);
    if (ctx->opt->format == HPQ_TEXT && !(once = sqlite3_mprintf(diff_text_fmt, sql))) {
        sqlite3_free(sql);
        return hpq_oom(ctx);
    }
    hpq_table *t = hpq_query_table(ctx, once ? once : sql);
    sqlite3_free(sql);
    sqlite3_free(once);
    if (!t)
        return -1;
    int rc = 0;
    if (ctx->opt->format == HPQ_TEXT) {
        fprintf(ctx->out, "diff ");
        hpq_print_text_string(ctx->out, paths[0]);
        fprintf(ctx->out, " -> ");
        hpq_print_text_string(ctx->out, paths[1]);
        fprintf(ctx->out, "\n(nodes by path, sites by label; d_ = second - first; d_share:"
                " the change of the share of each run's thread time, in %%)\n");
        if (t->nrows == 0)
            fprintf(ctx->out, "no differences\n");
    }
    if (t->nrows > 0 || ctx->opt->format != HPQ_TEXT) {
        compare_decimals(t);
        hpq_text_hide(t, "share_a,share_b");  /* d_share tells the change */
        rc = hpq_print_table(ctx, t);
    }
    hpq_table_free(t);
    return rc;
}

/* ---- scaling ---- */

typedef struct run_size {
    int64_t ranks, threads;
} run_size;

static void run_size_of(const hpq_ctx *ctx, int i, run_size *r)
{
    char s[16], sql[128];
    schema_of(i, s, sizeof s);
    snprintf(sql, sizeof sql, "SELECT COUNT(*) FROM %s.rank", s);
    r->ranks = (int64_t)hpq_query_double(ctx, sql);
    snprintf(sql, sizeof sql, "SELECT COALESCE(MAX(threads), 0) FROM %s.rank", s);
    r->threads = (int64_t)hpq_query_double(ctx, sql);
}

/* A node's time in a run: the longest any rank's thread spent in it (its
 * elapsed time on the critical rank); the root's is the run's wall time
 * (the longest rank's). */
static char *scaling_side_sql(int i)
{
    char s[16];
    schema_of(i, s, sizeof s);
    return sqlite3_mprintf("n%d AS (SELECT p.path AS path, CASE WHEN p.path = '/'"
                           " THEN (SELECT MAX(wall) FROM %s.rank) ELSE MAX(st.time) END AS t"
                           " FROM %s.node_path p JOIN %s.stat st ON st.node = p.id"
                           " GROUP BY p.path)", i, s, s, s);
}

/* Appends to *sql (sqlite3_mprintf'd) and frees the old text. */
static int append(char **sql, char *more)
{
    if (!more)
        return -1;
    char *joined = sqlite3_mprintf("%z%s", *sql, more);
    sqlite3_free(more);
    *sql = joined;
    return joined ? 0 : -1;
}

static char *scaling_sql(const run_size *size, int nruns)
{
    char *sql = sqlite3_mprintf("WITH ");
    int bad = 0;
    for (int i = 0; i < nruns && !bad; i++)
        bad = append(&sql, sqlite3_mprintf("%s%z", i ? ", " : "", scaling_side_sql(i)));
    bad = bad || append(&sql, sqlite3_mprintf(" SELECT n0.path AS node"));
    for (int i = 0; i < nruns && !bad; i++)
        bad = append(&sql, sqlite3_mprintf(", n%d.t AS time_%d", i, i + 1));
    for (int i = 1; i < nruns && !bad; i++) {
        double res = (double)(size[i].ranks * size[i].threads);
        double res0 = (double)(size[0].ranks * size[0].threads);
        bad = append(&sql, sqlite3_mprintf(", n0.t / n%d.t AS speedup_%d,"
                                           " n0.t / n%d.t * %.17g / %.17g AS efficiency_%d",
                                           i, i + 1, i, res0, res, i + 1));
    }
    if (!bad) {
        int last = nruns - 1;
        double ratio = (double)(size[0].ranks * size[0].threads) /
                       (double)(size[last].ranks * size[last].threads);
        bad = append(&sql, sqlite3_mprintf(", n%d.t - n0.t * %.17g AS loss FROM n0", last,
                                           ratio));
    }
    for (int i = 1; i < nruns && !bad; i++)
        bad = append(&sql, sqlite3_mprintf(" LEFT JOIN n%d ON n%d.path = n0.path", i, i));
    bad = bad || append(&sql, sqlite3_mprintf(" ORDER BY loss IS NULL, loss DESC, node"));
    if (bad) {
        sqlite3_free(sql);
        return NULL;
    }
    return sql;
}

static int check_sizes(const hpq_ctx *ctx, char *const *paths, const run_size *size, int n)
{
    for (int i = 0; i < n; i++)
        if (size[i].ranks <= 0 || size[i].threads <= 0) {
            snprintf(ctx->err, ctx->errlen, "%s: the run has no ranks with threads", paths[i]);
            return -1;
        }
    return 0;
}

/* Text: how the columns are computed, a line per run with its size,
 * then the table. */
static int print_scaling_text(const hpq_ctx *ctx, char *const *paths, const run_size *size,
                              int npaths, hpq_table *t)
{
    fprintf(ctx->out, "scaling relative to run 1 (time: the longest any thread of a rank"
            " spent in the node, the root's the wall time; efficiency = speedup x resources_1 / resources_i,"
            " resources = ranks x threads; loss = time_%d - time_1 x resources_1 /"
            " resources_%d)\n", npaths, npaths);
    for (int i = 0; i < npaths; i++) {
        fprintf(ctx->out, "run %d: ", i + 1);
        hpq_print_text_string(ctx->out, paths[i]);
        fprintf(ctx->out, " (%lld rank%s x %lld thread%s)\n", (long long)size[i].ranks,
                size[i].ranks == 1 ? "" : "s", (long long)size[i].threads,
                size[i].threads == 1 ? "" : "s");
    }
    return hpq_print_table(ctx, t);
}

/* The runs: run (1, 2, ...), path, ranks, threads, resources. */
static hpq_table *runs_table(char *const *paths, const run_size *size, int npaths)
{
    static const char *const names[] = {"run", "path", "ranks", "threads", "resources"};
    hpq_table *t = hpq_table_new(5, names);
    for (int i = 0; t && i < npaths; i++) {
        hpq_table_add_row(t);
        hpq_set_int(t, 0, i + 1);
        hpq_set_str(t, 1, paths[i]);
        hpq_set_int(t, 2, size[i].ranks);
        hpq_set_int(t, 3, size[i].threads);
        hpq_set_int(t, 4, size[i].ranks * size[i].threads);
    }
    return t;
}

/* A new table: "kind", then the columns of a, then those of b. */
static hpq_table *kinds_table(const hpq_table *a, const hpq_table *b)
{
    int ncols = 1 + a->ncols + b->ncols;
    const char **names = calloc((size_t)ncols, sizeof *names);
    if (!names)
        return NULL;
    names[0] = "kind";
    for (int c = 0; c < a->ncols; c++)
        names[1 + c] = a->names[c];
    for (int c = 0; c < b->ncols; c++)
        names[1 + a->ncols + c] = b->names[c];
    hpq_table *t = hpq_table_new(ncols, (const char *const *)names);
    free(names);
    return t;
}

/* Appends row r of `from` to t as kind `kind`, from column `col` on. */
static void add_kind_row(hpq_table *t, const char *kind, const hpq_table *from, size_t r,
                         int col)
{
    assert(col + from->ncols <= t->ncols);
    hpq_table_add_row(t);
    hpq_set_str(t, 0, kind);
    for (int c = 0; c < from->ncols; c++)
        hpq_set_cell(t, col + c, hpq_cell_at(from, r, c));
}

/* CSV, one table: a row per run (kind "run", with the run's columns at
 * the end), then a row per node within --top (kind "node"). */
static int print_scaling_csv(const hpq_ctx *ctx, const hpq_table *runs, const hpq_table *nodes,
                             size_t shown)
{
    hpq_table *t = kinds_table(nodes, runs);
    if (!t)
        return hpq_oom(ctx);
    for (size_t r = 0; r < runs->nrows; r++)
        add_kind_row(t, "run", runs, r, 1 + nodes->ncols);
    for (size_t r = 0; r < shown; r++)
        add_kind_row(t, "node", nodes, r, 1);
    int rc = hpq_table_print(t, ctx->out, HPQ_CSV) ? hpq_oom(ctx) : 0;
    hpq_table_free(t);
    return rc;
}

/* JSON, one object: {"runs": [run, path, ranks, threads, resources of
 * each], "nodes": [the nodes within --top]}. */
static int print_scaling_json(const hpq_ctx *ctx, const hpq_table *runs,
                              const hpq_table *nodes, size_t shown)
{
    hpq_table view = *nodes;
    view.nrows = shown;
    fputs("{\"runs\": ", ctx->out);
    if (hpq_table_print(runs, ctx->out, HPQ_JSON))
        return hpq_oom(ctx);
    fputs(", \"nodes\": ", ctx->out);
    if (hpq_table_print(&view, ctx->out, HPQ_JSON))
        return hpq_oom(ctx);
    fputs("}\n", ctx->out);
    return 0;
}

/* CSV and JSON: the runs' sizes and the nodes (sorted by --sort). */
static int print_scaling_data(const hpq_ctx *ctx, char *const *paths, const run_size *size,
                              int npaths, hpq_table *nodes)
{
    int desc, col = hpq_sort_column(ctx, nodes, &desc);
    if (col == -2)
        return -1;
    if (col >= 0 && hpq_table_sort(nodes, col, desc))
        return hpq_oom(ctx);
    hpq_table *runs = runs_table(paths, size, npaths);
    if (!runs)
        return hpq_oom(ctx);
    size_t shown = hpq_rows_allowed(ctx, nodes->nrows);
    int rc = ctx->opt->format == HPQ_CSV ? print_scaling_csv(ctx, runs, nodes, shown)
                                         : print_scaling_json(ctx, runs, nodes, shown);
    hpq_table_free(runs);
    return rc;
}

int hpq_report_scaling(const hpq_ctx *ctx, char *const *paths, int npaths)
{
    run_size size[MAX_RUNS];
    if (npaths < 2 || npaths > MAX_RUNS) {
        snprintf(ctx->err, ctx->errlen, "scaling needs 2 to %d runs, not %d", MAX_RUNS,
                 npaths);
        return -1;
    }
    if (attach_runs(ctx, paths, npaths))
        return -1;
    for (int i = 0; i < npaths; i++)
        run_size_of(ctx, i, &size[i]);
    if (check_sizes(ctx, paths, size, npaths))
        return -1;
    char *sql = scaling_sql(size, npaths);
    if (!sql)
        return hpq_oom(ctx);
    hpq_table *t = hpq_query_table(ctx, sql);
    sqlite3_free(sql);
    if (!t)
        return -1;
    compare_decimals(t);
    int rc = ctx->opt->format == HPQ_TEXT ? print_scaling_text(ctx, paths, size, npaths, t)
                                          : print_scaling_data(ctx, paths, size, npaths, t);
    hpq_table_free(t);
    return rc;
}
