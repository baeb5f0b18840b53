/*
 * db_aggnode.c - the per-node aggregates (node_time, node_worst_rank,
 * node_excl: their definitions are in db_agg.c) computed in one pass over
 * the decoded records while hprof-merge writes them, instead of three SQL
 * passes over millions of stat rows (see db_agg.h); and node_hist, the
 * histogram of each node's per-rank times, once each node's minimum and
 * maximum are known, from those times kept by the pass (a double per
 * rank and node: reading and compensating every rank again cost more).
 *
 * Same rules as the SQL definitions: per rank first (calls and time
 * summed over the rank's records of the node), then over ranks (sum, max
 * and the first rank with it, min counting an absent rank as 0); the
 * exclusive time per rank and thread (own minus children, at least 0),
 * then summed.  The sums run in the order SQLite's do (ranks in order,
 * records in order), so the values are the same.
 */
#include <assert.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "db_aggregator.h"

/* Counts are summed unsigned: a sum past 2^63 (a corrupt or fuzzed
 * profile; each count is < 2^63) wraps instead of overflowing. */
typedef struct node_acc {
    uint64_t calls;
    double time, max, min;
    uint32_t worst, ranks;          /* first rank with max; ranks present */
    uint32_t worst_thread;          /* that rank's thread with the most time in it */
    double excl_time, excl;         /* node_excl: sum over (rank, thread) */
} node_acc;

/* Per-rank (then per-thread) scratch, indexed by merged node id - 1, and
 * the list of the entries touched so they are cleared cheaply. */
typedef struct scratch {
    uint64_t *calls;
    double *time, *own, *kids;
    unsigned char *seen;
    uint32_t *touched, ntouched;
    uint32_t *top_thread;           /* the rank's thread with the most time in each node, */
    double *top_time;               /* that time (the lowest thread of equals) */
} scratch;

static void touch(scratch *s, uint32_t g)
{
    if (!s->seen[g]) {
        s->seen[g] = 1;
        s->touched[s->ntouched++] = g;
    }
}

static void clear(scratch *s)
{
    for (uint32_t k = 0; k < s->ntouched; k++) {
        uint32_t g = s->touched[k];
        s->seen[g] = 0;
        s->calls[g] = 0;
        s->time[g] = s->own[g] = s->kids[g] = 0;
    }
    s->ntouched = 0;
}

/* One rank: its sums per node folded into acc, and its time per node kept
 * at kept[0..) in the order the rank's records first have the node; returns
 * how many. */
static uint32_t add_rank(const hp_rank_data *rd, const uint32_t *map, const double *comp,
                     uint32_t rank, scratch *s, node_acc *acc, double *kept)
{
    for (uint32_t i = 0; i < rd->nnodes; i++) {
        uint32_t g = map[i] - 1;
        touch(s, g);
        s->calls[g] += rd->nodes[i].count;
        s->time[g] += comp[i];
    }
    for (uint32_t k = 0; k < s->ntouched; k++) {
        uint32_t g = s->touched[k];
        node_acc *a = &acc[g];
        a->calls += s->calls[g];
        a->time += s->time[g];
        if (a->ranks == 0 || s->time[g] > a->max) {
            a->max = s->time[g];
            a->worst = rank;
            a->worst_thread = s->top_thread[g];
        }
        if (a->ranks == 0 || s->time[g] < a->min)
            a->min = s->time[g];
        a->ranks++;
        kept[k] = s->time[g];
    }
    uint32_t nodes = s->ntouched;
    clear(s);
    return nodes;
}

/* Thread t's time own in node g: the rank's top thread so far if more
 * (threads come in order: the lowest of equals stays).  first_seen[g]
 * marks the nodes the rank has, for the first thread that has it. */
static void note_thread(scratch *s, uint32_t g, uint32_t t, double own, unsigned char *first_seen)
{
    if (!first_seen[g] || own > s->top_time[g]) {
        s->top_thread[g] = t;
        s->top_time[g] = own;
    }
    first_seen[g] = 1;
}

/* One rank's exclusive times, thread by thread in order, and its top
 * thread per node (note_thread; first_seen is cleared after). */
static void add_rank_exclusive(const hp_rank_data *rd, const uint32_t *map, const double *comp,
                               scratch *s, node_acc *acc, unsigned char *first_seen)
{
    uint32_t nthreads = 0;
    for (uint32_t i = 0; i < rd->nnodes; i++)
        if (rd->nodes[i].thread + 1 > nthreads)
            nthreads = rd->nodes[i].thread + 1;
    for (uint32_t t = 0; t < nthreads; t++) {
        for (uint32_t i = 0; i < rd->nnodes; i++) {
            const hp_node_rec *nd = &rd->nodes[i];
            if (nd->thread != t)
                continue;
            uint32_t g = map[i] - 1;
            touch(s, g);
            s->own[g] += comp[i];
            if (nd->parent != HP_NONE) {
                assert(nd->parent < rd->nnodes);
                uint32_t pg = map[nd->parent] - 1;
                touch(s, pg);
                s->kids[pg] += comp[i];
            }
        }
        for (uint32_t k = 0; k < s->ntouched; k++) {
            uint32_t g = s->touched[k];
            double e = s->own[g] - s->kids[g];
            acc[g].excl_time += s->own[g];
            acc[g].excl += e > 0 ? e : 0;
            note_thread(s, g, t, s->own[g], first_seen);
        }
        clear(s);
    }
}

static const char *const create_sql =
    "CREATE TABLE node_time(node INTEGER PRIMARY KEY, calls, time, mean, max, imbalance, min);"
    "CREATE TABLE node_worst_rank(node INTEGER PRIMARY KEY, rank, time);"
    "CREATE TABLE node_excl(node INTEGER PRIMARY KEY, time, excl);"
    "CREATE TABLE node_hist(node INTEGER PRIMARY KEY, h0, h1, h2, h3, h4, h5, h6, h7, h8, h9);"
    "CREATE TABLE node_worst_thread(node INTEGER PRIMARY KEY, thread);";

/* The least per-rank time of a node: 0 when a rank of the rank table
 * does not have it (node_time.min). */
static double node_min(const node_acc *a, uint32_t nrank_rows)
{
    return a->ranks < nrank_rows ? 0.0 : a->min;
}

/* The bin of per-rank time t among HPF_HIST_BINS equal bins from the
 * node's minimum to its maximum (the maximum in the last; all in the
 * first when they are equal): node_hist's definition in db_agg.c. */
static int hist_bin(const node_acc *a, uint32_t nrank_rows, double t)
{
    double lo = node_min(a, nrank_rows);
    if (!(a->max > lo))
        return 0;
    double at = (t - lo) * HPF_HIST_BINS / (a->max - lo);
    return at >= HPF_HIST_BINS - 1 ? HPF_HIST_BINS - 1 : at > 0 ? (int)at : 0;
}

static int insert_hist(sqlite3 *db, sqlite3_stmt *h, uint32_t g, const uint32_t *bins,
                       uint32_t absent, char *err, size_t errlen)
{
    sqlite3_bind_int64(h, 1, g + 1);
    for (int b = 0; b < HPF_HIST_BINS; b++)
        sqlite3_bind_int64(h, b + 2, bins[b] + (b == 0 ? absent : 0));
    return hpf_agg_step(db, h, err, errlen);
}

static int insert_all(sqlite3 *db, const node_acc *acc, const uint32_t (*hist)[HPF_HIST_BINS],
                      uint32_t nnodes, uint32_t nrank_rows, char *err, size_t errlen)
{
    sqlite3_stmt *t = NULL, *w = NULL, *x = NULL, *h = NULL, *wt = NULL;
    int rc = 0;
    if (sqlite3_exec(db, create_sql, NULL, NULL, NULL) != SQLITE_OK ||
        sqlite3_prepare_v2(db, "INSERT INTO node_worst_thread VALUES(?, ?)", -1, &wt,
                           NULL) != SQLITE_OK ||
        sqlite3_prepare_v2(db, "INSERT INTO node_hist VALUES(?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                           -1, &h, NULL) != SQLITE_OK ||
        sqlite3_prepare_v2(db, "INSERT INTO node_time VALUES(?, ?, ?, ?, ?, ?, ?)", -1, &t,
                           NULL) != SQLITE_OK ||
        sqlite3_prepare_v2(db, "INSERT INTO node_worst_rank VALUES(?, ?, ?)", -1, &w,
                           NULL) != SQLITE_OK ||
        sqlite3_prepare_v2(db, "INSERT INTO node_excl VALUES(?, ?, ?)", -1, &x, NULL) != SQLITE_OK)
        rc = hpf_agg_fail(db, err, errlen);
    for (uint32_t g = 0; g < nnodes && rc == 0; g++) {
        const node_acc *a = &acc[g];
        if (a->ranks == 0)
            continue;   /* no records: no row, as GROUP BY gives none */
        sqlite3_bind_int64(t, 1, g + 1);
        sqlite3_bind_int64(t, 2, (int64_t)a->calls);
        sqlite3_bind_double(t, 3, a->time);
        sqlite3_bind_double(t, 4, a->time / nrank_rows);
        sqlite3_bind_double(t, 5, a->max);
        if (a->time > 0)
            sqlite3_bind_double(t, 6, a->max * nrank_rows / a->time);
        else
            sqlite3_bind_null(t, 6);
        sqlite3_bind_double(t, 7, node_min(a, nrank_rows));
        sqlite3_bind_int64(w, 1, g + 1);
        sqlite3_bind_int64(w, 2, a->worst);
        sqlite3_bind_double(w, 3, a->max);
        sqlite3_bind_int64(x, 1, g + 1);
        sqlite3_bind_double(x, 2, a->excl_time);
        sqlite3_bind_double(x, 3, a->excl);
        rc = hpf_agg_step(db, t, err, errlen) || hpf_agg_step(db, w, err, errlen) ||
             hpf_agg_step(db, x, err, errlen) ||
             insert_hist(db, h, g, hist[g], a->ranks < nrank_rows ? nrank_rows - a->ranks : 0,
                         err, errlen) ? -1 : 0;
        if (rc == 0 && a->max > 0) {  /* as node_worst_thread's definition: time > 0 */
            sqlite3_bind_int64(wt, 1, g + 1);
            sqlite3_bind_int64(wt, 2, a->worst_thread);
            rc = hpf_agg_step(db, wt, err, errlen);
        }
    }
    sqlite3_finalize(wt);
    sqlite3_finalize(h);
    sqlite3_finalize(t);
    sqlite3_finalize(w);
    sqlite3_finalize(x);
    return rc;
}

typedef struct node_aggs {
    const hpf_profile *p;
    const hpf_merged *m;
    uint32_t nnodes, nrank_rows;    /* ranks present: the rows of `rank` */
    node_acc *acc;
    double *kept;                   /* each rank's time per node (add_rank) */
    size_t nkept;
    uint32_t (*hist)[HPF_HIST_BINS]; /* per node: ranks per bin, absent ones left out */
    unsigned char *first_seen;      /* add_rank_exclusive's */
    scratch s;
} node_aggs;

static void node_finish(void *p)
{
    node_aggs *na = p;
    if (!na)
        return;
    free(na->acc);
    free(na->kept);
    free(na->hist);
    free(na->first_seen);
    free(na->s.top_thread);
    free(na->s.top_time);
    free(na->s.calls);
    free(na->s.time);
    free(na->s.own);
    free(na->s.kids);
    free(na->s.seen);
    free(na->s.touched);
    free(na);
}

static void *node_start(const hpf_profile *p, const hpf_merged *m, int per_rank)
{
    (void)per_rank;
    node_aggs *na = calloc(1, sizeof *na);
    size_t n = m->nnodes ? m->nnodes : 1, records = 1;
    if (!na)
        return NULL;
    for (uint32_t r = 0; r < p->nranks; r++)
        records += p->ranks[r].nnodes;      /* at least a rank's nodes */
    na->p = p;
    na->m = m;
    na->nnodes = m->nnodes;
    na->acc = calloc(n, sizeof *na->acc);
    na->kept = malloc(records * sizeof *na->kept);
    na->hist = calloc(n, sizeof *na->hist);
    na->first_seen = calloc(n, 1);
    na->s = (scratch){calloc(n, sizeof *na->s.calls), calloc(n, sizeof *na->s.time),
                      calloc(n, sizeof *na->s.own), calloc(n, sizeof *na->s.kids), calloc(n, 1),
                      calloc(n, sizeof *na->s.touched), 0, calloc(n, sizeof *na->s.top_thread),
                      calloc(n, sizeof *na->s.top_time)};
    if (!na->acc || !na->kept || !na->hist || !na->first_seen || !na->s.top_thread || !na->s.top_time ||
        !na->s.calls || !na->s.time || !na->s.own || !na->s.kids || !na->s.seen ||
        !na->s.touched) {
        node_finish(na);
        return NULL;
    }
    return na;
}

static int node_add_rank(void *p, const hpf_rank_rows *rr)
{
    node_aggs *na = p;
    if (!(rr->rd->info.flags & HP_RANKF_MISSING))
        na->nrank_rows++;
    add_rank_exclusive(rr->rd, rr->node_map, rr->time, &na->s, na->acc, na->first_seen);
    na->nkept += add_rank(rr->rd, rr->node_map, rr->time, rr->rank, &na->s, na->acc,
                          na->kept + na->nkept);
    for (uint32_t i = 0; i < rr->rd->nnodes; i++)
        na->first_seen[rr->node_map[i] - 1] = 0;
    return 0;
}

/* node_hist: each rank's time per node, as add_rank kept them (in the
 * order the rank's records first have the node), into its bin of the
 * node's histogram. */
static void fill_hist(node_aggs *na)
{
    scratch *s = &na->s;
    uint32_t nrank_rows = na->nrank_rows ? na->nrank_rows : 1;
    const double *t = na->kept;
    for (uint32_t r = 0; r < na->p->nranks; r++) {
        const uint32_t *map = na->m->node_map[r];
        for (uint32_t i = 0; i < na->p->ranks[r].nnodes; i++) {
            uint32_t g = map[i] - 1;
            if (s->seen[g])
                continue;
            touch(s, g);
            na->hist[g][hist_bin(&na->acc[g], nrank_rows, *t++)]++;
        }
        for (uint32_t k = 0; k < s->ntouched; k++)
            s->seen[s->touched[k]] = 0;     /* only seen was set */
        s->ntouched = 0;
    }
    assert(t == na->kept + na->nkept);
}

static int node_write(void *p, sqlite3 *db, char *err, size_t errlen)
{
    node_aggs *na = p;
    fill_hist(na);
    return insert_all(db, na->acc, (const uint32_t (*)[HPF_HIST_BINS])na->hist, na->nnodes,
                      na->nrank_rows ? na->nrank_rows : 1, err, errlen);
}

const hpf_aggregator hpf_node_aggregator = {
    "per-node", node_start, node_add_rank, node_write, node_finish,
};
