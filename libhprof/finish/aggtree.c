/*
 * aggtree.c - the aggregated profile of one rank and the merge of two
 * (hp_aggtree.h).  Keys are those of the analyzer's merge
 * (analyzer/db/merge.c): a site by (kind, name, func, file, line), or by
 * (kind, name, module, offset) when it has no file; a node by (parent,
 * site); every thread's root is node 0.  Distributions: sums add, min and
 * max take the extreme (max ties go to the lower rank, as the analyzer
 * takes the first rank in order), histograms add bin by bin.
 */
#include <stdio.h>
#include <stdlib.h>
#include "hp_aggtree.h"
#include "hp_compensate.h"

/* ---- a hash set of byte-string keys, each with a uint32 value ---- */

typedef struct keyset {
    char **keys;
    size_t *lens;
    uint32_t *values;
    size_t cap, used;
} keyset;

static uint64_t hash_bytes(const void *k, size_t n)
{
    const unsigned char *p = k;
    uint64_t h = 1469598103934665603ull;
    for (size_t i = 0; i < n; i++)
        h = (h ^ p[i]) * 1099511628211ull;
    return h;
}

static void keyset_free(keyset *s)
{
    for (size_t i = 0; s->keys && i < s->cap; i++)
        free(s->keys[i]);
    free(s->keys);
    free(s->lens);
    free(s->values);
    memset(s, 0, sizeof *s);
}

static int keyset_init(keyset *s, size_t expect)
{
    memset(s, 0, sizeof *s);
    s->cap = 64;
    while (s->cap < 2 * expect + 2)
        s->cap *= 2;
    s->keys = calloc(s->cap, sizeof *s->keys);
    s->lens = calloc(s->cap, sizeof *s->lens);
    s->values = calloc(s->cap, sizeof *s->values);
    return s->keys && s->lens && s->values ? 0 : -1;
}

static int keyset_grow(keyset *s)
{
    keyset n;
    if (keyset_init(&n, s->cap))
        return -1;
    for (size_t i = 0; i < s->cap; i++) {
        if (!s->keys[i])
            continue;
        size_t j = hash_bytes(s->keys[i], s->lens[i]) & (n.cap - 1);
        while (n.keys[j])
            j = (j + 1) & (n.cap - 1);
        n.keys[j] = s->keys[i];
        n.lens[j] = s->lens[i];
        n.values[j] = s->values[i];
        s->keys[i] = NULL;
    }
    n.used = s->used;
    keyset_free(s);
    *s = n;
    return 0;
}

/* The value of key; when absent, value is stored with it and *added set.
 * -1 without memory. */
static int keyset_intern(keyset *s, const void *key, size_t len, uint32_t value,
                         uint32_t *found, int *added)
{
    if (2 * (s->used + 1) > s->cap && keyset_grow(s))
        return -1;
    size_t j = hash_bytes(key, len) & (s->cap - 1);
    for (; s->keys[j]; j = (j + 1) & (s->cap - 1)) {
        if (s->lens[j] == len && memcmp(s->keys[j], key, len) == 0) {
            *found = s->values[j];
            *added = 0;
            return 0;
        }
    }
    if (!(s->keys[j] = malloc(len ? len : 1)))
        return -1;
    memcpy(s->keys[j], key, len);
    s->lens[j] = len;
    s->values[j] = value;
    s->used++;
    *found = value;
    *added = 1;
    return 0;
}

/* ---- growing the arrays of an aggregate ---- */

static int grow(void **items, uint32_t n, uint32_t *cap, size_t elem)
{
    if (n < *cap)
        return 0;
    uint32_t ncap = *cap ? *cap * 2 : 64;
    void *p = realloc(*items, (size_t)ncap * elem);
    if (!p)
        return -1;
    *items = p;
    *cap = ncap;
    return 0;
}

/* The merge key of site s of a (strings of a), as merge.c's site_key. */
static void site_key(hp_buf *b, char **strings, const hp_site_rec *s)
{
    const char *file = strings[s->file];
    b->len = 0;
    hp_buf_put_u32(b, s->kind);
    hp_buf_put_str(b, strings[s->name]);
    if (*file) {
        hp_buf_put_u32(b, 1);
        hp_buf_put_str(b, strings[s->func]);
        hp_buf_put_str(b, file);
        hp_buf_put_u32(b, s->line);
    } else {
        hp_buf_put_u32(b, 0);
        hp_buf_put_str(b, strings[s->module]);
        hp_buf_put_u64(b, s->offset);
    }
}

/* Merging state: the keys of into's strings, sites and nodes. */
typedef struct merger {
    hp_aggprof *a;
    keyset strs, sites, nodes;
    hp_buf key;
} merger;

static void merger_free(merger *m)
{
    keyset_free(&m->strs);
    keyset_free(&m->sites);
    keyset_free(&m->nodes);
    hp_buf_free(&m->key);
}

static int intern_string(merger *m, const char *s, uint32_t *id)
{
    int added;
    size_t len = strlen(s);
    hp_aggprof *a = m->a;
    if (keyset_intern(&m->strs, s, len, a->nstrings, id, &added))
        return -1;
    if (!added)
        return 0;
    if (grow((void **)&a->strings, a->nstrings, &a->capstrings, sizeof *a->strings) ||
        !(a->strings[a->nstrings] = strdup(s)))
        return -1;
    a->nstrings++;
    return 0;
}

static int intern_site(merger *m, char **strings, const hp_site_rec *s, uint32_t *id)
{
    int added;
    hp_aggprof *a = m->a;
    site_key(&m->key, strings, s);
    if (m->key.failed || keyset_intern(&m->sites, m->key.data, m->key.len, a->nsites, id, &added))
        return -1;
    if (!added) {   /* throttled or estimated on any rank: as merge.c says */
        a->sites[*id].flags |= s->flags & (HP_SITEF_THROTTLED | HP_SITEF_ESTIMATED);
        return 0;
    }
    uint32_t cap = a->capsites;
    if (grow((void **)&a->sites, a->nsites, &a->capsites, sizeof *a->sites) ||
        grow((void **)&a->sitedist, a->nsites, &cap, sizeof *a->sitedist))
        return -1;
    a->sitedist[a->nsites] = (hp_anode){.parent = HP_NONE, .site = a->nsites};
    hp_site_rec *d = &a->sites[a->nsites];
    *d = *s;
    d->id = a->nsites++;
    d->parent = d->callee = HP_NONE;   /* set by link_sites */
    return intern_string(m, strings[s->name], &d->name) ||
                   intern_string(m, strings[s->func], &d->func) ||
                   intern_string(m, strings[s->file], &d->file) ||
                   intern_string(m, strings[s->module], &d->module)
               ? -1
               : 0;
}

static int intern_node(merger *m, uint32_t parent, uint32_t site, uint32_t *id, int *added)
{
    uint32_t key[2] = {parent, site};
    hp_aggprof *a = m->a;
    if (keyset_intern(&m->nodes, key, sizeof key, a->nnodes, id, added))
        return -1;
    if (!*added)
        return 0;
    if (grow((void **)&a->nodes, a->nnodes, &a->capnodes, sizeof *a->nodes))
        return -1;
    hp_anode *n = &a->nodes[a->nnodes++];
    memset(n, 0, sizeof *n);
    n->parent = parent;
    n->site = site;
    return 0;
}

/* The keys of what into already holds. */
static int merger_start(merger *m, hp_aggprof *into)
{
    uint32_t id;
    int added;
    memset(m, 0, sizeof *m);
    m->a = into;
    if (keyset_init(&m->strs, into->nstrings) || keyset_init(&m->sites, into->nsites) ||
        keyset_init(&m->nodes, into->nnodes))
        return -1;
    if (into->nstrings == 0 && intern_string(m, "", &id))
        return -1;
    for (uint32_t i = 0; i < into->nstrings; i++)
        if (keyset_intern(&m->strs, into->strings[i], strlen(into->strings[i]), i, &id, &added))
            return -1;
    for (uint32_t i = 0; i < into->nsites; i++) {
        site_key(&m->key, into->strings, &into->sites[i]);
        if (m->key.failed ||
            keyset_intern(&m->sites, m->key.data, m->key.len, i, &id, &added))
            return -1;
    }
    for (uint32_t i = 1; i < into->nnodes; i++) {
        uint32_t key[2] = {into->nodes[i].parent, into->nodes[i].site};
        if (keyset_intern(&m->nodes, key, sizeof key, i, &id, &added))
            return -1;
    }
    return 0;
}

/* Sites first seen from `sites` (map: theirs -> ours) get their parent
 * and callee once all are mapped. */
static void link_sites(hp_aggprof *a, const hp_site_rec *sites, uint32_t n, const uint32_t *map,
                       uint32_t first_new)
{
    for (uint32_t i = 0; i < n; i++) {
        hp_site_rec *d = &a->sites[map[i]];
        if (d->id < first_new)
            continue;
        d->parent = sites[i].parent == HP_NONE ? HP_NONE : map[sites[i].parent];
        d->callee = sites[i].callee == HP_NONE ? HP_NONE : map[sites[i].callee];
    }
}

static int map_sites(merger *m, char **strings, const hp_site_rec *sites, uint32_t n,
                     uint32_t *map)
{
    uint32_t first_new = m->a->nsites;
    for (uint32_t i = 0; i < n; i++)
        if (intern_site(m, strings, &sites[i], &map[i]))
            return -1;
    link_sites(m->a, sites, n, map, first_new);
    return 0;
}

/* ---- combining distributions ---- */

static void add_node_dist(hp_anode *into, const hp_anode *from)
{
    if (from->ranks == 0)
        return;
    if (into->ranks == 0 || from->max > into->max ||
        (from->max == into->max && from->max_rank < into->max_rank)) {
        into->max = from->max;
        into->max_rank = from->max_rank;
        into->max_thread = from->max_thread;
    }
    if (into->ranks == 0 || from->min < into->min)
        into->min = from->min;
    into->ranks += from->ranks;
    into->calls += from->calls;
    into->time += from->time;
    into->excl += from->excl;
    for (int k = 0; k < HP_AGG_BINS; k++)
        into->hist[k] += from->hist[k];
}

static void add_comm_dist(hp_acomm *into, const hp_acomm *from)
{
    if (into->ranks == 0 || from->rank_max > into->rank_max ||
        (from->rank_max == into->rank_max && from->max_rank < into->max_rank)) {
        into->rank_max = from->rank_max;
        into->max_rank = from->max_rank;
    }
    if (into->ranks == 0 || from->min < into->min)
        into->min = from->min;
    if (from->max > into->max)
        into->max = from->max;
    into->ranks += from->ranks;
    into->count += from->count;
    into->sent += from->sent;
    into->recv += from->recv;
    into->tran += from->tran;
    into->sync += from->sync;
}

/* The comm record of (node, pclass) among a's first nold, which are
 * sorted by (node, class); first[node] is the node's first one. */
static hp_acomm *comm_slot(hp_aggprof *a, const uint32_t *first, uint32_t nold, uint32_t node,
                           uint32_t pclass)
{
    for (uint32_t i = first[node]; i < nold && a->comms[i].node == node; i++)
        if (a->comms[i].pclass == pclass)
            return &a->comms[i];
    return NULL;
}

/* a's comm records, re-sorted by (node, class) after appends. */
static int cmp_comm(const void *x, const void *y)
{
    const hp_acomm *a = x, *b = y;
    if (a->node != b->node)
        return a->node < b->node ? -1 : 1;
    return a->pclass < b->pclass ? -1 : a->pclass > b->pclass;
}

static uint32_t *comm_index(const hp_aggprof *a)
{
    uint32_t *first = malloc(((size_t)a->nnodes + 1) * sizeof *first);
    if (!first)
        return NULL;
    for (uint32_t i = 0; i <= a->nnodes; i++)
        first[i] = HP_NONE;
    for (uint32_t i = a->ncomms; i-- > 0;)
        first[a->comms[i].node] = i;
    return first;
}

static int merge_comms(hp_aggprof *into, const hp_aggprof *from, const uint32_t *node_map)
{
    uint32_t *first = comm_index(into), nold = into->ncomms;
    if (!first)
        return -1;
    for (uint32_t i = 0; i < from->ncomms; i++) {
        const hp_acomm *c = &from->comms[i];
        uint32_t node = node_map[c->node];
        hp_acomm *d = comm_slot(into, first, nold, node, c->pclass);
        if (d) {
            add_comm_dist(d, c);
            continue;
        }
        if (grow((void **)&into->comms, into->ncomms, &into->capcomms, sizeof *into->comms)) {
            free(first);
            return -1;
        }
        into->comms[into->ncomms] = *c;
        into->comms[into->ncomms++].node = node;
    }
    free(first);
    qsort(into->comms, into->ncomms, sizeof *into->comms, cmp_comm);
    return 0;
}

int hp_aggtree_merge(hp_aggprof *into, const hp_aggprof *from)
{
    merger m = {0};
    uint32_t *site_map = calloc((size_t)from->nsites + 1, sizeof *site_map);
    uint32_t *node_map = calloc((size_t)from->nnodes + 1, sizeof *node_map);
    int rc = -1;
    if (!site_map || !node_map || merger_start(&m, into) ||
        map_sites(&m, from->strings, from->sites, from->nsites, site_map))
        goto done;
    for (uint32_t i = 0; i < from->nsites; i++)
        add_node_dist(&into->sitedist[site_map[i]], &from->sitedist[i]);
    for (uint32_t i = 0; i < from->nnodes; i++) {
        const hp_anode *f = &from->nodes[i];
        uint32_t id;
        int added;
        if (i == 0 && into->nnodes == 0 && intern_node(&m, HP_NONE, site_map[f->site], &id, &added))
            goto done;
        if (i == 0)
            id = 0;
        else if (intern_node(&m, node_map[f->parent], site_map[f->site], &id, &added))
            goto done;
        node_map[i] = id;
        add_node_dist(&into->nodes[id], f);
    }
    rc = merge_comms(into, from, node_map);
done:
    merger_free(&m);
    free(site_map);
    free(node_map);
    return rc;
}

/* ---- one rank ---- */

static uint32_t peer_class(int32_t peer)
{
    return peer >= 0 ? HP_PEERC_P2P : peer == HP_PEER_FILE ? HP_PEERC_FILE : HP_PEERC_COLL;
}

/* The merged node of each of rd's nodes into map (root: 0). */
static int map_rank_nodes(merger *m, const hp_rank_data *rd, const uint32_t *site_map,
                          uint32_t *map)
{
    for (uint32_t i = 0; i < rd->nnodes; i++) {
        const hp_node_rec *nd = &rd->nodes[i];
        uint32_t id;
        int added;
        if (nd->parent == HP_NONE) {
            if (m->a->nnodes == 0 && intern_node(m, HP_NONE, site_map[nd->site], &id, &added))
                return -1;
            map[i] = 0;
        } else if (nd->parent >= i || intern_node(m, map[nd->parent], site_map[nd->site], &id, &added)) {
            return -1;
        } else {
            map[i] = id;
        }
    }
    return 0;
}

/* Exclusive time per thread (own minus children, at least 0), summed
 * into each merged node's excl, and the thread with the most time of
 * each; own, kids and best are scratch (nnodes). */
static void add_exclusive(hp_aggprof *a, const hp_rank_data *rd, const uint32_t *map,
                          const double *comp, double *own, double *kids, double *best)
{
    for (uint32_t g = 0; g < a->nnodes; g++)
        best[g] = -1;
    uint32_t nthreads = 0;
    for (uint32_t i = 0; i < rd->nnodes; i++)
        if (rd->nodes[i].thread >= nthreads)
            nthreads = rd->nodes[i].thread + 1;
    for (uint32_t t = 0; t < nthreads; t++) {
        int any = 0;
        memset(own, 0, a->nnodes * sizeof *own);
        memset(kids, 0, a->nnodes * sizeof *kids);
        unsigned char *seen = (unsigned char *)(kids + a->nnodes);  /* after kids */
        memset(seen, 0, a->nnodes);
        for (uint32_t i = 0; i < rd->nnodes; i++) {
            const hp_node_rec *nd = &rd->nodes[i];
            if (nd->thread != t)
                continue;
            any = 1;
            own[map[i]] += comp[i];
            seen[map[i]] = 1;
            if (nd->parent != HP_NONE)
                kids[map[nd->parent]] += comp[i];
        }
        for (uint32_t g = 0; any && g < a->nnodes; g++) {
            double e = own[g] - kids[g];
            if (!seen[g])
                continue;
            a->nodes[g].excl += e > 0 ? e : 0;
            if (own[g] > best[g] || best[g] < 0) {
                best[g] = own[g];
                a->nodes[g].max_thread = t;
            }
        }
    }
}

/* Calls and time of each merged node (records of every thread summed),
 * then its distribution of one rank. */
static void add_times(hp_aggprof *a, const hp_rank_data *rd, const uint32_t *map,
                      const double *comp, unsigned char *seen)
{
    memset(seen, 0, a->nnodes);
    for (uint32_t i = 0; i < rd->nnodes; i++) {
        hp_anode *n = &a->nodes[map[i]];
        n->calls += rd->nodes[i].count;
        n->time += comp[i];
        seen[map[i]] = 1;
    }
    for (uint32_t g = 0; g < a->nnodes; g++) {
        hp_anode *n = &a->nodes[g];
        if (!seen[g])
            continue;
        n->ranks = 1;
        n->min = n->max = n->time;
        n->max_rank = rd->info.rank;
        n->hist[hp_agg_bin(n->time)] = 1;
    }
}

static int add_comms(hp_aggprof *a, const hp_rank_data *rd, const uint32_t *map,
                     hp_rank_total *tot)
{
    uint32_t *slot = malloc(((size_t)a->nnodes + 1) * 3 * sizeof *slot);
    if (!slot)
        return -1;
    for (size_t i = 0; i < (size_t)a->nnodes * 3; i++)
        slot[i] = HP_NONE;
    for (uint32_t i = 0; i < rd->ncomms; i++) {
        const hp_comm_rec *c = &rd->comms[i];
        uint32_t cls = peer_class(c->peer), node = map[c->node];
        uint32_t *s = &slot[(size_t)node * 3 + cls];
        if (*s == HP_NONE) {
            if (grow((void **)&a->comms, a->ncomms, &a->capcomms, sizeof *a->comms)) {
                free(slot);
                return -1;
            }
            *s = a->ncomms++;
            a->comms[*s] = (hp_acomm){.node = node, .pclass = cls, .ranks = 1,
                                      .max_rank = rd->info.rank, .min = c->min};
        }
        hp_acomm *d = &a->comms[*s];
        d->count += c->count;
        d->sent += c->bytes_sent;
        d->recv += c->bytes_recv;
        d->tran += c->tran;
        d->sync += c->sync;
        d->rank_max = d->tran + d->sync;
        d->min = c->min < d->min ? c->min : d->min;
        d->max = c->max > d->max ? c->max : d->max;
        if (cls == HP_PEERC_P2P) {
            tot->sent += c->bytes_sent;
            tot->recv += c->bytes_recv;
            tot->messages += c->count;
        }
    }
    free(slot);
    qsort(a->comms, a->ncomms, sizeof *a->comms, cmp_comm);
    return 0;
}

/* Whether each merged node is outermost: no ancestor has its site. */
static unsigned char *outer_nodes(const hp_aggprof *a)
{
    unsigned char *outer = malloc((size_t)a->nnodes + 1);
    for (uint32_t g = 0; outer && g < a->nnodes; g++) {
        outer[g] = 1;
        for (uint32_t up = a->nodes[g].parent; up != HP_NONE; up = a->nodes[up].parent)
            if (a->nodes[up].site == a->nodes[g].site)
                outer[g] = 0;
    }
    return outer;
}

/* The per-site distribution of one rank: calls in all the site's nodes,
 * time in its outermost ones (as the analyzer's rank_site), and the
 * thread with the most of it. */
static int add_sites(hp_aggprof *a, const hp_rank_data *rd, const uint32_t *map,
                     const double *comp)
{
    unsigned char *outer = outer_nodes(a), *seen = calloc((size_t)a->nsites + 1, 1);
    double *t_time = calloc((size_t)a->nsites + 1, sizeof *t_time);
    double *best = calloc((size_t)a->nsites + 1, sizeof *best);
    int rc = outer && seen && t_time && best ? 0 : -1;
    uint32_t nthreads = 0;
    for (uint32_t i = 0; rc == 0 && i < rd->nnodes; i++) {
        hp_anode *d = &a->sitedist[a->nodes[map[i]].site];
        d->calls += rd->nodes[i].count;
        d->time += outer[map[i]] ? comp[i] : 0;
        seen[d->site] = 1;
        nthreads = rd->nodes[i].thread >= nthreads ? rd->nodes[i].thread + 1 : nthreads;
    }
    for (uint32_t t = 0; rc == 0 && t < nthreads; t++) {
        memset(t_time, 0, a->nsites * sizeof *t_time);
        for (uint32_t i = 0; i < rd->nnodes; i++)
            if (rd->nodes[i].thread == t && outer[map[i]])
                t_time[a->nodes[map[i]].site] += comp[i];
        for (uint32_t s = 0; s < a->nsites; s++) {
            if (t_time[s] > best[s]) {
                best[s] = t_time[s];
                a->sitedist[s].max_thread = t;
            }
        }
    }
    for (uint32_t s = 0; rc == 0 && s < a->nsites; s++) {
        hp_anode *d = &a->sitedist[s];
        if (!seen[s])
            continue;
        d->ranks = 1;
        d->min = d->max = d->time;
        d->max_rank = rd->info.rank;
        d->hist[hp_agg_bin(d->time)] = 1;
    }
    free(outer);
    free(seen);
    free(t_time);
    free(best);
    return rc;
}

static void rank_total(hp_rank_total *t, const hp_rank_data *rd, double root_time)
{
    memset(t, 0, sizeof *t);
    t->rank = rd->info.rank;
    t->threads = rd->info.threads;
    t->flags = rd->info.flags | (rd->nevents ? HP_RANKF_COUNTERS_DROPPED : 0);
    t->omp_threads = rd->info.omp_threads;
    t->wall = rd->info.wall;
    t->mpi_time = rd->info.mpi_time;
    t->time = root_time;
    /* threads calling MPI: as the analyzer's rank_mpi (at most 64 counted
     * apart; more are counted as one each record, an upper bound) */
    uint64_t seen = 0;
    for (uint32_t i = 0; i < rd->nnodes; i++) {
        const hp_node_rec *nd = &rd->nodes[i];
        const hp_site_rec *s = &rd->sites[nd->site];
        uint32_t th = nd->thread;
        if (nd->count == 0 || !(s->kind == HP_KIND_COMM || (s->flags & HP_SITEF_MPI)))
            continue;
        if (th >= 64 || !(seen & (1ull << th)))
            t->mpi_threads++;
        if (th < 64)
            seen |= 1ull << th;
    }
    snprintf(t->host, sizeof t->host, "%s", rd->info.host ? rd->info.host : "");
}

int hp_aggtree_from_rank(hp_aggprof *a, const hp_rank_data *rd, hp_rank_total *tot)
{
    merger m = {0};
    size_t n = rd->nnodes ? rd->nnodes : 1;
    uint32_t *site_map = calloc((size_t)rd->nsites + 1, sizeof *site_map);
    uint32_t *map = calloc(n, sizeof *map);
    double *comp = malloc(3 * n * sizeof *comp);
    double *scratch = NULL;
    hp_comp_stats stats;
    int rc = -1;
    memset(a, 0, sizeof *a);
    if (!site_map || !map || !comp || merger_start(&m, a) ||
        map_sites(&m, rd->strings, rd->sites, rd->nsites, site_map) ||
        map_rank_nodes(&m, rd, site_map, map) ||
        hp_compensate(rd, comp, comp + n, comp + 2 * n, &stats) != 0)
        goto done;
    scratch = malloc(((size_t)a->nnodes + 1) * (3 * sizeof *scratch + 1));
    if (!scratch)
        goto done;
    rank_total(tot, rd, 0);
    add_times(a, rd, map, comp, (unsigned char *)scratch);
    add_exclusive(a, rd, map, comp, scratch + a->nnodes, scratch + 2 * (size_t)a->nnodes,
                  scratch);
    if (add_sites(a, rd, map, comp) != 0)
        goto done;
    tot->time = a->nnodes ? a->nodes[0].time : 0;
    rc = add_comms(a, rd, map, tot);
done:
    merger_free(&m);
    free(site_map);
    free(map);
    free(comp);
    free(scratch);
    return rc;
}
