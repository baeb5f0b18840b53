/*
 * db_aggcomm.c - the aggregates of the comm rows (comm_matrix,
 * comm_leftout, comm_node_peer, comm_node_rank; their definitions are in
 * db_agg.c) computed rank by rank while hprof-merge writes the rows
 * (db_aggregator.h).
 *
 * The matrix counts each point-to-point message once, at its sender: a
 * record that sent (bytes sent, or no bytes at a call named *send*) is
 * the cell rank -> peer with its bytes and transfers, a receiving record
 * adds its time to the cell peer -> rank; a send-receive to one peer
 * counts half its transfers as messages; collective sites and the peers
 * "all" and "file" are left out, and summed in comm_leftout.
 * comm_node_peer and comm_node_rank are a node's records summed over
 * ranks and threads per peer, and over peers and threads per rank: what
 * --comm and --ranks show for a site, without reading its records.
 */
#include <assert.h>
#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "db_aggregator.h"

/* The sums of a pair (sender, receiver / node, peer: the index knows it),
 * 56 bytes: a record's cells are most of the pass's cache misses. */
typedef struct cell {
    uint64_t count, sent, recvd;    /* unsigned: a fuzzed sum wraps */
    double tran, sync, min, max;    /* min, max: +-infinity before a record */
} cell;

/* Cells keyed by a pair of numbers a < na, b < nb: index[a][b] is the
 * position + 1 (0: none), a row of the index allocated when a is first
 * seen (a node's peers, a sender's receivers: a few rows of a few KB).
 * The cells of one a are kept together: each a takes runs of cells
 * (its first of 4, each next twice the last, at most CELL_RUN_MAX), and
 * its cells fill them in the order first seen.  A rank's records of a
 * node then find their peers' cells a few lines apart, where cells in
 * the order first seen over all nodes (each rank adds one new peer to
 * each node) were a node's count of cells apart: a miss per record. */
#define CELL_RUN_FIRST 4u
#define CELL_RUN_MAX 64u
/* The cells are in slabs of 2^CELL_SLAB_BITS (1.8 MB), a run never split
 * between two: nothing copied as they grow (a realloc of one array
 * copied its 29 MB at 1024 ranks, and held both copies at once). */
#define CELL_SLAB_BITS 15u
#define CELL_SLAB (1u << CELL_SLAB_BITS)

typedef struct cell_run {
    uint32_t next, end, len;    /* a's current run: positions [next, end), of len */
} cell_run;

typedef struct cells {
    uint32_t na, nb;
    uint32_t **index;
    cell_run *runs;             /* per a */
    cell **slab;                /* cell at position p: slab[p >> bits][p & (size - 1)] */
    uint32_t nslabs, capslabs;
    uint32_t n;                 /* positions taken, runs' free cells included */
} cells;

typedef struct rank_cell {
    uint32_t node, rank;
    double tran, sync;
} rank_cell;

typedef struct comm_aggs {
    const hpf_merged *m;
    unsigned char *collective, *sends;  /* per global site */
    cells matrix, peers;
    int per_rank;               /* comm_node_rank kept and written */
    rank_cell *ranks;           /* comm_node_rank, in (rank, node) order */
    size_t nrankrows, capranks;
    rank_cell *cur;             /* this rank's, by merged node - 1 */
    uint32_t *touched, ntouched;
    uint64_t coll_bytes, coll_calls, file_bytes, p2p_bytes;
    double coll_time;
} comm_aggs;

static int cells_init(cells *c, uint32_t na, uint32_t nb)
{
    c->na = na;
    c->nb = nb;
    c->index = calloc(na ? na : 1, sizeof *c->index);
    c->runs = calloc(na ? na : 1, sizeof *c->runs);
    return c->index && c->runs ? 0 : -1;
}

static void cells_free(cells *c)
{
    for (uint32_t a = 0; c->index && a < c->na; a++)
        free(c->index[a]);
    free(c->index);
    free(c->runs);
    for (uint32_t k = 0; k < c->nslabs; k++)
        free(c->slab[k]);
    free(c->slab);
}

static cell *cell_at(const cells *c, uint32_t pos)
{
    return &c->slab[pos >> CELL_SLAB_BITS][pos & (CELL_SLAB - 1)];
}

/* One more slab, the free end of the last one left; 0, or -1. */
static int new_slab(cells *c)
{
    if (c->nslabs == c->capslabs) {
        uint32_t cap = c->capslabs ? 2 * c->capslabs : 16;
        cell **s = realloc(c->slab, cap * sizeof *s);
        if (!s)
            return -1;
        c->slab = s;
        c->capslabs = cap;
    }
    if (!(c->slab[c->nslabs] = malloc(CELL_SLAB * sizeof **c->slab)))
        return -1;
    c->n = c->nslabs++ << CELL_SLAB_BITS;
    return 0;
}

/* A new run of cells for a, twice a's last one; 0, or -1 without
 * memory. */
static int new_run(cells *c, cell_run *r)
{
    uint32_t len = r->len ? 2 * r->len : CELL_RUN_FIRST;
    len = len < CELL_RUN_MAX ? len : CELL_RUN_MAX;
    if (c->n + len > c->nslabs * CELL_SLAB && new_slab(c))
        return -1;
    r->len = len;
    r->next = c->n;
    r->end = c->n + len;
    c->n += len;
    return 0;
}

/* The new cell of (a, b), empty; NULL without memory. */
static cell *new_cell(cells *c, uint32_t a, uint32_t b)
{
    if (!c->index[a] && !(c->index[a] = calloc(c->nb, sizeof **c->index)))
        return NULL;
    cell_run *r = &c->runs[a];
    if (r->next == r->end && new_run(c, r))
        return NULL;
    cell *x = cell_at(c, r->next++);
    memset(x, 0, sizeof *x);
    x->min = INFINITY;
    x->max = -INFINITY;
    c->index[a][b] = r->next;
    return x;
}

/* The cell of (a, b), made empty when new; NULL without memory.  Inline:
 * two a record, the cell found in all but the first. */
static inline cell *cell_of(cells *c, uint32_t a, uint32_t b)
{
    assert(a < c->na && b < c->nb);
    const uint32_t *row = c->index[a];
    return row && row[b] ? cell_at(c, row[b] - 1) : new_cell(c, a, b);
}

/* Walks the cells in (a, b) order: the index read row by row, not the
 * cells sorted.  next_cell gives the next and its pair, NULL after the
 * last. */
typedef struct cell_walk {
    const cells *c;
    uint32_t a, b;
} cell_walk;

static const cell *next_cell(cell_walk *w, uint32_t *a, uint32_t *b)
{
    const cells *c = w->c;
    for (; w->a < c->na; w->a++, w->b = 0) {
        const uint32_t *row = c->index[w->a];
        while (row && w->b < c->nb) {
            uint32_t pos = row[w->b++];
            if (pos) {
                *a = w->a;
                *b = w->b - 1;
                return cell_at(c, pos - 1);
            }
        }
    }
    return NULL;
}

/* Does the name contain "send", in any case (SQL's LIKE '%send%')? */
static int names_send(const char *name)
{
    for (; *name; name++)
        if (tolower((unsigned char)name[0]) == 's' && tolower((unsigned char)name[1]) == 'e' &&
            tolower((unsigned char)name[2]) == 'n' && tolower((unsigned char)name[3]) == 'd')
            return 1;
    return 0;
}

static void comm_finish(void *p)
{
    comm_aggs *ca = p;
    if (!ca)
        return;
    free(ca->collective);
    free(ca->sends);
    cells_free(&ca->matrix);
    cells_free(&ca->peers);
    free(ca->ranks);
    free(ca->cur);
    free(ca->touched);
    free(ca);
}

static void *comm_start(const hpf_profile *p, const hpf_merged *m, int per_rank)
{
    comm_aggs *ca = calloc(1, sizeof *ca);
    size_t ns = m->nsites ? m->nsites : 1, nn = m->nnodes ? m->nnodes : 1;
    if (!ca)
        return NULL;
    ca->m = m;
    ca->per_rank = per_rank;
    ca->collective = calloc(ns, 1);
    ca->sends = calloc(ns, 1);
    ca->cur = calloc(nn, sizeof *ca->cur);
    ca->touched = calloc(nn, sizeof *ca->touched);
    if (!ca->collective || !ca->sends || !ca->cur || !ca->touched ||
        cells_init(&ca->matrix, p->nranks, p->nranks) ||
        cells_init(&ca->peers, m->nnodes + 1, p->nranks + 2)) {
        comm_finish(ca);
        return NULL;
    }
    for (uint32_t g = 0; g < m->nsites; g++) {
        const hp_rank_data *rd = &p->ranks[m->sites[g].rank];
        const hp_site_rec *s = &rd->sites[m->sites[g].local];
        ca->collective[g] = (s->flags & HP_SITEF_COLLECTIVE) != 0;
        ca->sends[g] = names_send(rd->strings[s->name]);
    }
    return ca;
}

/* One record into the matrix or what it leaves out. */
static int add_to_matrix(comm_aggs *ca, uint32_t rank, uint32_t site, const hp_comm_rec *c)
{
    int collective = ca->collective[site - 1];
    if (c->peer == HP_PEER_ALL) {       /* a collective's totals */
        ca->coll_bytes += c->bytes_sent;
        ca->coll_calls += c->count;
        ca->coll_time += c->tran + c->sync;
        return 0;
    }
    if (c->peer == HP_PEER_FILE) {
        ca->file_bytes += c->bytes_sent + c->bytes_recv;
        return 0;
    }
    if (c->peer < 0)
        return 0;
    if (collective) {   /* bytes by peer: already in the totals */
        ca->coll_time += c->tran + c->sync;
        return 0;
    }
    ca->p2p_bytes += c->bytes_sent;
    int rcv = c->bytes_sent == 0 && (c->bytes_recv > 0 || !ca->sends[site - 1]);
    cell *x = rcv ? cell_of(&ca->matrix, (uint32_t)c->peer, rank)
                  : cell_of(&ca->matrix, rank, (uint32_t)c->peer);
    if (!x)
        return -1;
    if (!rcv) {
        x->sent += c->bytes_sent;
        x->count += c->bytes_recv > 0 ? c->count / 2 : c->count;
    }
    x->tran += c->tran;
    x->sync += c->sync;
    return 0;
}

/* One record into its node's row per peer and per rank. */
static int add_to_node(comm_aggs *ca, uint32_t node, const hp_comm_rec *c)
{
    cell *x = cell_of(&ca->peers, node, (uint32_t)(c->peer - HP_PEER_FILE)); /* >= 0 */
    if (!x)
        return -1;
    x->count += c->count;
    x->sent += c->bytes_sent;
    x->recvd += c->bytes_recv;
    x->tran += c->tran;
    x->sync += c->sync;
    if (c->min < x->min)
        x->min = c->min;
    if (c->max > x->max)
        x->max = c->max;
    rank_cell *r = &ca->cur[node - 1];
    if (r->node == 0) {
        r->node = node;
        ca->touched[ca->ntouched++] = node - 1;
    }
    r->tran += c->tran;
    r->sync += c->sync;
    return 0;
}

static int cmp_u32(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return x < y ? -1 : x > y;
}

/* This rank's rows of comm_node_rank, by node, kept (with per_rank); the
 * scratch cleared. */
static int keep_rank_rows(comm_aggs *ca, uint32_t rank)
{
    if (ca->ntouched && ca->per_rank)
        qsort(ca->touched, ca->ntouched, sizeof *ca->touched, cmp_u32);
    for (uint32_t k = 0; k < ca->ntouched; k++) {
        rank_cell *r = &ca->cur[ca->touched[k]];
        if (!ca->per_rank) {
            memset(r, 0, sizeof *r);
            continue;
        }
        if (ca->nrankrows == ca->capranks) {
            size_t cap = ca->capranks ? 2 * ca->capranks : 1024;
            rank_cell *v = realloc(ca->ranks, cap * sizeof *v);
            if (!v)
                return -1;
            ca->ranks = v;
            ca->capranks = cap;
        }
        r->rank = rank;
        ca->ranks[ca->nrankrows++] = *r;
        memset(r, 0, sizeof *r);
    }
    ca->ntouched = 0;
    return 0;
}

/* How many records ahead comm_add_rank asks for a record's node cell. */
#define CELL_PREFETCH_AHEAD 8u

/* Asks the cache for the cell of comm record c by node and peer, if it
 * exists: a rank's records find their cells where earlier ranks left
 * them, out of the caches, and wait for each in turn without this. */
static void prefetch_node_cell(const comm_aggs *ca, const hpf_rank_rows *rr,
                               const hp_comm_rec *c)
{
    uint32_t node = rr->node_map[c->node];
    const uint32_t *row = ca->peers.index[node];
    int64_t peer = (int64_t)c->peer - HP_PEER_FILE;
    if (row && peer >= 0 && peer < ca->peers.nb && row[peer])
        __builtin_prefetch(cell_at(&ca->peers, row[peer] - 1), 1);
}

static int comm_add_rank(void *p, const hpf_rank_rows *rr)
{
    comm_aggs *ca = p;
    const hp_rank_data *rd = rr->rd;
    for (uint32_t i = 0; i < rd->ncomms; i++) {
        const hp_comm_rec *c = &rd->comms[i];
        uint32_t node = rr->node_map[c->node];
        if (i + CELL_PREFETCH_AHEAD < rd->ncomms)
            prefetch_node_cell(ca, rr, &rd->comms[i + CELL_PREFETCH_AHEAD]);
        if (add_to_matrix(ca, rr->rank, ca->m->nodes[node - 1].site, c) ||
            add_to_node(ca, node, c))
            return -1;
    }
    return keep_rank_rows(ca, rr->rank);
}

static const char *const create_sql =
    "CREATE TABLE comm_matrix(sender INTEGER, receiver INTEGER, bytes INTEGER,"
    " messages INTEGER, tran REAL, sync REAL);"
    "CREATE TABLE comm_leftout(coll_bytes INTEGER, coll_calls INTEGER, coll_time REAL,"
    " file_bytes INTEGER, p2p_bytes INTEGER);"
    /* keyed by (node, peer) itself, its rows appended in that order: no
     * index to sort after (a million rows at 1024 ranks) */
    "CREATE TABLE comm_node_peer(node INTEGER, peer INTEGER, count INTEGER,"
    " bytes_sent INTEGER, bytes_recv INTEGER, tran REAL, sync REAL, min REAL, max REAL,"
    " PRIMARY KEY (node, peer)) WITHOUT ROWID;";
static const char *const node_rank_sql =
    "CREATE TABLE comm_node_rank(node INTEGER, rank INTEGER, tran REAL, sync REAL);";

static int write_matrix(comm_aggs *ca, sqlite3 *db, char *err, size_t errlen)
{
    hpf_agg_rows w;
    cell_walk walk = {&ca->matrix, 0, 0};
    int rc = hpf_agg_rows_open(&w, db, "comm_matrix", 6, err, errlen);
    uint32_t a, b;
    for (const cell *x; rc == 0 && (x = next_cell(&walk, &a, &b));) {
        if (x->sent == 0 && x->count == 0 && x->tran == 0 && x->sync == 0)
            continue;   /* nothing to show */
        hpf_agg_put_int(&w, a);
        hpf_agg_put_int(&w, b);
        hpf_agg_put_int(&w, (int64_t)x->sent);
        hpf_agg_put_int(&w, (int64_t)x->count);
        hpf_agg_put_real(&w, x->tran);
        hpf_agg_put_real(&w, x->sync);
        rc = hpf_agg_row_end(&w, err, errlen);
    }
    if (hpf_agg_rows_close(&w, err, errlen) || rc ||
        hpf_agg_rows_open(&w, db, "comm_leftout", 5, err, errlen))
        return -1;
    hpf_agg_put_int(&w, (int64_t)ca->coll_bytes);
    hpf_agg_put_int(&w, (int64_t)ca->coll_calls);
    hpf_agg_put_real(&w, ca->coll_time);
    hpf_agg_put_int(&w, (int64_t)ca->file_bytes);
    hpf_agg_put_int(&w, (int64_t)ca->p2p_bytes);
    rc = hpf_agg_row_end(&w, err, errlen);
    return hpf_agg_rows_close(&w, err, errlen) || rc ? -1 : 0;
}

static int write_node_peers(comm_aggs *ca, sqlite3 *db, char *err, size_t errlen)
{
    hpf_agg_rows w;
    cell_walk walk = {&ca->peers, 0, 0};
    int rc = hpf_agg_rows_open(&w, db, "comm_node_peer", 9, err, errlen);
    uint32_t node, peer;
    for (const cell *x; rc == 0 && (x = next_cell(&walk, &node, &peer));) {
        hpf_agg_put_int(&w, node);
        hpf_agg_put_int(&w, (int64_t)peer + HP_PEER_FILE);
        hpf_agg_put_int(&w, (int64_t)x->count);
        hpf_agg_put_int(&w, (int64_t)x->sent);
        hpf_agg_put_int(&w, (int64_t)x->recvd);
        hpf_agg_put_real(&w, x->tran);
        hpf_agg_put_real(&w, x->sync);
        hpf_agg_put_real(&w, x->min);
        hpf_agg_put_real(&w, x->max);
        rc = hpf_agg_row_end(&w, err, errlen);
    }
    return hpf_agg_rows_close(&w, err, errlen) || rc ? -1 : 0;
}

static int write_node_ranks(comm_aggs *ca, sqlite3 *db, char *err, size_t errlen)
{
    hpf_agg_rows w;
    int rc = hpf_agg_rows_open(&w, db, "comm_node_rank", 4, err, errlen);
    for (size_t k = 0; k < ca->nrankrows && rc == 0; k++) {
        const rank_cell *x = &ca->ranks[k];
        hpf_agg_put_int(&w, x->node);
        hpf_agg_put_int(&w, x->rank);
        hpf_agg_put_real(&w, x->tran);
        hpf_agg_put_real(&w, x->sync);
        rc = hpf_agg_row_end(&w, err, errlen);
    }
    return hpf_agg_rows_close(&w, err, errlen) || rc ? -1 : 0;
}

static int comm_write(void *p, sqlite3 *db, char *err, size_t errlen)
{
    comm_aggs *ca = p;
    if (sqlite3_exec(db, create_sql, NULL, NULL, NULL) != SQLITE_OK ||
        (ca->per_rank && sqlite3_exec(db, node_rank_sql, NULL, NULL, NULL) != SQLITE_OK))
        return hpf_agg_fail(db, err, errlen);
    return write_matrix(ca, db, err, errlen) || write_node_peers(ca, db, err, errlen) ||
           (ca->per_rank && write_node_ranks(ca, db, err, errlen)) ? -1 : 0;
}

const hpf_aggregator hpf_comm_aggregator = {
    "communication", comm_start, comm_add_rank, comm_write, comm_finish,
};
