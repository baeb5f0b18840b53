/*
 * ovh_class.c - the overhead classes (ovh_class.h): THE table of classes
 * and the SQL definition of the tables ovh_x and ovh_rank, shared by
 * hprof-query --overheads (overheads.c), hprof-merge --aggregate
 * (db_agg.c) and, for the same rules in C, db_aggovh.c.
 */
#include "config.h"
#include <assert.h>
#include <stdio.h>
#include <string.h>
#include "dbcomp.h"
#include "ovh_class.h"

/* Every site kind of the database (site.kind; "mpi" stands for a site
 * flagged HP_SITEF_MPI, an MPI call that is not communication) and, for
 * kind omp, every record name (hp_omp_names).  A NULL name is the kind's
 * default.  Loss of parallelism is no site's: it is computed from the
 * first thread's serial time. */
static const struct {
    const char *kind, *name;
    enum hpf_oclass oclass;
} class_table[] = {
    {"root", NULL, HPF_OC_UNID},          /* outside any recorded node */
    {"overflow", NULL, HPF_OC_UNID},      /* events past HPROF_MAX_NODES */
    {"procedure", NULL, HPF_OC_COMP},
    {"loop", NULL, HPF_OC_COMP},
    {"call", NULL, HPF_OC_COMP},
    {"region", NULL, HPF_OC_COMP},
    {"comm", NULL, HPF_OC_DATA},          /* its sync delay, or all of it when it moved
                                             no bytes (a barrier): HPF_OC_SYNC */
    {"mpi", NULL, HPF_OC_CTRL},           /* MPI_Init, Comm_split, queries ... */
    {"omp", NULL, HPF_OC_COMP},           /* parallel, loop, single, master, task */
    {"omp", "critical", HPF_OC_COMP},     /* holds: the work done inside */
    {"omp", "lock", HPF_OC_COMP},
    {"omp", "ordered", HPF_OC_COMP},
    {"omp", "implicit barrier", HPF_OC_SYNC},
    {"omp", "barrier", HPF_OC_SYNC},
    {"omp", "critical wait", HPF_OC_SYNC},
    {"omp", "lock wait", HPF_OC_SYNC},
    {"omp", "ordered wait", HPF_OC_SYNC},
    {"omp", "taskwait", HPF_OC_SYNC},
    {"omp", "reduction", HPF_OC_SYNC},    /* the wait that ends a reduction */
    {"omp", "atomic", HPF_OC_SYNC},       /* includes the wait for the atomic lock */
    {"omp", "reduction", HPF_OC_SYNC},    /* gcc's combining under the atomic lock */
    {"omp", "flush", HPF_OC_SYNC},
    {"omp", "fork", HPF_OC_CTRL},
    {"omp", "join", HPF_OC_CTRL},
    {"omp", "task create", HPF_OC_CTRL},
};
#define NCLASS_TABLE (sizeof class_table / sizeof class_table[0])

#define SITEF_MPI 128u      /* HP_SITEF_MPI, as the SQL tests it */

enum hpf_oclass hpf_ovh_site_class(const char *kind, const char *name, uint32_t flags)
{
    assert(kind);
    if ((flags & SITEF_MPI) && strcmp(kind, "comm") != 0)
        kind = "mpi";
    for (size_t i = 0; name && i < NCLASS_TABLE; i++)
        if (class_table[i].name && strcmp(class_table[i].kind, kind) == 0 &&
            strcmp(class_table[i].name, name) == 0)
            return class_table[i].oclass;
    for (size_t i = 0; i < NCLASS_TABLE; i++)
        if (!class_table[i].name && strcmp(class_table[i].kind, kind) == 0)
            return class_table[i].oclass;
    return HPF_OC_COMP;
}

const char hpf_ovh_schema_sql[] =
    "CREATE TABLE main.ovh_x(node INTEGER PRIMARY KEY, lo INTEGER, c0 REAL, c1 REAL,"
    " c2 REAL, c3 REAL, c5 REAL, loss REAL);"
    "CREATE INDEX main.ovh_x_lo ON ovh_x(lo);"
    "CREATE TABLE main.ovh_rank(rank INTEGER PRIMARY KEY, wall REAL, t INTEGER, other REAL,"
    " loss REAL, f REAL);";

/* The class table as TEMP table ovh_class(kind, name, class). */
static int load_class_table(sqlite3 *db, char *err, size_t errlen)
{
    if (hpf_exec(db, "DROP TABLE IF EXISTS temp.ovh_class;"
                     "CREATE TEMP TABLE ovh_class(kind TEXT, name TEXT, class INTEGER)",
                 err, errlen))
        return -1;
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(db, "INSERT INTO temp.ovh_class VALUES(?, ?, ?)", -1, &st, NULL)) {
        snprintf(err, errlen, "sqlite: %s", sqlite3_errmsg(db));
        return -1;
    }
    for (size_t i = 0; i < NCLASS_TABLE; i++) {
        sqlite3_reset(st);
        sqlite3_bind_text(st, 1, class_table[i].kind, -1, SQLITE_STATIC);
        if (class_table[i].name)
            sqlite3_bind_text(st, 2, class_table[i].name, -1, SQLITE_STATIC);
        else
            sqlite3_bind_null(st, 2);
        sqlite3_bind_int(st, 3, (int)class_table[i].oclass);
        if (sqlite3_step(st) != SQLITE_DONE) {
            snprintf(err, errlen, "sqlite: %s", sqlite3_errmsg(db));
            sqlite3_finalize(st);
            return -1;
        }
    }
    sqlite3_finalize(st);
    return 0;
}

/* ovh_node: per node its class (the root's: unidentified), whether it is
 * a parallel region (par) and whether one lies above it (inpar). */
static const char node_sql[] =
    "DROP TABLE IF EXISTS temp.ovh_node;"
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
    "CREATE UNIQUE INDEX temp.ovh_node_id ON ovh_node(id);";

/* The definition of ovh_rank and ovh_x, through TEMP helpers dropped at
 * the end:
 *   ovh_t0(node, rank, t), ovh_par(lo, rank, t): the first thread's time
 *     per node, and in outermost parallel regions;
 *   ovh_e(node, rank, e, s): per node, rank and thread the exclusive time
 *     e and the sync delay s (a communication that moved no bytes at all,
 *     MPI_Barrier or zero-byte messages, is synchronization as a whole);
 *   ovh_er(node, rank, c0..c5): e by class per node and rank;
 *   ovh_r(rank, wall, t, other, par0): per rank its budget's terms. */
static const char define_sql[] =
    "DROP TABLE IF EXISTS temp.ovh_x; DROP TABLE IF EXISTS temp.ovh_rank;"
    "DROP TABLE IF EXISTS temp.ovh_t0; DROP TABLE IF EXISTS temp.ovh_par;"
    "DROP TABLE IF EXISTS temp.ovh_e; DROP TABLE IF EXISTS temp.ovh_er;"
    "DROP TABLE IF EXISTS temp.ovh_r;"
    "CREATE TEMP TABLE ovh_t0 AS SELECT node, rank, SUM(time) AS t FROM stat"
    " WHERE thread = 0 GROUP BY node, rank;"
    "CREATE INDEX temp.ovh_t0_node ON ovh_t0(node);"
    "CREATE TEMP TABLE ovh_par AS SELECT n.lo AS lo, t.rank AS rank, t.t AS t"
    " FROM ovh_node n JOIN ovh_t0 t ON t.node = n.id WHERE n.par AND NOT n.inpar;"
    "CREATE INDEX temp.ovh_par_lo ON ovh_par(rank, lo);"
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
    "CREATE UNIQUE INDEX temp.ovh_rank_rank ON ovh_rank(rank);"
    /* a node's loss: per rank the first thread's time in it outside
     * parallel regions times (T - 1) f, when no parallel region is at or
     * above it */
    "CREATE TEMP TABLE ovh_x AS SELECT node, lo, c0, c1, c2, c3, c5,"
    " CASE WHEN inpar OR par THEN 0 ELSE COALESCE((SELECT SUM((rk.t - 1) * rk.f *"
    "  MAX(o.t - COALESCE((SELECT SUM(p.t) FROM ovh_par p WHERE p.rank = o.rank"
    "   AND p.lo BETWEEN g.lo AND g.hi), 0), 0))"
    "  FROM ovh_t0 o JOIN ovh_rank rk ON rk.rank = o.rank WHERE o.node = g.node), 0) END"
    "  AS loss"
    " FROM (SELECT x.node AS node, n.lo AS lo, n.hi AS hi, n.par AS par, n.inpar AS inpar,"
    "  SUM(c0) AS c0, SUM(c1) AS c1, SUM(c2) AS c2, SUM(c3) AS c3, SUM(c5) AS c5"
    "  FROM ovh_er x JOIN ovh_node n ON n.id = x.node GROUP BY x.node) g;"
    "DROP TABLE temp.ovh_er; DROP TABLE temp.ovh_t0; DROP TABLE temp.ovh_par;"
    "CREATE INDEX temp.ovh_x_lo ON ovh_x(lo);"
    "CREATE UNIQUE INDEX temp.ovh_x_node ON ovh_x(node);";

int hpf_ovh_classify_nodes(sqlite3 *db, char *err, size_t errlen)
{
    return load_class_table(db, err, errlen) || hpf_exec(db, node_sql, err, errlen) ? -1 : 0;
}

int hpf_ovh_define(sqlite3 *db, char *err, size_t errlen)
{
    return hpf_exec(db, define_sql, err, errlen);
}

int hpf_ovh_reaggregate(sqlite3 *db, char *err, size_t errlen)
{
    return hpf_ovh_classify_nodes(db, err, errlen) || hpf_ovh_define(db, err, errlen) ||
           hpf_exec(db, "DROP TABLE IF EXISTS main.ovh_x; DROP TABLE IF EXISTS main.ovh_rank;",
                    err, errlen) ||
           hpf_exec(db, hpf_ovh_schema_sql, err, errlen) ||
           hpf_exec(db, "INSERT INTO main.ovh_x SELECT node, lo, c0, c1, c2, c3, c5, loss"
                        " FROM temp.ovh_x ORDER BY node;"
                        "INSERT INTO main.ovh_rank SELECT rank, wall, t, other, loss, f"
                        " FROM temp.ovh_rank ORDER BY rank;"
                        "DROP TABLE temp.ovh_x; DROP TABLE temp.ovh_rank;"
                        "DROP TABLE temp.ovh_node; DROP TABLE temp.ovh_class;", err, errlen)
               ? -1 : 0;
}

int hpf_ovh_stored(sqlite3 *db)
{
    sqlite3_stmt *st;
    int yes = 0;
    if (sqlite3_prepare_v2(db, "SELECT (SELECT COUNT(*) FROM main.sqlite_master WHERE type ="
                               " 'table' AND name IN ('ovh_x', 'ovh_rank')) = 2 AND NOT EXISTS"
                               " (SELECT 1 FROM sqlite_temp_master WHERE name = 'stat')",
                           -1, &st, NULL) == SQLITE_OK && sqlite3_step(st) == SQLITE_ROW)
        yes = sqlite3_column_int(st, 0);
    sqlite3_finalize(st);
    return yes;
}
