/*
 * aggprof.c - the aggregated profile's codec (hp_aggprof.h): the bytes of
 * its sections, for the reduction's messages and for the file.  Pure: no
 * I/O, no MPI.  The decoder checks every length and index, so a damaged
 * message or file is refused, never read past.
 */
#include <math.h>
#include <stdlib.h>
#include "hp_aggprof.h"

/* The lower bounds of the bins: half-decades, without libm. */
static const double bin_low[HP_AGG_BINS] = {
    0.0, 1e-6, 3.1622776601683795e-6, 1e-5, 3.1622776601683795e-5, 1e-4,
    3.1622776601683795e-4, 1e-3, 3.1622776601683795e-3, 1e-2, 3.1622776601683795e-2, 1e-1,
    3.1622776601683795e-1, 1.0, 3.1622776601683795, 10.0};

uint32_t hp_agg_bin(double seconds)
{
    uint32_t k = HP_AGG_BINS - 1;
    while (k > 0 && !(seconds >= bin_low[k]))
        k--;
    return k;
}

double hp_agg_bin_low(uint32_t k)
{
    return k < HP_AGG_BINS ? bin_low[k] : 0.0;
}

void hp_encode_agg_preamble(hp_buf *b)
{
    unsigned char *p = hp_buf_reserve(b, HP_PREAMBLE_LEN);
    if (!p)
        return;
    memcpy(p, HP_FORMAT_MAGIC, HP_FORMAT_MAGIC_LEN);
    hp_put_u32(p + 8, HP_FORMAT_AGG_VERSION);
    hp_put_u32(p + 12, 0);
}

static void put_node(hp_buf *b, const hp_anode *n)
{
    hp_buf_put_u32(b, n->parent);
    hp_buf_put_u32(b, n->site);
    hp_buf_put_u32(b, n->ranks);
    hp_buf_put_u32(b, n->max_rank);
    hp_buf_put_u32(b, n->max_thread);
    hp_buf_put_u64(b, n->calls);
    hp_buf_put_f64(b, n->time);
    hp_buf_put_f64(b, n->min);
    hp_buf_put_f64(b, n->max);
    hp_buf_put_f64(b, n->excl);
    for (int k = 0; k < HP_AGG_BINS; k++)
        hp_buf_put_u32(b, n->hist[k]);
}

static void put_comm(hp_buf *b, const hp_acomm *c)
{
    hp_buf_put_u32(b, c->node);
    hp_buf_put_u32(b, c->pclass);
    hp_buf_put_u32(b, c->ranks);
    hp_buf_put_u32(b, c->max_rank);
    hp_buf_put_u64(b, c->count);
    hp_buf_put_u64(b, c->sent);
    hp_buf_put_u64(b, c->recv);
    hp_buf_put_f64(b, c->tran);
    hp_buf_put_f64(b, c->sync);
    hp_buf_put_f64(b, c->min);
    hp_buf_put_f64(b, c->max);
    hp_buf_put_f64(b, c->rank_max);
}

void hp_aggprof_encode(hp_buf *b, const hp_aggprof *a)
{
    size_t at = hp_section_begin(b, HP_SEC_STRS);
    hp_buf_put_u32(b, a->nstrings);
    for (uint32_t i = 0; i < a->nstrings; i++)
        hp_buf_put_str(b, a->strings[i]);
    hp_section_end(b, at);
    at = hp_section_begin(b, HP_SEC_SITE);
    for (uint32_t i = 0; i < a->nsites; i++) {
        unsigned char *p = hp_buf_reserve(b, HP_SITE_REC_LEN);
        if (p)
            hp_site_rec_put(p, &a->sites[i]);
    }
    hp_section_end(b, at);
    at = hp_section_begin(b, HP_SEC_ASIT);
    for (uint32_t i = 0; i < a->nsites; i++)
        put_node(b, &a->sitedist[i]);
    hp_section_end(b, at);
    at = hp_section_begin(b, HP_SEC_ANOD);
    for (uint32_t i = 0; i < a->nnodes; i++)
        put_node(b, &a->nodes[i]);
    hp_section_end(b, at);
    at = hp_section_begin(b, HP_SEC_ACOM);
    for (uint32_t i = 0; i < a->ncomms; i++)
        put_comm(b, &a->comms[i]);
    hp_section_end(b, at);
}

void hp_rank_totals_encode(hp_buf *b, const hp_rank_total *t, uint32_t n)
{
    size_t at = hp_section_begin(b, HP_SEC_RTOT);
    for (uint32_t i = 0; i < n; i++) {
        hp_buf_put_u32(b, t[i].rank);
        hp_buf_put_u32(b, t[i].threads);
        hp_buf_put_u32(b, t[i].flags);
        hp_buf_put_u32(b, t[i].omp_threads);
        hp_buf_put_u32(b, t[i].mpi_threads);
        hp_buf_put_f64(b, t[i].wall);
        hp_buf_put_f64(b, t[i].mpi_time);
        hp_buf_put_f64(b, t[i].time);
        hp_buf_put_u64(b, t[i].sent);
        hp_buf_put_u64(b, t[i].recv);
        hp_buf_put_u64(b, t[i].messages);
        unsigned char *p = hp_buf_reserve(b, sizeof t[i].host);
        if (p)
            memcpy(p, t[i].host, sizeof t[i].host);
    }
    hp_section_end(b, at);
}

/* ---- decoding ---- */

typedef struct cursor {
    const unsigned char *p;
    size_t len, at, end;   /* end: of the current section's payload */
    int bad;
} cursor;

static int need(cursor *c, size_t n)
{
    if (c->bad || c->end - c->at < n) {
        c->bad = 1;
        return 0;
    }
    return 1;
}

static uint32_t get_u32(cursor *c)
{
    if (!need(c, 4))
        return 0;
    c->at += 4;
    return hp_get_u32(c->p + c->at - 4);
}

static uint64_t get_u64(cursor *c)
{
    if (!need(c, 8))
        return 0;
    c->at += 8;
    return hp_get_u64(c->p + c->at - 8);
}

static double get_f64(cursor *c)
{
    if (!need(c, 8))
        return 0;
    c->at += 8;
    double v = hp_get_f64(c->p + c->at - 8);
    if (!isfinite(v) || v < 0)
        c->bad = 1;
    return v;
}

/* Opens the next section, which must have tag: its payload is then
 * [c->at, c->end); the CRC is checked. */
static int open_section(cursor *c, uint32_t tag)
{
    c->end = c->len;
    if (!need(c, HP_SECTION_HEADER_LEN))
        return -1;
    const unsigned char *h = c->p + c->at;
    uint64_t plen = hp_get_u64(h + 8);
    if (hp_get_u32(h) != tag || plen > c->len - c->at - HP_SECTION_HEADER_LEN ||
        hp_crc32(h + HP_SECTION_HEADER_LEN, (size_t)plen) != hp_get_u32(h + 4)) {
        c->bad = 1;
        return -1;
    }
    c->at += HP_SECTION_HEADER_LEN;
    c->end = c->at + (size_t)plen;
    return 0;
}

/* The number of fixed-size records left in the section. */
static uint32_t records(cursor *c, size_t reclen)
{
    size_t n = (c->end - c->at) / reclen;
    if ((c->end - c->at) % reclen || n > UINT32_MAX - 1)
        c->bad = 1;
    return c->bad ? 0 : (uint32_t)n;
}

static int decode_strings(hp_aggprof *a, cursor *c)
{
    if (open_section(c, HP_SEC_STRS))
        return -1;
    uint32_t n = get_u32(c);
    if (c->bad || n == 0 || n > (c->end - c->at) / 4)
        return -1;
    a->strings = calloc(n, sizeof *a->strings);
    if (!a->strings)
        return -1;
    a->nstrings = a->capstrings = n;
    for (uint32_t i = 0; i < n; i++) {
        uint32_t len = get_u32(c);
        if (!need(c, len) || !(a->strings[i] = malloc((size_t)len + 1)))
            return -1;
        memcpy(a->strings[i], c->p + c->at, len);
        a->strings[i][len] = 0;
        c->at += len;
    }
    return c->at == c->end && a->strings[0][0] == 0 ? 0 : -1;
}

static int good_string(const hp_aggprof *a, uint32_t s)
{
    return s < a->nstrings;
}

static int decode_sites(hp_aggprof *a, cursor *c)
{
    if (open_section(c, HP_SEC_SITE))
        return -1;
    uint32_t n = records(c, HP_SITE_REC_LEN);
    if (c->bad || (n && !(a->sites = calloc(n, sizeof *a->sites))))
        return -1;
    a->nsites = a->capsites = n;
    for (uint32_t i = 0; i < n; i++, c->at += HP_SITE_REC_LEN) {
        hp_site_rec *s = &a->sites[i];
        hp_site_rec_get(c->p + c->at, s);
        if (s->id != i || !good_string(a, s->name) || !good_string(a, s->func) ||
            !good_string(a, s->file) || !good_string(a, s->module) ||
            (s->parent != HP_NONE && s->parent >= n) || (s->callee != HP_NONE && s->callee >= n))
            return -1;
    }
    return 0;
}

static void get_node(cursor *c, hp_anode *d)
{
    d->parent = get_u32(c);
    d->site = get_u32(c);
    d->ranks = get_u32(c);
    d->max_rank = get_u32(c);
    d->max_thread = get_u32(c);
    d->calls = get_u64(c);
    d->time = get_f64(c);
    d->min = get_f64(c);
    d->max = get_f64(c);
    d->excl = get_f64(c);
    for (int k = 0; k < HP_AGG_BINS; k++)
        d->hist[k] = get_u32(c);
}

static int decode_sitedist(hp_aggprof *a, cursor *c)
{
    if (open_section(c, HP_SEC_ASIT))
        return -1;
    uint32_t n = records(c, HP_ANODE_LEN);
    if (c->bad || n != a->nsites || (n && !(a->sitedist = calloc(n, sizeof *a->sitedist))))
        return -1;
    for (uint32_t i = 0; i < n; i++) {
        get_node(c, &a->sitedist[i]);
        if (c->bad || a->sitedist[i].site != i || a->sitedist[i].parent != HP_NONE)
            return -1;
    }
    return 0;
}

static int decode_nodes(hp_aggprof *a, cursor *c)
{
    if (open_section(c, HP_SEC_ANOD))
        return -1;
    uint32_t n = records(c, HP_ANODE_LEN);   /* 0: a rank without records */
    if (c->bad || (n && !(a->nodes = calloc(n, sizeof *a->nodes))))
        return -1;
    a->nnodes = a->capnodes = n;
    for (uint32_t i = 0; i < n; i++) {
        hp_anode *d = &a->nodes[i];
        get_node(c, d);
        if (c->bad || d->site >= a->nsites || (i == 0) != (d->parent == HP_NONE) ||
            (i && d->parent >= i))
            return -1;
    }
    return 0;
}

static int decode_comms(hp_aggprof *a, cursor *c)
{
    if (open_section(c, HP_SEC_ACOM))
        return -1;
    uint32_t n = records(c, HP_ACOMM_LEN);
    if (c->bad || (n && !(a->comms = calloc(n, sizeof *a->comms))))
        return -1;
    a->ncomms = a->capcomms = n;
    for (uint32_t i = 0; i < n; i++) {
        hp_acomm *d = &a->comms[i];
        d->node = get_u32(c);
        d->pclass = get_u32(c);
        d->ranks = get_u32(c);
        d->max_rank = get_u32(c);
        d->count = get_u64(c);
        d->sent = get_u64(c);
        d->recv = get_u64(c);
        d->tran = get_f64(c);
        d->sync = get_f64(c);
        d->min = get_f64(c);
        d->max = get_f64(c);
        d->rank_max = get_f64(c);
        if (c->bad || d->node >= a->nnodes || d->pclass > HP_PEERC_FILE)
            return -1;
    }
    return 0;
}

int hp_aggprof_decode(hp_aggprof *a, const unsigned char *p, size_t len, size_t *bad)
{
    cursor c = {p, len, 0, len, 0};
    memset(a, 0, sizeof *a);
    int rc = decode_strings(a, &c) || decode_sites(a, &c) || decode_sitedist(a, &c) ||
                     decode_nodes(a, &c) ||
             decode_comms(a, &c) || c.at != len ? -1 : 0;
    if (bad)
        *bad = c.at;
    if (rc)
        hp_aggprof_free(a);
    return rc;
}

int hp_rank_totals_decode(const unsigned char *p, size_t len, hp_rank_total **t, uint32_t *n)
{
    cursor c = {p, len, 0, len, 0};
    *t = NULL;
    *n = 0;
    if (open_section(&c, HP_SEC_RTOT))
        return -1;
    uint32_t count = records(&c, HP_RANK_TOTAL_LEN);
    hp_rank_total *out = calloc(count ? count : 1, sizeof *out);
    if (c.bad || !out) {
        free(out);
        return -1;
    }
    for (uint32_t i = 0; i < count; i++) {
        hp_rank_total *r = &out[i];
        r->rank = get_u32(&c);
        r->threads = get_u32(&c);
        r->flags = get_u32(&c);
        r->omp_threads = get_u32(&c);
        r->mpi_threads = get_u32(&c);
        r->wall = get_f64(&c);
        r->mpi_time = get_f64(&c);
        r->time = get_f64(&c);
        r->sent = get_u64(&c);
        r->recv = get_u64(&c);
        r->messages = get_u64(&c);
        if (need(&c, sizeof r->host)) {
            memcpy(r->host, c.p + c.at, sizeof r->host);
            r->host[sizeof r->host - 1] = 0;
            c.at += sizeof r->host;
        }
        if (c.bad || r->rank != i) {
            free(out);
            return -1;
        }
    }
    *t = out;
    *n = count;
    return (int)c.at;  /* bytes used */
}

void hp_aggprof_free(hp_aggprof *a)
{
    for (uint32_t i = 0; a->strings && i < a->nstrings; i++)
        free(a->strings[i]);
    free(a->strings);
    free(a->sites);
    free(a->sitedist);
    free(a->nodes);
    free(a->comms);
    memset(a, 0, sizeof *a);
}
