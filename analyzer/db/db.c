/*
 * db.c - the database writer: merges a decoded profile (merge.c) and
 * stores run, ranks, global sites, the merged calling-context tree and the
 * per rank/thread statistics in SQLite, plus the views used by hprof-query.
 * The schema is documented in docs/formats.md ("The database"); keep the two in step.
 * The aggregates (db_agg.c) are materialised after the rows are in.
 */
#include "config.h"
#include <assert.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <sqlite3.h>
#include "db.h"
#include "db_agg.h"
#include "db_rows.h"
#include "db_tree.h"
#include "db_counters.h"
#include "detail.h"
#include "dbcomp.h"
#include "merge.h"
#include "phases.h"

static const char *const schema_sql =
    "CREATE TABLE run(key TEXT PRIMARY KEY, value);\n"
    "CREATE TABLE rank(rank INTEGER PRIMARY KEY, host TEXT, pid INTEGER,"
    " threads INTEGER, start_ns INTEGER, end_ns INTEGER, wall REAL, mpi_time REAL,"
    " overflow_events INTEGER, flags INTEGER, omp_threads INTEGER, overhead REAL,"
    " overhead_sum REAL, comp_clamps INTEGER);\n"
    "CREATE TABLE rank_cost(rank INTEGER, kind TEXT, outside REAL, inside REAL);\n"
    "CREATE TABLE site(id INTEGER PRIMARY KEY, kind TEXT, name TEXT, func TEXT,"
    " file TEXT, line INTEGER, end_line INTEGER, parent INTEGER, callee INTEGER,"
    " flags INTEGER, module TEXT, offset INTEGER, label TEXT);\n"
    "CREATE TABLE node(id INTEGER PRIMARY KEY, parent INTEGER, site INTEGER,"
    " depth INTEGER, outer INTEGER, lo INTEGER, hi INTEGER);\n"
    "CREATE TABLE comm_range(node INTEGER PRIMARY KEY, first INTEGER, last INTEGER);\n"
    "CREATE TABLE task(rank INTEGER, thread INTEGER, kind TEXT, site INTEGER,"
    " team INTEGER, id INTEGER, parent INTEGER, begin REAL, end REAL);\n";

/* The per rank/thread rows: stored (detail mode), or virtual tables
 * reading them from the profile (aggregate mode, detail.h). */
static const char *const rows_sql =
    "CREATE TABLE stat(node INTEGER, rank INTEGER, thread INTEGER, count INTEGER,"
    " time REAL, min REAL, max REAL, timed INTEGER, raw_time REAL, raw_min REAL,"
    " raw_max REAL, PRIMARY KEY(node, rank, thread)) WITHOUT ROWID;\n"
    "CREATE TABLE comm(node INTEGER, rank INTEGER, thread INTEGER, peer INTEGER,"
    " count INTEGER, bytes_sent INTEGER, bytes_recv INTEGER, tran REAL, sync REAL,"
    " min REAL, max REAL, id INTEGER PRIMARY KEY);\n";

static const char *const index_sql =
    "CREATE INDEX site_name ON site(name);\n"
    "CREATE INDEX site_func ON site(func);\n"
    "CREATE INDEX site_line ON site(line);\n"
    "CREATE INDEX node_parent ON node(parent);\n"
    "CREATE INDEX node_site ON node(site);\n"
    "CREATE INDEX node_lo ON node(lo);\n"
    "CREATE INDEX task_id ON task(rank, id);\n";

/* The views; the aggregates built on them (node_time, site_time, ...)
 * are tables, defined in db_agg.c. */
static const char *const view_sql =
    "CREATE VIEW node_rank AS SELECT node, rank, SUM(count) AS calls,"
    " SUM(time) AS time, MIN(min) AS min, MAX(max) AS max"
    " FROM stat GROUP BY node, rank;\n"
    /* The static line tables of the seed paper, as views of `site`:
     * procedure line or loop line -> the lines directly inside it. */
    "CREATE VIEW PL AS SELECT p.file AS file, p.line AS proc_line, p.name AS proc,"
    " c.line AS loop_line FROM site c JOIN site p ON p.id = c.parent"
    " WHERE c.kind = 'loop' AND p.kind = 'procedure';\n"
    "CREATE VIEW PCOM AS SELECT p.file AS file, p.line AS proc_line, p.name AS proc,"
    " c.line AS comm_line, c.name AS comm FROM site c JOIN site p ON p.id = c.parent"
    " WHERE c.kind = 'comm' AND p.kind = 'procedure';\n"
    "CREATE VIEW PC AS SELECT p.file AS file, p.line AS proc_line, p.name AS proc,"
    " c.line AS call_line, c.name AS callee,"
    " COALESCE((SELECT MIN(q.line) FROM site q WHERE q.kind = 'procedure'"
    "  AND q.name = c.name AND q.file = c.file), (SELECT MIN(q.line) FROM site q"
    "  WHERE q.kind = 'procedure' AND q.name = c.name)) AS callee_line"
    " FROM site c JOIN site p ON p.id = c.parent"
    " WHERE c.kind = 'call' AND p.kind = 'procedure';\n"
    "CREATE VIEW LL AS SELECT p.file AS file, p.line AS loop_line,"
    " c.line AS inner_loop_line FROM site c JOIN site p ON p.id = c.parent"
    " WHERE c.kind = 'loop' AND p.kind = 'loop';\n"
    "CREATE VIEW LCOM AS SELECT p.file AS file, p.line AS loop_line,"
    " c.line AS comm_line, c.name AS comm FROM site c JOIN site p ON p.id = c.parent"
    " WHERE c.kind = 'comm' AND p.kind = 'loop';\n"
    "CREATE VIEW LC AS SELECT p.file AS file, p.line AS loop_line,"
    " c.line AS call_line, c.name AS callee,"
    " COALESCE((SELECT MIN(q.line) FROM site q WHERE q.kind = 'procedure'"
    "  AND q.name = c.name AND q.file = c.file), (SELECT MIN(q.line) FROM site q"
    "  WHERE q.kind = 'procedure' AND q.name = c.name)) AS callee_line"
    " FROM site c JOIN site p ON p.id = c.parent"
    " WHERE c.kind = 'call' AND p.kind = 'loop';\n"
    "CREATE INDEX site_parent ON site(parent);\n"
    /* Explicit tasks: the construct that created each "task create" node
     * is the nearest "task" node above it ("parallel": the implicit task
     * of that region; none: the initial task). */
    "CREATE VIEW task_parent AS WITH RECURSIVE up(node, anc) AS ("
    " SELECT n.id, n.parent FROM node n JOIN site s ON s.id = n.site"
    "  WHERE s.kind = 'omp' AND s.name = 'task create'"
    " UNION ALL SELECT up.node, a.parent FROM up JOIN node a ON a.id = up.anc"
    "  JOIN site sa ON sa.id = a.site"
    "  WHERE NOT (sa.kind = 'omp' AND sa.name IN ('task', 'parallel')))"
    " SELECT up.node AS node, up.anc AS parent_node FROM up"
    " LEFT JOIN node a ON a.id = up.anc LEFT JOIN site sa ON sa.id = a.site"
    " WHERE up.anc IS NULL OR (sa.kind = 'omp' AND sa.name IN ('task', 'parallel'));\n"
    "CREATE VIEW task_children AS SELECT p.site AS parent_site,"
    " COALESCE(ps.label, '(initial task)') AS parent, c.site AS child_site,"
    " cs.label AS child, SUM(st.count) AS created"
    " FROM task_parent tp JOIN node c ON c.id = tp.node JOIN site cs ON cs.id = c.site"
    " JOIN stat st ON st.node = tp.node LEFT JOIN node p ON p.id = tp.parent_node"
    " LEFT JOIN site ps ON ps.id = p.site GROUP BY p.site, c.site;\n"
    /* A node's path "/label/label/..." ("/" for the root), built from the
     * parent links when asked for: the node table stores none. */
    "CREATE VIEW node_path AS WITH RECURSIVE up(id, path) AS ("
    " SELECT id, '/' FROM node WHERE parent IS NULL"
    " UNION ALL SELECT n.id, CASE WHEN up.path = '/' THEN '' ELSE up.path END"
    "  || '/' || s.label FROM node n JOIN up ON n.parent = up.id JOIN site s ON s.id = n.site)"
    " SELECT id, path FROM up;\n";

static int detail_mode = HPF_DETAIL_AUTO;

void hpf_db_set_detail(int mode)
{
    detail_mode = mode;
}

typedef struct writer {
    sqlite3 *db;
    hpf_profile *p;     /* its comm records are freed once written */
    const hpf_merged *m;
    char *err;
    size_t errlen;
    hpf_comp comp;      /* compensated times per rank (dbcomp.h) */
    int rows;           /* the stat and comm rows are stored (detail mode) */
} writer;

static int db_fail(writer *w, const char *what)
{
    snprintf(w->err, w->errlen, "%s: %s", what, sqlite3_errmsg(w->db));
    return -1;
}

static int exec(writer *w, const char *sql)
{
    char *msg = NULL;
    if (sqlite3_exec(w->db, sql, NULL, NULL, &msg) == SQLITE_OK)
        return 0;
    snprintf(w->err, w->errlen, "sqlite: %s", msg ? msg : "error");
    sqlite3_free(msg);
    return -1;
}

static int prepare(writer *w, const char *sql, sqlite3_stmt **st)
{
    if (sqlite3_prepare_v2(w->db, sql, -1, st, NULL) != SQLITE_OK)
        return db_fail(w, "sqlite prepare");
    return 0;
}

/* Runs a bound insert and resets it for the next row. */
static int step(writer *w, sqlite3_stmt *st)
{
    int rc = sqlite3_step(st);
    sqlite3_reset(st);      /* every insert binds all its columns again */
    return rc == SQLITE_DONE ? 0 : db_fail(w, "sqlite insert");
}

static void bind_text(sqlite3_stmt *st, int col, const char *s)
{
    sqlite3_bind_text(st, col, s, -1, SQLITE_STATIC);
}

static int put_run_text(writer *w, sqlite3_stmt *st, const char *key, const char *value)
{
    bind_text(st, 1, key);
    bind_text(st, 2, value);
    return step(w, st);
}

static int put_run_int(writer *w, sqlite3_stmt *st, const char *key, int64_t value)
{
    bind_text(st, 1, key);
    sqlite3_bind_int64(st, 2, value);
    return step(w, st);
}

static int put_run_real(writer *w, sqlite3_stmt *st, const char *key, double value)
{
    bind_text(st, 1, key);
    sqlite3_bind_double(st, 2, value);
    return step(w, st);
}

char *hpf_join_argv(const hp_run_info *run)
{
    size_t len = 1;
    for (uint32_t i = 0; i < run->argc; i++)
        len += strlen(run->argv[i]) + 1;
    char *s = malloc(len);
    if (!s)
        return NULL;
    s[0] = '\0';
    for (uint32_t i = 0; i < run->argc; i++) {
        if (i)
            strcat(s, " ");
        strcat(s, run->argv[i]);
    }
    return s;
}

const char *hpf_clock_name(uint32_t clock)
{
    switch (clock) {
    case HP_CLOCK_TSC: return "tsc";
    case HP_CLOCK_MONOTONIC: return "monotonic";
    default: return "unknown";
    }
}

static int write_run(writer *w, const char *source)
{
    const hp_run_info *run = &w->p->run;
    uint32_t threads_max = 0;
    double wall = 0;
    for (uint32_t r = 0; r < w->p->nranks; r++) {
        const hp_rank_info *ri = &w->p->ranks[r].info;
        if (ri->threads > threads_max)
            threads_max = ri->threads;
        if (ri->wall > wall)
            wall = ri->wall;
    }
    char *argv = hpf_join_argv(run);
    char resolved[PATH_MAX];
    const char *src = realpath(source, resolved) ? resolved : source;
    char id[HPF_ID_LEN] = "";
    if (hpf_file_identity(source, id, sizeof id) != 0)
        id[0] = 0;   /* not a readable file (a test's in-memory profile) */
    sqlite3_stmt *st;
    int rc = -1;
    if (!argv) {
        snprintf(w->err, w->errlen, "out of memory");
        return -1;
    }
    if (prepare(w, "INSERT INTO run(key, value) VALUES(?, ?)", &st) == 0) {
        rc = put_run_text(w, st, "program", run->program) ||
             put_run_text(w, st, "argv", argv) ||
             put_run_int(w, st, "nranks", run->nranks) ||
             put_run_int(w, st, "threads_max", threads_max) ||
             put_run_text(w, st, "clock", hpf_clock_name(run->clock)) ||
             put_run_real(w, st, "ticks_per_sec", run->ticks_per_sec) ||
             put_run_int(w, st, "start_ns", (int64_t)run->start_ns) ||
             put_run_int(w, st, "end_ns", (int64_t)run->end_ns) ||
             put_run_real(w, st, "wall", wall) ||
             put_run_int(w, st, "format_version", w->p->version) ||
             put_run_text(w, st, "source", src) ||
             put_run_int(w, st, "detail", w->rows) ||
             (id[0] && put_run_text(w, st, "source_id", id)) ? -1 : 0;
        sqlite3_finalize(st);
    }
    free(argv);
    return rc;
}

/* The calibrated event costs of each rank present (none for a file of
 * format 2-3). */
static int write_rank_costs(writer *w)
{
    sqlite3_stmt *st;
    int rc = 0;
    if (prepare(w, "INSERT INTO rank_cost VALUES(?, ?, ?, ?)", &st))
        return -1;
    for (uint32_t r = 0; r < w->p->nranks && rc == 0; r++) {
        const hp_rank_info *ri = &w->p->ranks[r].info;
        if (ri->flags & HP_RANKF_MISSING)
            continue;
        for (uint32_t k = 0; k < HP_COST_KINDS && rc == 0; k++) {
            if (ri->cost[k].outside <= 0 && ri->cost[k].inside <= 0)
                continue;
            sqlite3_bind_int64(st, 1, ri->rank);
            bind_text(st, 2, hp_cost_kind_name(k));
            sqlite3_bind_double(st, 3, ri->cost[k].outside);
            sqlite3_bind_double(st, 4, ri->cost[k].inside);
            rc = step(w, st);
        }
    }
    sqlite3_finalize(st);
    return rc;
}

static int write_ranks(writer *w)
{
    sqlite3_stmt *st;
    int rc = 0;
    if (prepare(w, "INSERT INTO rank VALUES(?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)", &st))
        return -1;
    for (uint32_t r = 0; r < w->p->nranks && rc == 0; r++) {
        const hp_rank_info *ri = &w->p->ranks[r].info;
        if (ri->flags & HP_RANKF_MISSING)
            continue;   /* no row: means and imbalances are over the ranks present */
        sqlite3_bind_int64(st, 1, ri->rank);
        bind_text(st, 2, ri->host);
        sqlite3_bind_int64(st, 3, ri->pid);
        sqlite3_bind_int64(st, 4, ri->threads);
        sqlite3_bind_int64(st, 5, (int64_t)ri->start_ns);
        sqlite3_bind_int64(st, 6, (int64_t)ri->end_ns);
        sqlite3_bind_double(st, 7, ri->wall);
        sqlite3_bind_double(st, 8, ri->mpi_time);
        sqlite3_bind_int64(st, 9, (int64_t)ri->overflow_events);
        sqlite3_bind_int64(st, 10, ri->flags);
        sqlite3_bind_int64(st, 11, ri->omp_threads);
        const hp_comp_stats *cs = &w->comp.stats[r];
        sqlite3_bind_double(st, 12, cs->overhead);
        sqlite3_bind_double(st, 13, cs->overhead_total);
        sqlite3_bind_int64(st, 14, (int64_t)(cs->clamped_zero + cs->clamped_fit));
        rc = step(w, st);
    }
    sqlite3_finalize(st);
    return rc ? rc : write_rank_costs(w);
}

/* Merged site i's record is its first rank's (merge.h). */
static hpf_site_source profile_site(const void *ctx, uint32_t i)
{
    const writer *w = ctx;
    const hpf_gsite *g = &w->m->sites[i];
    const hp_rank_data *rd = &w->p->ranks[g->rank];
    return (hpf_site_source){&rd->sites[g->local], rd->strings, g->throttled};
}

static int write_sites(writer *w)
{
    return hpf_db_write_sites(w->db, w->m, profile_site, w, w->err, w->errlen);
}

static int write_nodes(writer *w)
{
    return hpf_db_write_nodes(w->db, w->m, w->err, w->errlen);
}

/* The per rank/thread rows and the aggregates (db_rows.h). */
static int write_rows(writer *w, int node_aggregates)
{
    if (hpf_comp_start(w->p, &w->comp)) {
        snprintf(w->err, w->errlen, "out of memory compensating the times");
        return -1;
    }
    return hpf_db_write_rows(w->db, w->p, w->m, &w->comp, node_aggregates, w->rows, w->err,
                             w->errlen);
}

/* A profile of one rank and one thread (db_agg.h). */
static int one_thread(const hpf_profile *p)
{
    return p->nranks == 1 && p->ranks[0].info.threads <= 1;
}

/* Are the stat and comm rows stored?  Always for one rank and one
 * thread (its per-node aggregates are views of them), else as asked, or
 * when there are at most HPF_DETAIL_ROWS of them. */
static int stores_rows(const hpf_profile *p)
{
    uint64_t rows = 0;
    for (uint32_t r = 0; r < p->nranks; r++)
        rows += (uint64_t)p->ranks[r].nnodes + p->ranks[r].ncomms;
    if (one_thread(p) || detail_mode == HPF_DETAIL_ALWAYS)
        return 1;
    return detail_mode == HPF_DETAIL_AUTO && rows <= HPF_DETAIL_ROWS;
}

/* The database format (db_agg.h), read by hprof-query before anything. */
static int set_format(writer *w)
{
    char sql[64];
    snprintf(sql, sizeof sql, "PRAGMA user_version = %d;", HPF_DB_FORMAT);
    return exec(w, sql);
}

/* Ends a phase of write_all (phases.h): 0, for a chain of ||. */
static int mark(const char *name)
{
    hpf_phase_mark(name);
    return 0;
}

static int write_all(writer *w, const char *source)
{
    /* Written to a temporary file renamed when complete: no journal or
     * sync is needed for safety.  The cache and the sorts of the indices
     * (spilled to files) bound SQLite's memory: rows are appended with a
     * 16 MB cache while the decoded profile is still in memory, the
     * indices sorted with 64 MB once its comm records are freed (at 256
     * mkbig ranks a 256 MB cache and in-memory sorts made the peak 779 MB
     * instead of 471 MB, for the same time: HPROF_MERGE_PHASES).  Pages
     * of 16 KB: at 1024 mkbig ranks 15.5 s of CPU instead of 17 s (less
     * b-tree work and fewer writes); 64 KB gained nothing more and makes
     * each of a query's random row reads four times larger. */
    if (exec(w, "PRAGMA page_size=16384; PRAGMA journal_mode=OFF; PRAGMA synchronous=OFF;"
                " PRAGMA cache_size=-16384; PRAGMA temp_store=FILE; BEGIN;") ||
        exec(w, schema_sql) ||
        exec(w, w->rows ? rows_sql : HPF_DETAIL_TABLES_SQL) ||
        write_run(w, source) ||
        write_sites(w) ||
        write_nodes(w) || mark("run,sites,nodes") ||
        hpf_db_write_counters(w->db, w->p, w->m, w->err, w->errlen) ||
        write_rows(w, !one_thread(w->p)) ||
        write_ranks(w) ||
        exec(w, "PRAGMA cache_size=-65536;") ||
        exec(w, index_sql) || mark("indices") ||
        exec(w, view_sql) ||
        hpf_db_write_aggregates(w->db, one_thread(w->p), !w->rows, w->err, w->errlen) ||
        mark("aggregate indices") ||
        exec(w, hpf_db_record_objects_sql) ||
        set_format(w) ||
        exec(w, "COMMIT;") || mark("commit"))
        return -1;
    return 0;
}

static int write_tmp(hpf_profile *p, const hpf_merged *m, const char *source,
                     const char *tmp, char *err, size_t errlen)
{
    writer w = {NULL, p, m, err, errlen, {0, NULL, NULL}, stores_rows(p)};
    int rc = -1;
    /* Millions of inserts: no allocation statistics (a global mutex per
     * malloc; fails harmlessly once SQLite is initialized) and no mutex on
     * a connection only this thread uses. */
    sqlite3_config(SQLITE_CONFIG_MEMSTATUS, 0);
    if (hpf_detail_register()) {
        snprintf(err, errlen, "cannot register the sqlite module " HPF_DETAIL_MODULE);
        return -1;
    }
    if (sqlite3_open_v2(tmp, &w.db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE |
                        SQLITE_OPEN_NOMUTEX, NULL) != SQLITE_OK) {
        snprintf(err, errlen, "%s: %s", tmp, w.db ? sqlite3_errmsg(w.db) : "cannot open");
    } else {
        rc = write_all(&w, source);
    }
    if (sqlite3_close(w.db) != SQLITE_OK && rc == 0) {
        snprintf(err, errlen, "%s: cannot close database", tmp);
        rc = -1;
    }
    hpf_comp_free(&w.comp);
    return rc;
}

int hpf_db_write(hpf_profile *p, const char *source, const char *db_path, int force,
                 hpf_db_summary *sum, char *err, size_t errlen)
{
    struct stat sb;
    hpf_merged m;
    char *tmp = NULL;
    int rc = -1;

    if (!force && stat(db_path, &sb) == 0) {
        snprintf(err, errlen, "%s exists (use -f to overwrite)", db_path);
        return -1;
    }
    if (hpf_merge(p, &m)) {
        snprintf(err, errlen, "out of memory merging %s", source);
        return -1;
    }
    hpf_phase_mark("merge");
    if (asprintf(&tmp, "%s.tmp-%ld", db_path, (long)getpid()) < 0) {
        snprintf(err, errlen, "out of memory");
        tmp = NULL;
        goto done;
    }
    unlink(tmp);
    if (write_tmp(p, &m, source, tmp, err, errlen))
        goto done;
    if (rename(tmp, db_path) != 0) {
        snprintf(err, errlen, "cannot rename %s to %s: %s", tmp, db_path, strerror(errno));
        goto done;
    }
    sum->nranks = p->nranks;
    sum->nsites = m.nsites;
    sum->nnodes = m.nnodes;
    rc = 0;
done:
    if (rc && tmp)
        unlink(tmp);
    free(tmp);
    hpf_merged_free(&m);
    return rc;
}

const char *hpf_db_sql(int part)
{
    return part == HPF_DB_SQL_SCHEMA ? schema_sql : part == HPF_DB_SQL_INDEX ? index_sql : view_sql;
}

/* The views, then the aggregates' definitions (one string, made once). */
const char *hpf_db_view_sql(void)
{
    static char *all;
    if (!all && asprintf(&all, "%s%s", view_sql, hpf_db_agg_sql()) < 0)
        all = NULL;
    return all ? all : view_sql;
}

char *hpf_default_db_path(const char *profile)
{
    size_t n = strlen(profile);
    char *out = malloc(n + 4);
    if (!out)
        return NULL;
    memcpy(out, profile, n + 1);
    if (n > 4 && strcmp(profile + n - 4, ".hpf") == 0)
        strcpy(out + n - 4, ".db");
    else
        strcat(out, ".db");
    return out;
}
