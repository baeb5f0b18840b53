/*
 * db_aggovh.c - the overhead-class tables ovh_x and ovh_rank (ovh_class.h)
 * computed by hprof-merge rank by rank while the rank's records are in
 * memory (hpf_ovh_aggregator, db_aggregator.h), instead of hprof-query
 * --overheads building them from every stat and comm row on each call.
 *
 * The rules are the SQL definition's in ovh_class.c, step by step: per
 * rank and thread a node's exclusive time (own time less its children's,
 * at least 0) and its comm records' sync delay and bytes; by the node's
 * class into c0..c5, summed over threads, then over ranks.  Per rank its
 * budget wall x T, its classified time `other`, the first thread's time
 * in outermost parallel regions, hence its loss and f; then per node
 * (none at or inside a parallel region) (T - 1) f x the first thread's
 * time in it outside parallel regions, summed over ranks.  Sums run in
 * rank order; within a rank in an order close to SQLite's, so stored and
 * defined values agree to rounding (tests/overheads/run.sh: 1e-9).
 */
#include <assert.h>
#include <stdlib.h>
#include <string.h>
#include "db_aggregator.h"
#include "ovh_class.h"

#define NCOLS 5     /* c0 c1 c2 c3 c5: the classes a site can have */

/* The column of class k (HPF_OC_LOSS is no site's class). */
static int column_of(enum hpf_oclass k)
{
    assert(k != HPF_OC_LOSS && k < HPF_OC_N);
    return k == HPF_OC_UNID ? 4 : (int)k;
}

typedef struct rank_row {
    uint32_t rank;
    double wall, other, loss, f;
    uint32_t t;
} rank_row;

typedef struct ovh_acc {
    const hpf_merged *m;
    uint32_t nnodes;
    unsigned char *cls;         /* per merged node: its class */
    unsigned char *par, *inpar; /* is a parallel region; one lies above */
    /* the result */
    double (*x)[NCOLS];         /* per node: c0..c5 summed over ranks */
    double *loss;               /* per node: its loss */
    unsigned char *present;     /* per node: has rows */
    rank_row *ranks;
    uint32_t nranks;
    /* per rank/thread scratch, indexed by node, cleared through `touched` */
    double *own, *kids, *sync, (*er)[NCOLS], *t0, *parsum;
    uint64_t *bytes;            /* unsigned: absurd sizes wrap, not overflow */
    unsigned char *seen, *has_comm, *er_seen, *t0_seen, *par_seen;
    uint32_t *touched, ntouched, *er_list, ner, *t0_list, nt0, *par_list, npar;
    uint32_t *order, *comm_order;   /* a rank's records and comms by thread */
    size_t order_cap, comm_cap;
} ovh_acc;

/* ---- classes of the merged nodes ---- */

static void classify_sites(const hpf_profile *p, const hpf_merged *m, unsigned char *site_cls,
                           unsigned char *site_par)
{
    for (uint32_t i = 0; i < m->nsites; i++) {
        const hpf_gsite *g = &m->sites[i];
        const hp_rank_data *rd = &p->ranks[g->rank];
        const hp_site_rec *s = &rd->sites[g->local];
        const char *kind = hp_kind_name(s->kind), *name = rd->strings[s->name];
        site_cls[i] = (unsigned char)hpf_ovh_site_class(kind, name, s->flags);
        site_par[i] = strcmp(kind, "omp") == 0 && name && strcmp(name, "parallel") == 0;
    }
}

/* Parents come before children (merge.h: ids grow downwards). */
static int classify_nodes(ovh_acc *a, const hpf_profile *p)
{
    const hpf_merged *m = a->m;
    unsigned char *site_cls = calloc(m->nsites + 1, 1), *site_par = calloc(m->nsites + 1, 1);
    if (!site_cls || !site_par) {
        free(site_cls);
        free(site_par);
        return -1;
    }
    classify_sites(p, m, site_cls, site_par);
    for (uint32_t g = 0; g < m->nnodes; g++) {
        const hpf_gnode *n = &m->nodes[g];
        int known = n->site >= 1 && n->site <= m->nsites;
        a->par[g] = known && site_par[n->site - 1];
        if (!n->parent) {
            a->cls[g] = known ? site_cls[n->site - 1] : HPF_OC_UNID;
            a->inpar[g] = 0;
            continue;
        }
        assert(n->parent <= g);
        a->cls[g] = known ? site_cls[n->site - 1] : HPF_OC_COMP;
        a->inpar[g] = a->inpar[n->parent - 1] || a->par[n->parent - 1];
    }
    free(site_cls);
    free(site_par);
    return 0;
}

/* ---- start / finish ---- */

static void ovh_finish(void *acc)
{
    ovh_acc *a = acc;
    if (!a)
        return;
    free(a->cls), free(a->par), free(a->inpar);
    free(a->x), free(a->loss), free(a->present), free(a->ranks);
    free(a->own), free(a->kids), free(a->sync), free(a->er), free(a->t0), free(a->parsum);
    free(a->bytes);
    free(a->seen), free(a->has_comm), free(a->er_seen), free(a->t0_seen), free(a->par_seen);
    free(a->touched), free(a->er_list), free(a->t0_list), free(a->par_list);
    free(a->order), free(a->comm_order);
    free(a);
}

static void *ovh_start(const hpf_profile *p, const hpf_merged *m, int per_rank)
{
    (void)per_rank;
    ovh_acc *a = calloc(1, sizeof *a);
    if (!a)
        return NULL;
    size_t n = m->nnodes ? m->nnodes : 1;
    a->m = m;
    a->nnodes = m->nnodes;
    a->cls = calloc(n, 1), a->par = calloc(n, 1), a->inpar = calloc(n, 1);
    a->x = calloc(n, sizeof *a->x), a->loss = calloc(n, sizeof *a->loss);
    a->present = calloc(n, 1);
    a->ranks = calloc(p->nranks ? p->nranks : 1, sizeof *a->ranks);
    a->own = calloc(n, sizeof *a->own), a->kids = calloc(n, sizeof *a->kids);
    a->sync = calloc(n, sizeof *a->sync), a->er = calloc(n, sizeof *a->er);
    a->t0 = calloc(n, sizeof *a->t0), a->parsum = calloc(n, sizeof *a->parsum);
    a->bytes = calloc(n, sizeof *a->bytes);
    a->seen = calloc(n, 1), a->has_comm = calloc(n, 1), a->er_seen = calloc(n, 1);
    a->t0_seen = calloc(n, 1), a->par_seen = calloc(n, 1);
    a->touched = calloc(n, sizeof *a->touched), a->er_list = calloc(n, sizeof *a->er_list);
    a->t0_list = calloc(n, sizeof *a->t0_list), a->par_list = calloc(n, sizeof *a->par_list);
    if (!a->cls || !a->par || !a->inpar || !a->x || !a->loss || !a->present || !a->ranks ||
        !a->own || !a->kids || !a->sync || !a->er || !a->t0 || !a->parsum || !a->bytes ||
        !a->seen || !a->has_comm || !a->er_seen || !a->t0_seen || !a->par_seen ||
        !a->touched || !a->er_list || !a->t0_list || !a->par_list || classify_nodes(a, p)) {
        ovh_finish(a);
        return NULL;
    }
    return a;
}

/* ---- one rank ---- */

/* The thread of record i (comms: of comm record i) of a rank. */
static uint32_t thread_of(const hp_rank_data *rd, int comms, uint32_t i)
{
    return comms ? rd->nodes[rd->comms[i].node].thread : rd->nodes[i].thread;
}

/* idx[0..count) = the indices of the rank's records (comms: its comm
 * records) ordered by thread, stably: a counting sort.  *nthreads grows
 * to the threads seen.  0, or -1 without memory. */
static int by_thread(const hp_rank_data *rd, int comms, uint32_t **idx, size_t *cap,
                     uint32_t *nthreads)
{
    uint32_t count = comms ? rd->ncomms : rd->nnodes, nt = 0;
    if (rd->info.threads <= 1)      /* the reader checked every thread against it */
        nt = count ? 1 : 0;
    else
        for (uint32_t i = 0; i < count; i++)
            if (thread_of(rd, comms, i) + 1 > nt)
                nt = thread_of(rd, comms, i) + 1;
    if (count > *cap) {
        uint32_t *p = realloc(*idx, count * sizeof *p);
        if (!p)
            return -1;
        *idx = p;
        *cap = count;
    }
    if (nt > *nthreads)
        *nthreads = nt;
    if (nt <= 1) {          /* one thread: the records' own order */
        for (uint32_t i = 0; i < count; i++)
            (*idx)[i] = i;
        return 0;
    }
    uint32_t *start = calloc((size_t)nt + 1, sizeof *start);
    if (!start)
        return -1;
    for (uint32_t i = 0; i < count; i++)
        start[thread_of(rd, comms, i) + 1]++;
    for (uint32_t t = 0; t < nt; t++)
        start[t + 1] += start[t];
    for (uint32_t i = 0; i < count; i++)
        (*idx)[start[thread_of(rd, comms, i)]++] = i;
    free(start);
    return 0;
}

static void touch(ovh_acc *a, uint32_t g)
{
    if (!a->seen[g]) {
        a->seen[g] = 1;
        a->touched[a->ntouched++] = g;
    }
}

/* One thread's own and children's time and comm sums per node are in the
 * scratch: its exclusive time by class into er, then the scratch cleared. */
static void fold_thread(ovh_acc *a)
{
    for (uint32_t k = 0; k < a->ntouched; k++) {
        uint32_t g = a->touched[k];
        if (a->seen[g] == 2 && a->m->nodes[g].parent) {    /* has own rows, not the root */
            double e = a->own[g] - a->kids[g];
            e = e > 0 ? e : 0;
            double s = a->has_comm[g] && a->bytes[g] == 0 ? e
                       : a->sync[g] > 0                   ? a->sync[g]
                                                          : 0;
            double sync = s < e ? s : e;
            enum hpf_oclass c = (enum hpf_oclass)a->cls[g];
            if (c == HPF_OC_DATA) {
                a->er[g][column_of(HPF_OC_DATA)] += e - sync;
                a->er[g][column_of(HPF_OC_SYNC)] += sync;
            } else {
                a->er[g][column_of(c)] += e;
            }
            if (!a->er_seen[g]) {
                a->er_seen[g] = 1;
                a->er_list[a->ner++] = g;
            }
        }
        a->seen[g] = a->has_comm[g] = 0;
        a->own[g] = a->kids[g] = a->sync[g] = 0;
        a->bytes[g] = 0;
    }
    a->ntouched = 0;
}

/* Records [*ri, ...) and comms [*ci, ...) of thread t (in by-thread order);
 * one: the rank's only thread (all of them, no thread looked up). */
static void add_thread(ovh_acc *a, const hpf_rank_rows *rows, uint32_t t, int one,
                       uint32_t *ri, uint32_t *ci)
{
    const hp_rank_data *rd = rows->rd;
    for (; *ri < rd->nnodes && (one || rd->nodes[a->order[*ri]].thread == t); ++*ri) {
        uint32_t i = a->order[*ri], g = rows->node_map[i] - 1, parent = a->m->nodes[g].parent;
        touch(a, g);
        a->seen[g] = 2;
        a->own[g] += rows->time[i];
        if (parent) {
            touch(a, parent - 1);
            a->kids[parent - 1] += rows->time[i];
        }
    }
    for (; *ci < rd->ncomms && (one || rd->nodes[rd->comms[a->comm_order[*ci]].node].thread == t);
         ++*ci) {
        const hp_comm_rec *c = &rd->comms[a->comm_order[*ci]];
        uint32_t g = rows->node_map[c->node] - 1;
        touch(a, g);
        a->has_comm[g] = 1;
        a->sync[g] += c->sync;
        a->bytes[g] += c->bytes_sent + c->bytes_recv;
    }
    fold_thread(a);
}

static int by_id(const void *x, const void *y)
{
    uint32_t a = *(const uint32_t *)x, b = *(const uint32_t *)y;
    return a < b ? -1 : a > b;
}

/* list[0..n): distinct node indices, the ones with member[g] set, into
 * ascending order.  A rank's nodes mostly come in order already (checked
 * first: nothing to do), or are many of the merged nodes (found again by
 * a scan of member); a sort only for the few of a large tree. */
static void ascending(uint32_t *list, uint32_t n, const unsigned char *member, uint32_t nnodes)
{
    uint32_t k = 1;
    while (k < n && list[k - 1] < list[k])
        k++;
    if (k >= n)
        return;
    if ((uint64_t)n * 16 < nnodes) {
        qsort(list, n, sizeof *list, by_id);
        return;
    }
    k = 0;
    for (uint32_t g = 0; g < nnodes; g++)
        if (member[g])
            list[k++] = g;
    assert(k == n);
}

/* The rank's er folded into x, node by node; returns its classified time. */
static double fold_rank_classes(ovh_acc *a)
{
    double other = 0;
    ascending(a->er_list, a->ner, a->er_seen, a->nnodes);
    for (uint32_t k = 0; k < a->ner; k++) {
        uint32_t g = a->er_list[k];
        double *er = a->er[g];
        other += er[0] + er[1] + er[2] + er[3] + er[4];
        for (int c = 0; c < NCOLS; c++)
            a->x[g][c] += er[c];
        a->present[g] = 1;
        memset(er, 0, sizeof a->er[g]);
        a->er_seen[g] = 0;
    }
    a->ner = 0;
    return other;
}

/* The first thread's time per node into t0; returns the time in outermost
 * parallel regions, each region's time added to parsum of it and its
 * ancestors. */
static double first_thread_times(ovh_acc *a, const hpf_rank_rows *rows)
{
    const hp_rank_data *rd = rows->rd;
    for (uint32_t i = 0; i < rd->nnodes; i++) {
        if (rd->nodes[i].thread != 0)
            continue;
        uint32_t g = rows->node_map[i] - 1;
        if (!a->t0_seen[g]) {
            a->t0_seen[g] = 1;
            a->t0_list[a->nt0++] = g;
        }
        a->t0[g] += rows->time[i];
    }
    ascending(a->t0_list, a->nt0, a->t0_seen, a->nnodes);
    double par0 = 0;
    for (uint32_t k = 0; k < a->nt0; k++) {
        uint32_t g = a->t0_list[k];
        if (!a->par[g] || a->inpar[g])
            continue;
        par0 += a->t0[g];
        for (uint32_t up = g + 1; up; up = a->m->nodes[up - 1].parent) {
            if (!a->par_seen[up - 1]) {
                a->par_seen[up - 1] = 1;
                a->par_list[a->npar++] = up - 1;
            }
            a->parsum[up - 1] += a->t0[g];
        }
    }
    return par0;
}

/* Each node's loss on this rank (T - 1) f x its serial first-thread time;
 * the t0 and parsum scratch cleared. */
static void add_node_losses(ovh_acc *a, const rank_row *rr)
{
    for (uint32_t k = 0; k < a->nt0; k++) {
        uint32_t g = a->t0_list[k];
        if (rr && !a->par[g] && !a->inpar[g]) {
            double serial = a->t0[g] - a->parsum[g];
            a->loss[g] += (rr->t - 1) * rr->f * (serial > 0 ? serial : 0);
        }
        a->t0[g] = 0;
        a->t0_seen[g] = 0;
    }
    a->nt0 = 0;
    for (uint32_t k = 0; k < a->npar; k++) {
        a->parsum[a->par_list[k]] = 0;
        a->par_seen[a->par_list[k]] = 0;
    }
    a->npar = 0;
}

static double max3(double x, double y, double z)
{
    double m = x > y ? x : y;
    return m > z ? m : z;
}

/* The rank's budget row: T, idle, loss, f (ovh_rank's definition). */
static void make_rank_row(rank_row *r, const hp_rank_info *ri, double other, double par0)
{
    r->rank = ri->rank;
    r->wall = ri->wall;
    r->t = (uint32_t)max3(ri->threads, ri->omp_threads, 1);
    r->other = other;
    double serial = r->wall - par0, left = r->wall * r->t - other;
    double idle = (serial > 0 ? serial : 0) * (r->t - 1);
    left = left > 0 ? left : 0;
    r->loss = idle < left ? idle : left;
    r->f = idle > 0 ? r->loss / idle : 1;
}

static int ovh_add_rank(void *acc, const hpf_rank_rows *rows)
{
    ovh_acc *a = acc;
    const hp_rank_data *rd = rows->rd;
    uint32_t nthreads = 0, ri = 0, ci = 0;
    if (by_thread(rd, 0, &a->order, &a->order_cap, &nthreads) ||
        by_thread(rd, 1, &a->comm_order, &a->comm_cap, &nthreads))
        return -1;
    for (uint32_t t = 0; t < nthreads; t++)
        add_thread(a, rows, t, nthreads == 1, &ri, &ci);
    assert(ri == rd->nnodes && ci == rd->ncomms);
    double other = fold_rank_classes(a);
    double par0 = first_thread_times(a, rows);
    rank_row *rr = NULL;
    if (!(rd->info.flags & HP_RANKF_MISSING)) {   /* rank rows only for the ranks present */
        rr = &a->ranks[a->nranks++];
        make_rank_row(rr, &rd->info, other, par0);
    }
    add_node_losses(a, rr);
    return 0;
}

/* ---- write ---- */

static int insert_nodes(const ovh_acc *a, sqlite3 *db, char *err, size_t errlen)
{
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(db, "INSERT INTO ovh_x VALUES(?, ?, ?, ?, ?, ?, ?, ?)", -1, &st,
                           NULL) != SQLITE_OK)
        return hpf_agg_fail(db, err, errlen);
    int rc = 0;
    for (uint32_t g = 0; g < a->nnodes && rc == 0; g++) {
        if (!a->present[g])
            continue;
        sqlite3_bind_int64(st, 1, g + 1);
        sqlite3_bind_int64(st, 2, a->m->nodes[g].lo);
        for (int c = 0; c < NCOLS; c++)
            sqlite3_bind_double(st, 3 + c, a->x[g][c]);
        sqlite3_bind_double(st, 8, a->loss[g]);
        rc = hpf_agg_step(db, st, err, errlen);
    }
    sqlite3_finalize(st);
    return rc;
}

static int insert_ranks(const ovh_acc *a, sqlite3 *db, char *err, size_t errlen)
{
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(db, "INSERT INTO ovh_rank VALUES(?, ?, ?, ?, ?, ?)", -1, &st,
                           NULL) != SQLITE_OK)
        return hpf_agg_fail(db, err, errlen);
    int rc = 0;
    for (uint32_t k = 0; k < a->nranks && rc == 0; k++) {
        const rank_row *r = &a->ranks[k];
        sqlite3_bind_int64(st, 1, r->rank);
        sqlite3_bind_double(st, 2, r->wall);
        sqlite3_bind_int64(st, 3, r->t);
        sqlite3_bind_double(st, 4, r->other);
        sqlite3_bind_double(st, 5, r->loss);
        sqlite3_bind_double(st, 6, r->f);
        rc = hpf_agg_step(db, st, err, errlen);
    }
    sqlite3_finalize(st);
    return rc;
}

static int ovh_write(void *acc, sqlite3 *db, char *err, size_t errlen)
{
    const ovh_acc *a = acc;
    if (sqlite3_exec(db, hpf_ovh_schema_sql, NULL, NULL, NULL) != SQLITE_OK)
        return hpf_agg_fail(db, err, errlen);
    return insert_nodes(a, db, err, errlen) || insert_ranks(a, db, err, errlen) ? -1 : 0;
}

const hpf_aggregator hpf_ovh_aggregator = {
    "overhead classes", ovh_start, ovh_add_rank, ovh_write, ovh_finish,
};
