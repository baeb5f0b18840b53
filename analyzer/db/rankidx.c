/*
 * rankidx.c - writes the per-node index of per-rank rows (rankidx.h) as
 * an aggregator of the merge's pass over the ranks: each rank's records
 * are summed into stat rows as db_order.c orders them (by thread within
 * a node, records of one thread in record order) and encoded, its comm
 * records' runs too, into two stages that go to the nodes' two buffers
 * every STAGE_RANKS ranks; the buffers become the rows of rank_index at
 * the end.
 */
#include "config.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "hp_format.h"
#include "rankidx.h"

typedef struct bytes {
    unsigned char *v;
    size_t n, cap;
} bytes;

/* A stat row of the rank being added, waiting for its node's others. */
typedef struct pending {
    uint32_t thread, next;      /* next: the node's next row (by thread) + 1, or 0 */
    hpf_stat_row row;
} pending;

/* A stat row (comm run) in a stage: its node and rank, where its bytes are. */
typedef struct staged {
    uint32_t node, rank;
    uint32_t at, len;           /* in the stage's bytes */
} staged;

/* Rows of the last ranks, encoded but for their rank, waiting to be
 * appended to their nodes' buffers together (stage_flush). */
typedef struct stage {
    staged *rows;
    size_t n, cap;
    bytes bytes;
} stage;

/* How many ranks' rows the stage holds before they go to their nodes. */
#define STAGE_RANKS 32

typedef struct rix_acc {
    const hpf_profile *p;
    uint32_t nnodes;
    int on;                     /* aggregate mode: the index is written */
    int comms;                  /* every rank's comm records are in the mapped file */
    bytes *stat, *comm;         /* per merged node */
    uint32_t *stat_rank, *comm_rank;    /* per node: the rank of its last row, run */
    uint32_t *head;             /* per node: its first pending row + 1, or 0 */
    uint32_t *tail;             /* ... and its last (when head is not 0) */
    uint32_t *touched;          /* the nodes with pending rows */
    pending *pend;
    size_t npend, cap_pend;
    /* The stat rows and comm runs of the last ranks: one visit of a
     * node's buffer per STAGE_RANKS ranks instead of one per rank (its
     * tail is a cache and TLB miss: 56% of the pass's index time at 1024
     * mkbig ranks went to the stat buffers', 58% of rix_add_rank's at
     * 4096 to the comm buffers'). */
    stage stat_stage, comm_stage;
    uint32_t stage_ranks;       /* ranks in the stages */
    uint32_t *count;            /* per node: its staged rows, then their first slot */
    uint32_t *order;            /* the staged rows by node, rank order kept */
} rix_acc;

/* Room for more bytes in b: its capacity doubled, or at least first (a
 * node buffer's first capacity, its expected size).  0, or -1. */
static int grow_first(bytes *b, size_t more, size_t first)
{
    if (b->n + more <= b->cap)
        return 0;
    size_t cap = b->cap ? 2 * b->cap : first > 256 ? first : 256;
    while (cap < b->n + more)
        cap *= 2;
    unsigned char *v = realloc(b->v, cap);
    if (!v)
        return -1;
    b->v = v;
    b->cap = cap;
    return 0;
}

static int grow(bytes *b, size_t more)
{
    return grow_first(b, more, 0);
}

/* The encoders write at `out` (room checked by their callers) and return
 * the end: a byte store may alias the buffer's length, so a length
 * updated byte by byte was stored and loaded again at every byte. */
static unsigned char *put_varint(unsigned char *out, uint64_t x)
{
    while (x >= 0x80) {
        *out++ = (unsigned char)(x | 0x80);
        x >>= 7;
    }
    *out++ = (unsigned char)x;
    return out;
}

/* 8 bytes little-endian: one store on a little-endian host (the byte
 * loop was a tenth of the aggregator's time at 1024 mkbig ranks). */
static unsigned char *put_double(unsigned char *out, double d)
{
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    memcpy(out, &d, sizeof d);
    return out + sizeof d;
#else
    uint64_t u;
    memcpy(&u, &d, sizeof u);
    for (int k = 0; k < 8; k++)
        *out++ = (unsigned char)(u >> (8 * k));
    return out;
#endif
}

static int same(double a, double b)
{
    return memcmp(&a, &b, sizeof a) == 0;
}

static unsigned row_flags(const hpf_stat_row *s)
{
    unsigned f = 0;
    f |= s->timed == s->count ? HPF_RIX_TIMED_ALL : 0;
    f |= same(s->raw_min, s->raw_time) ? HPF_RIX_RMIN_IS_RTIME : 0;
    f |= same(s->raw_max, s->raw_min) ? HPF_RIX_RMAX_IS_RMIN : 0;
    f |= same(s->time, s->raw_time) ? HPF_RIX_TIME_IS_RAW : 0;
    f |= same(s->min, s->raw_min) ? HPF_RIX_MIN_IS_RAW : 0;
    if (same(s->max, s->raw_max))
        f |= HPF_RIX_MAX_IS_RAW;
    else if (same(s->max, s->min))
        f |= HPF_RIX_MAX_IS_MIN;
    return f;
}

/* The most bytes a stat row takes in its stage: 4 varints, 6 doubles;
 * a comm run: 3 varints. */
#define MAX_ROW_BYTES (4 * 10 + 6 * 8)
#define MAX_RUN_BYTES (3 * 10)

/* Room in stage s for rows more rows of at most row_bytes each (a rank's:
 * at most one per node or comm record), so that put_stat and put_run
 * need not check.  0, or -1 without memory. */
static int stage_reserve(stage *s, size_t rows, size_t row_bytes)
{
    if (grow(&s->bytes, rows * row_bytes))
        return -1;
    if (s->n + rows <= s->cap)
        return 0;
    size_t cap = s->cap ? 2 * s->cap : 4096;
    while (cap < s->n + rows)
        cap *= 2;
    staged *v = realloc(s->rows, cap * sizeof *v);
    if (!v)
        return -1;
    s->rows = v;
    s->cap = cap;
    return 0;
}

/* Encodes a stat row of rank r at node g into the stage (all but the
 * rank, which is a difference from the node's row before it in the
 * node's buffer); stage_reserve made room for it. */
static void put_stat(rix_acc *a, uint32_t g, uint32_t r, uint32_t thread, const hpf_stat_row *s)
{
    bytes *b = &a->stat_stage.bytes;
    size_t start = b->n;
    unsigned f = row_flags(s);
    unsigned char *out = b->v + start;
    out = put_varint(out, thread);
    out = put_varint(out, s->count);
    out = put_varint(out, f);
    if (!(f & HPF_RIX_TIMED_ALL))
        out = put_varint(out, s->timed);
    out = put_double(out, s->raw_time);
    if (!(f & HPF_RIX_RMIN_IS_RTIME))
        out = put_double(out, s->raw_min);
    if (!(f & HPF_RIX_RMAX_IS_RMIN))
        out = put_double(out, s->raw_max);
    if (!(f & HPF_RIX_TIME_IS_RAW))
        out = put_double(out, s->time);
    if (!(f & HPF_RIX_MIN_IS_RAW))
        out = put_double(out, s->min);
    if (!(f & (HPF_RIX_MAX_IS_RAW | HPF_RIX_MAX_IS_MIN)))
        out = put_double(out, s->max);
    b->n = (size_t)(out - b->v);
    a->stat_stage.rows[a->stat_stage.n++] =
        (staged){g, r, (uint32_t)start, (uint32_t)(b->n - start)};
}

/* Asks for the lines the next node's rows (the ones of st in order[k,
 * ...)) will be copied to and from, so that their misses overlap the
 * copy of this node's: they are cold, one node's rows of a stage a few
 * hundred bytes of its buffer and a line of the stage each, and the
 * copy waited for them (6% of the merge at 1024 mkbig ranks). */
static void prefetch_node(const rix_acc *a, const stage *st, const bytes *bufs, size_t k)
{
#if defined(__GNUC__)
    if (k >= st->n)
        return;
    uint32_t g = st->rows[a->order[k]].node;
    size_t bytes_next = 0;
    for (size_t j = k; j < st->n && st->rows[a->order[j]].node == g; j++) {
        __builtin_prefetch(st->bytes.v + st->rows[a->order[j]].at, 0);
        bytes_next += 5 + st->rows[a->order[j]].len;
    }
    if (bufs[g].v)
        for (size_t off = 0; off < bytes_next; off += 64)
            __builtin_prefetch(bufs[g].v + bufs[g].n + off, 1);
#else
    (void)a, (void)st, (void)bufs, (void)k;
#endif
}

/* A node buffer's first capacity, for need bytes from `ranks` of the
 * stage's staged_ranks with ranks_left to come (these included): as many
 * bytes per rank in each of them when every rank of the stage had rows
 * at the node, else twice need (a node of a few ranks, say rank 0's
 * setup, would reserve for ranks it never has rows in). */
static size_t expected_size(size_t need, size_t ranks, size_t staged_ranks, size_t ranks_left)
{
    if (ranks < staged_ranks)
        return 2 * need;
    return need * ranks_left / staged_ranks + need;
}

/* Appends stage st's rows to their nodes' buffers bufs, node by node (a
 * counting sort keeps each node's rows in the order they were staged:
 * rank, then thread; each starts with its rank's difference from the
 * node's last, last_rank), and empties the stage.  A node's buffer is
 * sized once, when its first rows come, for as many bytes per rank in
 * the ranks still to come (doubled when that was too few): growing it by
 * doubling from the start copied each byte about once more and left a
 * third of the memory unused (at 1024 mkbig ranks).
 * 0, or -1 without memory. */
static int stage_flush(rix_acc *a, stage *st, bytes *bufs, uint32_t *last_rank)
{
    if (!st->n)
        return 0;
    uint32_t first_rank = st->rows[0].rank;
    size_t ranks_left = a->p->nranks > first_rank ? a->p->nranks - first_rank : 1;
    size_t staged_ranks = a->stage_ranks ? a->stage_ranks : 1;
    uint32_t *order = realloc(a->order, st->n * sizeof *order);
    if (!order)
        return -1;
    a->order = order;
    memset(a->count, 0, ((size_t)a->nnodes + 2) * sizeof *a->count);
    for (size_t k = 0; k < st->n; k++)
        a->count[st->rows[k].node + 1]++;
    for (uint32_t g = 1; g <= a->nnodes + 1; g++)
        a->count[g] += a->count[g - 1];         /* count[g]: node g's first slot */
    for (size_t k = 0; k < st->n; k++)
        a->order[a->count[st->rows[k].node]++] = (uint32_t)k;
    size_t k = 0;
    while (k < st->n) {
        uint32_t g = st->rows[a->order[k]].node;
        size_t end = k, need = 0, ranks = 0;
        for (uint32_t r = UINT32_MAX; end < st->n && st->rows[a->order[end]].node == g; end++) {
            need += 5 + st->rows[a->order[end]].len;
            ranks += st->rows[a->order[end]].rank != r;
            r = st->rows[a->order[end]].rank;
        }
        bytes *b = &bufs[g];
        if (grow_first(b, need, expected_size(need, ranks, staged_ranks, ranks_left)))
            return -1;
        prefetch_node(a, st, bufs, end);
        unsigned char *out = b->v + b->n;
        uint32_t last = last_rank[g];
        for (; k < end; k++) {
            const staged *e = &st->rows[a->order[k]];
            out = put_varint(out, e->rank - last);
            last = e->rank;
            memcpy(out, st->bytes.v + e->at, e->len);
            out += e->len;
        }
        last_rank[g] = last;
        b->n = (size_t)(out - b->v);
    }
    st->n = 0;
    st->bytes.n = 0;
    return 0;
}

/* Both stages to the nodes' buffers. */
static int flush_stages(rix_acc *a)
{
    int rc = stage_flush(a, &a->stat_stage, a->stat, a->stat_rank) ||
             stage_flush(a, &a->comm_stage, a->comm, a->comm_rank) ? -1 : 0;
    a->stage_ranks = 0;
    return rc;
}

/* Stages a run of n comm records of rank r at node g (stage_reserve made
 * room for it): thread, count, offset, its rank added by stage_flush. */
static void put_run(rix_acc *a, uint32_t g, uint32_t r, uint32_t thread, uint32_t n,
                    uint64_t offset)
{
    bytes *b = &a->comm_stage.bytes;
    size_t start = b->n;
    unsigned char *out = put_varint(b->v + start, thread);
    out = put_varint(out, n);
    out = put_varint(out, offset);
    b->n = (size_t)(out - b->v);
    a->comm_stage.rows[a->comm_stage.n++] =
        (staged){g, r, (uint32_t)start, (uint32_t)(b->n - start)};
}

/* Is every rank's comm records still in the mapped file (not decoded)? */
static int comms_in_file(const hpf_profile *p)
{
    if (!p->map_path || !p->comm_at)
        return 0;
    for (uint32_t r = 0; r < p->nranks; r++)
        if (p->ranks[r].comms && p->ranks[r].ncomms > 0)
            return 0;
    return 1;
}

static void *rix_start(const hpf_profile *p, const hpf_merged *m, int per_rank)
{
    rix_acc *a = calloc(1, sizeof *a);
    if (!a || per_rank)
        return a;       /* the rows are stored: no index */
    size_t n = (size_t)m->nnodes + 1;
    a->p = p;
    a->nnodes = m->nnodes;
    a->on = 1;
    a->comms = comms_in_file(p);
    a->stat = calloc(n, sizeof *a->stat);
    a->comm = calloc(n, sizeof *a->comm);
    a->stat_rank = calloc(n, sizeof *a->stat_rank);
    a->comm_rank = calloc(n, sizeof *a->comm_rank);
    a->head = calloc(n, sizeof *a->head);
    a->tail = calloc(n, sizeof *a->tail);
    a->touched = calloc(n, sizeof *a->touched);
    a->count = calloc(n + 1, sizeof *a->count);
    if (a->stat && a->comm && a->stat_rank && a->comm_rank && a->head && a->tail && a->touched &&
        a->count)
        return a;
    hpf_rankidx_aggregator.finish(a);
    return NULL;
}

/* Record i of the rank into its node's pending rows: summed into the row
 * of its thread, or a new row in thread order.  0, or -1 without memory. */
static int add_record(rix_acc *a, uint32_t g, uint32_t thread, const hpf_stat_row *s)
{
    if (a->npend == a->cap_pend) {     /* first: link may point into pend */
        size_t cap = a->cap_pend ? 2 * a->cap_pend : 1024;
        pending *v = realloc(a->pend, cap * sizeof *v);
        if (!v)
            return -1;
        a->pend = v;
        a->cap_pend = cap;
    }
    uint32_t *link = &a->head[g];
    /* a rank's threads usually come in order: past the last row at once
     * (walking the list would cost threads^2 per node) */
    if (*link && a->pend[a->tail[g] - 1].thread < thread)
        link = &a->pend[a->tail[g] - 1].next;
    while (*link && a->pend[*link - 1].thread < thread)
        link = &a->pend[*link - 1].next;
    if (*link && a->pend[*link - 1].thread == thread) {
        hpf_stat_add(&a->pend[*link - 1].row, s);
        return 0;
    }
    a->pend[a->npend] = (pending){thread, *link, *s};
    *link = (uint32_t)++a->npend;
    if (!a->pend[a->npend - 1].next)
        a->tail[g] = (uint32_t)a->npend;
    return 0;
}

/* Does each of the rank's records have a node of its own, in increasing
 * order (the usual rank: one thread per node, its nodes in the order the
 * merge numbered them)? */
static int one_record_per_node(const hpf_rank_rows *rows)
{
    for (uint32_t i = 1; i < rows->rd->nnodes; i++)
        if (rows->node_map[i] <= rows->node_map[i - 1])
            return 0;
    return 1;
}

/* The rank's records staged as they are: each is its node's row. */
static int stage_records(rix_acc *a, const hpf_rank_rows *rows)
{
    const hp_rank_data *rd = rows->rd;
    for (uint32_t i = 0; i < rd->nnodes; i++) {
        hpf_stat_row s = hpf_stat_record(&rd->nodes[i], rows->time, rd->nnodes, i);
        put_stat(a, rows->node_map[i], rows->rank, rd->nodes[i].thread, &s);
    }
    return 0;
}

static int add_stats(rix_acc *a, const hpf_rank_rows *rows)
{
    const hp_rank_data *rd = rows->rd;
    size_t ntouched = 0;
    if (stage_reserve(&a->stat_stage, rd->nnodes, MAX_ROW_BYTES))
        return -1;
    if (one_record_per_node(rows))
        return stage_records(a, rows);
    a->npend = 0;
    for (uint32_t i = 0; i < rd->nnodes; i++) {
        uint32_t g = rows->node_map[i];
        hpf_stat_row s = hpf_stat_record(&rd->nodes[i], rows->time, rd->nnodes, i);
        if (!a->head[g])
            a->touched[ntouched++] = g;
        if (add_record(a, g, rd->nodes[i].thread, &s))
            return -1;
    }
    for (size_t k = 0; k < ntouched; k++) {
        uint32_t g = a->touched[k];
        for (uint32_t at = a->head[g]; at; at = a->pend[at - 1].next)
            put_stat(a, g, rows->rank, a->pend[at - 1].thread, &a->pend[at - 1].row);
        a->head[g] = 0;
    }
    return 0;
}

static int add_comms(rix_acc *a, const hpf_rank_rows *rows)
{
    const hp_rank_data *rd = rows->rd;
    uint64_t base = a->p->comm_at[rows->rank];
    if (stage_reserve(&a->comm_stage, rd->ncomms, MAX_RUN_BYTES))
        return -1;
    for (uint32_t i = 0; i < rd->ncomms;) {
        uint32_t local = rd->comms[i].node, j = i + 1;
        while (j < rd->ncomms && rd->comms[j].node == local)
            j++;
        put_run(a, rows->node_map[local], rows->rank, rd->nodes[local].thread, j - i,
                base + (uint64_t)i * HP_COMM_REC_LEN);
        i = j;
    }
    return 0;
}

static int rix_add_rank(void *acc, const hpf_rank_rows *rows)
{
    rix_acc *a = acc;
    if (!a->on)
        return 0;
    if (add_stats(a, rows) || (a->comms && add_comms(a, rows)))
        return -1;
    return ++a->stage_ranks < STAGE_RANKS ? 0 : flush_stages(a);
}

static int put_index_row(sqlite3 *db, sqlite3_stmt *st, uint32_t g, const bytes *stat,
                         const bytes *comm, char *err, size_t errlen)
{
    sqlite3_bind_int64(st, 1, g);
    if (stat->n)
        sqlite3_bind_blob(st, 2, stat->v, (int)stat->n, SQLITE_STATIC);
    else
        sqlite3_bind_null(st, 2);
    if (comm->n)
        sqlite3_bind_blob(st, 3, comm->v, (int)comm->n, SQLITE_STATIC);
    else
        sqlite3_bind_null(st, 3);
    return hpf_agg_step(db, st, err, errlen);
}

static int rix_write(void *acc, sqlite3 *db, char *err, size_t errlen)
{
    rix_acc *a = acc;
    sqlite3_stmt *st = NULL;
    char sql[128];
    if (!a->on)
        return 0;
    if (flush_stages(a)) {
        snprintf(err, errlen, "rank_index: out of memory");
        return -1;
    }
    snprintf(sql, sizeof sql, "INSERT INTO run VALUES('rank_index', %d);",
             a->comms ? HPF_RIX_STAT_COMM : HPF_RIX_STAT);
    /* comm first: a column after a long one is found by reading the long
     * one's overflow pages (comm's runs are read alone, a node's stat rows
     * after its few pages of runs) */
    if (sqlite3_exec(db, "CREATE TABLE rank_index(node INTEGER PRIMARY KEY, comm BLOB,"
                     " stat BLOB);", NULL, NULL, NULL) != SQLITE_OK ||
        sqlite3_exec(db, sql, NULL, NULL, NULL) != SQLITE_OK ||
        sqlite3_prepare_v2(db, "INSERT INTO rank_index(node, stat, comm) VALUES(?, ?, ?)", -1,
                           &st, NULL) !=
            SQLITE_OK)
        return hpf_agg_fail(db, err, errlen);
    int rc = 0;
    for (uint32_t g = 1; g <= a->nnodes && rc == 0; g++) {
        if (a->stat[g].n || a->comm[g].n)
            rc = put_index_row(db, st, g, &a->stat[g], &a->comm[g], err, errlen);
        free(a->stat[g].v);     /* written: its memory back for the next */
        free(a->comm[g].v);
        a->stat[g] = a->comm[g] = (bytes){NULL, 0, 0};
    }
    sqlite3_finalize(st);
    return rc;
}

static void rix_finish(void *acc)
{
    rix_acc *a = acc;
    if (!a)
        return;
    for (uint32_t g = 0; a->on && g <= a->nnodes; g++) {
        free(a->stat ? a->stat[g].v : NULL);
        free(a->comm ? a->comm[g].v : NULL);
    }
    free(a->stat);
    free(a->comm);
    free(a->stat_rank);
    free(a->comm_rank);
    free(a->head);
    free(a->tail);
    free(a->touched);
    free(a->pend);
    free(a->stat_stage.rows);
    free(a->stat_stage.bytes.v);
    free(a->comm_stage.rows);
    free(a->comm_stage.bytes.v);
    free(a->count);
    free(a->order);
    free(a);
}

const hpf_aggregator hpf_rankidx_aggregator = {
    .name = "rank_index",
    .start = rix_start,
    .add_rank = rix_add_rank,
    .write = rix_write,
    .finish = rix_finish,
};
