/*
 * flame.c - the calling-context tree as hprof-query's pictures see it:
 * every node with its inclusive and exclusive time summed over ranks and
 * threads and its colour class (the pictures drawn from it: flame_out.c,
 * flame_svg.c).
 *
 * Exclusive time is computed per rank and thread first (the node's time
 * less its children's on that thread, clamped at 0), then summed, so it
 * is never negative.  Times come from the `stat` table, which --raw
 * replaces with a view of the raw times (dbcomp.c).
 */
#include "config.h"
#include <assert.h>
#include <stdlib.h>
#include <string.h>
#include "hp_profile.h"
#include "flame.h"
#include "report_util.h"

static const char nodes_sql[] =
    "SELECT n.id, n.parent, COALESCE(s.label, ''), COALESCE(s.kind, ''),"
    " COALESCE(s.name, ''), COALESCE(s.flags, 0)"
    " FROM node n LEFT JOIN site s ON s.id = n.site ORDER BY n.id";

/* Per node: transmission and synchronization time, from the per-peer
 * sums (stored at merge: not a pass over every comm row). */
static const char comm_sql[] =
    "SELECT node, SUM(tran), SUM(sync) FROM comm_node_peer GROUP BY node";

hpq_fnode *hpq_ftree_find(const hpq_ftree *tr, int64_t id)
{
    size_t lo = 0, hi = tr->n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (tr->nodes[mid].id == id)
            return &tr->nodes[mid];
        if (tr->nodes[mid].id < id)
            lo = mid + 1;
        else
            hi = mid;
    }
    return NULL;
}

static int is_one_of(const char *name, const char *const *names)
{
    for (; *names; names++)
        if (strcmp(name, *names) == 0)
            return 1;
    return 0;
}

/* The class of a site by its kind, name and flags (comm sites are settled
 * later from their transmission and sync times; an MPI call that is not
 * communication, HP_SITEF_MPI: MPI_Init, Finalize, Comm_rank, Comm_split,
 * ..., is MPI control, as the overhead classes count it). */
static hpq_fclass class_of_site(const char *kind, const char *name, uint32_t flags)
{
    static const char *const omp_sync[] = {"barrier", "implicit barrier", "critical wait",
                                           "lock wait", "ordered wait", "taskwait", "reduction", "flush",
                                           NULL};
    static const char *const omp_control[] = {"fork", "join", "task create", NULL};
    if (strcmp(kind, "root") == 0)
        return HPQ_FC_ROOT;
    if (strcmp(kind, "comm") == 0)
        return HPQ_FC_MPI_TRAN;
    if (flags & HP_SITEF_MPI)
        return HPQ_FC_MPI_CONTROL;
    if (strcmp(kind, "omp") == 0) {
        if (is_one_of(name, omp_sync))
            return HPQ_FC_OMP_SYNC;
        if (is_one_of(name, omp_control))
            return HPQ_FC_OMP_CONTROL;
    }
    return HPQ_FC_COMPUTE;
}

static int load_nodes(const hpq_ctx *ctx, hpq_ftree *tr)
{
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(ctx->db, nodes_sql, -1, &st, NULL) != SQLITE_OK)
        return hpq_db_error(ctx);
    size_t cap = 0;
    int rc;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        if (tr->n == cap) {
            cap = cap ? 2 * cap : 256;
            hpq_fnode *nodes = realloc(tr->nodes, cap * sizeof *nodes);
            if (!nodes) {
                sqlite3_finalize(st);
                return hpq_oom(ctx);
            }
            tr->nodes = nodes;
        }
        hpq_fnode *nd = &tr->nodes[tr->n];
        memset(nd, 0, sizeof *nd);
        nd->id = sqlite3_column_int64(st, 0);
        nd->parent = sqlite3_column_type(st, 1) == SQLITE_NULL ? -1 : sqlite3_column_int64(st, 1);
        nd->label = strdup((const char *)sqlite3_column_text(st, 2));
        nd->cls = class_of_site((const char *)sqlite3_column_text(st, 3),
                                (const char *)sqlite3_column_text(st, 4),
                                (uint32_t)sqlite3_column_int64(st, 5));
        tr->n++;
        if (!nd->label) {
            sqlite3_finalize(st);
            return hpq_oom(ctx);
        }
    }
    sqlite3_finalize(st);
    return rc == SQLITE_DONE ? 0 : hpq_db_error(ctx);
}

static int load_times(const hpq_ctx *ctx, hpq_ftree *tr)
{
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(ctx->db, hpq_node_times_sql, -1, &st, NULL) != SQLITE_OK)
        return hpq_db_error(ctx);
    int rc;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        hpq_fnode *nd = hpq_ftree_find(tr, sqlite3_column_int64(st, 0));
        if (!nd)
            continue;
        nd->incl = sqlite3_column_double(st, 1);
        nd->excl = sqlite3_column_double(st, 2);
        assert(nd->excl >= 0);
    }
    sqlite3_finalize(st);
    return rc == SQLITE_DONE ? 0 : hpq_db_error(ctx);
}

/* An MPI node whose synchronization time exceeds its transmission time
 * is coloured as synchronization; every MPI node keeps its sync delay,
 * which the flame graph draws as a part of the node. */
static int load_comm_classes(const hpq_ctx *ctx, hpq_ftree *tr)
{
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(ctx->db, comm_sql, -1, &st, NULL) != SQLITE_OK)
        return hpq_db_error(ctx);
    int rc;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        hpq_fnode *nd = hpq_ftree_find(tr, sqlite3_column_int64(st, 0));
        if (!nd || nd->cls != HPQ_FC_MPI_TRAN)
            continue;
        nd->sync = sqlite3_column_double(st, 2);
        if (nd->sync > sqlite3_column_double(st, 1))
            nd->cls = HPQ_FC_MPI_SYNC;
    }
    sqlite3_finalize(st);
    return rc == SQLITE_DONE ? 0 : hpq_db_error(ctx);
}

static int by_label(const void *a, const void *b)
{
    const hpq_fnode *x = *(hpq_fnode *const *)a, *y = *(hpq_fnode *const *)b;
    int c = strcmp(x->label, y->label);
    if (c)
        return c;
    return x->id < y->id ? -1 : x->id > y->id;
}

/* Depths from the root down; nodes are in id order and a parent's id is
 * not known to be smaller, so walk the kids recursively. */
static void set_depth(hpq_ftree *tr, hpq_fnode *nd, int depth)
{
    nd->depth = depth;
    if (depth > tr->max_depth)
        tr->max_depth = depth;
    for (size_t i = 0; i < nd->nkids; i++)
        set_depth(tr, nd->kids[i], depth + 1);
}

/* Links every node under its parent, children sorted by label.  The
 * root is the node without a parent (the smallest id if several). */
static int link_nodes(const hpq_ctx *ctx, hpq_ftree *tr)
{
    for (size_t i = 0; i < tr->n; i++) {
        hpq_fnode *nd = &tr->nodes[i];
        hpq_fnode *p = nd->parent < 0 ? NULL : hpq_ftree_find(tr, nd->parent);
        if (!p) {
            if (!tr->root)
                tr->root = nd;
            continue;
        }
        hpq_fnode **kids = realloc(p->kids, (p->nkids + 1) * sizeof *kids);
        if (!kids)
            return hpq_oom(ctx);
        kids[p->nkids++] = nd;
        p->kids = kids;
    }
    for (size_t i = 0; i < tr->n; i++)
        if (tr->nodes[i].nkids > 1)
            qsort(tr->nodes[i].kids, tr->nodes[i].nkids, sizeof *tr->nodes[i].kids, by_label);
    if (tr->root)
        set_depth(tr, tr->root, 0);
    return 0;
}

/* The root carries the run's thread time, as the default report's root
 * row: per rank its wall time times its threads that recorded (the
 * root's own records may hold no time).  Its exclusive time is what its
 * children do not cover, clamped at 0. */
static int root_carries_total(const hpq_ctx *ctx, hpq_ftree *tr)
{
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(ctx->db, "SELECT SUM(wall * MAX(threads, 1)) FROM rank", -1, &st,
                           NULL) != SQLITE_OK)
        return hpq_db_error(ctx);
    int rc = sqlite3_step(st);
    double total = rc == SQLITE_ROW ? sqlite3_column_double(st, 0) : 0.0;
    sqlite3_finalize(st);
    if (rc != SQLITE_ROW)
        return hpq_db_error(ctx);
    hpq_fnode *root = tr->root;
    if (root && total > 0) {
        double kids = 0;
        for (size_t i = 0; i < root->nkids; i++)
            kids += root->kids[i]->incl;
        root->incl = total;
        root->excl = total > kids ? total - kids : 0;
    }
    return 0;
}

int hpq_ftree_load(const hpq_ctx *ctx, hpq_ftree *tr)
{
    memset(tr, 0, sizeof *tr);
    if (load_nodes(ctx, tr) || load_times(ctx, tr) || load_comm_classes(ctx, tr) ||
        link_nodes(ctx, tr) || root_carries_total(ctx, tr)) {
        hpq_ftree_free(tr);
        return -1;
    }
    return 0;
}

void hpq_ftree_free(hpq_ftree *tr)
{
    for (size_t i = 0; i < tr->n; i++) {
        free(tr->nodes[i].label);
        free(tr->nodes[i].kids);
    }
    free(tr->nodes);
    memset(tr, 0, sizeof *tr);
}
