/*
 * detail_sums.c - hprof_comm_sums(what, nodes), the comm rows of a site's
 * nodes grouped and summed in C (detail_sums.h), an eponymous virtual
 * table beside detail.c's `comm`, reading the same rows the same way.
 *
 * Same numbers as the SQL over `comm`: that SQL reads the nodes of its
 * IN list in ascending order, each node's rows in the table's order, and
 * SQLite's sorter keeps rows of equal keys in the order they came (its
 * merges take the earlier row first), so each group's doubles were added
 * in scan order; here too, into a group found by hash.
 */
#include "config.h"
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include "detail_sums.h"
#include "keymap.h"

enum sums_mode { SUMS_PEERS, SUMS_MATRIX, SUMS_LEFTOUT };
enum { COL_K1, COL_K2, COL_N1, COL_T1 = COL_N1 + 4, COL_WHAT = COL_T1 + 4, COL_NODES };

static const char schema[] =
    "CREATE TABLE x(k1 INTEGER, k2 INTEGER, n1 INTEGER, n2 INTEGER, n3 INTEGER, n4 INTEGER,"
    " t1 REAL, t2 REAL, t3 REAL, t4 REAL, what HIDDEN, nodes HIDDEN)";

typedef struct sum_group {
    int64_t k1, k2;
    int64_t n[4];
    double t[4];
} sum_group;

/* What a node's site says of its rows (matrix, leftout): as the SQL's
 * join to site reads it; a NULL flags column is neither. */
typedef struct node_site {
    int found;          /* the node and its site exist (the join keeps its rows) */
    int collective;     /* flags & 4: 1, 0, or -1 when flags is NULL */
    int named_send;     /* name LIKE '%send%' (a NULL name counts as one) */
} node_site;

typedef struct sums_vtab {
    sqlite3_vtab base;
    sqlite3 *db;
    hpf_detail_src *src;
} sums_vtab;

typedef struct sums_cursor {
    sqlite3_vtab_cursor base;
    enum sums_mode mode;
    sum_group *groups;
    size_t n, cap, at;
    hpf_keymap keys;
} sums_cursor;

static int sums_connect(sqlite3 *db, void *aux, int argc, const char *const *argv,
                        sqlite3_vtab **out, char **err)
{
    (void)argc;
    (void)argv;
    (void)err;
    int rc = sqlite3_declare_vtab(db, schema);
    if (rc != SQLITE_OK)
        return rc;
    sums_vtab *v = sqlite3_malloc(sizeof *v);
    if (!v)
        return SQLITE_NOMEM;
    memset(v, 0, sizeof *v);
    v->db = db;
    v->src = aux;
    *out = &v->base;
    return SQLITE_OK;
}

static int sums_disconnect(sqlite3_vtab *base)
{
    sqlite3_free(base);
    return SQLITE_OK;
}

/* Both arguments are needed (what = ?, nodes = ?); the rows come in
 * (k1, k2) order. */
static int sums_best_index(sqlite3_vtab *base, sqlite3_index_info *info)
{
    (void)base;
    int slot[2] = {-1, -1};
    for (int k = 0; k < info->nConstraint; k++) {
        const struct sqlite3_index_constraint *c = &info->aConstraint[k];
        if (c->op == SQLITE_INDEX_CONSTRAINT_EQ && c->iColumn >= COL_WHAT) {
            if (!c->usable)
                return SQLITE_CONSTRAINT;
            slot[c->iColumn - COL_WHAT] = k;
        }
    }
    if (slot[0] < 0 || slot[1] < 0)
        return SQLITE_CONSTRAINT;
    for (int a = 0; a < 2; a++) {
        info->aConstraintUsage[slot[a]].argvIndex = a + 1;
        info->aConstraintUsage[slot[a]].omit = 1;
    }
    int ordered = info->nOrderBy <= 2;
    for (int k = 0; k < info->nOrderBy && ordered; k++)
        ordered = !info->aOrderBy[k].desc && info->aOrderBy[k].iColumn == k;
    info->orderByConsumed = ordered;
    info->estimatedCost = 1000;
    return SQLITE_OK;
}

static int sums_open(sqlite3_vtab *base, sqlite3_vtab_cursor **out)
{
    (void)base;
    sums_cursor *c = sqlite3_malloc(sizeof *c);
    if (!c)
        return SQLITE_NOMEM;
    memset(c, 0, sizeof *c);
    hpf_keymap_init(&c->keys);
    *out = &c->base;
    return SQLITE_OK;
}

static void forget_groups(sums_cursor *c)
{
    hpf_keymap_free(&c->keys);
    hpf_keymap_init(&c->keys);
    c->n = c->at = 0;
}

static int sums_close(sqlite3_vtab_cursor *base)
{
    sums_cursor *c = (sums_cursor *)base;
    hpf_keymap_free(&c->keys);
    free(c->groups);
    sqlite3_free(c);
    return SQLITE_OK;
}

static int fail(sums_cursor *c, const char *msg)
{
    sqlite3_vtab *v = c->base.pVtab;
    sqlite3_free(v->zErrMsg);
    v->zErrMsg = sqlite3_mprintf("%s", msg);
    return SQLITE_ERROR;
}

/* The group of (k1, k2), made (zeroed) the first time: NULL without
 * memory; *added says it is new. */
static sum_group *group_of(sums_cursor *c, int64_t k1, int64_t k2, int *added)
{
    uint32_t key[2] = {(uint32_t)k1, (uint32_t)k2}, at;
    if (hpf_keymap_intern(&c->keys, key, sizeof key, (uint32_t)c->n, &at, added))
        return NULL;
    if (!*added)
        return &c->groups[at];
    if (c->n == c->cap) {
        size_t cap = c->cap ? 2 * c->cap : 1024;
        sum_group *g = realloc(c->groups, cap * sizeof *g);
        if (!g)
            return NULL;
        c->groups = g;
        c->cap = cap;
    }
    sum_group *g = &c->groups[c->n++];
    memset(g, 0, sizeof *g);
    g->k1 = k1;
    g->k2 = k2;
    return g;
}

/* SUM(count), SUM(bytes_sent), SUM(bytes_recv), SUM(tran), SUM(sync),
 * MIN(min), MAX(max) by (rank, peer). */
static int add_peers(sums_cursor *c, uint32_t rank, const hp_comm_rec *k)
{
    int added;
    sum_group *g = group_of(c, rank, k->peer, &added);
    if (!g)
        return -1;
    g->n[0] += (int64_t)k->count;
    g->n[1] += (int64_t)k->bytes_sent;
    g->n[2] += (int64_t)k->bytes_recv;
    g->t[0] += k->tran;
    g->t[1] += k->sync;
    if (added || k->min < g->t[2])
        g->t[2] = k->min;
    if (added || k->max > g->t[3])
        g->t[3] = k->max;
    return 0;
}

/* A cell of the matrix (hpf_matrix_cells_fmt): a receiving row's time at
 * (peer, rank), a sending row's bytes, messages and time at (rank, peer). */
static int add_cell(sums_cursor *c, const node_site *site, uint32_t rank, const hp_comm_rec *k)
{
    int64_t sent = (int64_t)k->bytes_sent, recvd = (int64_t)k->bytes_recv;
    int64_t count = (int64_t)k->count;
    if (k->peer < 0 || site->collective != 0)
        return 0;
    int rcv = sent == 0 && (recvd > 0 || !site->named_send), added;
    sum_group *g = rcv ? group_of(c, k->peer, rank, &added) : group_of(c, rank, k->peer, &added);
    if (!g)
        return -1;
    g->n[0] += rcv ? 0 : sent;
    g->n[1] += rcv ? 0 : recvd > 0 ? count / 2 : count;
    g->t[0] += k->tran;
    g->t[1] += k->sync;
    return 0;
}

/* What the matrix leaves out (hpf_matrix_leftout_fmt), one group. */
static int add_leftout(sums_cursor *c, const node_site *site, const hp_comm_rec *k)
{
    int added;
    sum_group *g = group_of(c, 0, 0, &added);
    if (!g)
        return -1;
    if (k->peer == -1) {
        g->n[0] += (int64_t)k->bytes_sent;
        g->n[1] += (int64_t)k->count;
    }
    if (k->peer == -1 || (k->peer >= 0 && site->collective == 1))
        g->t[0] += k->tran + k->sync;
    if (k->peer == -2)
        g->n[2] += (int64_t)k->bytes_sent + (int64_t)k->bytes_recv;
    if (k->peer >= 0 && site->collective == 0)
        g->n[3] += (int64_t)k->bytes_sent;
    return 0;
}

static int add_row(sums_cursor *c, const node_site *site, uint32_t rank, const hp_comm_rec *k)
{
    switch (c->mode) {
    case SUMS_PEERS: return add_peers(c, rank, k);
    case SUMS_MATRIX: return add_cell(c, site, rank, k);
    default: return add_leftout(c, site, k);
    }
}

static int add_run(sums_cursor *c, const node_site *site, const hpf_comm_run *run,
                   const hp_comm_rec *recs)
{
    for (uint32_t i = 0; i < run->n; i++)
        if (add_row(c, site, run->rank, &recs[i]))
            return -1;
    return 0;
}

/* Node g's rows from the index, as detail.c's comm_filter_node gives them. */
static int add_node_indexed(sums_cursor *c, hpf_detail_src *s, sqlite3 *db, int64_t g,
                            const node_site *site)
{
    const hpf_node_runs *nr = hpf_detail_node_runs(s, db, g);
    if (!nr)
        return fail(c, s->err);
    hpf_rix_comms rd = {s->comm_fd, NULL, NULL, 0};
    int rc = SQLITE_OK;
    for (size_t k = 0; k < nr->n && rc == SQLITE_OK; k++) {
        const hp_comm_rec *recs =
            nr->recs ? nr->recs + (nr->id[k] - nr->id[0])
                     : hpf_rix_comm_get(&rd, nr->offset[k], nr->runs[k].n, s->err, sizeof s->err);
        rc = !recs ? fail(c, s->err)
             : add_run(c, site, &nr->runs[k], recs) ? SQLITE_NOMEM : SQLITE_OK;
    }
    hpf_rix_comms_free(&rd);
    return rc;
}

/* Node g's rows from the profile decoded (no index), as comm_filter
 * gives them for node = g. */
static int add_node_decoded(sums_cursor *c, hpf_detail_src *s, int64_t g, const node_site *site)
{
    hpf_comm_src src;
    memset(&src, 0, sizeof src);
    hpf_rix_comms rd = {s->comm_fd, NULL, NULL, 0};
    char err[512];
    if (g < 1 || g > s->nnodes)
        return SQLITE_OK;
    if (!s->run_offset && hpf_comm_src_open(&src, &s->p, err, sizeof err))
        return fail(c, err);
    int rc = SQLITE_OK;
    for (size_t k = s->node_runs[g]; k < s->node_runs[g + 1] && rc == SQLITE_OK; k++) {
        const hpf_comm_run *run = &s->runs[k];
        const hp_comm_rec *recs =
            s->run_offset ? hpf_rix_comm_get(&rd, s->run_offset[k], run->n, err, sizeof err)
                          : hpf_comm_src_get(&src, run->rank, run->first, run->n, err, sizeof err);
        rc = !recs ? fail(c, err) : add_run(c, site, run, recs) ? SQLITE_NOMEM : SQLITE_OK;
    }
    if (!s->run_offset)
        hpf_comm_src_close(&src);
    hpf_rix_comms_free(&rd);
    return rc;
}

/* Does name contain "send", ASCII letters in any case (SQL LIKE)? */
static int named_send(const char *name)
{
    for (const char *p = name; *p; p++)
        if (strncasecmp(p, "send", 4) == 0)
            return 1;
    return 0;
}

static node_site site_of(sqlite3 *db, int64_t g)
{
    node_site site = {0, -1, 1};
    sqlite3_stmt *st = NULL;
    if (sqlite3_prepare_v2(db, "SELECT s.name, s.flags FROM main.node n JOIN main.site s"
                           " ON s.id = n.site WHERE n.id = ?", -1, &st, NULL) == SQLITE_OK &&
        sqlite3_bind_int64(st, 1, g) == SQLITE_OK && sqlite3_step(st) == SQLITE_ROW) {
        const char *name = (const char *)sqlite3_column_text(st, 0);
        site.found = 1;
        site.named_send = !name || named_send(name);
        if (sqlite3_column_type(st, 1) != SQLITE_NULL)
            site.collective = (sqlite3_column_int64(st, 1) & 4) != 0;
    }
    sqlite3_finalize(st);
    return site;
}

/* The node ids of the list, ascending, each once (an IN list's order). */
static size_t parse_nodes(const char *list, int64_t **out)
{
    size_t n = 0, cap = 16;
    int64_t *ids = malloc(cap * sizeof *ids);
    for (const char *p = list; ids && *p;) {
        char *end;
        long long v = strtoll(p, &end, 10);
        if (end == p) {
            p++;
            continue;
        }
        p = end;
        if (n == cap) {
            int64_t *more = realloc(ids, 2 * cap * sizeof *ids);
            if (!more) {
                free(ids);
                ids = NULL;
                break;
            }
            ids = more;
            cap *= 2;
        }
        ids[n++] = v;
    }
    *out = ids;
    if (!ids)
        return 0;
    for (size_t i = 1; i < n; i++)         /* a few ids: insertion sort */
        for (size_t j = i; j > 0 && ids[j - 1] > ids[j]; j--) {
            int64_t t = ids[j];
            ids[j] = ids[j - 1];
            ids[j - 1] = t;
        }
    size_t kept = 0;
    for (size_t i = 0; i < n; i++)
        if (kept == 0 || ids[kept - 1] != ids[i])
            ids[kept++] = ids[i];
    return kept;
}

static int by_key(const void *a, const void *b)
{
    const sum_group *x = a, *y = b;
    if (x->k1 != y->k1)
        return x->k1 < y->k1 ? -1 : 1;
    return x->k2 < y->k2 ? -1 : x->k2 > y->k2;
}

static int add_nodes(sums_cursor *c, hpf_detail_src *s, sqlite3 *db, const int64_t *ids,
                     size_t n)
{
    for (size_t i = 0; i < n; i++) {
        node_site site = {1, 0, 1};
        if (c->mode != SUMS_PEERS && !(site = site_of(db, ids[i])).found)
            continue;
        int rc = s->rix == HPF_RIX_STAT_COMM ? add_node_indexed(c, s, db, ids[i], &site)
                                             : add_node_decoded(c, s, ids[i], &site);
        if (rc == SQLITE_NOMEM)
            return fail(c, "out of memory summing the comm rows");
        if (rc != SQLITE_OK)
            return rc;
    }
    return SQLITE_OK;
}

static int sums_filter(sqlite3_vtab_cursor *base, int idx, const char *idx_str, int argc,
                       sqlite3_value **argv)
{
    sums_cursor *c = (sums_cursor *)base;
    sums_vtab *v = (sums_vtab *)base->pVtab;
    (void)idx;
    (void)idx_str;
    const char *what = argc == 2 ? (const char *)sqlite3_value_text(argv[0]) : NULL;
    const char *list = argc == 2 ? (const char *)sqlite3_value_text(argv[1]) : NULL;
    forget_groups(c);
    if (!what || !list)
        return fail(c, HPF_SUMS_FN ": say what and which nodes");
    if (strcmp(what, "peers") == 0)
        c->mode = SUMS_PEERS;
    else if (strcmp(what, "matrix") == 0)
        c->mode = SUMS_MATRIX;
    else if (strcmp(what, "leftout") == 0)
        c->mode = SUMS_LEFTOUT;
    else
        return fail(c, HPF_SUMS_FN ": what is 'peers', 'matrix' or 'leftout'");
    if (hpf_detail_ready(v->src, v->db, 1))
        return fail(c, v->src->err);
    int64_t *ids;
    size_t n = parse_nodes(list, &ids);
    if (!ids)
        return fail(c, "out of memory");
    int rc = add_nodes(c, v->src, v->db, ids, n), added;
    free(ids);
    if (rc == SQLITE_OK && c->mode == SUMS_LEFTOUT && !group_of(c, 0, 0, &added))
        rc = fail(c, "out of memory");
    if (rc == SQLITE_OK && c->n > 1)
        qsort(c->groups, c->n, sizeof *c->groups, by_key);
    return rc;
}

static int sums_next(sqlite3_vtab_cursor *base)
{
    ((sums_cursor *)base)->at++;
    return SQLITE_OK;
}

static int sums_eof(sqlite3_vtab_cursor *base)
{
    const sums_cursor *c = (const sums_cursor *)base;
    return c->at >= c->n;
}

static int sums_column(sqlite3_vtab_cursor *base, sqlite3_context *ctx, int col)
{
    const sums_cursor *c = (const sums_cursor *)base;
    const sum_group *g = &c->groups[c->at];
    if (col <= COL_K2 && c->mode == SUMS_LEFTOUT)
        sqlite3_result_null(ctx);
    else if (col <= COL_K2)
        sqlite3_result_int64(ctx, col == COL_K1 ? g->k1 : g->k2);
    else if (col < COL_T1)
        sqlite3_result_int64(ctx, g->n[col - COL_N1]);
    else if (col < COL_WHAT)
        sqlite3_result_double(ctx, g->t[col - COL_T1]);
    else
        sqlite3_result_null(ctx);
    return SQLITE_OK;
}

static int sums_rowid(sqlite3_vtab_cursor *base, sqlite3_int64 *id)
{
    *id = (sqlite3_int64)((const sums_cursor *)base)->at + 1;
    return SQLITE_OK;
}

static const sqlite3_module sums_module = {
    .iVersion = 0,
    .xCreate = NULL,            /* eponymous only: a table-valued function */
    .xConnect = sums_connect,
    .xBestIndex = sums_best_index,
    .xDisconnect = sums_disconnect,
    .xDestroy = sums_disconnect,
    .xOpen = sums_open,
    .xClose = sums_close,
    .xFilter = sums_filter,
    .xNext = sums_next,
    .xEof = sums_eof,
    .xColumn = sums_column,
    .xRowid = sums_rowid,
};

int hpf_detail_sums_register(sqlite3 *db, hpf_detail_src *s)
{
    return sqlite3_create_module(db, HPF_SUMS_FN, &sums_module, s);
}
