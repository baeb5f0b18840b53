/*
 * db_agg.c - the aggregates hprof-merge stores with the per rank/thread
 * rows (db_agg.h): per node, per site and per rank sums that every report
 * used to recompute from millions of stat and comm rows through views.
 *
 * Each aggregate is defined once, as the text of a view over stat, comm
 * and the views of db.c.  hprof-merge materialises it into a table of
 * that name (CREATE TABLE name AS SELECT ...) and indexes it (the
 * per-node ones, node_*, are computed in C by db_aggnode.c); --raw
 * (hpq_use_raw_times) makes the same text a TEMP view over the raw times,
 * which shadows the table, so both paths share one definition.
 * The schema is documented in docs/formats.md ("Aggregates and the format version").
 */
#include "config.h"
#include <assert.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "db_agg.h"
#include "detail_sums.h"
#include "ovh_class.h"

/* In dependency order: a definition reads only stat, comm, node, site,
 * rank, the views of db.c and the aggregates before it.  Ranks that never
 * ran a node count as zero in means, minima and imbalance. */
static const char *const agg_sql =
    "CREATE VIEW node_time AS SELECT node, SUM(calls) AS calls, SUM(time) AS time,"
    " SUM(time) / (SELECT COUNT(*) FROM rank) AS mean, MAX(time) AS max,"
    " CASE WHEN SUM(time) > 0 THEN MAX(time) * (SELECT COUNT(*) FROM rank) / SUM(time)"
    " END AS imbalance,"
    " CASE WHEN COUNT(*) < (SELECT COUNT(*) FROM rank) THEN 0.0 ELSE MIN(time) END AS min"
    " FROM node_rank GROUP BY node;\n"
    /* the rank with the most time in each node (SQLite takes the bare
     * column `rank` from the row of the only aggregate, MAX) */
    "CREATE VIEW node_worst_rank AS SELECT node, rank, MAX(time) AS time"
    " FROM node_rank GROUP BY node;\n"
    /* that rank's thread with the most time in the node (the lowest of
     * equals), where the node has time: the listing's worst_thread */
    "CREATE VIEW node_worst_thread AS SELECT w.node AS node, (SELECT s.thread FROM stat s"
    "  WHERE s.node = w.node AND s.rank = w.rank GROUP BY s.thread"
    "  ORDER BY SUM(s.time) DESC, s.thread LIMIT 1) AS thread"
    " FROM node_worst_rank w WHERE w.time > 0;\n"
    /* Inclusive and exclusive time per node: exclusive per rank and thread
     * first (own time minus the children's, at least 0), then summed. */
    "CREATE VIEW node_excl AS"
    " WITH own AS (SELECT node, rank, thread, SUM(time) AS t FROM stat"
    "  GROUP BY node, rank, thread),"
    " kids AS (SELECT n.parent AS node, s.rank AS rank, s.thread AS thread,"
    "  SUM(s.time) AS t FROM stat s JOIN node n ON n.id = s.node"
    "  WHERE n.parent IS NOT NULL GROUP BY n.parent, s.rank, s.thread)"
    " SELECT o.node AS node, SUM(o.t) AS time, SUM(MAX(o.t - COALESCE(k.t, 0), 0)) AS excl"
    " FROM own o"
    " LEFT JOIN kids k ON k.node = o.node AND k.rank = o.rank AND k.thread = o.thread"
    " GROUP BY o.node;\n"
    /* Imbalance: per node the ranks (of the rank table; one without the
     * node counts 0) in each of 10 equal bins of their time from the
     * node's min to its max (the max in h9; all in h0 when min = max). */
    "CREATE VIEW node_hist AS SELECT b.node AS node,"
    " SUM(b.bin = 0) + (SELECT COUNT(*) FROM rank) - COUNT(*) AS h0, SUM(b.bin = 1) AS h1,"
    " SUM(b.bin = 2) AS h2, SUM(b.bin = 3) AS h3, SUM(b.bin = 4) AS h4, SUM(b.bin = 5) AS h5,"
    " SUM(b.bin = 6) AS h6, SUM(b.bin = 7) AS h7, SUM(b.bin = 8) AS h8, SUM(b.bin = 9) AS h9"
    " FROM (SELECT r.node AS node, CASE WHEN t.max > t.min THEN"
    "  MIN(MAX(CAST((r.time - t.min) * 10 / (t.max - t.min) AS INTEGER), 0), 9) ELSE 0 END AS bin"
    "  FROM node_rank r JOIN node_time t ON t.node = r.node) b GROUP BY b.node;\n"
    "CREATE VIEW rank_site AS"
    " WITH st AS (SELECT n.site AS site, s.rank AS rank, SUM(s.count) AS calls,"
    "  SUM(CASE WHEN n.outer THEN s.time ELSE 0.0 END) AS time"
    "  FROM stat s JOIN node n ON n.id = s.node"
    "  GROUP BY n.site, s.rank),"
    " cm AS (SELECT n.site AS site, c.rank AS rank, SUM(c.tran) AS tran,"
    "  SUM(c.sync) AS sync, SUM(c.bytes_sent) AS bytes_sent,"
    "  SUM(c.bytes_recv) AS bytes_recv FROM comm c JOIN node n ON n.id = c.node"
    "  GROUP BY n.site, c.rank)"
    " SELECT st.site AS site, st.rank AS rank, st.calls AS calls, st.time AS time,"
    "  COALESCE(cm.tran, 0.0) AS tran, COALESCE(cm.sync, 0.0) AS sync,"
    "  COALESCE(cm.bytes_sent, 0) AS bytes_sent, COALESCE(cm.bytes_recv, 0) AS bytes_recv"
    " FROM st LEFT JOIN cm ON cm.site = st.site AND cm.rank = st.rank;\n"
    "CREATE VIEW site_time AS SELECT r.site AS site, s.label AS label, s.kind AS kind,"
    " SUM(r.calls) AS calls, SUM(r.time) AS time,"
    " SUM(r.time) / (SELECT COUNT(*) FROM rank) AS mean, MAX(r.time) AS max,"
    " CASE WHEN SUM(r.time) > 0 THEN MAX(r.time) * (SELECT COUNT(*) FROM rank) / SUM(r.time)"
    " END AS imbalance, SUM(r.tran) AS tran, SUM(r.sync) AS sync"
    " FROM rank_site r JOIN site s ON s.id = r.site GROUP BY r.site;\n"
    /* Per site the rank with the most time (the lowest of equals) and that
     * rank's thread with the most, outermost contexts only as in rank_site:
     * a lookup per site through node_site and stat_node, not a scan. */
    "CREATE VIEW site_worst AS"
    " WITH wr AS (SELECT site, rank FROM (SELECT site, rank, ROW_NUMBER() OVER"
    "  (PARTITION BY site ORDER BY time DESC, rank) AS k FROM rank_site WHERE time > 0)"
    "  WHERE k = 1)"
    " SELECT wr.site AS site, wr.rank AS rank, (SELECT st.thread FROM node n CROSS JOIN stat st"
    "  WHERE n.site = wr.site AND n.outer AND st.node = n.id AND st.rank = wr.rank"
    "  GROUP BY st.thread ORDER BY SUM(st.time) DESC, st.thread LIMIT 1) AS thread FROM wr;\n"
    /* A rank's MPI share: its MPI time (thread-seconds) over its wall time
     * times the threads that made MPI calls, as the summary prints it.
     * CROSS JOIN fixes the order: from the few MPI sites to their nodes
     * (node_site) to their records (stat_node), not a scan of stat. */
    "CREATE VIEW rank_mpi AS SELECT rank, wall, mpi_time, mpi_threads,"
    " CASE WHEN wall > 0 AND mpi_threads > 0 THEN 100.0 * mpi_time / (wall * mpi_threads)"
    " ELSE 0.0 END AS mpi_pct"
    " FROM (SELECT r.rank AS rank, r.wall AS wall, r.mpi_time AS mpi_time,"
    "  (SELECT COUNT(DISTINCT st.thread) FROM site s CROSS JOIN node n CROSS JOIN stat st"
    "   WHERE n.site = s.id AND st.node = n.id AND st.rank = r.rank"
    "   AND (s.kind = 'comm' OR (s.flags & 128) != 0)"
    "   AND st.count > 0) AS mpi_threads FROM rank r);\n"
    /* A node's comm rows per peer (over ranks and threads) and per rank
     * (over peers and threads): --comm and --ranks of a site. */
    "CREATE VIEW comm_node_peer AS SELECT node, peer, SUM(count) AS count,"
    " SUM(bytes_sent) AS bytes_sent, SUM(bytes_recv) AS bytes_recv, SUM(tran) AS tran,"
    " SUM(sync) AS sync, MIN(min) AS min, MAX(max) AS max FROM comm GROUP BY node, peer;\n"
    "CREATE VIEW comm_node_rank AS SELECT node, rank, SUM(tran) AS tran, SUM(sync) AS sync"
    " FROM comm GROUP BY node, rank;\n";

/* The cells of the rank x rank matrix (hprof-query --matrix: matrix.c):
 * each point-to-point message once, at its sender.  A row that sent
 * (bytes_sent > 0, or no bytes at a call named *send*) is cell rank ->
 * peer with its bytes and transfers; a receiving row adds its time to the
 * cell peer -> rank; a send-receive to one peer counts half its transfers
 * as messages; collective sites (flag 4) and peers < 0 are left out.  The
 * first %s is a condition on the comm row c, the second the ORDER BY. */
#define MATRIX_CELLS_OF_M                                                      \
    " SELECT sender, receiver, bytes, messages, tran, sync FROM m"             \
    " WHERE bytes > 0 OR messages > 0 OR tran > 0 OR sync > 0 ORDER BY %s"
const char hpf_matrix_cells_fmt[] =
    "WITH r AS (SELECT c.rank AS rank, c.peer AS peer, c.count AS count,"
    "  c.bytes_sent AS sent, c.bytes_recv AS recvd, c.tran AS tran, c.sync AS sync,"
    "  (c.bytes_sent = 0 AND (c.bytes_recv > 0 OR s.name NOT LIKE '%%send%%'))"
    "  AS rcv FROM comm c JOIN node n ON n.id = c.node JOIN site s ON s.id = n.site"
    "  WHERE c.peer >= 0 AND (s.flags & 4) = 0 AND %s),"
    " m AS (SELECT CASE WHEN rcv THEN peer ELSE rank END AS sender,"
    "  CASE WHEN rcv THEN rank ELSE peer END AS receiver,"
    "  SUM(CASE WHEN rcv THEN 0 ELSE sent END) AS bytes,"
    "  SUM(CASE WHEN rcv THEN 0 WHEN recvd > 0 THEN count / 2 ELSE count END)"
    "  AS messages, SUM(tran) AS tran, SUM(sync) AS sync FROM r GROUP BY 1, 2)"
    MATRIX_CELLS_OF_M;

/* The same cells summed in C from the virtual table's source
 * (detail_sums.h): the first %s the list of nodes, the second the ORDER
 * BY. */
const char hpf_matrix_sums_fmt[] =
    "WITH m AS (SELECT k1 AS sender, k2 AS receiver, n1 AS bytes, n2 AS messages,"
    " t1 AS tran, t2 AS sync FROM " HPF_SUMS_FN "('matrix', '%s'))" MATRIX_CELLS_OF_M;

/* What the matrix leaves out (one row): collective bytes sent, as the
 * collectives' peer -1 rows hold them (their totals: the alltoall family's
 * per-peer rows break the same bytes down by peer, so they are not added
 * again), collective calls (peer -1 rows), their time, file bytes (peer
 * -2), and the point-to-point bytes for the share; %s is a condition on
 * the comm row c. */
const char hpf_matrix_leftout_fmt[] =
    "SELECT COALESCE(SUM(CASE WHEN c.peer = -1 THEN c.bytes_sent END), 0) AS coll_bytes,"
    " COALESCE(SUM(CASE WHEN c.peer = -1 THEN c.count END), 0) AS coll_calls,"
    " COALESCE(SUM(CASE WHEN c.peer = -1 OR (c.peer >= 0 AND (s.flags & 4) != 0)"
    "  THEN c.tran + c.sync END), 0.0) AS coll_time,"
    " COALESCE(SUM(CASE WHEN c.peer = -2 THEN c.bytes_sent + c.bytes_recv END), 0)"
    "  AS file_bytes,"
    " COALESCE(SUM(CASE WHEN c.peer >= 0 AND (s.flags & 4) = 0"
    "  THEN c.bytes_sent END), 0) AS p2p_bytes"
    " FROM comm c JOIN node n ON n.id = c.node JOIN site s ON s.id = n.site"
    " WHERE %s";

/* The same row summed in C (detail_sums.h); %s is the list of nodes. */
const char hpf_matrix_leftout_sums_fmt[] =
    "SELECT n1 AS coll_bytes, n2 AS coll_calls, t1 AS coll_time, n3 AS file_bytes,"
    " n4 AS p2p_bytes FROM " HPF_SUMS_FN "('leftout', '%s')";

/* The indices of the materialised tables, for the reports' lookups:
 * of those with a row per rank and site or node, then of the others. */
static const char *const per_rank_index_sql =
    "CREATE INDEX rank_site_site ON rank_site(site, rank);\n"
    "CREATE INDEX comm_node_rank_node ON comm_node_rank(node, rank);\n";
static const char *const other_index_sql =
    "CREATE INDEX site_time_site ON site_time(site);\n"
    "CREATE INDEX site_worst_site ON site_worst(site);\n";
/* comm_node_peer as the SQL makes it (--aggregate), a table of rows in any
 * order: an index on its key (db_aggcomm.c's is keyed by it). */
static const char *const node_peer_index_sql =
    "CREATE INDEX comm_node_peer_node ON comm_node_peer(node, peer);\n";

/* The aggregates with a row per rank and site or node: views in
 * aggregate mode (db_aggregator.h). */
static int is_per_rank(const char *def)
{
    return strncmp(def, "CREATE VIEW rank_site ", 22) == 0 ||
           strncmp(def, "CREATE VIEW comm_node_rank ", 27) == 0;
}

/* The per-node aggregates, "node_*". */
static int is_per_node(const char *def)
{
    static const char prefix[] = "CREATE VIEW node_";
    return strncmp(def, prefix, sizeof prefix - 1) == 0;
}

const char *hpf_db_agg_sql(void)
{
    return agg_sql;
}

/* "CREATE VIEW name AS body" (len bytes at def) -> "CREATE TABLE name AS body". */
static int materialise_one(sqlite3 *db, const char *def, size_t len, char *err,
                           size_t errlen)
{
    static const char view[] = "CREATE VIEW ", table[] = "CREATE TABLE ";
    assert(len > sizeof view - 1 && strncmp(def, view, sizeof view - 1) == 0);
    size_t rest = len - (sizeof view - 1);
    char *sql = malloc(sizeof table + rest + 1);
    if (!sql) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    memcpy(sql, table, sizeof table - 1);
    memcpy(sql + sizeof table - 1, def + sizeof view - 1, rest);
    sql[sizeof table - 1 + rest] = '\0';
    int rc = hpf_exec(db, sql, err, errlen);
    free(sql);
    return rc;
}

/* A view made as written. */
static int create_view(sqlite3 *db, const char *def, size_t len, char *err, size_t errlen)
{
    char *sql = strndup(def, len);
    if (!sql) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    int rc = hpf_exec(db, sql, err, errlen);
    free(sql);
    return rc;
}

/* The whole run's matrix cells as the table comm_matrix (the comm rows
 * have no raw times: --raw reads it as it is). */
static int materialise_matrix(sqlite3 *db, char *err, size_t errlen)
{
    char *cells = NULL, *left = NULL, *sql = NULL;
    int rc = -1;
    if (asprintf(&cells, hpf_matrix_cells_fmt, "1", "1, 2") < 0 ||
        asprintf(&left, hpf_matrix_leftout_fmt, "1") < 0 ||
        asprintf(&sql, "CREATE TABLE comm_matrix AS %s; CREATE TABLE comm_leftout AS %s;",
                 cells, left) < 0)
        snprintf(err, errlen, "out of memory");
    else
        rc = hpf_exec(db, sql, err, errlen);
    free(cells);
    free(left);
    free(sql);
    return rc;
}

int hpf_db_write_aggregates(sqlite3 *db, int node_views, int per_rank_views, char *err,
                            size_t errlen)
{
    static const char view[] = "CREATE VIEW ";
    for (const char *s = strstr(agg_sql, view); s; s = strstr(s + 1, view)) {
        const char *end = strstr(s, ";\n");
        assert(end);
        if (((node_views && is_per_node(s)) || (per_rank_views && is_per_rank(s))) &&
            create_view(db, s, (size_t)(end - s), err, errlen))
            return -1;
    }
    return (!per_rank_views && hpf_exec(db, per_rank_index_sql, err, errlen)) ||
           hpf_exec(db, other_index_sql, err, errlen) ? -1 : 0;
}

const char hpf_db_record_objects_sql[] =
    "INSERT OR REPLACE INTO run(key, value) SELECT 'objects', group_concat(name, ' ')"
    " FROM (SELECT name FROM sqlite_master WHERE type IN ('table', 'view')"
    " AND name NOT LIKE 'sqlite_%' AND name != 'rank_index' ORDER BY name);";

/* Is there a table or view called name (len bytes)? */
static int has_object(sqlite3 *db, const char *name, size_t len)
{
    sqlite3_stmt *st = NULL;
    int found = sqlite3_prepare_v2(db, "SELECT 1 FROM sqlite_master WHERE type IN ('table',"
                                       " 'view') AND name = ?", -1, &st, NULL) == SQLITE_OK &&
                sqlite3_bind_text(st, 1, name, (int)len, SQLITE_STATIC) == SQLITE_OK &&
                sqlite3_step(st) == SQLITE_ROW;
    sqlite3_finalize(st);
    return found;
}

int hpf_db_check_complete(sqlite3 *db, const char *db_path, char *err, size_t errlen)
{
    sqlite3_stmt *st = NULL;
    int rc = 0;
    if (sqlite3_prepare_v2(db, "SELECT value FROM run WHERE key = 'objects'", -1, &st,
                           NULL) == SQLITE_OK &&
        sqlite3_step(st) == SQLITE_ROW) {
        const char *list = (const char *)sqlite3_column_text(st, 0);
        for (const char *p = list ? list : ""; *p && rc == 0;) {
            size_t n = strcspn(p, " ");
            if (n && !has_object(db, p, n)) {
                snprintf(err, errlen, "%s: table %.*s is missing: not an hprof database of "
                         "this version (merge its profile again)", db_path, (int)n, p);
                rc = -1;
            }
            p += n + (p[n] == ' ');
        }
    }
    sqlite3_finalize(st);
    return rc;
}

int hpf_db_format(sqlite3 *db)
{
    sqlite3_stmt *st;
    int version = -1;
    if (sqlite3_prepare_v2(db, "PRAGMA user_version", -1, &st, NULL) == SQLITE_OK &&
        sqlite3_step(st) == SQLITE_ROW)
        version = sqlite3_column_int(st, 0);
    sqlite3_finalize(st);
    return version;
}

int hpf_db_check_version(sqlite3 *db, const char *db_path, char *err, size_t errlen)
{
    int version = hpf_db_format(db);
    if (version < 0) {
        snprintf(err, errlen, "%s: cannot read the database format", db_path);
        return -1;
    }
    if (version > HPF_DB_FORMAT) {
        snprintf(err, errlen, "%s: database format %d is newer than this hprof-query reads (%d)",
                 db_path, version, HPF_DB_FORMAT);
        return -1;
    }
    if (version < HPF_DB_FORMAT) {
        snprintf(err, errlen, "%s: database format %d is older than this hprof-query reads"
    " (%d): run hprof-merge on its profile again", db_path, version,
                 HPF_DB_FORMAT);
        return -1;
    }
    return 0;
}

/* Is name a view (DROP TABLE refuses one, DROP VIEW a table)? */
static int is_view(sqlite3 *db, const char *name)
{
    sqlite3_stmt *st = NULL;
    int view = sqlite3_prepare_v2(db, "SELECT 1 FROM sqlite_master WHERE type = 'view'"
                                      " AND name = ?", -1, &st, NULL) == SQLITE_OK &&
               sqlite3_bind_text(st, 1, name, -1, SQLITE_STATIC) == SQLITE_OK &&
               sqlite3_step(st) == SQLITE_ROW;
    sqlite3_finalize(st);
    return view;
}

/* The name of the aggregate defined at def ("CREATE VIEW name AS ..."). */
static char *aggregate_name(const char *def)
{
    static const char view[] = "CREATE VIEW ";
    const char *name = def + sizeof view - 1, *end = strchr(name, ' ');
    return end ? strndup(name, (size_t)(end - name)) : NULL;
}

int hpf_db_reaggregate(sqlite3 *db, char *err, size_t errlen)
{
    static const char view[] = "CREATE VIEW ";
    if (hpf_exec(db, "BEGIN; DROP TABLE IF EXISTS comm_matrix;"
                     " DROP TABLE IF EXISTS comm_leftout;", err, errlen))
        return -1;
    for (const char *s = strstr(agg_sql, view); s; s = strstr(s + 1, view)) {
        const char *end = strstr(s, ";\n");
        char *name = aggregate_name(s), *drop = NULL;
        assert(end);
        int rc = !name || asprintf(&drop, "DROP %s IF EXISTS %s;",
                                   is_view(db, name) ? "VIEW" : "TABLE", name) < 0;
        if (rc)
            snprintf(err, errlen, "out of memory");
        else
            rc = hpf_exec(db, drop, err, errlen) ||
                 materialise_one(db, s, (size_t)(end - s), err, errlen);
        free(drop);
        drop = NULL;
        /* the per-node tables, keyed by node as db_aggnode.c writes them */
        if (!rc && is_per_node(s) &&
            (asprintf(&drop, "CREATE UNIQUE INDEX %s_node ON %s(node);", name, name) < 0 ||
             hpf_exec(db, drop, err, errlen)))
            rc = -1;
        free(drop);
        free(name);
        if (rc) {
            sqlite3_exec(db, "ROLLBACK", NULL, NULL, NULL);
            return -1;
        }
    }
    /* each node's comm rows within [first, last]: a superset once rows
     * were added by hand (what --matrix SITE reads, with c.node) */
    if (hpf_exec(db, "DELETE FROM comm_range; INSERT INTO comm_range"
                     " SELECT node, MIN(id), MAX(id) FROM comm GROUP BY node;", err, errlen) ||
        hpf_exec(db, per_rank_index_sql, err, errlen) ||
        hpf_exec(db, other_index_sql, err, errlen) ||
        hpf_exec(db, node_peer_index_sql, err, errlen) || materialise_matrix(db, err, errlen) ||
        hpf_ovh_reaggregate(db, err, errlen) || hpf_exec(db, "COMMIT", err, errlen)) {
        sqlite3_exec(db, "ROLLBACK", NULL, NULL, NULL);
        return -1;
    }
    return 0;
}
