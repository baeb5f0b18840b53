/*
 * db_fromagg_tab.c - the aggregate tables of an aggregated profile's
 * database (db_fromagg.h), each from the distributions that hold it: per
 * node (ANOD), per site (ASIT), per node and peer class (ACOM), per rank
 * (RTOT).  Each table has the columns and the definition of the full
 * merge's (db_agg.c); what the profile does not hold is NULL, or no row.
 */
#include "config.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "db_fromagg.h"
#include "ovh_class.h"

static int prepare(hpf_agg_conv *c, const char *sql, sqlite3_stmt **st)
{
    return sqlite3_prepare_v2(c->db, sql, -1, st, NULL) == SQLITE_OK
               ? 0 : hpf_agg_fail(c->db, c->err, c->errlen);
}

static int step(hpf_agg_conv *c, sqlite3_stmt *st)
{
    return hpf_agg_step(c->db, st, c->err, c->errlen);
}

static int exec(hpf_agg_conv *c, const char *sql)
{
    return sqlite3_exec(c->db, sql, NULL, NULL, NULL) == SQLITE_OK
               ? 0 : hpf_agg_fail(c->db, c->err, c->errlen);
}

static void bind_real_or_null(sqlite3_stmt *st, int col, int have, double v)
{
    if (have)
        sqlite3_bind_double(st, col, v);
    else
        sqlite3_bind_null(st, col);
}

/* ---- per node ---- */

static const char node_sql[] =
    "CREATE TABLE node_time(node INTEGER PRIMARY KEY, calls, time, mean, max, imbalance, min);"
    "CREATE TABLE node_worst_rank(node INTEGER PRIMARY KEY, rank, time);"
    "CREATE TABLE node_excl(node INTEGER PRIMARY KEY, time, excl);"
    "CREATE TABLE node_hist(node INTEGER PRIMARY KEY, h0, h1, h2, h3, h4, h5, h6, h7, h8, h9);"
    "CREATE TABLE node_worst_thread(node INTEGER PRIMARY KEY, thread);"
    "CREATE TABLE node_hist_fixed(node INTEGER PRIMARY KEY, ranks, b0, b1, b2, b3, b4, b5,"
    " b6, b7, b8, b9, b10, b11, b12, b13, b14, b15);";

typedef struct node_stmts {
    sqlite3_stmt *time, *worst, *thread, *excl, *hist;
} node_stmts;

static int put_node(hpf_agg_conv *c, node_stmts *s, uint32_t g, const hp_anode *n)
{
    double present = c->present;
    sqlite3_bind_int64(s->time, 1, g + 1);
    sqlite3_bind_int64(s->time, 2, (int64_t)n->calls);
    sqlite3_bind_double(s->time, 3, n->time);
    sqlite3_bind_double(s->time, 4, n->time / present);
    sqlite3_bind_double(s->time, 5, n->max);
    bind_real_or_null(s->time, 6, n->time > 0, n->max * present / n->time);
    sqlite3_bind_double(s->time, 7, n->ranks < c->present ? 0.0 : n->min);
    sqlite3_bind_int64(s->worst, 1, g + 1);
    sqlite3_bind_int64(s->worst, 2, n->max_rank);
    sqlite3_bind_double(s->worst, 3, n->max);
    sqlite3_bind_int64(s->excl, 1, g + 1);
    sqlite3_bind_double(s->excl, 2, n->time);
    sqlite3_bind_double(s->excl, 3, n->excl);
    sqlite3_bind_int64(s->hist, 1, g + 1);
    sqlite3_bind_int64(s->hist, 2, n->ranks);
    for (int k = 0; k < HP_AGG_BINS; k++)
        sqlite3_bind_int64(s->hist, k + 3, n->hist[k]);
    if (step(c, s->time) || step(c, s->worst) || step(c, s->excl) || step(c, s->hist))
        return -1;
    if (!(n->max > 0))      /* as node_worst_thread's definition: time > 0 */
        return 0;
    sqlite3_bind_int64(s->thread, 1, g + 1);
    sqlite3_bind_int64(s->thread, 2, n->max_thread);
    return step(c, s->thread);
}

int hpf_agg_node_tables(hpf_agg_conv *c)
{
    const hp_aggprof *a = &c->f->tree;
    node_stmts s = {NULL, NULL, NULL, NULL, NULL};
    int rc = exec(c, node_sql) ||
             prepare(c, "INSERT INTO node_time VALUES(?, ?, ?, ?, ?, ?, ?)", &s.time) ||
             prepare(c, "INSERT INTO node_worst_rank VALUES(?, ?, ?)", &s.worst) ||
             prepare(c, "INSERT INTO node_worst_thread VALUES(?, ?)", &s.thread) ||
             prepare(c, "INSERT INTO node_excl VALUES(?, ?, ?)", &s.excl) ||
             prepare(c, "INSERT INTO node_hist_fixed VALUES(?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?,"
                        " ?, ?, ?, ?, ?, ?, ?)", &s.hist) ? -1 : 0;
    for (uint32_t g = 0; g < a->nnodes && rc == 0; g++)
        if (a->nodes[g].ranks)      /* no records: no row, as GROUP BY gives none */
            rc = put_node(c, &s, g, &a->nodes[g]);
    sqlite3_finalize(s.time);
    sqlite3_finalize(s.worst);
    sqlite3_finalize(s.thread);
    sqlite3_finalize(s.excl);
    sqlite3_finalize(s.hist);
    return rc;
}

/* ---- per site ---- */

static const char site_sql[] =
    "CREATE TABLE site_time(site INTEGER, label TEXT, kind TEXT, calls INTEGER, time REAL,"
    " mean REAL, max REAL, imbalance REAL, tran REAL, sync REAL);"
    "CREATE TABLE site_worst(site INTEGER, rank INTEGER, thread INTEGER);"
    "CREATE TABLE rank_mpi(rank INTEGER, wall REAL, mpi_time REAL, mpi_threads INTEGER,"
    " mpi_pct REAL);";

/* Per site its comm records' times, over all its nodes (rank_site's). */
static double *site_comm_times(const hp_aggprof *a)
{
    double *t = calloc(2 * ((size_t)a->nsites + 1), sizeof *t);
    for (uint32_t i = 0; t && i < a->ncomms; i++) {
        uint32_t s = a->nodes[a->comms[i].node].site;
        t[2 * s] += a->comms[i].tran;
        t[2 * s + 1] += a->comms[i].sync;
    }
    return t;
}

static int put_site(hpf_agg_conv *c, sqlite3_stmt *st, sqlite3_stmt *w, uint32_t s,
                    const double *comm)
{
    const hp_aggprof *a = &c->f->tree;
    const hp_anode *d = &a->sitedist[s];
    double present = c->present;
    sqlite3_bind_int64(st, 1, s + 1);
    sqlite3_bind_text(st, 2, c->m.sites[s].label, -1, SQLITE_STATIC);
    sqlite3_bind_text(st, 3, hp_kind_name(a->sites[s].kind), -1, SQLITE_STATIC);
    sqlite3_bind_int64(st, 4, (int64_t)d->calls);
    sqlite3_bind_double(st, 5, d->time);
    sqlite3_bind_double(st, 6, d->time / present);
    sqlite3_bind_double(st, 7, d->max);
    bind_real_or_null(st, 8, d->time > 0, d->max * present / d->time);
    sqlite3_bind_double(st, 9, comm[2 * s]);
    sqlite3_bind_double(st, 10, comm[2 * s + 1]);
    if (step(c, st))
        return -1;
    if (!(d->max > 0))      /* site_worst: ranks with time only */
        return 0;
    sqlite3_bind_int64(w, 1, s + 1);
    sqlite3_bind_int64(w, 2, d->max_rank);
    sqlite3_bind_int64(w, 3, d->max_thread);
    return step(c, w);
}

static int put_rank_mpi(hpf_agg_conv *c, sqlite3_stmt *st)
{
    int rc = 0;
    for (uint32_t r = 0; r < c->f->nranks && rc == 0; r++) {
        const hp_rank_total *t = &c->f->ranks[r];
        if (t->flags & HP_RANKF_MISSING)
            continue;
        sqlite3_bind_int64(st, 1, t->rank);
        sqlite3_bind_double(st, 2, t->wall);
        sqlite3_bind_double(st, 3, t->mpi_time);
        sqlite3_bind_int64(st, 4, t->mpi_threads);
        sqlite3_bind_double(st, 5, t->wall > 0 && t->mpi_threads > 0
                                       ? 100.0 * t->mpi_time / (t->wall * t->mpi_threads) : 0.0);
        rc = step(c, st);
    }
    return rc;
}

int hpf_agg_site_tables(hpf_agg_conv *c)
{
    const hp_aggprof *a = &c->f->tree;
    sqlite3_stmt *st = NULL, *w = NULL, *m = NULL;
    double *comm = site_comm_times(a);
    int rc = !comm || exec(c, site_sql) ||
             prepare(c, "INSERT INTO site_time VALUES(?, ?, ?, ?, ?, ?, ?, ?, ?, ?)", &st) ||
             prepare(c, "INSERT INTO site_worst VALUES(?, ?, ?)", &w) ||
             prepare(c, "INSERT INTO rank_mpi VALUES(?, ?, ?, ?, ?)", &m) ? -1 : 0;
    if (!comm)
        snprintf(c->err, c->errlen, "out of memory");
    for (uint32_t s = 0; s < a->nsites && rc == 0; s++)
        if (a->sitedist[s].ranks)   /* some rank ran it */
            rc = put_site(c, st, w, s, comm);
    if (rc == 0)
        rc = put_rank_mpi(c, m);
    sqlite3_finalize(st);
    sqlite3_finalize(w);
    sqlite3_finalize(m);
    free(comm);
    return rc;
}

/* ---- communication ---- */

static const char comm_sql[] =
    "CREATE TABLE comm_matrix(sender INTEGER, receiver INTEGER, bytes INTEGER,"
    " messages INTEGER, tran REAL, sync REAL);"
    "CREATE TABLE comm_leftout(coll_bytes INTEGER, coll_calls INTEGER, coll_time REAL,"
    " file_bytes INTEGER, p2p_bytes INTEGER);"
    "CREATE TABLE comm_node_peer(node INTEGER, peer INTEGER, count INTEGER,"
    " bytes_sent INTEGER, bytes_recv INTEGER, tran REAL, sync REAL, min REAL, max REAL);"
    "CREATE TABLE comm_node_class(node INTEGER, peer INTEGER, ranks INTEGER,"
    " worst_rank INTEGER, worst_time REAL);";

static int peer_of(uint32_t pclass)
{
    return pclass == HP_PEERC_COLL ? HP_PEER_ALL
           : pclass == HP_PEERC_FILE ? HP_PEER_FILE : HPF_PEER_RANKS;
}

static const hp_aggprof *sort_tree;

/* comm_node_peer's order: by node, then peer. */
static int by_node_peer(const void *x, const void *y)
{
    const hp_acomm *a = &sort_tree->comms[*(const uint32_t *)x];
    const hp_acomm *b = &sort_tree->comms[*(const uint32_t *)y];
    if (a->node != b->node)
        return a->node < b->node ? -1 : 1;
    return peer_of(a->pclass) - peer_of(b->pclass);
}

/* The class's distribution over ranks (comm_node_class): the ranks with
 * records, the one with the most tran + sync (the lowest of equals) and
 * that time. */
static int put_node_class(hpf_agg_conv *c, sqlite3_stmt *st, const hp_acomm *x)
{
    sqlite3_bind_int64(st, 1, x->node + 1);
    sqlite3_bind_int64(st, 2, peer_of(x->pclass));
    sqlite3_bind_int64(st, 3, x->ranks);
    sqlite3_bind_int64(st, 4, x->max_rank);
    sqlite3_bind_double(st, 5, x->rank_max);
    return step(c, st);
}

static int put_node_peer(hpf_agg_conv *c, sqlite3_stmt *st, const hp_acomm *x)
{
    sqlite3_bind_int64(st, 1, x->node + 1);
    sqlite3_bind_int64(st, 2, peer_of(x->pclass));
    sqlite3_bind_int64(st, 3, (int64_t)x->count);
    sqlite3_bind_int64(st, 4, (int64_t)x->sent);
    sqlite3_bind_int64(st, 5, (int64_t)x->recv);
    sqlite3_bind_double(st, 6, x->tran);
    sqlite3_bind_double(st, 7, x->sync);
    sqlite3_bind_double(st, 8, x->min);
    sqlite3_bind_double(st, 9, x->max);
    return step(c, st);
}

/* What the matrix leaves out (db_aggcomm.c's add_to_matrix, by class). */
static int put_leftout(hpf_agg_conv *c)
{
    const hp_aggprof *a = &c->f->tree;
    uint64_t coll_bytes = 0, coll_calls = 0, file_bytes = 0, p2p_bytes = 0;
    double coll_time = 0;
    for (uint32_t i = 0; i < a->ncomms; i++) {
        const hp_acomm *x = &a->comms[i];
        int collective = (a->sites[a->nodes[x->node].site].flags & HP_SITEF_COLLECTIVE) != 0;
        if (x->pclass == HP_PEERC_COLL) {
            coll_bytes += x->sent;
            coll_calls += x->count;
            coll_time += x->tran + x->sync;
        } else if (x->pclass == HP_PEERC_FILE) {
            file_bytes += x->sent + x->recv;
        } else if (collective) {
            coll_time += x->tran + x->sync;
        } else {
            p2p_bytes += x->sent;
        }
    }
    sqlite3_stmt *st;
    if (prepare(c, "INSERT INTO comm_leftout VALUES(?, ?, ?, ?, ?)", &st))
        return -1;
    sqlite3_bind_int64(st, 1, (int64_t)coll_bytes);
    sqlite3_bind_int64(st, 2, (int64_t)coll_calls);
    sqlite3_bind_double(st, 3, coll_time);
    sqlite3_bind_int64(st, 4, (int64_t)file_bytes);
    sqlite3_bind_int64(st, 5, (int64_t)p2p_bytes);
    int rc = step(c, st);
    sqlite3_finalize(st);
    return rc;
}

int hpf_agg_comm_tables(hpf_agg_conv *c)
{
    const hp_aggprof *a = &c->f->tree;
    uint32_t *order = malloc(((size_t)a->ncomms + 1) * sizeof *order);
    sqlite3_stmt *st = NULL, *cls = NULL;
    int rc = !order || exec(c, comm_sql) ||
             prepare(c, "INSERT INTO comm_node_peer VALUES(?, ?, ?, ?, ?, ?, ?, ?, ?)", &st) ||
             prepare(c, "INSERT INTO comm_node_class VALUES(?, ?, ?, ?, ?)", &cls) ? -1 : 0;
    if (!order)
        snprintf(c->err, c->errlen, "out of memory");
    if (rc == 0) {
        for (uint32_t i = 0; i < a->ncomms; i++)
            order[i] = i;
        sort_tree = a;
        qsort(order, a->ncomms, sizeof *order, by_node_peer);
    }
    for (uint32_t k = 0; k < a->ncomms && rc == 0; k++)
        rc = put_node_peer(c, st, &a->comms[order[k]]) ||
             put_node_class(c, cls, &a->comms[order[k]]) ? -1 : 0;
    sqlite3_finalize(st);
    sqlite3_finalize(cls);
    free(order);
    return rc ? rc : put_leftout(c);
}

/* ---- overhead classes ---- */

/* Per node: has comm records, their sync time and bytes, summed. */
typedef struct node_comm {
    int any;
    double sync;
    uint64_t bytes;
} node_comm;

/* A node's exclusive time by class (db_aggovh.c's fold_thread on the
 * sums over ranks and threads: data movement's sync part is taken from
 * the summed sync, at most the exclusive time). */
static void classify(const hp_anode *n, const node_comm *nc, enum hpf_oclass cls, double *col)
{
    double e = n->excl > 0 ? n->excl : 0;
    if (cls == HPF_OC_DATA) {
        double s = nc->any && nc->bytes == 0 ? e : nc->sync > 0 ? nc->sync : 0;
        double sync = s < e ? s : e;
        col[1] += e - sync;
        col[2] += sync;
    } else {
        col[cls == HPF_OC_UNID ? 4 : (int)cls] += e;
    }
}

/* A rank's threads T (ovh_rank.t). */
static uint32_t rank_threads(const hp_rank_total *t)
{
    uint32_t threads = t->threads > t->omp_threads ? t->threads : t->omp_threads;
    return threads > 1 ? threads : 1;
}

/* Is every rank one thread (T = 1)?  Then there is no loss of
 * parallelism to know: 0 at every node and rank, f = 1. */
static int all_serial(const hpf_aggfile *f)
{
    for (uint32_t r = 0; r < f->nranks; r++)
        if (!(f->ranks[r].flags & HP_RANKF_MISSING) && rank_threads(&f->ranks[r]) > 1)
            return 0;
    return 1;
}

static int put_ovh_x(hpf_agg_conv *c, sqlite3_stmt *st, const node_comm *nc)
{
    int serial = all_serial(c->f);
    const hp_aggprof *a = &c->f->tree;
    int rc = 0;
    for (uint32_t g = 1; g < a->nnodes && rc == 0; g++) {
        const hp_anode *n = &a->nodes[g];
        const hp_site_rec *s = &a->sites[n->site];
        double col[5] = {0, 0, 0, 0, 0};
        if (!n->ranks)
            continue;
        classify(n, &nc[g], hpf_ovh_site_class(hp_kind_name(s->kind), a->strings[s->name],
                                               s->flags), col);
        sqlite3_bind_int64(st, 1, g + 1);
        sqlite3_bind_int64(st, 2, c->m.nodes[g].lo);
        for (int k = 0; k < 5; k++)
            sqlite3_bind_double(st, k + 3, col[k]);
        bind_real_or_null(st, 8, serial, 0.0);  /* else: needs each rank's first thread */
        rc = step(c, st);
    }
    return rc;
}

/* A rank's budget: wall and threads; its classified time is not in the
 * profile (NULL), nor its loss unless every rank is serial. */
static int put_ovh_rank(hpf_agg_conv *c, sqlite3_stmt *st)
{
    int rc = 0, serial = all_serial(c->f);
    for (uint32_t r = 0; r < c->f->nranks && rc == 0; r++) {
        const hp_rank_total *t = &c->f->ranks[r];
        if (t->flags & HP_RANKF_MISSING)
            continue;
        sqlite3_bind_int64(st, 1, t->rank);
        sqlite3_bind_double(st, 2, t->wall);
        sqlite3_bind_int64(st, 3, rank_threads(t));
        sqlite3_bind_null(st, 4);
        bind_real_or_null(st, 5, serial, 0.0);
        bind_real_or_null(st, 6, serial, 1.0);
        rc = step(c, st);
    }
    return rc;
}

int hpf_agg_ovh_tables(hpf_agg_conv *c)
{
    const hp_aggprof *a = &c->f->tree;
    node_comm *nc = calloc((size_t)a->nnodes + 1, sizeof *nc);
    sqlite3_stmt *x = NULL, *r = NULL;
    if (!nc) {
        snprintf(c->err, c->errlen, "out of memory");
        return -1;
    }
    for (uint32_t i = 0; i < a->ncomms; i++) {
        node_comm *n = &nc[a->comms[i].node];
        n->any = 1;
        n->sync += a->comms[i].sync;
        n->bytes += a->comms[i].sent + a->comms[i].recv;
    }
    int rc = exec(c, hpf_ovh_schema_sql) ||
             prepare(c, "INSERT INTO ovh_x VALUES(?, ?, ?, ?, ?, ?, ?, ?)", &x) ||
             prepare(c, "INSERT INTO ovh_rank VALUES(?, ?, ?, ?, ?, ?)", &r) ||
             put_ovh_x(c, x, nc) || put_ovh_rank(c, r) ? -1 : 0;
    sqlite3_finalize(x);
    sqlite3_finalize(r);
    free(nc);
    return rc;
}
