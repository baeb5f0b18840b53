/*
 * detail.c - the virtual tables `stat` and `comm` of a database merged
 * without per-rank rows (detail.h): the SQLite module hprof_rows, whose
 * rows come from the database's per-node index (rankidx_read.h: the stat
 * rows, and where the comm records lie in the profile) or, without one,
 * from the profile decoded on the first scan (detail_src.h).
 * A scan is of one node (node = ?, what the reports ask), of a range of
 * comm ids (comm_range: id BETWEEN ? AND ?), or of every row, in the
 * order hprof-merge --detail stores them.
 */
#include "config.h"
#include <stdlib.h>
#include <string.h>
#include "detail.h"
#include "detail_src.h"
#include "detail_sums.h"

enum table_kind { T_STAT, T_COMM };

/* Columns, as hprof-merge --detail's tables have them (db.c). */
static const char stat_schema[] =
    "CREATE TABLE x(node INTEGER, rank INTEGER, thread INTEGER, count INTEGER,"
    " time REAL, min REAL, max REAL, timed INTEGER, raw_time REAL, raw_min REAL,"
    " raw_max REAL)";
static const char comm_schema[] =
    "CREATE TABLE x(node INTEGER, rank INTEGER, thread INTEGER, peer INTEGER,"
    " count INTEGER, bytes_sent INTEGER, bytes_recv INTEGER, tran REAL, sync REAL,"
    " min REAL, max REAL, id INTEGER)";
#define COMM_ID_COL 11

typedef struct rows_vtab {
    sqlite3_vtab base;
    sqlite3 *db;
    enum table_kind kind;
    hpf_detail_src *src;        /* the connection's, shared by both tables */
} rows_vtab;

typedef struct rows_cursor {
    sqlite3_vtab_cursor base;
    const hpf_stat_ref *refs;   /* stat: in (node, rank, thread) or (rank, thread, node) order */
    size_t at, end;             /* stat: refs [at, end); comm: runs [at, end) */
    size_t next;                /* stat: the ref after the current row */
    hpf_stat_row row;           /* stat: the current row */
    uint32_t i;                 /* comm: the record within run `at` */
    int64_t id_hi;              /* comm: the last id to give */
    const hp_comm_rec *recs;    /* comm: run `at`'s records */
    hpf_comm_src comms;         /* comm: reads them (this cursor's own buffer) */
    int comms_open;
    const hpf_comm_run *runs;   /* comm: the runs scanned (the source's, or one node's) */
    const int64_t *run_id;      /* ... their first ids */
    const uint64_t *offsets;    /* ... from the index: where their records are, or NULL */
    hpf_rix_comms rix_comms;    /* comm from the index: reads them */
    const hp_comm_rec *node_recs;   /* or one node's, all read (hpf_detail_node_runs) */
    hpf_rix_scan scan;          /* stat from the index: its rows */
    int indexed;                /* stat: the rows are the scan's */
    sqlite3_int64 rowid;        /* stat from the index: the row's number in this scan */
} rows_cursor;

static int rows_connect(sqlite3 *db, void *aux, int argc, const char *const *argv,
                        sqlite3_vtab **out, char **err)
{
    int comm = argc > 3 && strcmp(argv[3], "comm") == 0;
    if (argc <= 3 || (!comm && strcmp(argv[3], "stat") != 0)) {
        *err = sqlite3_mprintf(HPF_DETAIL_MODULE ": say (stat) or (comm)");
        return SQLITE_ERROR;
    }
    int rc = sqlite3_declare_vtab(db, comm ? comm_schema : stat_schema);
    if (rc != SQLITE_OK)
        return rc;
    rows_vtab *v = sqlite3_malloc(sizeof *v);
    if (!v)
        return SQLITE_NOMEM;
    memset(v, 0, sizeof *v);
    v->db = db;
    v->kind = comm ? T_COMM : T_STAT;
    v->src = aux;
    *out = &v->base;
    return SQLITE_OK;
}

static int rows_disconnect(sqlite3_vtab *base)
{
    sqlite3_free(base);
    return SQLITE_OK;
}

/* idxNum bits: which constraints xFilter gets, in this order; ID_ONE:
 * the ID_FROM is "id = ?", the range's end too; BY_RANK: every stat row
 * in (rank, thread, node) order (the checker's). */
enum { BY_NODE = 1, ID_FROM = 2, ID_TO = 4, ID_ONE = 8, BY_RANK = 16 };

/* Does the ORDER BY ask for the columns cols[0..n) ascending, or a
 * prefix of them? */
static int orders_by(const sqlite3_index_info *info, const int *cols, int n)
{
    if (info->nOrderBy == 0 || info->nOrderBy > n)
        return 0;
    for (int k = 0; k < info->nOrderBy; k++)
        if (info->aOrderBy[k].desc || info->aOrderBy[k].iColumn != cols[k])
            return 0;
    return 1;
}

/* The order of the rows: node, rank, thread (comm: then by id, its
 * rows' order) as stored; for a whole stat scan also rank, thread, node.
 * Only of one scan: not of several (node IN (...), id IN (...)), whose
 * order would be SQLite's. */
static void consume_order(const rows_vtab *v, sqlite3_index_info *info)
{
    static const int stored[] = {0, 1, 2}, by_rank[] = {1, 2, 0}, by_id[] = {COMM_ID_COL};
    if (info->idxNum & (BY_NODE | ID_ONE))
        return;
    if (orders_by(info, stored, v->kind == T_STAT ? 3 : 2) ||
        (v->kind == T_COMM && orders_by(info, by_id, 1)))
        info->orderByConsumed = 1;
    else if (v->kind == T_STAT && info->idxNum == 0 && orders_by(info, by_rank, 3)) {
        info->orderByConsumed = 1;
        info->idxNum = BY_RANK;
    }
}

static int constraint_bit(const rows_vtab *v, const struct sqlite3_index_constraint *c)
{
    int is_id = v->kind == T_COMM && (c->iColumn == COMM_ID_COL || c->iColumn < 0);
    if (!c->usable)
        return 0;
    if (c->iColumn == 0 && c->op == SQLITE_INDEX_CONSTRAINT_EQ)
        return BY_NODE;
    if (is_id && (c->op == SQLITE_INDEX_CONSTRAINT_GE || c->op == SQLITE_INDEX_CONSTRAINT_EQ))
        return ID_FROM;
    if (is_id && c->op == SQLITE_INDEX_CONSTRAINT_LE)
        return ID_TO;
    return 0;
}

static int rows_best_index(sqlite3_vtab *base, sqlite3_index_info *info)
{
    const rows_vtab *v = (const rows_vtab *)base;
    int used = 0, slot[8] = {-1, -1, -1, -1, -1, -1, -1, -1};
    for (int k = 0; k < info->nConstraint; k++) {
        int bit = constraint_bit(v, &info->aConstraint[k]);
        if (bit && !(used & bit)) {
            used |= bit;
            slot[bit] = k;
        }
    }
    /* a node's rows are few: its id range is not worth a lookup per id
     * (id IN (...) would give one per id and node) */
    if (used & BY_NODE)
        used = BY_NODE;
    int arg = 0;
    for (int bit = 1; bit <= ID_TO; bit <<= 1)
        if (used & bit) {
            info->aConstraintUsage[slot[bit]].argvIndex = ++arg;
            info->aConstraintUsage[slot[bit]].omit = 1;
        }
    info->idxNum = used;
    if ((used & ID_FROM) && info->aConstraint[slot[ID_FROM]].op == SQLITE_INDEX_CONSTRAINT_EQ)
        info->idxNum |= ID_ONE;
    consume_order(v, info);
    info->estimatedCost = used & BY_NODE ? 100 : used ? 1000 : 1e9;
    info->estimatedRows = used & BY_NODE ? 100 : used ? 1000 : 1000000000;
    return SQLITE_OK;
}

static int rows_open(sqlite3_vtab *base, sqlite3_vtab_cursor **out)
{
    (void)base;
    rows_cursor *c = sqlite3_malloc(sizeof *c);
    if (!c)
        return SQLITE_NOMEM;
    memset(c, 0, sizeof *c);
    *out = &c->base;
    return SQLITE_OK;
}

static int rows_close(sqlite3_vtab_cursor *base)
{
    rows_cursor *c = (rows_cursor *)base;
    if (c->comms_open)
        hpf_comm_src_close(&c->comms);
    hpf_rix_comms_free(&c->rix_comms);
    hpf_rix_scan_free(&c->scan);
    sqlite3_free(c);
    return SQLITE_OK;
}

static const hpf_detail_src *src_of(const rows_cursor *c)
{
    return ((const rows_vtab *)c->base.pVtab)->src;
}

static int fail(rows_cursor *c, const char *msg)
{
    sqlite3_vtab *v = c->base.pVtab;
    sqlite3_free(v->zErrMsg);
    v->zErrMsg = sqlite3_mprintf("%s", msg);
    return SQLITE_ERROR;
}

/* The stat row at c->at (when there is one). */
static void stat_here(rows_cursor *c)
{
    if (c->at < c->end)
        c->row = hpf_detail_stat(src_of(c), c->refs, c->at, &c->next);
}

/* Reads run c->at's records, unless the scan ends before it. */
static int comm_here(rows_cursor *c)
{
    const hpf_detail_src *s = src_of(c);
    char err[512];
    c->recs = NULL;
    if (c->at >= c->end || c->run_id[c->at] + c->i > c->id_hi)
        return SQLITE_OK;
    const hpf_comm_run *run = &c->runs[c->at];
    if (c->node_recs)
        c->recs = c->node_recs + (c->run_id[c->at] - c->run_id[0]);
    else if (c->offsets) {
        c->rix_comms.fd = s->comm_fd;
        c->recs = hpf_rix_comm_get(&c->rix_comms, c->offsets[c->at], run->n, err, sizeof err);
    } else
        c->recs = hpf_comm_src_get(&c->comms, run->rank, run->first, run->n, err, sizeof err);
    return c->recs ? SQLITE_OK : fail(c, err);
}

/* A scan of node g's rows from the index: its runs alone. */
static int comm_filter_node(rows_cursor *c, sqlite3 *db, int64_t g)
{
    hpf_detail_src *s = ((rows_vtab *)c->base.pVtab)->src;
    const hpf_node_runs *nr = hpf_detail_node_runs(s, db, g);
    if (!nr)
        return fail(c, s->err);
    c->runs = nr->runs;
    c->run_id = nr->id;
    c->offsets = nr->offset;
    c->node_recs = nr->recs;
    c->at = 0;
    c->end = nr->n;
    c->i = 0;
    c->id_hi = INT64_MAX;
    return comm_here(c);
}

static int comm_filter(rows_cursor *c, sqlite3 *db, int idx, sqlite3_value **argv)
{
    hpf_detail_src *s = ((rows_vtab *)c->base.pVtab)->src;
    int indexed = s->rix == HPF_RIX_STAT_COMM;
    if (indexed && idx == BY_NODE)
        return comm_filter_node(c, db, sqlite3_value_int64(argv[0]));
    if (indexed && hpf_detail_comm_all(s, db))
        return fail(c, s->err);
    int64_t rows = s->run_id[s->nruns] - 1, from = 1, to = rows;
    int arg = 0;
    char err[512];
    c->runs = s->runs;
    c->run_id = s->run_id;
    c->offsets = s->run_offset;
    c->node_recs = NULL;
    c->at = 0;
    c->end = s->nruns;
    if (idx & BY_NODE) {
        int64_t g = sqlite3_value_int64(argv[arg++]);
        c->at = c->end = 0;
        if (g >= 1 && g <= s->nnodes) {
            c->at = s->node_runs[g];
            c->end = s->node_runs[g + 1];
        }
    }
    if (idx & ID_FROM)
        from = sqlite3_value_int64(argv[arg++]);
    if (idx & ID_TO)
        to = sqlite3_value_int64(argv[arg++]);
    if (idx & ID_ONE)
        to = from < to ? from : to;
    c->id_hi = to;
    c->i = 0;
    if (from > 1) {
        size_t k = hpf_detail_run_of(s, from);
        if (k > c->at)
            c->at = k;
        if (c->at < c->end && s->run_id[c->at] < from)
            c->i = (uint32_t)(from - s->run_id[c->at]);
    }
    if (!c->comms_open && !s->run_offset) {
        if (hpf_comm_src_open(&c->comms, &s->p, err, sizeof err))
            return fail(c, err);
        c->comms_open = 1;
    }
    return comm_here(c);
}

/* The stat rows of the scan from the per-rank index (rankidx_read.h). */
static int stat_filter_indexed(rows_cursor *c, sqlite3 *db, int idx, sqlite3_value **argv)
{
    int rc = idx & BY_NODE ? hpf_rix_scan_node(&c->scan, db, sqlite3_value_int64(argv[0]))
                           : hpf_rix_scan_all(&c->scan, db, (idx & BY_RANK) != 0);
    c->rowid = 1;
    return rc ? fail(c, c->scan.err) : SQLITE_OK;
}

static int rows_filter(sqlite3_vtab_cursor *base, int idx, const char *idx_str, int argc,
                       sqlite3_value **argv)
{
    rows_cursor *c = (rows_cursor *)base;
    rows_vtab *v = (rows_vtab *)base->pVtab;
    (void)idx_str;
    (void)argc;
    if (hpf_detail_ready(v->src, v->db, v->kind == T_COMM))
        return fail(c, v->src->err);
    if (v->kind == T_COMM)
        return comm_filter(c, v->db, idx, argv);
    hpf_detail_src *s = v->src;
    c->indexed = s->rix > 0;
    if (c->indexed)
        return stat_filter_indexed(c, v->db, idx, argv);
    c->at = 0;
    c->end = s->nrefs;
    c->refs = s->refs;
    if ((idx & BY_RANK) && hpf_detail_rank_order(s))
        return fail(c, "out of memory ordering the per-rank rows");
    if (idx & BY_RANK)
        c->refs = s->rank_refs;
    if (idx & BY_NODE) {
        int64_t g = sqlite3_value_int64(argv[0]);
        c->at = c->end = 0;
        if (g >= 1 && g <= s->nnodes) {
            c->at = s->node_refs[g];
            c->end = s->node_refs[g + 1];
        }
    }
    stat_here(c);
    return SQLITE_OK;
}

static int rows_next(sqlite3_vtab_cursor *base)
{
    rows_cursor *c = (rows_cursor *)base;
    if (((rows_vtab *)base->pVtab)->kind == T_STAT && c->indexed) {
        c->rowid++;
        return hpf_rix_scan_next(&c->scan) ? fail(c, c->scan.err) : SQLITE_OK;
    }
    if (((rows_vtab *)base->pVtab)->kind == T_STAT) {
        c->at = c->next;
        stat_here(c);
        return SQLITE_OK;
    }
    if (++c->i < c->runs[c->at].n) {
        if (c->run_id[c->at] + c->i > c->id_hi)
            c->recs = NULL;
        return SQLITE_OK;
    }
    c->at++;
    c->i = 0;
    return comm_here(c);
}

static int rows_eof(sqlite3_vtab_cursor *base)
{
    rows_cursor *c = (rows_cursor *)base;
    if (((rows_vtab *)base->pVtab)->kind == T_STAT)
        return c->indexed ? c->scan.at >= c->scan.n : c->at >= c->end;
    return c->recs == NULL;
}

static void stat_column(const rows_cursor *c, sqlite3_context *ctx, int col)
{
    const hpf_detail_src *s = src_of(c);
    if (col <= 2 && c->indexed) {
        const hpf_rix_row *x = &c->scan.rows[c->scan.at];
        sqlite3_result_int64(ctx, col == 0 ? c->scan.nodes[c->scan.at]
                                  : col == 1 ? x->rank : x->thread);
        return;
    }
    const hpf_stat_ref *r = c->indexed ? NULL : &c->refs[c->at];
    const hpf_stat_row *w = c->indexed ? &c->scan.rows[c->scan.at].v : &c->row;
    switch (col) {
    case 0: sqlite3_result_int64(ctx, s->m.node_map[r->rank][r->local]); break;
    case 1: sqlite3_result_int64(ctx, r->rank); break;
    case 2: sqlite3_result_int64(ctx, s->p.ranks[r->rank].nodes[r->local].thread); break;
    case 3: sqlite3_result_int64(ctx, (int64_t)w->count); break;
    case 4: sqlite3_result_double(ctx, w->time); break;
    case 5: sqlite3_result_double(ctx, w->min); break;
    case 6: sqlite3_result_double(ctx, w->max); break;
    case 7: sqlite3_result_int64(ctx, (int64_t)w->timed); break;
    case 8: sqlite3_result_double(ctx, w->raw_time); break;
    case 9: sqlite3_result_double(ctx, w->raw_min); break;
    default: sqlite3_result_double(ctx, w->raw_max); break;
    }
}

static void comm_column(const rows_cursor *c, sqlite3_context *ctx, int col)
{
    const hpf_comm_run *run = &c->runs[c->at];
    const hp_comm_rec *k = &c->recs[c->i];
    switch (col) {
    case 0: sqlite3_result_int64(ctx, run->node); break;
    case 1: sqlite3_result_int64(ctx, run->rank); break;
    case 2: sqlite3_result_int64(ctx, run->thread); break;
    case 3: sqlite3_result_int64(ctx, k->peer); break;
    case 4: sqlite3_result_int64(ctx, (int64_t)k->count); break;
    case 5: sqlite3_result_int64(ctx, (int64_t)k->bytes_sent); break;
    case 6: sqlite3_result_int64(ctx, (int64_t)k->bytes_recv); break;
    case 7: sqlite3_result_double(ctx, k->tran); break;
    case 8: sqlite3_result_double(ctx, k->sync); break;
    case 9: sqlite3_result_double(ctx, k->min); break;
    case 10: sqlite3_result_double(ctx, k->max); break;
    default: sqlite3_result_int64(ctx, c->run_id[c->at] + c->i); break;
    }
}

static int rows_column(sqlite3_vtab_cursor *base, sqlite3_context *ctx, int col)
{
    const rows_cursor *c = (const rows_cursor *)base;
    if (((rows_vtab *)base->pVtab)->kind == T_STAT)
        stat_column(c, ctx, col);
    else
        comm_column(c, ctx, col);
    return SQLITE_OK;
}

static int rows_rowid(sqlite3_vtab_cursor *base, sqlite3_int64 *id)
{
    const rows_cursor *c = (const rows_cursor *)base;
    if (((rows_vtab *)base->pVtab)->kind == T_STAT)
        *id = c->indexed ? c->rowid : (sqlite3_int64)c->at + 1;
    else
        *id = c->run_id[c->at] + c->i;
    return SQLITE_OK;
}

static const sqlite3_module rows_module = {
    .iVersion = 0,
    .xCreate = rows_connect,
    .xConnect = rows_connect,
    .xBestIndex = rows_best_index,
    .xDisconnect = rows_disconnect,
    .xDestroy = rows_disconnect,
    .xOpen = rows_open,
    .xClose = rows_close,
    .xFilter = rows_filter,
    .xNext = rows_next,
    .xEof = rows_eof,
    .xColumn = rows_column,
    .xRowid = rows_rowid,
};

static void free_src(void *p)
{
    hpf_detail_free(p);
    free(p);
}

/* Every new connection: the module and hprof_comm_sums (detail_sums.h),
 * with the connection's profile. */
static int on_open(sqlite3 *db, char **err, const void *api)
{
    (void)err;
    (void)api;
    hpf_detail_src *s = calloc(1, sizeof *s);
    if (!s)
        return SQLITE_NOMEM;
    int rc = sqlite3_create_module_v2(db, HPF_DETAIL_MODULE, &rows_module, s, free_src);
    return rc == SQLITE_OK ? hpf_detail_sums_register(db, s) : rc;
}

int hpf_detail_register(void)
{
    return sqlite3_auto_extension((void (*)(void))on_open) == SQLITE_OK ? 0 : -1;
}
