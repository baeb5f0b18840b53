/*
 * report_tree.c - hprof-query's default report: the run header and the
 * top-down listing of the merged calling-context tree, children by
 * decreasing time, within --depth and --top.
 *
 * A listing of at most HPQ_LAZY_TOP rows (the default --top 30) loads only
 * the nodes it shows and their siblings: the children of a listed node
 * come from one query through the node_parent and stat_node indices, so
 * the first report on a tree of 10^6 nodes reads a few hundred rows.  A
 * longer listing (--top 0: all) loads the whole tree in one query.
 */
#include "config.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "endings.h"
#include "report.h"
#include "report_util.h"

#define HPQ_LAZY_TOP 10000

/* ---- run header (text output only) ---- */

static int print_header(const hpq_ctx *ctx)
{
    hpq_table *t = hpq_query_table(ctx,
        "SELECT (SELECT value FROM run WHERE key = 'program'),"
        " (SELECT value FROM run WHERE key = 'argv'),"
        " (SELECT COUNT(*) FROM rank), (SELECT MAX(threads) FROM rank),"
        " (SELECT MAX(omp_threads) FROM rank),"
        " (SELECT MAX(wall) FROM rank), (SELECT SUM(wall) FROM rank),"
        " (SELECT SUM(wall * MAX(threads, 1)) FROM rank),"
        " MIN(mpi_pct), AVG(mpi_pct), MAX(mpi_pct), MIN(mpi_threads), MAX(mpi_threads)"
        " FROM rank_mpi");
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
                      "threads calling MPI (%s per rank)\n\n",
            c[8].d, c[9].d, c[10].d, threads);
    hpq_table_free(t);
    return 0;
}

/* ---- top-down listing ---- */

typedef struct tree_node {
    int64_t id, parent, depth;
    char *label;
    int64_t calls;
    double time, mean, max, imbalance;
    double excl;                /* exclusive time, < 0 until known */
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
    tree_node *root;
    sqlite3_stmt *kids_st;      /* lazy: the children of node ?1 */
    sqlite3_stmt *excl_st;      /* lazy: the exclusive time of node ?1 */
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

static int by_time_desc(const void *a, const void *b)
{
    const tree_node *x = *(tree_node *const *)a, *y = *(tree_node *const *)b;
    if (x->time != y->time)
        return x->time < y->time ? 1 : -1;
    return x->id < y->id ? -1 : x->id > y->id;
}

/* The exclusive time of one node, as hpq_node_times_sql gives every
 * node's (the lazy listing asks for the nodes it lists only). */
static const char *const excl_one_sql =
    "SELECT excl FROM node_excl WHERE node = ?1";

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
    tr->root = t->nrows ? &nodes[0] : NULL;
    hpq_table_free(t);
    return tr->root ? load_all_exclusive(ctx, tr) : 0;
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
        qsort(nodes[i].kids, nodes[i].nkids, sizeof *nodes[i].kids, by_time_desc);
    return 0;
}

/* ---- the nodes listed and their siblings only ---- */

/* The nodes matching `cond` (on node n) with the sums of node_time, as
 * the view computes them (per rank first, then over ranks). */
static int prepare_nodes(const hpq_ctx *ctx, const char *cond, const char *ids,
                         sqlite3_stmt **st)
{
    char sql[1024];
    snprintf(sql, sizeof sql,
             "SELECT n.id, n.parent, n.depth, s.label, COALESCE(t.calls, 0),"
             " COALESCE(t.time, 0), COALESCE(t.max, 0),"
             " EXISTS (SELECT 1 FROM node c WHERE c.parent = n.id)"
             " FROM node n JOIN site s ON s.id = n.site"
             " LEFT JOIN (SELECT node, calls, time, max FROM node_time"
             "  WHERE node IN (%s)) t ON t.node = n.id"
             " WHERE %s", ids, cond);
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
    tr->nranks = hpq_query_double(ctx, "SELECT COUNT(*) FROM rank");
    if (prepare_nodes(ctx, "n.id = 1", "1", &st))
        return -1;
    int rc = read_nodes(ctx, tr, st, &nodes, &n);
    sqlite3_finalize(st);
    if (rc)
        return -1;
    tr->root = n ? &nodes[0] : NULL;
    if (sqlite3_prepare_v2(ctx->db, excl_one_sql, -1, &tr->excl_st, NULL) != SQLITE_OK)
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

/* Makes nd's children known, sorted by decreasing time. */
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
    for (size_t i = 0; i < n; i++)
        nd->kids[i] = &kids[i];
    nd->nkids = n;
    qsort(nd->kids, n, sizeof *nd->kids, by_time_desc);
    nd->loaded = 1;
    return 0;
}

/* ---- the listing ---- */

static void add_tree_row(hpq_table *t, const tree_node *nd, double total, int indent)
{
    char *label = NULL;
    hpq_table_add_row(t);
    hpq_set_int(t, 0, nd->id);
    hpq_set_int(t, 1, nd->depth);
    if (indent && asprintf(&label, "%*s%s", (int)(2 * nd->depth), "", nd->label) >= 0) {
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
    if (nd->parent > 0)
        hpq_set_int(t, 9, nd->parent);
    hpq_set_real(t, 10, nd->excl > 0 ? nd->excl : 0);
}

/* The root row is the run's thread time: per rank its wall time times its
 * threads that recorded; calls counts those threads. */
static void root_carries_total(const hpq_ctx *ctx, tree_node *root, double total)
{
    double nranks = hpq_query_double(ctx, "SELECT COUNT(*) FROM rank");
    root->time = total;
    root->calls = (int64_t)hpq_query_double(ctx, "SELECT SUM(MAX(threads, 1)) FROM rank");
    root->mean = nranks > 0 ? total / nranks : 0;
    root->max = hpq_query_double(ctx, "SELECT MAX(wall * MAX(threads, 1)) FROM rank");
    root->imbalance = root->mean > 0 ? root->max / root->mean : 0;
    double kids = hpq_query_double(ctx, "SELECT SUM(t.time) FROM node_time t JOIN node n"
                                        " ON n.id = t.node WHERE n.parent = 1");
    root->excl = total > kids ? total - kids : 0;
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
        if (tr->excl_st && (rc = lazy_exclusive(ctx, tr, nd)) != 0)
            break;
        add_tree_row(t, nd, total, o->format == HPQ_TEXT);
        if (o->depth >= 0 && nd->depth >= o->depth)
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
static void print_more(const hpq_ctx *ctx, size_t shown)
{
    char sql[256];
    if (ctx->opt->top == 0 || shown < (size_t)ctx->opt->top)
        return;
    snprintf(sql, sizeof sql,
             "SELECT COUNT(*) FROM node n WHERE n.id = 1 OR ((%ld < 0 OR n.depth <= %ld) AND"
             " (EXISTS (SELECT 1 FROM stat s WHERE s.node = n.id AND s.count > 0)"
             " OR EXISTS (SELECT 1 FROM node c WHERE c.parent = n.id)))",
             ctx->opt->depth, ctx->opt->depth);
    hpq_print_more(ctx, hpq_query_double(ctx, sql) - (double)shown);
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

int hpq_report_tree(const hpq_ctx *ctx)
{
    static const char *const cols[] = {"node", "depth", "site", "calls", "time", "mean",
                                       "max", "imbalance", "pct", "parent", "excl"};
    tree tr = {0};
    hpq_table *t = NULL;
    int rc = -1;
    double total = hpq_query_double(ctx, "SELECT SUM(wall * MAX(threads, 1)) FROM rank");

    if (load_tree(ctx, &tr))
        goto done;
    if (tr.root)
        root_carries_total(ctx, tr.root, total);
    t = hpq_table_new(11, cols);
    if (!t) {
        hpq_oom(ctx);
        goto done;
    }
    if (walk_tree(ctx, &tr, t, total))
        goto done;
    hpq_time_columns(t);
    if (t->failed) {
        hpq_oom(ctx);
        goto done;
    }
    if (ctx->opt->format == HPQ_TEXT && print_header(ctx))
        goto done;
    rc = hpq_print_table(ctx, t);
    if (rc == 0 && ctx->opt->format == HPQ_TEXT)
        print_more(ctx, t->nrows);
done:
    hpq_table_free(t);
    tree_free(&tr);
    return rc;
}
