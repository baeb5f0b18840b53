/*
 * db_aggsite.c - the per-site and per-rank aggregates (rank_site,
 * site_time, site_worst, rank_mpi; their definitions are the views of
 * db_agg.c) computed rank by rank while hprof-merge writes the rows
 * (db_aggregator.h), instead of SQL passes over millions of stat and comm
 * rows.
 *
 * Per rank: a site's calls are summed over all its nodes, its time over
 * its outermost nodes only (recursion is not counted twice), its comm
 * times and bytes over its comm records.  Over ranks: sums, mean over the
 * ranks present, the rank with the most time (the lowest of equals) and
 * that rank's thread with the most time (the lowest of equals).
 */
#include <assert.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "db_aggregator.h"

/* One row of rank_site.  Counts are summed unsigned: a sum past 2^63 (a
 * corrupt or fuzzed profile) wraps instead of overflowing. */
typedef struct site_rank_row {
    uint32_t site, rank;
    uint64_t calls, bytes_sent, bytes_recv;
    double time, tran, sync;
} site_rank_row;

/* A site over the ranks so far. */
typedef struct site_total {
    uint64_t calls;
    double time, max, tran, sync;
    int have;                   /* some rank ran it */
    uint32_t worst_rank, worst_thread;
    double worst_time;          /* time of worst_rank (> 0 when set) */
} site_total;

typedef struct site_aggs {
    const hpf_profile *p;
    const hpf_merged *m;
    uint32_t nsites, nrank_rows;
    unsigned char *is_mpi;      /* per global site: comm or an MPI call */
    site_total *tot;
    int per_rank;               /* rank_site kept and written */
    site_rank_row *rows;        /* rank_site, in (rank, site) order */
    size_t nrows, caprows;
    /* per rank scratch, by global site id - 1 */
    site_rank_row *cur;
    unsigned char *seen;
    double *thread_time;        /* [site * nthreads + thread], outer nodes */
    size_t thread_cap;
    /* rank_mpi */
    uint32_t nranks_out;
    struct rank_mpi_row { uint32_t rank; double wall, mpi_time; uint32_t threads; } *mpi;
} site_aggs;

static const hp_site_rec *global_site(const site_aggs *sa, uint32_t g)
{
    const hpf_gsite *gs = &sa->m->sites[g - 1];
    return &sa->p->ranks[gs->rank].sites[gs->local];
}

static void site_finish(void *p)
{
    site_aggs *sa = p;
    if (!sa)
        return;
    free(sa->is_mpi);
    free(sa->tot);
    free(sa->rows);
    free(sa->cur);
    free(sa->seen);
    free(sa->thread_time);
    free(sa->mpi);
    free(sa);
}

static void *site_start(const hpf_profile *p, const hpf_merged *m, int per_rank)
{
    site_aggs *sa = calloc(1, sizeof *sa);
    size_t n = m->nsites ? m->nsites : 1;
    if (!sa)
        return NULL;
    sa->p = p;
    sa->m = m;
    sa->per_rank = per_rank;
    sa->nsites = m->nsites;
    sa->is_mpi = calloc(n, 1);
    sa->tot = calloc(n, sizeof *sa->tot);
    sa->cur = calloc(n, sizeof *sa->cur);
    sa->seen = calloc(n, 1);
    sa->mpi = calloc(p->nranks ? p->nranks : 1, sizeof *sa->mpi);
    if (!sa->is_mpi || !sa->tot || !sa->cur || !sa->seen || !sa->mpi) {
        site_finish(sa);
        return NULL;
    }
    for (uint32_t g = 1; g <= m->nsites; g++) {
        const hp_site_rec *s = global_site(sa, g);
        sa->is_mpi[g - 1] = s->kind == HP_KIND_COMM || (s->flags & HP_SITEF_MPI) != 0;
    }
    return sa;
}

static uint32_t rank_threads(const hp_rank_data *rd)
{
    uint32_t n = 1;
    for (uint32_t i = 0; i < rd->nnodes; i++)
        if (rd->nodes[i].thread + 1 > n)
            n = rd->nodes[i].thread + 1;
    return n;
}

/* The rank's count of threads that made MPI calls (rank_mpi). */
static uint32_t mpi_threads(const site_aggs *sa, const hpf_rank_rows *rr, uint32_t nthreads,
                            unsigned char *used)
{
    uint32_t n = 0;
    memset(used, 0, nthreads);
    for (uint32_t i = 0; i < rr->rd->nnodes; i++) {
        const hp_node_rec *nd = &rr->rd->nodes[i];
        uint32_t g = sa->m->nodes[rr->node_map[i] - 1].site;
        if (nd->count > 0 && sa->is_mpi[g - 1] && !used[nd->thread]) {
            used[nd->thread] = 1;
            n++;
        }
    }
    return n;
}

/* Sums the rank's records per site into cur (and per thread). */
static void sum_rank(site_aggs *sa, const hpf_rank_rows *rr, uint32_t nthreads)
{
    const hp_rank_data *rd = rr->rd;
    for (uint32_t i = 0; i < rd->nnodes; i++) {
        const hp_node_rec *nd = &rd->nodes[i];
        const hpf_gnode *gn = &sa->m->nodes[rr->node_map[i] - 1];
        site_rank_row *c = &sa->cur[gn->site - 1];
        sa->seen[gn->site - 1] = 1;
        c->calls += nd->count;
        if (gn->outer) {
            c->time += rr->time[i];
            sa->thread_time[(size_t)(gn->site - 1) * nthreads + nd->thread] += rr->time[i];
        }
    }
    for (uint32_t i = 0; i < rd->ncomms; i++) {
        const hp_comm_rec *cm = &rd->comms[i];
        site_rank_row *c = &sa->cur[sa->m->nodes[rr->node_map[cm->node] - 1].site - 1];
        c->tran += cm->tran;
        c->sync += cm->sync;
        c->bytes_sent += cm->bytes_sent;
        c->bytes_recv += cm->bytes_recv;
    }
}

/* The thread with the most time in site s of this rank, the lowest of equals. */
static uint32_t worst_thread(const site_aggs *sa, uint32_t s, uint32_t nthreads)
{
    const double *t = &sa->thread_time[(size_t)s * nthreads];
    uint32_t best = 0;
    for (uint32_t k = 1; k < nthreads; k++)
        if (t[k] > t[best])
            best = k;
    return best;
}

static int keep_row(site_aggs *sa, const site_rank_row *row)
{
    if (!sa->per_rank)
        return 0;
    if (sa->nrows == sa->caprows) {
        size_t cap = sa->caprows ? 2 * sa->caprows : 1024;
        site_rank_row *p = realloc(sa->rows, cap * sizeof *p);
        if (!p)
            return -1;
        sa->rows = p;
        sa->caprows = cap;
    }
    sa->rows[sa->nrows++] = *row;
    return 0;
}

/* Folds the rank's rows into the totals and clears the scratch. */
static int fold_rank(site_aggs *sa, uint32_t rank, uint32_t nthreads)
{
    for (uint32_t s = 0; s < sa->nsites; s++) {
        if (!sa->seen[s])
            continue;
        site_rank_row *c = &sa->cur[s];
        site_total *t = &sa->tot[s];
        c->site = s + 1;
        c->rank = rank;
        if (keep_row(sa, c))
            return -1;
        t->calls += c->calls;
        t->time += c->time;
        t->tran += c->tran;
        t->sync += c->sync;
        if (!t->have || c->time > t->max)
            t->max = c->time;
        t->have = 1;
        if (c->time > 0 && c->time > t->worst_time) {
            t->worst_time = c->time;
            t->worst_rank = rank;
            t->worst_thread = worst_thread(sa, s, nthreads);
        }
        memset(c, 0, sizeof *c);
        sa->seen[s] = 0;
    }
    return 0;
}

static int site_add_rank(void *p, const hpf_rank_rows *rr)
{
    site_aggs *sa = p;
    uint32_t nthreads = rank_threads(rr->rd);
    size_t need = (size_t)(sa->nsites ? sa->nsites : 1) * nthreads;
    if (need > sa->thread_cap) {
        free(sa->thread_time);
        sa->thread_time = malloc(need * sizeof *sa->thread_time);
        sa->thread_cap = sa->thread_time ? need : 0;
        if (!sa->thread_time)
            return -1;
    }
    memset(sa->thread_time, 0, need * sizeof *sa->thread_time);
    if (!(rr->rd->info.flags & HP_RANKF_MISSING)) {
        unsigned char *used = calloc(nthreads, 1);
        if (!used)
            return -1;
        struct rank_mpi_row *row = &sa->mpi[sa->nranks_out++];
        row->rank = rr->rank;
        row->wall = rr->rd->info.wall;
        row->mpi_time = rr->rd->info.mpi_time;
        row->threads = mpi_threads(sa, rr, nthreads, used);
        free(used);
        sa->nrank_rows++;
    }
    sum_rank(sa, rr, nthreads);
    return fold_rank(sa, rr->rank, nthreads);
}

static const char *const rank_site_sql =
    "CREATE TABLE rank_site(site INTEGER, rank INTEGER, calls INTEGER, time REAL,"
    " tran REAL, sync REAL, bytes_sent INTEGER, bytes_recv INTEGER);";
static const char *const create_sql =
    "CREATE TABLE site_time(site INTEGER, label TEXT, kind TEXT, calls INTEGER, time REAL,"
    " mean REAL, max REAL, imbalance REAL, tran REAL, sync REAL);"
    "CREATE TABLE site_worst(site INTEGER, rank INTEGER, thread INTEGER);"
    "CREATE TABLE rank_mpi(rank INTEGER, wall REAL, mpi_time REAL, mpi_threads INTEGER,"
    " mpi_pct REAL);";

static int write_rank_site(site_aggs *sa, sqlite3 *db, char *err, size_t errlen)
{
    sqlite3_stmt *st;
    int rc = 0;
    if (sqlite3_prepare_v2(db, "INSERT INTO rank_site VALUES(?, ?, ?, ?, ?, ?, ?, ?)", -1, &st,
                           NULL) != SQLITE_OK)
        return hpf_agg_fail(db, err, errlen);
    for (size_t k = 0; k < sa->nrows && rc == 0; k++) {
        const site_rank_row *r = &sa->rows[k];
        sqlite3_bind_int64(st, 1, r->site);
        sqlite3_bind_int64(st, 2, r->rank);
        sqlite3_bind_int64(st, 3, (int64_t)r->calls);
        sqlite3_bind_double(st, 4, r->time);
        sqlite3_bind_double(st, 5, r->tran);
        sqlite3_bind_double(st, 6, r->sync);
        sqlite3_bind_int64(st, 7, (int64_t)r->bytes_sent);
        sqlite3_bind_int64(st, 8, (int64_t)r->bytes_recv);
        rc = hpf_agg_step(db, st, err, errlen);
    }
    sqlite3_finalize(st);
    return rc;
}

static int write_site_time(site_aggs *sa, sqlite3 *db, char *err, size_t errlen)
{
    sqlite3_stmt *st, *w;
    double n = sa->nrank_rows ? sa->nrank_rows : 1;
    int rc = 0;
    if (sqlite3_prepare_v2(db, "INSERT INTO site_time VALUES(?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                           -1, &st, NULL) != SQLITE_OK)
        return hpf_agg_fail(db, err, errlen);
    if (sqlite3_prepare_v2(db, "INSERT INTO site_worst VALUES(?, ?, ?)", -1, &w, NULL)) {
        sqlite3_finalize(st);
        return hpf_agg_fail(db, err, errlen);
    }
    for (uint32_t s = 0; s < sa->nsites && rc == 0; s++) {
        const site_total *t = &sa->tot[s];
        if (!t->have)
            continue;
        sqlite3_bind_int64(st, 1, s + 1);
        sqlite3_bind_text(st, 2, sa->m->sites[s].label, -1, SQLITE_STATIC);
        sqlite3_bind_text(st, 3, hp_kind_name(global_site(sa, s + 1)->kind), -1, SQLITE_STATIC);
        sqlite3_bind_int64(st, 4, (int64_t)t->calls);
        sqlite3_bind_double(st, 5, t->time);
        sqlite3_bind_double(st, 6, t->time / n);
        sqlite3_bind_double(st, 7, t->max);
        if (t->time > 0)
            sqlite3_bind_double(st, 8, t->max * n / t->time);
        else
            sqlite3_bind_null(st, 8);
        sqlite3_bind_double(st, 9, t->tran);
        sqlite3_bind_double(st, 10, t->sync);
        rc = hpf_agg_step(db, st, err, errlen);
        if (rc == 0 && t->worst_time > 0) {
            sqlite3_bind_int64(w, 1, s + 1);
            sqlite3_bind_int64(w, 2, t->worst_rank);
            sqlite3_bind_int64(w, 3, t->worst_thread);
            rc = hpf_agg_step(db, w, err, errlen);
        }
    }
    sqlite3_finalize(st);
    sqlite3_finalize(w);
    return rc;
}

static int write_rank_mpi(site_aggs *sa, sqlite3 *db, char *err, size_t errlen)
{
    sqlite3_stmt *st;
    int rc = 0;
    if (sqlite3_prepare_v2(db, "INSERT INTO rank_mpi VALUES(?, ?, ?, ?, ?)", -1, &st, NULL))
        return hpf_agg_fail(db, err, errlen);
    for (uint32_t k = 0; k < sa->nranks_out && rc == 0; k++) {
        const struct rank_mpi_row *r = &sa->mpi[k];
        sqlite3_bind_int64(st, 1, r->rank);
        sqlite3_bind_double(st, 2, r->wall);
        sqlite3_bind_double(st, 3, r->mpi_time);
        sqlite3_bind_int64(st, 4, r->threads);
        sqlite3_bind_double(st, 5, r->wall > 0 && r->threads > 0
                                       ? 100.0 * r->mpi_time / (r->wall * r->threads) : 0.0);
        rc = hpf_agg_step(db, st, err, errlen);
    }
    sqlite3_finalize(st);
    return rc;
}

static int site_write(void *p, sqlite3 *db, char *err, size_t errlen)
{
    site_aggs *sa = p;
    if (sqlite3_exec(db, create_sql, NULL, NULL, NULL) != SQLITE_OK ||
        (sa->per_rank && sqlite3_exec(db, rank_site_sql, NULL, NULL, NULL) != SQLITE_OK))
        return hpf_agg_fail(db, err, errlen);
    return (sa->per_rank && write_rank_site(sa, db, err, errlen)) ||
           write_site_time(sa, db, err, errlen) ||
           write_rank_mpi(sa, db, err, errlen) ? -1 : 0;
}

const hpf_aggregator hpf_site_aggregator = {
    "per-site", site_start, site_add_rank, site_write, site_finish,
};
