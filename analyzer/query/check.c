/*
 * check.c - hprof-query --check (check.h): runs the rules, prints the
 * violations (the first HPQ_CHECK_MAX_SHOWN) or one "ok" line.  The rules
 * over whole ranks live here (d: task creations = executions, e: shares);
 * the per-thread tree rules in checktree.c.
 */
#include <string.h>
#include "check.h"

static int check_sql_error(hpq_checker *ck)
{
    snprintf(ck->ctx->err, ck->ctx->errlen, "sqlite: %s", sqlite3_errmsg(ck->ctx->db));
    return -1;
}

/* Runs `sql`; each row goes to `row`.  Returns 0 or -1 on an SQL error. */
static int for_each_row(hpq_checker *ck, const char *sql,
                        void (*row)(hpq_checker *ck, sqlite3_stmt *st))
{
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(ck->ctx->db, sql, -1, &st, NULL) != SQLITE_OK)
        return check_sql_error(ck);
    int rc;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW)
        row(ck, st);
    sqlite3_finalize(st);
    return rc == SQLITE_DONE ? 0 : check_sql_error(ck);
}

static void count_row(hpq_checker *ck, sqlite3_stmt *st)
{
    ck->ranks = (uint64_t)sqlite3_column_int64(st, 0);
    ck->complete = sqlite3_column_int64(st, 1) == 0;
}

/* Rule d applies to runs that completed: every rank present, none
 * aborted or out of nodes. */
static int find_completeness(hpq_checker *ck)
{
    return for_each_row(ck, "SELECT COUNT(*), SUM((flags & 7) != 0 OR overflow_events > 0)"
                        " + COALESCE((SELECT value FROM run WHERE key = 'nranks'), COUNT(*))"
                        " - COUNT(*) FROM rank", count_row);
}

static void task_count_row(hpq_checker *ck, sqlite3_stmt *st)
{
    ck->task_pairs++;
    int64_t created = sqlite3_column_int64(st, 3), ran = sqlite3_column_int64(st, 4);
    if (created != ran)
        hpq_violation(ck, 'd', sqlite3_column_int64(st, 0), -1, 0,
                      "task construct at %s:%lld: %lld creations, %lld executions (a"
                      " complete run executes every task it creates)",
                      (const char *)sqlite3_column_text(st, 1), sqlite3_column_int64(st, 2),
                      (long long)created, (long long)ran);
}

/* Rule d, counts: per rank and task construct (its file:line). */
static int check_task_counts(hpq_checker *ck)
{
    return for_each_row(
        ck,
        "SELECT st.rank, COALESCE(s.file, '?'), s.line,"
        " SUM(CASE WHEN s.name = 'task create' THEN st.count ELSE 0 END),"
        " SUM(CASE WHEN s.name = 'task' THEN st.count ELSE 0 END)"
        " FROM stat st JOIN node n ON n.id = st.node JOIN site s ON s.id = n.site"
        " WHERE s.kind = 'omp' AND s.name IN ('task create', 'task')"
        " GROUP BY st.rank, s.file, s.line ORDER BY st.rank, s.file, s.line",
        task_count_row);
}

static void mpi_share_row(hpq_checker *ck, sqlite3_stmt *st)
{
    hpq_violation(ck, 'e', sqlite3_column_int64(st, 0), -1, 0,
                  "MPI share %.2f%% > 100%% (MPI time %.6f s over wall %.6f s x %lld"
                  " threads calling MPI)", sqlite3_column_double(st, 1),
                  sqlite3_column_double(st, 2), sqlite3_column_double(st, 3),
                  sqlite3_column_int64(st, 4));
}

static void omp_share_row(hpq_checker *ck, sqlite3_stmt *st)
{
    hpq_violation(ck, 'e', sqlite3_column_int64(st, 0), -1, 0,
                  "OpenMP waits %.6f s > thread time %.6f s (wall x %lld threads)",
                  sqlite3_column_double(st, 1), sqlite3_column_double(st, 2),
                  sqlite3_column_int64(st, 3));
}

static void root_row(hpq_checker *ck, sqlite3_stmt *st)
{
    hpq_violation(ck, 'e', sqlite3_column_int64(st, 0), sqlite3_column_int64(st, 1), 0,
                  "the thread's top-level nodes %.6f s > the rank's wall %.6f s",
                  sqlite3_column_double(st, 2), sqlite3_column_double(st, 3));
}

/* Rule e: shares on their stated denominators, and no thread's
 * top-level nodes (the children of its root) longer than the rank's wall
 * time.  The <overflow> node is a child of the root but no top-level
 * activity: the events past HPROF_MAX_NODES it gathers ran inside the
 * thread's other nodes. */
static int check_shares(hpq_checker *ck)
{
    char sql[1024];
    snprintf(sql, sizeof sql, "SELECT rank, mpi_pct, mpi_time, wall, mpi_threads FROM rank_mpi"
             " WHERE mpi_pct > %.17g ORDER BY rank", 100.0 * (1 + HPQ_CHECK_REL));
    if (for_each_row(ck, sql, mpi_share_row))
        return -1;
    snprintf(sql, sizeof sql,
             "SELECT r.rank, SUM(st.time) AS w, r.wall * MAX(r.omp_threads, r.threads),"
             " MAX(r.omp_threads, r.threads) FROM rank r JOIN stat st ON st.rank = r.rank"
             " JOIN node n ON n.id = st.node JOIN site s ON s.id = n.site"
             " WHERE s.kind = 'omp' AND s.name IN ('implicit barrier', 'barrier',"
             " 'critical wait', 'lock wait', 'ordered wait', 'taskwait', 'reduction')"
             " GROUP BY r.rank HAVING w > r.wall * MAX(r.omp_threads, r.threads) * %.17g + %.17g"
             " ORDER BY r.rank", 1 + HPQ_CHECK_REL, HPQ_CHECK_EPS);
    if (for_each_row(ck, sql, omp_share_row))
        return -1;
    snprintf(sql, sizeof sql,
             "SELECT st.rank, st.thread, SUM(st.time) AS t, r.wall FROM stat st"
             " JOIN node n ON n.id = st.node JOIN rank r ON r.rank = st.rank"
             " JOIN site s ON s.id = n.site"
             " WHERE n.parent IN (SELECT id FROM node WHERE parent IS NULL) AND s.kind != 'overflow'"
             " GROUP BY st.rank, st.thread"
             " HAVING t > r.wall * %.17g + %.17g ORDER BY st.rank, st.thread",
             1 + HPQ_CHECK_REL, HPQ_CHECK_EPS);
    return for_each_row(ck, sql, root_row);
}

static void print_ok(const hpq_checker *ck)
{
    fprintf(ck->ctx->out,
            "check: ok: %llu ranks, %llu threads, %llu node records: children within"
            " parents, waits within regions, tasks and waits within their constructs,"
            " numbers consistent, shares <= 100%%; %s (tolerance 1%% + 2 us per record)\n",
            (unsigned long long)ck->ranks, (unsigned long long)ck->groups,
            (unsigned long long)ck->nodes_checked,
            ck->complete ? "task creations = executions" : "incomplete run: task counts"
                                                           " not compared");
}

int hpq_check(const hpq_ctx *ctx)
{
    hpq_checker ck;
    memset(&ck, 0, sizeof ck);
    ck.ctx = ctx;
    if (find_completeness(&ck) || hpq_check_trees(&ck))
        return -1;
    if (ck.complete && check_task_counts(&ck))
        return -1;
    if (check_shares(&ck))
        return -1;
    if (ck.violations == 0) {
        print_ok(&ck);
        return 0;
    }
    if (ck.violations > HPQ_CHECK_MAX_SHOWN)
        fprintf(ctx->out, "check: ... %llu more violations\n",
                (unsigned long long)(ck.violations - HPQ_CHECK_MAX_SHOWN));
    fprintf(ctx->out, "check: %llu violations\n", (unsigned long long)ck.violations);
    return 1;
}
