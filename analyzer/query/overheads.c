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
 * (the class table of ovh_class.c; a communication site's sync delay
 * goes to synchronization, the rest to data movement).  A node's class
 * sums are those of its subtree.  A rank's "threads" T is the larger of the
 * threads that recorded (rank.threads) and its OpenMP team size
 * (rank.omp_threads).  The root's total is wall x T summed over the
 * ranks; what its other classes and the loss leave is unidentified (time
 * outside any recorded node: in tier 0 the code between MPI calls; the
 * measurement overhead compensation took out).
 *
 * hprof-merge stores the per-node and per-rank sums (ovh_x, ovh_rank:
 * ovh_class.h), so a listing reads a few thousand rows, not every stat
 * and comm row; under --raw, or on a database without them, they are
 * made TEMP from the rows by the same definition.
 */
#include "config.h"
#include <assert.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "report.h"
#include "report_util.h"
#include "sitesel.h"
#include "nodepath.h"

#include "db/ovh_class.h"

static int exec(const hpq_ctx *ctx, const char *sql)
{
    return sqlite3_exec(ctx->db, sql, NULL, NULL, NULL) == SQLITE_OK ? 0 : hpq_db_error(ctx);
}

/* The tables the rows are read from (ovh_class.h): ovh_node, TEMP, and
 * ovh_x and ovh_rank, stored by hprof-merge or, under --raw and on a
 * database without them, made TEMP from the rows by their definition. */
static int prepare(const hpq_ctx *ctx)
{
    if (hpf_ovh_classify_nodes(ctx->db, ctx->err, ctx->errlen))
        return -1;
    if (!hpf_ovh_stored(ctx->db))
        return hpf_ovh_define(ctx->db, ctx->err, ctx->errlen);
    /* the stored tables, not a TEMP pair an earlier call left */
    return exec(ctx, "DROP TABLE IF EXISTS temp.ovh_x; DROP TABLE IF EXISTS temp.ovh_rank;");
}

/* One row per node of the selected subtrees, in preorder: the class sums
 * of its subtree and its own loss (ovh_x.loss).  A root's loss and
 * unidentified time come from its ranks (budget wall x T: root_sql). */
static const char rows_sql[] =
    "SELECT n.id, n.parent, n.depth, COALESCE(s.label, '(root)'),"
    " COALESCE(x.c0, 0), COALESCE(x.c1, 0), COALESCE(x.c2, 0), COALESCE(x.c3, 0),"
    " CASE WHEN own.node IS NULL THEN 0 ELSE own.loss END, COALESCE(x.c5, 0), n.parent IS NULL"
    " FROM ovh_node n JOIN node nn ON nn.id = n.id LEFT JOIN site s ON s.id = nn.site"
    " LEFT JOIN ovh_x own ON own.node = n.id"
    " LEFT JOIN (SELECT a.id AS id, SUM(x.c0) AS c0, SUM(x.c1) AS c1, SUM(x.c2) AS c2,"
    "  SUM(x.c3) AS c3, SUM(x.c5) AS c5 FROM ovh_node a JOIN ovh_x x"
    "  ON x.lo BETWEEN a.lo AND a.hi WHERE a.id IN (SELECT id FROM ovh_sel) GROUP BY a.id) x"
    "  ON x.id = n.id"
    " WHERE n.id IN (SELECT id FROM ovh_sel) ORDER BY n.lo";

/* The root's loss and unidentified time: of the budget wall x T, what
 * the classified nodes leave is loss (ovh_rank), then unidentified.  The
 * database of an aggregated profile has no rank's classified time
 * (other NULL, db/db_fromagg.h): the budget less all classified time,
 * the same sum unless a rank's classified time exceeds its budget; and
 * a loss only for serial ranks (NULL: not known). */
static const char root_sql[] =
    "SELECT SUM(loss), CASE WHEN COUNT(other) = COUNT(*) THEN SUM(MAX(wall * t - other - loss,"
    " 0)) ELSE MAX(SUM(wall * t) - COALESCE(SUM(loss), 0) - (SELECT COALESCE(SUM(c0 + c1 + c2"
    " + c3 + c5), 0) FROM ovh_x), 0) END FROM ovh_rank";

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

/* A loss not known (NULL: an aggregated profile of OpenMP ranks) is left
 * empty, not printed as 0; so is the root's unidentified time then (what
 * the budget leaves is loss and unidentified together), its total stays. */
static void add_row(const hpq_ctx *ctx, hpq_table *t, sqlite3_stmt *st, const double *c,
                    long top_depth, int loss_known)
{
    int unid_known = loss_known || !sqlite3_column_int(st, 10);
    double total = 0;
    for (int i = 0; i < HPF_OC_N; i++) {
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
        for (int i = 0; i < HPF_OC_N; i++)
            if ((i != HPF_OC_LOSS || loss_known) && (i != HPF_OC_UNID || unid_known))
                hpq_set_real(t, 3 + i, total > 0 ? 100.0 * c[i] / total : 0.0);
        return;
    }
    if (sqlite3_column_type(st, 1) != SQLITE_NULL)
        hpq_set_int(t, 1, sqlite3_column_int64(st, 1));
    hpq_set_int(t, 2, sqlite3_column_int64(st, 2));
    hpq_set_str(t, 3, label ? label : "");
    hpq_set_real(t, 4, total);
    for (int i = 0; i < HPF_OC_N; i++)
        if ((i != HPF_OC_LOSS || loss_known) && (i != HPF_OC_UNID || unid_known))
            hpq_set_real(t, 5 + i, c[i]);
}

/* Reads the rows into t. */
static int fill_table(const hpq_ctx *ctx, hpq_table *t)
{
    double root[2] = {0, 0};
    int root_loss_known = 1;
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(ctx->db, root_sql, -1, &st, NULL) != SQLITE_OK)
        return hpq_db_error(ctx);
    if (sqlite3_step(st) == SQLITE_ROW) {
        root[0] = sqlite3_column_double(st, 0);
        root_loss_known = sqlite3_column_type(st, 0) != SQLITE_NULL;
        root[1] = sqlite3_column_double(st, 1);
    }
    sqlite3_finalize(st);
    if (sqlite3_prepare_v2(ctx->db, rows_sql, -1, &st, NULL) != SQLITE_OK)
        return hpq_db_error(ctx);
    long top_depth = -1;
    int rc;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        double c[HPF_OC_N];
        for (int i = 0; i < HPF_OC_N; i++)
            c[i] = sqlite3_column_double(st, 4 + i);
        int loss_known = sqlite3_column_type(st, 4 + HPF_OC_LOSS) != SQLITE_NULL;
        if (sqlite3_column_int(st, 10)) { /* a root: the ranks' budget */
            c[HPF_OC_LOSS] = root[0];
            c[HPF_OC_UNID] += root[1];
            loss_known = root_loss_known;
        }
        if (top_depth < 0)
            top_depth = (long)sqlite3_column_int64(st, 2);
        add_row(ctx, t, st, c, top_depth, loss_known);
    }
    sqlite3_finalize(st);
    return rc == SQLITE_DONE ? 0 : hpq_db_error(ctx);
}

/* The node PATH names (NULL: the root) into sel, with the syntax of
 * --root (nodepath.h): "/", "#N", a path of labels, or a site of one
 * context; the label is the node's path of labels. */
static int select_path(const hpq_ctx *ctx, const char *path, hpq_sel *sel)
{
    int64_t node = HPQ_ROOT_NODE;
    char where[256];
    if (path && hpq_resolve_node(ctx->db, ctx->db_path, path, HPQ_ROOT_NODE, &node, ctx->err,
                                 ctx->errlen))
        return -1;
    if (!path || hpq_node_label_path(ctx->db, node, where, sizeof where))
        snprintf(where, sizeof where, "%s", path ? path : "(root)");
    sel->label = strdup(where);
    if (!sel->label || asprintf(&sel->nodes, "%lld", (long long)node) < 0) {
        sel->nodes = NULL;
        hpq_sel_free(sel);
        return hpq_oom(ctx);
    }
    return 0;
}

/* The table of the subtree at path; *label gets the path's label (the
 * caller frees it) when label is not NULL.  NULL with ctx->err set. */
static hpq_table *overheads_table(const hpq_ctx *ctx, const char *path, char **label)
{
    hpq_sel sel = {NULL, NULL};
    if (select_path(ctx, path, &sel))
        return NULL;
    hpq_table *t = NULL;
    if (prepare(ctx) == 0 && select_rows(ctx, sel.nodes) == 0) {
        t = new_table(ctx);
        if (!t)
            hpq_oom(ctx);
        else if (fill_table(ctx, t) != 0) {
            hpq_table_free(t);
            t = NULL;
        }
    }
    if (t && label) {
        *label = sel.label;
        sel.label = NULL;
    }
    hpq_sel_free(&sel);
    return t;
}

hpq_table *hpq_overheads_rows(const hpq_ctx *ctx, const char *path, long depth)
{
    hpq_options opt = *ctx->opt;
    opt.format = HPQ_CSV;
    opt.depth = depth;
    hpq_ctx data = *ctx;
    data.opt = &opt;
    return overheads_table(&data, path, NULL);
}

int hpq_report_overheads(const hpq_ctx *ctx, const char *path)
{
    char *label = NULL;
    hpq_table *t = overheads_table(ctx, path, &label);
    if (!t)
        return -1;
    if (ctx->opt->format == HPQ_TEXT)
        fprintf(ctx->out, "overhead classes of %s (%% of each node's total: inclusive"
                          " thread time plus its loss of parallelism)\n", label);
    int rc = hpq_print_table(ctx, t);
    hpq_table_free(t);
    free(label);
    return rc;
}
