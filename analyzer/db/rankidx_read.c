/*
 * rankidx_read.c - reads the per-node index of per-rank rows (rankidx.h):
 * the blobs decoded, and the scans detail.c's `stat` makes of them (one
 * node, every node in order, every row in (rank, thread, node) order)
 * and the comm records its runs point to in the profile.
 */
#include "config.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "hp_format.h"
#include "rankidx_read.h"
#include "read/hpf_read.h"

static int get_varint(hpf_rix_cur *c, uint64_t *out)
{
    if (c->at < c->end && *c->at < 0x80) {     /* most are one byte */
        *out = *c->at++;
        return 0;
    }
    uint64_t x = 0;
    for (int shift = 0; c->at < c->end && shift < 64; shift += 7) {
        unsigned char b = *c->at++;
        x |= (uint64_t)(b & 0x7f) << shift;
        if (!(b & 0x80)) {
            *out = x;
            return 0;
        }
    }
    return -1;
}

static int get_double(hpf_rix_cur *c, double *out)
{
    uint64_t u = 0;
    if (c->end - c->at < 8)
        return -1;
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    memcpy(&u, c->at, sizeof u);
#else
    for (int k = 0; k < 8; k++)
        u |= (uint64_t)c->at[k] << (8 * k);
#endif
    c->at += 8;
    memcpy(out, &u, sizeof *out);
    return 0;
}

/* The doubles of a row with flags f, in their stored order. */
static int get_doubles(hpf_rix_cur *c, unsigned f, hpf_stat_row *v)
{
    if (get_double(c, &v->raw_time))
        return -1;
    if (f & HPF_RIX_RMIN_IS_RTIME)
        v->raw_min = v->raw_time;
    else if (get_double(c, &v->raw_min))
        return -1;
    if (f & HPF_RIX_RMAX_IS_RMIN)
        v->raw_max = v->raw_min;
    else if (get_double(c, &v->raw_max))
        return -1;
    if (f & HPF_RIX_TIME_IS_RAW)
        v->time = v->raw_time;
    else if (get_double(c, &v->time))
        return -1;
    if (f & HPF_RIX_MIN_IS_RAW)
        v->min = v->raw_min;
    else if (get_double(c, &v->min))
        return -1;
    if (f & HPF_RIX_MAX_IS_RAW)
        v->max = v->raw_max;
    else if (f & HPF_RIX_MAX_IS_MIN)
        v->max = v->min;
    else if (get_double(c, &v->max))
        return -1;
    return 0;
}

int hpf_rix_next_stat(hpf_rix_cur *c, hpf_rix_row *out)
{
    uint64_t delta, thread, count, flags, timed;
    if (c->at == c->end)
        return 0;
    if (get_varint(c, &delta) || get_varint(c, &thread) || get_varint(c, &count) ||
        get_varint(c, &flags))
        return -1;
    timed = count;
    if (!(flags & HPF_RIX_TIMED_ALL) && get_varint(c, &timed))
        return -1;
    c->rank += (uint32_t)delta;
    out->rank = c->rank;
    out->thread = (uint32_t)thread;
    out->v.count = count;
    out->v.timed = timed;
    return get_doubles(c, (unsigned)flags, &out->v) ? -1 : 1;
}

int hpf_rix_next_run(hpf_rix_cur *c, hpf_rix_run *out)
{
    uint64_t delta, thread, n, offset;
    if (c->at == c->end)
        return 0;
    if (get_varint(c, &delta) || get_varint(c, &thread) || get_varint(c, &n) ||
        get_varint(c, &offset))
        return -1;
    c->rank += (uint32_t)delta;
    *out = (hpf_rix_run){c->rank, (uint32_t)thread, (uint32_t)n, offset};
    return 1;
}

int hpf_rix_mode(sqlite3 *db)
{
    sqlite3_stmt *st = NULL;
    int mode = 0;
    if (sqlite3_prepare_v2(db, "SELECT value FROM main.run WHERE key = 'rank_index' AND"
                           " EXISTS (SELECT 1 FROM main.sqlite_master WHERE type = 'table'"
                           " AND name = 'rank_index')", -1, &st, NULL) == SQLITE_OK &&
        sqlite3_step(st) == SQLITE_ROW)
        mode = sqlite3_column_int(st, 0);
    sqlite3_finalize(st);
    return mode == HPF_RIX_STAT || mode == HPF_RIX_STAT_COMM ? mode : 0;
}

/* ---- the scans of stat */

static int fail(hpf_rix_scan *s, const char *what)
{
    snprintf(s->err, sizeof s->err, "the per-rank index: %s", what);
    return -1;
}

/* Room for one more row in the batch. */
static int reserve(hpf_rix_scan *s)
{
    if (s->n < s->cap)
        return 0;
    size_t cap = s->cap ? 2 * s->cap : 1024;
    hpf_rix_row *rows = realloc(s->rows, cap * sizeof *rows);
    if (rows)
        s->rows = rows;
    uint32_t *nodes = realloc(s->nodes, cap * sizeof *nodes);
    if (nodes)
        s->nodes = nodes;
    if (!rows || !nodes)
        return fail(s, "out of memory");
    s->cap = cap;
    return 0;
}

/* Node g's rows, appended to the batch. */
static int decode_node(hpf_rix_scan *s, uint32_t g, const void *blob, size_t len)
{
    hpf_rix_cur c = hpf_rix_open(blob, len);
    int got;
    for (;;) {
        if (reserve(s))
            return -1;
        if ((got = hpf_rix_next_stat(&c, &s->rows[s->n])) <= 0)
            break;
        s->nodes[s->n++] = g;
    }
    return got < 0 ? fail(s, "a stat blob is cut short") : 0;
}

int hpf_rix_scan_node(hpf_rix_scan *s, sqlite3 *db, int64_t g)
{
    s->n = s->at = 0;
    s->mode = HPF_RIX_ONE;
    if (!s->one && sqlite3_prepare_v2(db, "SELECT stat FROM main.rank_index WHERE node = ?",
                                      -1, &s->one, NULL) != SQLITE_OK)
        return fail(s, sqlite3_errmsg(db));
    sqlite3_bind_int64(s->one, 1, g);
    int rc = 0;
    if (sqlite3_step(s->one) == SQLITE_ROW)
        rc = decode_node(s, (uint32_t)g, sqlite3_column_blob(s->one, 0),
                         (size_t)sqlite3_column_bytes(s->one, 0));
    sqlite3_reset(s->one);
    return rc;
}

/* Node order: the next node with rows into the batch (none at the end). */
static int next_node(hpf_rix_scan *s)
{
    s->n = s->at = 0;
    while (s->n == 0 && s->all && sqlite3_step(s->all) == SQLITE_ROW)
        if (decode_node(s, (uint32_t)sqlite3_column_int64(s->all, 0),
                        sqlite3_column_blob(s->all, 1), (size_t)sqlite3_column_bytes(s->all, 1)))
            return -1;
    return 0;
}

static const char all_sql[] =
    "SELECT node, stat FROM main.rank_index WHERE stat IS NOT NULL ORDER BY node";

/* Rank order: every node's blob kept, a cursor on each and its next row. */
static int load_all(hpf_rix_scan *s, sqlite3 *db)
{
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(db, all_sql, -1, &st, NULL) != SQLITE_OK)
        return fail(s, sqlite3_errmsg(db));
    int rc = 0;
    size_t cap = 0;
    while (rc == 0 && sqlite3_step(st) == SQLITE_ROW) {
        if (s->nblobs == cap) {
            cap = cap ? 2 * cap : 1024;
            hpf_rix_blob *v = realloc(s->blobs, cap * sizeof *v);
            if (!v) {
                rc = fail(s, "out of memory");
                break;
            }
            s->blobs = v;
        }
        hpf_rix_blob *b = &s->blobs[s->nblobs];
        size_t len = (size_t)sqlite3_column_bytes(st, 1);
        b->node = (uint32_t)sqlite3_column_int64(st, 0);
        b->data = malloc(len ? len : 1);
        if (!b->data) {
            rc = fail(s, "out of memory");
            break;
        }
        memcpy(b->data, sqlite3_column_blob(st, 1), len);
        b->cur = hpf_rix_open(b->data, len);
        s->nblobs++;
        int got = hpf_rix_next_stat(&b->cur, &b->head);
        b->more = got > 0;
        if (got < 0)
            rc = fail(s, "a stat blob is cut short");
    }
    sqlite3_finalize(st);
    return rc;
}

/* Stable counting sort of the batch by thread (its rows are in node order). */
static int sort_by_thread(hpf_rix_scan *s)
{
    uint32_t top = 0;
    for (size_t k = 0; k < s->n; k++)
        top = s->rows[k].thread > top ? s->rows[k].thread : top;
    if (top == 0)
        return 0;
    size_t *at = calloc((size_t)top + 2, sizeof *at);
    hpf_rix_row *rows = malloc(s->n * sizeof *rows);
    uint32_t *nodes = malloc(s->n * sizeof *nodes);
    if (!at || !rows || !nodes) {
        free(at);
        free(rows);
        free(nodes);
        return fail(s, "out of memory");
    }
    for (size_t k = 0; k < s->n; k++)
        at[s->rows[k].thread + 1]++;
    for (uint32_t t = 1; t <= top + 1; t++)
        at[t] += at[t - 1];
    for (size_t k = 0; k < s->n; k++) {
        size_t to = at[s->rows[k].thread]++;
        rows[to] = s->rows[k];
        nodes[to] = s->nodes[k];
    }
    memcpy(s->rows, rows, s->n * sizeof *rows);
    memcpy(s->nodes, nodes, s->n * sizeof *nodes);
    free(at);
    free(rows);
    free(nodes);
    return 0;
}

/* How many nodes ahead next_rank asks for a node's next row. */
#define PREFETCH_AHEAD 16

/* Rank order: the rows of the next rank with rows into the batch. */
static int next_rank(hpf_rix_scan *s)
{
    s->n = s->at = 0;
    if (!s->any)
        return 0;
    uint32_t r = s->rank, next = UINT32_MAX;
    s->any = 0;
    for (size_t k = 0; k < s->nblobs; k++) {
        hpf_rix_blob *b = &s->blobs[k];
        if (k + PREFETCH_AHEAD < s->nblobs)     /* each node's next row is a cache miss */
            __builtin_prefetch(s->blobs[k + PREFETCH_AHEAD].cur.at);
        for (; b->more && b->head.rank == r; ) {
            if (reserve(s))
                return -1;
            s->rows[s->n] = b->head;
            s->nodes[s->n++] = b->node;
            int got = hpf_rix_next_stat(&b->cur, &b->head);
            if (got < 0)
                return fail(s, "a stat blob is cut short");
            b->more = got > 0;
        }
        if (b->more && b->head.rank < next)
            next = b->head.rank;
    }
    s->any = next != UINT32_MAX;
    s->rank = next;
    return sort_by_thread(s);
}

int hpf_rix_scan_all(hpf_rix_scan *s, sqlite3 *db, int by_rank)
{
    s->n = s->at = 0;
    if (!by_rank) {
        s->mode = HPF_RIX_NODES;
        sqlite3_finalize(s->all);
        s->all = NULL;
        if (sqlite3_prepare_v2(db, all_sql, -1, &s->all, NULL) != SQLITE_OK)
            return fail(s, sqlite3_errmsg(db));
        return next_node(s);
    }
    s->mode = HPF_RIX_RANKS;
    hpf_rix_scan_free_blobs(s);
    if (load_all(s, db))
        return -1;
    s->rank = UINT32_MAX;
    for (size_t k = 0; k < s->nblobs; k++)
        if (s->blobs[k].more && s->blobs[k].head.rank < s->rank)
            s->rank = s->blobs[k].head.rank;
    s->any = s->rank != UINT32_MAX;
    return next_rank(s);
}

int hpf_rix_scan_next(hpf_rix_scan *s)
{
    if (++s->at < s->n)
        return 0;
    if (s->mode == HPF_RIX_NODES)
        return next_node(s);
    if (s->mode == HPF_RIX_RANKS)
        return next_rank(s);
    return 0;
}

void hpf_rix_scan_free_blobs(hpf_rix_scan *s)
{
    for (size_t k = 0; k < s->nblobs; k++)
        free(s->blobs[k].data);
    free(s->blobs);
    s->blobs = NULL;
    s->nblobs = 0;
}

void hpf_rix_scan_free(hpf_rix_scan *s)
{
    hpf_rix_scan_free_blobs(s);
    sqlite3_finalize(s->one);
    sqlite3_finalize(s->all);
    free(s->rows);
    free(s->nodes);
    memset(s, 0, sizeof *s);
}

/* ---- the comm runs and records */

int hpf_rix_comm_runs(sqlite3 *db, const char *sql, hpf_comm_run **runs, uint64_t **offsets,
                      size_t *nruns, char *err, size_t errlen)
{
    sqlite3_stmt *st;
    size_t n = 0, cap = 0;
    int rc = 0;
    *runs = NULL;
    *offsets = NULL;
    if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK) {
        snprintf(err, errlen, "sqlite: %s", sqlite3_errmsg(db));
        return -1;
    }
    while (rc == 0 && sqlite3_step(st) == SQLITE_ROW) {
        uint32_t g = (uint32_t)sqlite3_column_int64(st, 0);
        hpf_rix_cur c = hpf_rix_open(sqlite3_column_blob(st, 1),
                                     (size_t)sqlite3_column_bytes(st, 1));
        hpf_rix_run run;
        int got;
        while (rc == 0 && (got = hpf_rix_next_run(&c, &run)) > 0) {
            if (n == cap) {
                cap = cap ? 2 * cap : 4096;
                hpf_comm_run *v = realloc(*runs, cap * sizeof *v);
                uint64_t *o = v ? realloc(*offsets, cap * sizeof *o) : NULL;
                if (v)
                    *runs = v;
                if (o)
                    *offsets = o;
                if (!v || !o) {
                    snprintf(err, errlen, "out of memory reading the per-rank index");
                    rc = -1;
                    break;
                }
            }
            (*runs)[n] = (hpf_comm_run){g, run.rank, 0, run.n, run.thread};
            (*offsets)[n++] = run.offset;
        }
        if (rc == 0 && got < 0) {
            snprintf(err, errlen, "the per-rank index: a comm blob is cut short");
            rc = -1;
        }
    }
    sqlite3_finalize(st);
    *nruns = n;
    return rc;
}

const hp_comm_rec *hpf_rix_comm_get(hpf_rix_comms *b, uint64_t offset, uint32_t n,
                                    char *err, size_t errlen)
{
    size_t bytes = (size_t)n * HP_COMM_REC_LEN;
    if (n > b->cap) {
        unsigned char *raw = realloc(b->raw, bytes);
        if (raw)
            b->raw = raw;
        hp_comm_rec *recs = realloc(b->recs, (size_t)n * sizeof *recs);
        if (recs)
            b->recs = recs;
        if (!raw || !recs) {
            snprintf(err, errlen, "out of memory");
            return NULL;
        }
        b->cap = n;
    }
    if (hpf_pread_all(b->fd, b->raw, bytes, offset)) {
        snprintf(err, errlen, "the profile was cut short while it was being read");
        return NULL;
    }
    for (uint32_t i = 0; i < n; i++)
        hp_comm_rec_get(b->raw + (size_t)i * HP_COMM_REC_LEN, &b->recs[i]);
    return b->recs;
}

void hpf_rix_comms_free(hpf_rix_comms *b)
{
    free(b->raw);
    free(b->recs);
    b->raw = NULL;
    b->recs = NULL;
    b->cap = 0;
}
