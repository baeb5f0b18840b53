/*
 * overheads.c - hprof-query --overheads [PATH]: the overhead classes of
 * the SCALEA seed paper per node of a subtree.  Each node's time, summed
 * over ranks and threads, is split into computation, data movement (MPI
 * transmission), synchronization (MPI sync delay, OpenMP waits), control
 * of parallelism (fork, join, task creation, MPI calls that move no
 * data), loss of parallelism (serial time on the first thread times the
 * idle threads of the team) and unidentified time.
 *
 * The split works on exclusive time: per rank and thread a node's time
 * less its children's (at least 0), put in the class of the node's site
 * (class_table below; a communication site's sync delay goes to
 * synchronization, the rest to data movement).  A node's class sums are
 * those of its subtree.  A rank's "threads" T is the larger of the
 * threads that recorded (rank.threads) and its OpenMP team size
 * (rank.omp_threads).  The root's total is wall x T summed over the
 * ranks; what its other classes and the loss leave is unidentified (time
 * outside any recorded node: in tier 0 the code between MPI calls; the
 * measurement overhead compensation took out).
 */
#include "config.h"
#include <assert.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "report.h"
#include "report_util.h"
#include "sitesel.h"

enum hpq_oclass { OC_COMP, OC_DATA, OC_SYNC, OC_CTRL, OC_LOSS, OC_UNID, OC_N };

/* THE table of classes: every site kind of the database (site.kind; "mpi"
 * stands for a site flagged HP_SITEF_MPI, an MPI call that is not
 * communication) and, for kind omp, every record name (hp_omp_names).  A
 * NULL name is the kind's default.  Loss of parallelism is no site's: it
 * is computed from the first thread's serial time. */
static const struct {
    const char *kind, *name;
    enum hpq_oclass oclass;
} class_table[] = {
    {"root", NULL, OC_UNID},          /* outside any recorded node */
    {"overflow", NULL, OC_UNID},      /* events past HPROF_MAX_NODES */
    {"procedure", NULL, OC_COMP},
    {"loop", NULL, OC_COMP},
    {"call", NULL, OC_COMP},
    {"region", NULL, OC_COMP},
    {"comm", NULL, OC_DATA},          /* its sync delay, or all of it when it moved no
                                         bytes (a barrier): OC_SYNC */
    {"mpi", NULL, OC_CTRL},           /* MPI_Init, Comm_split, queries ... */
    {"omp", NULL, OC_COMP},           /* parallel, loop, single, master, task */
    {"omp", "critical", OC_COMP},     /* holds: the work done inside */
    {"omp", "lock", OC_COMP},
    {"omp", "ordered", OC_COMP},
    {"omp", "implicit barrier", OC_SYNC},
    {"omp", "barrier", OC_SYNC},
    {"omp", "critical wait", OC_SYNC},
    {"omp", "lock wait", OC_SYNC},
    {"omp", "ordered wait", OC_SYNC},
    {"omp", "taskwait", OC_SYNC},
    {"omp", "atomic", OC_SYNC},       /* includes the wait for the atomic lock */
    {"omp", "flush", OC_SYNC},
    {"omp", "fork", OC_CTRL},
    {"omp", "join", OC_CTRL},
    {"omp", "task create", OC_CTRL},
};
#define NCLASS_TABLE (sizeof class_table / sizeof class_table[0])

static int exec(const hpq_ctx *ctx, const char *sql)
{
    return sqlite3_exec(ctx->db, sql, NULL, NULL, NULL) == SQLITE_OK ? 0 : hpq_db_error(ctx);
}

/* The class table as TEMP table ovh_class(kind, name, class). */
static int load_class_table(const hpq_ctx *ctx)
{
    if (exec(ctx, "DROP TABLE IF EXISTS temp.ovh_class;"
                  "CREATE TEMP TABLE ovh_class(kind TEXT, name TEXT, class INTEGER)"))
        return -1;
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(ctx->db, "INSERT INTO ovh_class VALUES(?, ?, ?)", -1, &st, NULL))
        return hpq_db_error(ctx);
    for (size_t i = 0; i < NCLASS_TABLE; i++) {
        sqlite3_reset(st);
        sqlite3_bind_text(st, 1, class_table[i].kind, -1, SQLITE_STATIC);
        if (class_table[i].name)
            sqlite3_bind_text(st, 2, class_table[i].name, -1, SQLITE_STATIC);
        else
            sqlite3_bind_null(st, 2);
        sqlite3_bind_int(st, 3, (int)class_table[i].oclass);
        if (sqlite3_step(st) != SQLITE_DONE) {
            sqlite3_finalize(st);
            return hpq_db_error(ctx);
        }
    }
    sqlite3_finalize(st);
    return 0;
}

/* TEMP tables the rows are read from:
 *   ovh_node(id, parent, lo, hi, depth, class, inpar): a node, its class
 *     and whether a parallel region lies above it;
 *   ovh_x(node, lo, c0..c4): per node its exclusive time split by class,
 *     summed over ranks and threads (the root's own time left out);
 *   ovh_rank(rank, wall, t, other, loss, f): per rank its wall time, its
 *     threads T, the classified time of its nodes, its loss of
 *     parallelism and the share f of the idle time that is counted as
 *     loss (below 1 when threads recorded work while the first thread
 *     ran serially);
 *   ovh_t0(node, rank, t), ovh_par(lo, rank, t): the first thread's time
 *     per node, and in outermost parallel regions. */
static const char prepare_sql[] =
    "DROP TABLE IF EXISTS temp.ovh_node; DROP TABLE IF EXISTS temp.ovh_x;"
    "DROP TABLE IF EXISTS temp.ovh_rank; DROP TABLE IF EXISTS temp.ovh_t0;"
    "DROP TABLE IF EXISTS temp.ovh_par;"
    "CREATE TEMP TABLE ovh_node AS WITH RECURSIVE"
    " cls AS (SELECT s.id AS site, s.kind = 'omp' AND s.name = 'parallel' AS par,"
    "  COALESCE((SELECT c.class FROM ovh_class c WHERE c.kind = k.kind AND c.name = s.name),"
    "   (SELECT c.class FROM ovh_class c WHERE c.kind = k.kind AND c.name IS NULL), 0) AS class"
    "  FROM site s JOIN (SELECT id, CASE WHEN (flags & 128) != 0 AND kind != 'comm'"
    "   THEN 'mpi' ELSE kind END AS kind FROM site) k ON k.id = s.id),"
    " f(id, parent, lo, hi, depth, class, par, inpar) AS ("
    "  SELECT n.id, n.parent, n.lo, n.hi, n.depth, COALESCE(c.class, 5), COALESCE(c.par, 0), 0"
    "  FROM node n LEFT JOIN cls c ON c.site = n.site WHERE n.parent IS NULL"
    "  UNION ALL SELECT n.id, n.parent, n.lo, n.hi, n.depth, COALESCE(c.class, 0),"
    "  COALESCE(c.par, 0), f.inpar OR f.par FROM node n JOIN f ON n.parent = f.id"
    "  LEFT JOIN cls c ON c.site = n.site)"
    " SELECT id, parent, lo, hi, depth, class, par, inpar FROM f;"
    "CREATE INDEX temp.ovh_node_lo ON ovh_node(lo);"
    "CREATE TEMP TABLE ovh_t0 AS SELECT node, rank, SUM(time) AS t FROM stat"
    " WHERE thread = 0 GROUP BY node, rank;"
    "CREATE INDEX temp.ovh_t0_node ON ovh_t0(node);"
    "CREATE TEMP TABLE ovh_par AS SELECT n.lo AS lo, t.rank AS rank, t.t AS t"
    " FROM ovh_node n JOIN ovh_t0 t ON t.node = n.id WHERE n.par AND NOT n.inpar;"
    "CREATE INDEX temp.ovh_par_lo ON ovh_par(rank, lo);"
    /* per node, rank and thread: exclusive time e and sync delay s; a
     * communication that moved no bytes at all (MPI_Barrier, zero-byte
     * messages) is synchronization as a whole */
    "CREATE TEMP TABLE ovh_e AS WITH"
    " own AS (SELECT node, rank, thread, SUM(time) AS t FROM stat GROUP BY node, rank, thread),"
    " kids AS (SELECT n.parent AS node, s.rank AS rank, s.thread AS thread, SUM(s.time) AS t"
    "  FROM stat s JOIN node n ON n.id = s.node WHERE n.parent IS NOT NULL"
    "  GROUP BY n.parent, s.rank, s.thread),"
    " cs AS (SELECT node, rank, thread, SUM(sync) AS s, SUM(bytes_sent + bytes_recv) AS b"
    "  FROM comm GROUP BY node, rank, thread)"
    " SELECT o.node AS node, o.rank AS rank, MAX(o.t - COALESCE(k.t, 0), 0) AS e,"
    "  CASE WHEN cs.b = 0 THEN MAX(o.t - COALESCE(k.t, 0), 0)"
    "  ELSE MAX(COALESCE(cs.s, 0), 0) END AS s FROM own o"
    " LEFT JOIN kids k ON k.node = o.node AND k.rank = o.rank AND k.thread = o.thread"
    " LEFT JOIN cs ON cs.node = o.node AND cs.rank = o.rank AND cs.thread = o.thread;"
    "CREATE TEMP TABLE ovh_er AS SELECT e.node AS node, e.rank AS rank,"
    " SUM(CASE WHEN n.class = 0 THEN e.e ELSE 0 END) AS c0,"
    " SUM(CASE WHEN n.class = 1 THEN e.e - MIN(e.s, e.e) ELSE 0 END) AS c1,"
    " SUM(CASE WHEN n.class = 2 THEN e.e WHEN n.class = 1 THEN MIN(e.s, e.e) ELSE 0 END) AS c2,"
    " SUM(CASE WHEN n.class = 3 THEN e.e ELSE 0 END) AS c3,"
    " SUM(CASE WHEN n.class = 5 THEN e.e ELSE 0 END) AS c5"
    " FROM ovh_e e JOIN ovh_node n ON n.id = e.node WHERE n.parent IS NOT NULL"
    " GROUP BY e.node, e.rank;"
    "DROP TABLE temp.ovh_e;"
    "CREATE TEMP TABLE ovh_x AS SELECT x.node AS node, n.lo AS lo, SUM(c0) AS c0,"
    " SUM(c1) AS c1, SUM(c2) AS c2, SUM(c3) AS c3, SUM(c5) AS c5"
    " FROM ovh_er x JOIN ovh_node n ON n.id = x.node GROUP BY x.node;"
    "CREATE INDEX temp.ovh_x_lo ON ovh_x(lo);"
    "CREATE TEMP TABLE ovh_r AS SELECT r.rank AS rank, COALESCE(r.wall, 0) AS wall,"
    " MAX(COALESCE(r.threads, 1), COALESCE(r.omp_threads, 1), 1) AS t,"
    " COALESCE((SELECT SUM(c0 + c1 + c2 + c3 + c5) FROM ovh_er x WHERE x.rank = r.rank), 0)"
    "  AS other,"
    " COALESCE((SELECT SUM(p.t) FROM ovh_par p WHERE p.rank = r.rank), 0) AS par0"
    " FROM rank r;"
    /* idle: the team's idle thread time while the first thread runs
     * serially; loss: that, at most what the budget wall x T leaves; f:
     * the share of idle that is loss, applied to every node's loss */
    "CREATE TEMP TABLE ovh_rank AS SELECT rank, wall, t, other,"
    " MIN(idle, MAX(wall * t - other, 0)) AS loss,"
    " CASE WHEN idle > 0 THEN MIN(idle, MAX(wall * t - other, 0)) / idle ELSE 1 END AS f"
    " FROM (SELECT *, MAX(wall - par0, 0) * (t - 1) AS idle FROM ovh_r);"
    "DROP TABLE temp.ovh_r;"
    "DROP TABLE temp.ovh_er;";

/* One row per node of the selected subtrees, in preorder.  A root's
 * classes come from its ranks (budget wall x T); any other node's loss is
 * the first thread's time in it outside parallel regions times (T - 1) f,
 * when no parallel region lies above it. */
static const char rows_sql[] =
    "SELECT n.id, n.parent, n.depth, COALESCE(s.label, '(root)'),"
    " COALESCE(x.c0, 0), COALESCE(x.c1, 0), COALESCE(x.c2, 0), COALESCE(x.c3, 0),"
    " CASE WHEN n.inpar OR n.par THEN 0 ELSE COALESCE((SELECT SUM((rk.t - 1) * rk.f *"
    "  MAX(o.t - COALESCE((SELECT SUM(p.t) FROM ovh_par p WHERE p.rank = o.rank"
    "   AND p.lo BETWEEN n.lo AND n.hi), 0), 0))"
    "  FROM ovh_t0 o JOIN ovh_rank rk ON rk.rank = o.rank WHERE o.node = n.id), 0) END,"
    " COALESCE(x.c5, 0), n.parent IS NULL"
    " FROM ovh_node n JOIN node nn ON nn.id = n.id LEFT JOIN site s ON s.id = nn.site"
    " LEFT JOIN (SELECT a.id AS id, SUM(x.c0) AS c0, SUM(x.c1) AS c1, SUM(x.c2) AS c2,"
    "  SUM(x.c3) AS c3, SUM(x.c5) AS c5 FROM ovh_node a JOIN ovh_x x"
    "  ON x.lo BETWEEN a.lo AND a.hi WHERE a.id IN (SELECT id FROM ovh_sel) GROUP BY a.id) x"
    "  ON x.id = n.id"
    " WHERE n.id IN (SELECT id FROM ovh_sel) ORDER BY n.lo";

/* The root's loss and unidentified time: of the budget wall x T, what
 * the classified nodes leave is loss (ovh_rank), then unidentified. */
static const char root_sql[] =
    "SELECT SUM(loss), SUM(MAX(wall * t - other - loss, 0)) FROM ovh_rank";

/* TEMP table ovh_sel(id): the nodes listed, the subtrees of `nodes`
 * (with --depth D, down to D levels below them). */
static int select_rows(const hpq_ctx *ctx, const char *nodes)
{
    char *sql;
    long depth = ctx->opt->depth;
    if (asprintf(&sql,
                 "DROP TABLE IF EXISTS temp.ovh_sel;"
                 "CREATE TEMP TABLE ovh_sel AS SELECT DISTINCT n.id AS id FROM ovh_node a"
                 " JOIN ovh_node n ON n.lo BETWEEN a.lo AND a.hi WHERE a.id IN (%s)"
                 " AND (%ld < 0 OR n.depth <= a.depth + %ld)",
                 nodes, depth, depth) < 0)
        return hpq_oom(ctx);
    int rc = exec(ctx, sql);
    free(sql);
    return rc;
}

static hpq_table *new_table(const hpq_ctx *ctx)
{
    static const char *const text_names[] = {"node", "name", "total", "comp%", "data%",
                                             "sync%", "ctrl%", "loss%", "unid%"};
    static const char *const data_names[] = {"node", "parent", "depth", "label", "total",
                                             "computation", "data_movement",
                                             "synchronization", "control", "loss",
                                             "unidentified"};
    hpq_table *t = ctx->opt->format == HPQ_TEXT ? hpq_table_new(9, text_names)
                                                : hpq_table_new(11, data_names);
    if (t && ctx->opt->format == HPQ_TEXT)
        for (int c = 2; c < 9; c++)
            hpq_table_decimals(t, c, c == 2 ? 6 : 1);
    return t;
}

/* "  " per level below the first listed node, then the label. */
static char *indented(const char *label, long levels)
{
    size_t n = strlen(label);
    if (levels < 0)
        levels = 0;
    char *s = malloc((size_t)levels * 2 + n + 1);
    if (!s)
        return NULL;
    memset(s, ' ', (size_t)levels * 2);
    memcpy(s + levels * 2, label, n + 1);
    return s;
}

static void add_row(const hpq_ctx *ctx, hpq_table *t, sqlite3_stmt *st, const double *c,
                    long top_depth)
{
    double total = 0;
    for (int i = 0; i < OC_N; i++) {
        assert(c[i] >= 0);
        total += c[i];
    }
    hpq_table_add_row(t);
    hpq_set_int(t, 0, sqlite3_column_int64(st, 0));
    const char *label = (const char *)sqlite3_column_text(st, 3);
    if (ctx->opt->format == HPQ_TEXT) {
        char *s = indented(label ? label : "", sqlite3_column_int64(st, 2) - top_depth);
        hpq_set_str(t, 1, s ? s : "");
        free(s);
        hpq_set_real(t, 2, total);
        for (int i = 0; i < OC_N; i++)
            hpq_set_real(t, 3 + i, total > 0 ? 100.0 * c[i] / total : 0.0);
        return;
    }
    if (sqlite3_column_type(st, 1) != SQLITE_NULL)
        hpq_set_int(t, 1, sqlite3_column_int64(st, 1));
    hpq_set_int(t, 2, sqlite3_column_int64(st, 2));
    hpq_set_str(t, 3, label ? label : "");
    hpq_set_real(t, 4, total);
    for (int i = 0; i < OC_N; i++)
        hpq_set_real(t, 5 + i, c[i]);
}

/* Reads the rows into t. */
static int fill_table(const hpq_ctx *ctx, hpq_table *t)
{
    double root[2] = {0, 0};
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(ctx->db, root_sql, -1, &st, NULL) != SQLITE_OK)
        return hpq_db_error(ctx);
    if (sqlite3_step(st) == SQLITE_ROW) {
        root[0] = sqlite3_column_double(st, 0);
        root[1] = sqlite3_column_double(st, 1);
    }
    sqlite3_finalize(st);
    if (sqlite3_prepare_v2(ctx->db, rows_sql, -1, &st, NULL) != SQLITE_OK)
        return hpq_db_error(ctx);
    long top_depth = -1;
    int rc;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        double c[OC_N];
        for (int i = 0; i < OC_N; i++)
            c[i] = sqlite3_column_double(st, 4 + i);
        if (sqlite3_column_int(st, 10)) { /* a root: the ranks' budget */
            c[OC_LOSS] = root[0];
            c[OC_UNID] += root[1];
        }
        if (top_depth < 0)
            top_depth = (long)sqlite3_column_int64(st, 2);
        add_row(ctx, t, st, c, top_depth);
    }
    sqlite3_finalize(st);
    return rc == SQLITE_DONE ? 0 : hpq_db_error(ctx);
}

/* The merged nodes PATH names (NULL: the root) into sel. */
static int select_path(const hpq_ctx *ctx, const char *path, hpq_sel *sel)
{
    if (path)
        return hpq_select(ctx->db, ctx->db_path, path, HPQ_WANT_ONE, sel, ctx->err,
                          ctx->errlen);
    sel->nodes = strdup("SELECT id FROM node WHERE parent IS NULL");
    sel->label = strdup("(root)");
    if (!sel->nodes || !sel->label) {
        hpq_sel_free(sel);
        return hpq_oom(ctx);
    }
    return 0;
}

int hpq_report_overheads(const hpq_ctx *ctx, const char *path)
{
    hpq_sel sel = {NULL, NULL};
    if (select_path(ctx, path, &sel))
        return -1;
    int rc = -1;
    hpq_table *t = NULL;
    if (load_class_table(ctx) == 0 && exec(ctx, prepare_sql) == 0 &&
        select_rows(ctx, sel.nodes) == 0) {
        t = new_table(ctx);
        if (!t)
            rc = hpq_oom(ctx);
        else if (fill_table(ctx, t) == 0) {
            if (ctx->opt->format == HPQ_TEXT)
                fprintf(ctx->out, "overhead classes of %s (%% of each node's total: inclusive"
                                  " thread time plus its loss of parallelism)\n", sel.label);
            rc = hpq_print_table(ctx, t);
        }
    }
    hpq_table_free(t);
    hpq_sel_free(&sel);
    return rc;
}
