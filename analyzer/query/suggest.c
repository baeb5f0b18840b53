/*
 * suggest.c - hprof-query --suggest-filter: a filter file (hp_filter.h
 * grammar) that excludes the procedures, loops and call statements whose
 * probes cost about as much as what they measure (a call statement of a
 * procedure with no site of its own, one of a header or of another
 * library, or a cheap call of a procedure that is not cheap elsewhere).  A site is named when it was entered at
 * least HPQ_SUGGEST_MIN_CALLS times (so a rarely run cheap one keeps its
 * probe) and its mean inclusive time per call (entry) is below factor
 * times the cost of a timed probe pair: the mean over the ranks of the
 * calibrated cost the run recorded (table rank_cost, kind "probe timed",
 * else "hook timed": the intrusion compensation's calibration), or, for a
 * run that recorded none, the constant HPQ_PROBE_PAIR_NS.  Each rule is
 * preceded by a comment line with its count and mean.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sqlite3.h>
#include "report.h"
#include "report_util.h"

#define HPQ_PROBE_PAIR_NS 30.0       /* a timed tier-2 probe pair, this machine's order */
#define HPQ_SUGGEST_MIN_CALLS 10000

/* The procedures of the run that qualify: called at least ?1 times,
 * their mean outermost inclusive time (all ranks and threads) per call
 * below ?2 seconds. */
#define HPQ_CHEAP_PROCEDURES \
    "SELECT s.name, SUM(st.calls), SUM(st.time) FROM site_time st JOIN site s ON s.id = st.site" \
    " WHERE s.kind = 'procedure' AND s.name IS NOT NULL AND s.name <> 'main'" \
    " GROUP BY s.name HAVING SUM(st.calls) >= ?1 AND SUM(st.time) < ?2 * SUM(st.calls)"

/* Those procedures, cheapest first. */
static const char *const procedures_sql =
    HPQ_CHEAP_PROCEDURES " ORDER BY SUM(st.time) / SUM(st.calls), s.name";

/* Loops of the run, the same way: label (for@file:line), file name
 * without directories, line, entries and time. */
static const char *const loops_sql =
    "SELECT MIN(s.label), replace(s.file, rtrim(s.file, replace(s.file, '/', '')), ''),"
    " s.line, SUM(st.calls), SUM(st.time) FROM site_time st JOIN site s ON s.id = st.site"
    " WHERE s.kind = 'loop' AND s.file IS NOT NULL AND s.line > 0"
    " GROUP BY s.file, s.line HAVING SUM(st.calls) >= ?1 AND SUM(st.time) < ?2 * SUM(st.calls)"
    " ORDER BY SUM(st.time) / SUM(st.calls), s.file, s.line";

/* Call statements of the run, the same way (label callee@file:line), but
 * those of a procedure a function rule names (its rule excludes its calls
 * too) and the local MPI calls (what the MPI views attribute). */
static const char *const calls_sql =
    "SELECT MIN(s.label), replace(s.file, rtrim(s.file, replace(s.file, '/', '')), ''),"
    " s.line, SUM(st.calls), SUM(st.time) FROM site_time st JOIN site s ON s.id = st.site"
    " WHERE s.kind = 'call' AND s.file IS NOT NULL AND s.line > 0 AND s.name IS NOT NULL"
    " AND s.name NOT LIKE 'MPI\\_%' ESCAPE '\\'"
    " AND s.name NOT IN (SELECT name FROM (" HPQ_CHEAP_PROCEDURES "))"
    " GROUP BY s.file, s.line HAVING SUM(st.calls) >= ?1 AND SUM(st.time) < ?2 * SUM(st.calls)"
    " ORDER BY SUM(st.time) / SUM(st.calls), s.file, s.line";

static sqlite3_stmt *prepare(const hpq_ctx *ctx, const char *sql, double limit_ns)
{
    sqlite3_stmt *st;

    if (sqlite3_prepare_v2(ctx->db, sql, -1, &st, NULL) != SQLITE_OK) {
        snprintf(ctx->err, ctx->errlen, "suggest-filter: %s", sqlite3_errmsg(ctx->db));
        return NULL;
    }
    sqlite3_bind_int64(st, 1, HPQ_SUGGEST_MIN_CALLS);
    sqlite3_bind_double(st, 2, limit_ns * 1e-9);
    return st;
}

static int finish(const hpq_ctx *ctx, sqlite3_stmt *st, int rc)
{
    sqlite3_finalize(st);
    if (rc != SQLITE_DONE) {
        snprintf(ctx->err, ctx->errlen, "suggest-filter: %s", sqlite3_errmsg(ctx->db));
        return -1;
    }
    return 0;
}

/* The rules "exclude WHAT FILE:LINE" of the sites sql finds (loops or
 * call statements); adds their number to *n. */
static int write_line_rules(const hpq_ctx *ctx, FILE *out, const char *sql, const char *what,
                            double limit_ns, int *n)
{
    sqlite3_stmt *st = prepare(ctx, sql, limit_ns);
    int rc;

    if (!st)
        return -1;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        const char *label = (const char *)sqlite3_column_text(st, 0);
        const char *file = (const char *)sqlite3_column_text(st, 1);
        sqlite3_int64 entries = sqlite3_column_int64(st, 3);
        double mean_ns = 1e9 * sqlite3_column_double(st, 4) / (double)entries;
        if (!file || !*file || strpbrk(file, " \t\r\n#*?[:"))
            continue;
        fprintf(out, "# %s: %lld %s, mean %.1f ns per %s\nexclude %s %s:%d\n", label ? label : what,
                (long long)entries, strcmp(what, "loop") == 0 ? "entries" : "calls", mean_ns,
                strcmp(what, "loop") == 0 ? "entry" : "call", what, file, sqlite3_column_int(st, 2));
        ++*n;
    }
    return finish(ctx, st, rc);
}

/* The calibrated cost of a timed probe pair in ns, or 0 when the run
 * recorded none (no rank_cost table: a profile without calibration). */
static double calibrated_cost_ns(const hpq_ctx *ctx)
{
    static const char *const sql =
        "SELECT COALESCE((SELECT AVG(outside) FROM rank_cost WHERE kind = 'probe timed'),"
        " (SELECT AVG(outside) FROM rank_cost WHERE kind = 'hook timed'), 0)";
    sqlite3_stmt *st;
    double ns = 0;

    if (sqlite3_prepare_v2(ctx->db, sql, -1, &st, NULL) != SQLITE_OK)
        return 0;   /* no such table */
    if (sqlite3_step(st) == SQLITE_ROW)
        ns = 1e9 * sqlite3_column_double(st, 0);
    sqlite3_finalize(st);
    return ns > 0 ? ns : 0;
}

static int write_rules(const hpq_ctx *ctx, FILE *out, double factor)
{
    double cost_ns = calibrated_cost_ns(ctx);
    int calibrated = cost_ns > 0;
    double limit_ns = factor * (calibrated ? cost_ns : HPQ_PROBE_PAIR_NS);
    sqlite3_stmt *st = prepare(ctx, procedures_sql, limit_ns);
    int rc, n = 0;

    if (!st)
        return -1;
    fprintf(out, "# hprof-query --suggest-filter: procedures and call statements called and\n"
                 "# loops entered >= %d times whose mean time per call or entry is below\n"
                 "# %g x the probe cost\n"
                 "# (%.3g ns a timed probe pair, %s) = %.3g ns\n",
            HPQ_SUGGEST_MIN_CALLS, factor, calibrated ? cost_ns : HPQ_PROBE_PAIR_NS,
            calibrated ? "calibrated in the run" : "a constant: the run records no calibrated cost",
            limit_ns);
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        const char *name = (const char *)sqlite3_column_text(st, 0);
        sqlite3_int64 calls = sqlite3_column_int64(st, 1);
        double mean_ns = 1e9 * sqlite3_column_double(st, 2) / (double)calls;
        if (!name || strpbrk(name, " \t\r\n#*?["))
            continue;   /* not a C name: the grammar could not say it */
        fprintf(out, "# %s: %lld calls, mean %.1f ns per call\nexclude function %s\n", name,
                (long long)calls, mean_ns, name);
        n++;
    }
    if (finish(ctx, st, rc) < 0 || write_line_rules(ctx, out, loops_sql, "loop", limit_ns, &n) < 0 ||
        write_line_rules(ctx, out, calls_sql, "call", limit_ns, &n) < 0)
        return -1;
    if (n == 0)
        fputs("# no procedure, loop or call statement qualifies\n", out);
    return 0;
}

int hpq_suggest_filter(const hpq_ctx *ctx, const char *path, double factor)
{
    if (hpq_refuse_aggregated(ctx, "--suggest-filter"))   /* before writing path */
        return -1;
    FILE *out = path ? fopen(path, "w") : ctx->out;
    int rc;

    if (!out) {
        snprintf(ctx->err, ctx->errlen, "%s: %s", path, strerror(errno));
        return -1;
    }
    rc = write_rules(ctx, out, factor);
    if (path && fclose(out) != 0 && rc == 0) {
        snprintf(ctx->err, ctx->errlen, "%s: %s", path, strerror(errno));
        rc = -1;
    }
    return rc;
}
