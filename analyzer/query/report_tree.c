/*
 * report_tree.c - hprof-query's default report: the run header and the
 * top-down listing of the merged calling-context tree, children by
 * decreasing time, within --depth and --top.
 *
 * CSV and JSON list every row unless --top is given.
 *
 * A listing of at most HPQ_LAZY_TOP rows (the default --top 30) loads only
 * the nodes it shows and their siblings: the children of a listed node
 * come from one query through the node_parent and stat_node indices, so
 * the first report on a tree of 10^6 nodes reads a few hundred rows.  A
 * longer listing (--top 0: all) loads the whole tree in one query.
 *
 * --root lists the subtree under one node (nodepath.c names it): depths
 * relative to it, pct still of the whole run's thread time.
 */
#include "config.h"
#include <assert.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "endings.h"
#include "nodepath.h"
#include "report.h"
#include "report_util.h"
#include "counter_cols.h"

#define HPQ_LAZY_TOP 10000

/* ---- run header (text output only) ---- */

static int print_header(const hpq_ctx *ctx)
{
    hpq_table *t = hpq_query_table(ctx,
        /* one scan of rank and one of rank_mpi (a subquery per column
         * scans rank again: 7 scans, 0.1 s at 10^5 ranks) */
        "SELECT (SELECT value FROM run WHERE key = 'program'),"
        " (SELECT value FROM run WHERE key = 'argv'), r.*, m.* FROM"
        " (SELECT COUNT(*), MAX(threads), MAX(omp_threads), MAX(wall), SUM(wall),"
        "  SUM(wall * MAX(threads, 1)) FROM rank) r,"
        " (SELECT MIN(mpi_pct), AVG(mpi_pct), MAX(mpi_pct), MIN(mpi_threads), MAX(mpi_threads)"
        "  FROM rank_mpi) m");
    if (!t)
        return -1;
    if (t->failed || t->nrows != 1) {
        hpq_table_free(t);
        return hpq_oom(ctx);
    }
    const hpq_cell *c = t->cells;
    const char *argv = c[1].s && *c[1].s ? c[1].s : c[0].s ? c[0].s : "?";
    fputs("program:   ", ctx->out);
    hpq_print_text_string(ctx->out, argv);
    fputc('\n', ctx->out);
    fprintf(ctx->out, "ranks:     %lld x %lld threads (recording; OpenMP threads: %lld)\n",
            (long long)c[2].i, (long long)c[3].i, (long long)c[4].i);
    if (hpq_print_endings(ctx->out, ctx->db)) {
        hpq_table_free(t);
        return hpq_oom(ctx);
    }
    fprintf(ctx->out, "wall:      %.6f s (max over ranks), %.6f s summed over ranks\n",
            c[5].d, c[6].d);
    fprintf(ctx->out, "threads:   %.6f thread-s (wall x threads recording, summed over ranks):"
                      " the root row, 100%% of pct\n", c[7].d);
    char threads[48];
    if (c[11].i == c[12].i)
        snprintf(threads, sizeof threads, "%lld", (long long)c[12].i);
    else
        snprintf(threads, sizeof threads, "%lld-%lld", (long long)c[11].i, (long long)c[12].i);
    fprintf(ctx->out, "MPI time:  %.1f%% min, %.1f%% mean, %.1f%% max over ranks, of wall x "
                      "threads calling MPI (%s per rank)\n",
            c[8].d, c[9].d, c[10].d, threads);
    hpq_table_free(t);
    hpq_note_counters_dropped(ctx);
    fputc('\n', ctx->out);
    return 0;
}

/* ---- top-down listing ---- */

typedef struct tree_node {
    int64_t id, parent, depth;
    char *label;
    int64_t calls;
    double time, mean, max, imbalance;
    double excl;                /* exclusive time, < 0 until known */
    int64_t worst_rank, worst_thread;   /* -1 until known, -2 when none (no time) */
    int has_kids;               /* it has children (known before they are loaded) */
    int loaded;                 /* kids[] holds all its children, sorted */
    size_t nkids;
    struct tree_node **kids;
} tree_node;

/* The nodes loaded so far, in blocks: the whole tree in one block (by
 * id - 1, ids are dense from 1), or a block per set of loaded children. */
typedef struct tree {
    tree_node **blocks;
    size_t *block_len;
    size_t nblocks, cap;
    tree_node *root;            /* the listing's top node (--root, else the root) */
    int64_t top_id;             /* its id */
    sqlite3_stmt *kids_st;      /* lazy: the children of node ?1 */
    sqlite3_stmt *excl_st;      /* lazy: the exclusive time of node ?1 */
    sqlite3_stmt *worst_st;     /* the worst rank and thread of node ?1 */
    double nranks;
} tree;

static void tree_free(tree *tr)
{
    for (size_t b = 0; b < tr->nblocks; b++) {
        for (size_t i = 0; i < tr->block_len[b]; i++) {
            free(tr->blocks[b][i].label);
            free(tr->blocks[b][i].kids);
        }
        free(tr->blocks[b]);
    }
    free(tr->blocks);
    free(tr->block_len);
    sqlite3_finalize(tr->kids_st);
    sqlite3_finalize(tr->excl_st);
    sqlite3_finalize(tr->worst_st);
    memset(tr, 0, sizeof *tr);
}

/* A new block of n zeroed nodes owned by the tree; NULL when out of memory. */
static tree_node *new_block(tree *tr, size_t n)
{
    if (tr->nblocks == tr->cap) {
        size_t cap = tr->cap ? 2 * tr->cap : 16;
        tree_node **blocks = realloc(tr->blocks, cap * sizeof *blocks);
        if (!blocks)
            return NULL;
        tr->blocks = blocks;
        size_t *len = realloc(tr->block_len, cap * sizeof *len);
        if (!len)
            return NULL;
        tr->block_len = len;
        tr->cap = cap;
    }
    tree_node *b = calloc(n + 1, sizeof *b);
    if (!b)
        return NULL;
    tr->blocks[tr->nblocks] = b;
    tr->block_len[tr->nblocks++] = n;
    return b;
}

/* The order of siblings: by time unless --sort names another column. */
typedef enum sibling_key { BY_TIME, BY_EXCL, BY_CALLS, BY_MAX, BY_IMBALANCE, BY_LABEL,
                           BY_ID } sibling_key;
static struct {
    sibling_key key;
    int desc;
} sibling_order = {BY_TIME, 1};

static int compare_key(const tree_node *x, const tree_node *y)
{
    double a, b;
    switch (sibling_order.key) {
    case BY_LABEL:
        return strcmp(x->label, y->label);
    case BY_ID:
        return (x->id > y->id) - (x->id < y->id);
    case BY_EXCL:
        a = x->excl, b = y->excl;
        break;
    case BY_CALLS:
        a = (double)x->calls, b = (double)y->calls;
        break;
    case BY_MAX:
        a = x->max, b = y->max;
        break;
    case BY_IMBALANCE:
        a = x->imbalance, b = y->imbalance;
        break;
    default:
        a = x->time, b = y->time;
    }
    return (a > b) - (a < b);
}

static int by_sibling_order(const void *pa, const void *pb)
{
    const tree_node *x = *(tree_node *const *)pa, *y = *(tree_node *const *)pb;
    int c = compare_key(x, y);
    if (c)
        return sibling_order.desc ? -c : c;
    return x->id < y->id ? -1 : x->id > y->id;
}

/* Sets sibling_order from --sort; -1 with the message when the column is
 * not one siblings can be sorted by. */
static int choose_sibling_order(const hpq_ctx *ctx, const hpq_table *t)
{
    static const struct {
        const char *column;
        sibling_key key;
    } keys[] = {{"time", BY_TIME}, {"pct", BY_TIME}, {"mean", BY_TIME}, {"excl", BY_EXCL},
                {"calls", BY_CALLS}, {"max", BY_MAX}, {"imbalance", BY_IMBALANCE},
                {"site", BY_LABEL}, {"node", BY_ID}};
    int desc, col = hpq_sort_column(ctx, t, &desc);
    sibling_order.key = BY_TIME;
    sibling_order.desc = 1;
    if (col == -2)
        return -1;
    if (col == -1)
        return 0;
    for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++)
        if (strcmp(t->names[col], keys[i].column) == 0) {
            sibling_order.key = keys[i].key;
            /* an empty table cannot tell the column's type: text goes up */
            sibling_order.desc = ctx->opt->sort_dir ? ctx->opt->sort_dir > 0
                                                    : keys[i].key != BY_LABEL &&
                                                          keys[i].key != BY_ID;
            return 0;
        }
    snprintf(ctx->err, ctx->errlen, "--sort: the tree sorts siblings by time, pct, mean, excl,"
             " calls, max, imbalance, site or node, not '%s'", t->names[col]);
    return -1;
}

/* The exclusive time of one node, as hpq_node_times_sql gives every
 * node's (the lazy listing asks for the nodes it lists only): a lookup in
 * the stored node_excl table, or, where node_excl is a view (a profile of
 * one rank and one thread, or --raw's TEMP views), the same rule on the
 * node's own rows through the stat_node and node_parent indices (the view
 * would aggregate every row for each node). */
static const char *const excl_one_sql =
    "SELECT excl FROM node_excl WHERE node = ?1";
static const char *const excl_one_rows_sql =
    "SELECT SUM(MAX(0, a.t - COALESCE(b.k, 0))) FROM"
    " (SELECT rank, thread, SUM(time) AS t FROM stat WHERE node = ?1 GROUP BY rank, thread) a"
    " LEFT JOIN (SELECT c.rank AS rank, c.thread AS thread, SUM(c.time) AS k FROM stat c"
    "  JOIN node n ON n.id = c.node WHERE n.parent = ?1 GROUP BY c.rank, c.thread) b"
    " ON b.rank = a.rank AND b.thread = a.thread";

static int load_all_exclusive(const hpq_ctx *ctx, tree *tr)
{
    hpq_table *t = hpq_query_table(ctx, hpq_node_times_sql);
    if (!t)
        return -1;
    tree_node *nodes = tr->blocks[0];
    size_t n = tr->block_len[0];
    for (size_t i = 0; i < n; i++)
        nodes[i].excl = 0;
    for (size_t r = 0; r < t->nrows; r++) {
        int64_t id = hpq_cell_at(t, r, 0)->i;
        if (id >= 1 && (size_t)id <= n)
            nodes[id - 1].excl = hpq_cell_at(t, r, 2)->d;
    }
    int failed = t->failed;
    hpq_table_free(t);
    return failed ? hpq_oom(ctx) : 0;
}

/* ---- the whole tree at once ---- */

static int load_all_worst(const hpq_ctx *ctx, tree *tr);

static int load_all_nodes(const hpq_ctx *ctx, tree *tr)
{
    hpq_table *t = hpq_query_table(ctx,
        "SELECT n.id, n.parent, n.depth, s.label, COALESCE(t.calls, 0),"
        " COALESCE(t.time, 0), COALESCE(t.mean, 0), COALESCE(t.max, 0), t.imbalance"
        " FROM node n JOIN site s ON s.id = n.site LEFT JOIN node_time t ON t.node = n.id"
        " ORDER BY n.id");
    if (!t)
        return -1;
    tree_node *nodes = t->failed ? NULL : new_block(tr, t->nrows);
    if (!nodes) {
        hpq_table_free(t);
        return hpq_oom(ctx);
    }
    for (size_t r = 0; r < t->nrows; r++) {
        tree_node *nd = &nodes[r];
        nd->id = hpq_cell_at(t, r, 0)->i;
        nd->parent = hpq_cell_at(t, r, 1)->i;
        nd->depth = hpq_cell_at(t, r, 2)->i;
        nd->label = strdup(hpq_cell_at(t, r, 3)->s ? hpq_cell_at(t, r, 3)->s : "");
        nd->calls = hpq_cell_at(t, r, 4)->i;
        nd->time = hpq_cell_at(t, r, 5)->d;
        nd->mean = hpq_cell_at(t, r, 6)->d;
        nd->max = hpq_cell_at(t, r, 7)->d;
        nd->imbalance = hpq_cell_at(t, r, 8)->type == HPQ_REAL ? hpq_cell_at(t, r, 8)->d : 0;
        nd->loaded = 1;
        if (nd->id != (int64_t)r + 1 || !nd->label) {
            hpq_table_free(t);
            snprintf(ctx->err, ctx->errlen, "%s: node ids are not dense", ctx->db_path);
            return -1;
        }
    }
    tr->root = (size_t)tr->top_id <= t->nrows ? &nodes[tr->top_id - 1] : NULL;
    hpq_table_free(t);
    return tr->root && (load_all_exclusive(ctx, tr) || load_all_worst(ctx, tr)) ? -1 : 0;
}

/* Links children to parents (parents precede children) and sorts them. */
static int link_children(tree *tr)
{
    tree_node *nodes = tr->nblocks ? tr->blocks[0] : NULL;
    size_t n = tr->nblocks ? tr->block_len[0] : 0;
    for (size_t i = 0; i < n; i++) {
        int64_t p = nodes[i].parent;
        if (p >= 1 && (size_t)p <= n)
            nodes[p - 1].nkids++;
    }
    for (size_t i = 0; i < n; i++) {
        nodes[i].kids = calloc(nodes[i].nkids + 1, sizeof *nodes[i].kids);
        if (!nodes[i].kids)
            return -1;
        nodes[i].has_kids = nodes[i].nkids > 0;
        nodes[i].nkids = 0;
    }
    for (size_t i = 0; i < n; i++) {
        int64_t p = nodes[i].parent;
        if (p >= 1 && (size_t)p <= n) {
            tree_node *up = &nodes[p - 1];
            up->kids[up->nkids++] = &nodes[i];
        }
    }
    for (size_t i = 0; i < n; i++)
        qsort(nodes[i].kids, nodes[i].nkids, sizeof *nodes[i].kids, by_sibling_order);
    return 0;
}

/* ---- the nodes listed and their siblings only ---- */

/* The nodes matching `cond` (on node n) with the sums of node_time, as
 * the view computes them (per rank first, then over ranks). */
static int prepare_nodes(const hpq_ctx *ctx, const char *cond, const char *ids,
                         sqlite3_stmt **st)
{
    /* node_time's sums, stored or (a view: see node_aggregate_stored)
     * from the nodes' own rows, per rank first as node_time sums them */
    static const char stored[] = "SELECT node, calls, time, max FROM node_time"
                                 " WHERE node IN (%s)";
    static const char rows[] = "SELECT node, SUM(calls) AS calls, SUM(time) AS time,"
                               " MAX(time) AS max FROM (SELECT node, rank, SUM(count) AS calls,"
                               " SUM(time) AS time FROM stat WHERE node IN (%s)"
                               " GROUP BY node, rank) GROUP BY node";
    char sums[512], sql[1024];
    snprintf(sums, sizeof sums, hpq_aggregate_stored(ctx, "node_time") ? stored : rows, ids);
    snprintf(sql, sizeof sql,
             "SELECT n.id, n.parent, n.depth, s.label, COALESCE(t.calls, 0),"
             " COALESCE(t.time, 0), COALESCE(t.max, 0),"
             " EXISTS (SELECT 1 FROM node c WHERE c.parent = n.id)"
             " FROM node n JOIN site s ON s.id = n.site"
             " LEFT JOIN (%s) t ON t.node = n.id WHERE %s", sums, cond);
    if (sqlite3_prepare_v2(ctx->db, sql, -1, st, NULL) != SQLITE_OK)
        return hpq_db_error(ctx);
    return 0;
}

static int read_node(const tree *tr, sqlite3_stmt *st, tree_node *nd)
{
    const char *label = (const char *)sqlite3_column_text(st, 3);
    nd->id = sqlite3_column_int64(st, 0);
    nd->parent = sqlite3_column_int64(st, 1);
    nd->depth = sqlite3_column_int64(st, 2);
    nd->label = strdup(label ? label : "");
    nd->calls = sqlite3_column_int64(st, 4);
    nd->time = sqlite3_column_double(st, 5);
    nd->max = sqlite3_column_double(st, 6);
    nd->has_kids = sqlite3_column_int(st, 7) != 0;
    nd->mean = tr->nranks > 0 ? nd->time / tr->nranks : 0;
    nd->imbalance = nd->time > 0 ? nd->max * tr->nranks / nd->time : 0;
    nd->excl = -1;
    nd->worst_rank = nd->worst_thread = -1;
    return nd->label ? 0 : -1;
}

/* Runs st (bound) into a new block; *out and *n are its nodes. */
static int read_nodes(const hpq_ctx *ctx, tree *tr, sqlite3_stmt *st, tree_node **out,
                      size_t *n)
{
    size_t cap = 8, count = 0;
    tree_node *tmp = malloc(cap * sizeof *tmp);
    int rc;
    if (!tmp)
        return hpq_oom(ctx);
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        if (count == cap) {
            tree_node *more = realloc(tmp, 2 * cap * sizeof *tmp);
            if (!more)
                break;
            tmp = more;
            cap *= 2;
        }
        memset(&tmp[count], 0, sizeof tmp[count]);
        if (read_node(tr, st, &tmp[count]))
            break;
        count++;
    }
    sqlite3_reset(st);
    tree_node *block = rc == SQLITE_DONE ? new_block(tr, count) : NULL;
    if (block)
        memcpy(block, tmp, count * sizeof *tmp);
    else
        for (size_t i = 0; i < count; i++)
            free(tmp[i].label);
    free(tmp);
    if (!block)
        return rc == SQLITE_ROW || rc == SQLITE_DONE ? hpq_oom(ctx) : hpq_db_error(ctx);
    *out = block;
    *n = count;
    return 0;
}

static int load_root(const hpq_ctx *ctx, tree *tr)
{
    sqlite3_stmt *st;
    tree_node *nodes;
    size_t n;
    char id[32];
    tr->nranks = hpq_query_double(ctx, "SELECT COUNT(*) FROM rank");
    snprintf(id, sizeof id, "%lld", (long long)tr->top_id);
    if (prepare_nodes(ctx, "n.id = ?1", id, &st))
        return -1;
    sqlite3_bind_int64(st, 1, tr->top_id);
    int rc = read_nodes(ctx, tr, st, &nodes, &n);
    sqlite3_finalize(st);
    if (rc)
        return -1;
    tr->root = n ? &nodes[0] : NULL;
    if (sqlite3_prepare_v2(ctx->db,
                           hpq_aggregate_stored(ctx, "node_excl") ? excl_one_sql
                                                                   : excl_one_rows_sql,
                           -1, &tr->excl_st, NULL) != SQLITE_OK)
        return hpq_db_error(ctx);
    return prepare_nodes(ctx, "n.parent = ?1", "SELECT id FROM node WHERE parent = ?1",
                         &tr->kids_st);
}

/* The exclusive time of a node loaded lazily (listed rows only). */
static int lazy_exclusive(const hpq_ctx *ctx, tree *tr, tree_node *nd)
{
    if (nd->excl >= 0)
        return 0;
    sqlite3_bind_int64(tr->excl_st, 1, nd->id);
    int rc = sqlite3_step(tr->excl_st);
    nd->excl = rc == SQLITE_ROW ? sqlite3_column_double(tr->excl_st, 0) : 0;
    sqlite3_reset(tr->excl_st);
    return rc == SQLITE_ROW || rc == SQLITE_DONE ? 0 : hpq_db_error(ctx);
}

/* The worst rank of node ?1 is the stored node_worst_rank's (the rank
 * with the most time in the node, the lowest of equals: one lookup; under
 * --raw a TEMP view of the same rule), and its thread the one with the
 * most time there (the lowest of equals), the stored node_worst_thread's
 * (no per-rank row is read): no row when the node has no time. */
static const char *const worst_one_sql =
    "SELECT w.rank, t.thread FROM node_worst_rank w JOIN node_worst_thread t ON t.node = w.node"
    " WHERE w.node = ?1 AND w.time > 0";
/* The same rule on the node's own rows, where node_worst_rank is a view
 * (--raw, or a profile of one rank and one thread), which would aggregate
 * every row for each node (256-rank mkbig, --raw: 2.2 s through this,
 * 45 s through the view). */
static const char *const worst_one_rows_sql =
    "SELECT w.rank, (SELECT s.thread FROM stat s WHERE s.node = ?1 AND s.rank = w.rank"
    "  GROUP BY s.thread ORDER BY SUM(s.time) DESC, s.thread LIMIT 1)"
    " FROM (SELECT rank, SUM(time) AS t FROM stat WHERE node = ?1 GROUP BY rank) w"
    " WHERE w.t > 0 ORDER BY w.t DESC, w.rank LIMIT 1";

/* The same for every node at once (the whole-tree listing): one pass
 * over node_worst_rank, a table or (under --raw) a view computed once. */
static const char *const worst_all_sql =
    "SELECT w.node, w.rank, t.thread FROM node_worst_rank w"
    " JOIN node_worst_thread t ON t.node = w.node WHERE w.time > 0";

/* The worst rank and thread of a node, asked for the rows listed. */
static int lazy_worst(const hpq_ctx *ctx, tree *tr, tree_node *nd)
{
    if (nd->worst_rank != -1)
        return 0;
    if (!tr->worst_st &&
        sqlite3_prepare_v2(ctx->db,
                           hpq_aggregate_stored(ctx, "node_worst_rank") ? worst_one_sql
                                                                         : worst_one_rows_sql,
                           -1, &tr->worst_st, NULL) != SQLITE_OK)
        return hpq_db_error(ctx);
    sqlite3_bind_int64(tr->worst_st, 1, nd->id);
    int rc = sqlite3_step(tr->worst_st);
    nd->worst_rank = rc == SQLITE_ROW ? sqlite3_column_int64(tr->worst_st, 0) : -2;
    nd->worst_thread = rc == SQLITE_ROW ? sqlite3_column_int64(tr->worst_st, 1) : -2;
    sqlite3_reset(tr->worst_st);
    return rc == SQLITE_ROW || rc == SQLITE_DONE ? 0 : hpq_db_error(ctx);
}

static int load_all_worst(const hpq_ctx *ctx, tree *tr)
{
    hpq_table *t = hpq_query_table(ctx, worst_all_sql);
    if (!t)
        return -1;
    tree_node *nodes = tr->blocks[0];
    size_t n = tr->block_len[0];
    for (size_t i = 0; i < n; i++)
        nodes[i].worst_rank = nodes[i].worst_thread = -2;
    for (size_t r = 0; r < t->nrows; r++) {
        int64_t id = hpq_cell_at(t, r, 0)->i;
        if (id >= 1 && (size_t)id <= n) {
            nodes[id - 1].worst_rank = hpq_cell_at(t, r, 1)->i;
            nodes[id - 1].worst_thread = hpq_cell_at(t, r, 2)->i;
        }
    }
    int failed = t->failed;
    hpq_table_free(t);
    return failed ? hpq_oom(ctx) : 0;
}

/* Makes nd's children known, in sibling order. */
static int load_children(const hpq_ctx *ctx, tree *tr, tree_node *nd)
{
    tree_node *kids;
    size_t n;
    if (nd->loaded)
        return 0;
    sqlite3_bind_int64(tr->kids_st, 1, nd->id);
    if (read_nodes(ctx, tr, tr->kids_st, &kids, &n))
        return -1;
    nd->kids = calloc(n + 1, sizeof *nd->kids);
    if (!nd->kids)
        return hpq_oom(ctx);
    for (size_t i = 0; i < n; i++) {
        nd->kids[i] = &kids[i];
        if (sibling_order.key == BY_EXCL && lazy_exclusive(ctx, tr, &kids[i]))
            return -1;
    }
    nd->nkids = n;
    qsort(nd->kids, n, sizeof *nd->kids, by_sibling_order);
    nd->loaded = 1;
    return 0;
}

/* ---- the listing ---- */

/* A row of the listing: depth relative to the listing's top node, which
 * has no parent in it. */
static void add_tree_row(hpq_table *t, const tree *tr, const tree_node *nd, double total,
                         int indent)
{
    char *label = NULL;
    int64_t depth = nd->depth - tr->root->depth;
    assert(depth >= 0);
    hpq_table_add_row(t);
    hpq_set_int(t, 0, nd->id);
    hpq_set_int(t, 1, depth);
    if (indent && asprintf(&label, "%*s%s", (int)(2 * depth), "", nd->label) >= 0) {
        hpq_set_str(t, 2, label);
        free(label);
    } else {
        hpq_set_str(t, 2, nd->label);
    }
    hpq_set_int(t, 3, nd->calls);
    hpq_set_real(t, 4, nd->time);
    hpq_set_real(t, 5, nd->mean);
    hpq_set_real(t, 6, nd->max);
    hpq_set_real(t, 7, nd->imbalance);
    hpq_set_real(t, 8, total > 0 ? 100.0 * nd->time / total : 0);
    if (nd->parent > 0 && nd != tr->root)
        hpq_set_int(t, 9, nd->parent);
    hpq_set_real(t, 10, nd->excl > 0 ? nd->excl : 0);
    if (nd->worst_rank >= 0)
        hpq_set_int(t, 11, nd->worst_rank);
    if (nd->worst_thread >= 0)
        hpq_set_int(t, 12, nd->worst_thread);
}

/* The root row is the run's thread time: per rank its wall time times its
 * threads that recorded; calls counts those threads. */
static void root_carries_total(const hpq_ctx *ctx, tree_node *root, double total)
{
    double nranks = 0;
    sqlite3_stmt *st;
    root->time = total;
    root->calls = 0;
    root->max = 0;
    /* one scan of rank for the three (each a scan at 10^5 ranks) */
    if (sqlite3_prepare_v2(ctx->db, "SELECT COUNT(*), SUM(MAX(threads, 1)),"
                           " MAX(wall * MAX(threads, 1)) FROM rank", -1, &st, NULL) == SQLITE_OK &&
        sqlite3_step(st) == SQLITE_ROW) {
        nranks = sqlite3_column_double(st, 0);
        root->calls = sqlite3_column_int64(st, 1);
        root->max = sqlite3_column_double(st, 2);
    }
    sqlite3_finalize(st);
    root->mean = nranks > 0 ? total / nranks : 0;
    root->imbalance = root->mean > 0 ? root->max / root->mean : 0;
    double kids = hpq_query_double(ctx, "SELECT SUM(t.time) FROM node_time t JOIN node n"
                                        " ON n.id = t.node WHERE n.parent = 1");
    root->excl = total > kids ? total - kids : 0;
    /* every thread of a rank spans its wall time: no worst thread */
    root->worst_rank = (int64_t)hpq_query_double(ctx, "SELECT rank FROM rank"
                                                      " ORDER BY wall * MAX(threads, 1) DESC,"
                                                      " rank LIMIT 1");
    root->worst_thread = -2;
}

/* Depth-first walk, children by decreasing time, within --depth / --top.
 * Iterative (with a growing explicit stack) so deep trees cannot overflow. */
static int walk_tree(const hpq_ctx *ctx, tree *tr, hpq_table *t, double total)
{
    const hpq_options *o = ctx->opt;
    size_t sp = 0, cap = 64;
    tree_node **stack = malloc(cap * sizeof *stack);
    int rc = 0;
    if (!stack)
        return hpq_oom(ctx);
    if (tr->root)
        stack[sp++] = tr->root;
    while (sp && (o->top == 0 || t->nrows < (size_t)o->top)) {
        tree_node *nd = stack[--sp];
        if (nd->calls == 0 && !nd->has_kids && nd != tr->root)
            continue; /* an unused leaf, such as an empty <overflow> */
        if (tr->excl_st && ((rc = lazy_exclusive(ctx, tr, nd)) != 0 ||
                            (rc = lazy_worst(ctx, tr, nd)) != 0))
            break;
        if (!(o->kids_only && nd == tr->root))
            add_tree_row(t, tr, nd, total, o->format == HPQ_TEXT);
        if (o->depth >= 0 && nd->depth - tr->root->depth >= o->depth)
            continue;
        if ((rc = load_children(ctx, tr, nd)) != 0)
            break;
        if (sp + nd->nkids > cap) {
            size_t ncap = 2 * (sp + nd->nkids);
            tree_node **more = realloc(stack, ncap * sizeof *stack);
            if (!more) {
                rc = hpq_oom(ctx);
                break;
            }
            stack = more;
            cap = ncap;
        }
        for (size_t k = nd->nkids; k-- > 0;)
            stack[sp++] = nd->kids[k];
    }
    free(stack);
    return rc;
}

/* "(N more rows; --top 0 lists them all)" when --top left rows out: the
 * nodes within --depth that the listing would show (called, or with
 * children). */
static void print_more(const hpq_ctx *ctx, const tree *tr, size_t shown)
{
    char sql[768];
    if (ctx->opt->top == 0 || shown < (size_t)ctx->opt->top)
        return;
    /* called: a stat row with calls, or node_time's sum of them where it
     * is stored (no per-rank row is read) */
    const char *called = hpq_aggregate_stored(ctx, "node_time")
                             ? "SELECT 1 FROM node_time s WHERE s.node = %s AND s.calls > 0"
                             : "SELECT 1 FROM stat s WHERE s.node = %s AND s.count > 0";
    char exists[128];
    snprintf(exists, sizeof exists, called, tr->top_id != HPQ_ROOT_NODE ? "sub.id" : "n.id");
    if (tr->top_id != HPQ_ROOT_NODE)
        snprintf(sql, sizeof sql,
                 "WITH RECURSIVE sub(id, d) AS (SELECT %lld, 0 UNION ALL SELECT n.id, sub.d + 1"
                 " FROM node n JOIN sub ON n.parent = sub.id WHERE %ld < 0 OR sub.d < %ld)"
                 " SELECT COUNT(*) - %d FROM sub WHERE sub.d = 0 OR EXISTS (%s)"
                 " OR EXISTS (SELECT 1 FROM node c WHERE c.parent = sub.id)",
                 (long long)tr->top_id, ctx->opt->depth, ctx->opt->depth,
                 ctx->opt->kids_only != 0, exists);
    else
        snprintf(sql, sizeof sql,
             "SELECT COUNT(*) FROM node n WHERE n.id = 1 OR ((%ld < 0 OR n.depth <= %ld) AND"
             " (EXISTS (%s) OR EXISTS (SELECT 1 FROM node c WHERE c.parent = n.id)))",
             ctx->opt->depth, ctx->opt->depth, exists);
    hpq_print_more(ctx, hpq_query_double(ctx, sql) - (double)shown);
}

/* "subtree of LABEL (#N, /PATH), pct of the whole run" (text, --root). */
static void print_subtree_line(const hpq_ctx *ctx, const tree *tr)
{
    char path[1024];
    if (hpq_node_label_path(ctx->db, tr->top_id, path, sizeof path))
        snprintf(path, sizeof path, "?");
    fputs("subtree of ", ctx->out);
    hpq_print_text_string(ctx->out, tr->root->label);
    fprintf(ctx->out, " (#%lld, ", (long long)tr->top_id);
    hpq_print_text_string(ctx->out, path);
    fputs("), pct of the whole run\n", ctx->out);
}

static int load_tree(const hpq_ctx *ctx, tree *tr)
{
    long top = ctx->opt->top;
    if (top > 0 && top <= HPQ_LAZY_TOP)
        return load_root(ctx, tr);
    if (load_all_nodes(ctx, tr))
        return -1;
    return link_children(tr) ? hpq_oom(ctx) : 0;
}

/* The listing of ctx's options within --top: CSV and JSON list every row
 * unless --top was given, as the other reports do (text keeps its default
 * and says how many rows it left out). */
static int report_tree(const hpq_ctx *ctx);

int hpq_report_tree(const hpq_ctx *ctx)
{
    hpq_options o = *ctx->opt;
    hpq_ctx all = *ctx;
    if (o.format != HPQ_TEXT && !o.top_given)
        o.top = 0;
    all.opt = &o;
    return report_tree(&all);
}

static int report_tree(const hpq_ctx *ctx)
{
    static const char *const cols[] = {"node", "depth", "site", "calls", "time", "mean",
                                       "max", "imbalance", "pct", "parent", "excl",
                                       "worst_rank", "worst_thread"};
    tree tr = {0};
    hpq_table *t = hpq_table_new(13, cols);
    int rc = -1;
    double total = hpq_query_double(ctx, "SELECT SUM(wall * MAX(threads, 1)) FROM rank");

    if (!t) {
        hpq_oom(ctx);
        goto done;
    }
    tr.top_id = HPQ_ROOT_NODE;
    if (ctx->opt->root && hpq_resolve_node(ctx->db, ctx->db_path, ctx->opt->root,
                                           HPQ_ROOT_NODE, &tr.top_id, ctx->err, ctx->errlen))
        goto done;
    if (choose_sibling_order(ctx, t) || load_tree(ctx, &tr))
        goto done;
    if (tr.root && tr.top_id == HPQ_ROOT_NODE)
        root_carries_total(ctx, tr.root, total);
    if (walk_tree(ctx, &tr, t, total))
        goto done;
    hpq_time_columns(t);
    if (ctx->opt->format != HPQ_HATCHET && hpq_counter_columns(ctx, &t, 0, 0))
        goto done;
    if (t->failed) {
        hpq_oom(ctx);
        goto done;
    }
    /* text: the indentation shows depth and parent; mean = time / ranks */
    hpq_text_hide(t, "depth,parent,mean");
    if (ctx->opt->format == HPQ_TEXT && !ctx->opt->no_run_header && print_header(ctx))
        goto done;
    if (ctx->opt->format == HPQ_TEXT && ctx->opt->root && !ctx->opt->kids_only && tr.root)
        print_subtree_line(ctx, &tr);
    rc = ctx->opt->format == HPQ_HATCHET ? hpq_print_hatchet(ctx, t) : hpq_print_rows(ctx, t);
    if (rc == 0 && ctx->opt->format == HPQ_TEXT)
        print_more(ctx, &tr, t->nrows);
done:
    hpq_table_free(t);
    tree_free(&tr);
    return rc;
}
