/*
 * db_order.c - the stat and comm rows in merged-node order (db_order.h).
 *
 * The profile holds its records rank by rank; the database wants them
 * node by node, a node's rows being one range of the table's key (stat:
 * its primary key (node, rank, thread); comm: id = node << 32 | n), so
 * that nothing is sorted after the rows are in.  Both orders are counting
 * sorts on the merged node id, stable, so ranks stay in order within a
 * node.  A mapped profile's comm records are read again from its file
 * with pread, never held: they are most of a large profile.
 */
#include "config.h"
#include <assert.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "db_order.h"

/* Records read from the file per pread while the runs are found. */
#define SCAN_RECORDS 16384u

int hpf_comm_src_open(hpf_comm_src *s, const hpf_profile *p, char *err, size_t errlen)
{
    memset(s, 0, sizeof *s);
    s->p = p;
    s->fd = -1;
    if (!p->map)
        return 0;
    assert(p->comm_at && p->map_path);
    s->in_file = calloc(p->nranks ? p->nranks : 1, 1);
    if (!s->in_file) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    for (uint32_t r = 0; r < p->nranks; r++)
        s->in_file[r] = !p->ranks[r].comms && p->ranks[r].ncomms > 0;
    s->fd = open(p->map_path, O_RDONLY | O_CLOEXEC);
    if (s->fd < 0) {
        snprintf(err, errlen, "%s: %s", p->map_path, strerror(errno));
        free(s->in_file);
        s->in_file = NULL;
        return -1;
    }
    return 0;
}

void hpf_comm_src_close(hpf_comm_src *s)
{
    if (s->fd >= 0)
        close(s->fd);
    free(s->buf);
    free(s->recs);
    free(s->in_file);
    memset(s, 0, sizeof *s);
    s->fd = -1;
}

static int reserve(hpf_comm_src *s, uint32_t n)
{
    size_t bytes = (size_t)n * HP_COMM_REC_LEN;
    if (bytes > s->cap) {
        unsigned char *b = realloc(s->buf, bytes);
        if (!b)
            return -1;
        s->buf = b;
        s->cap = bytes;
    }
    if (n > s->nrecs) {
        hp_comm_rec *r = realloc(s->recs, (size_t)n * sizeof *r);
        if (!r)
            return -1;
        s->recs = r;
        s->nrecs = n;
    }
    return 0;
}

const hp_comm_rec *hpf_comm_src_get(hpf_comm_src *s, uint32_t r, uint32_t first, uint32_t n,
                                    char *err, size_t errlen)
{
    const hp_rank_data *rd = &s->p->ranks[r];
    assert(n > 0 && (uint64_t)first + n <= rd->ncomms);
    if (!s->in_file || !s->in_file[r]) {
        assert(rd->comms);
        return rd->comms + first;
    }
    if (reserve(s, n)) {
        snprintf(err, errlen, "out of memory");
        return NULL;
    }
    uint64_t at = s->p->comm_at[r] + (uint64_t)first * HP_COMM_REC_LEN;
    if (hpf_pread_all(s->fd, s->buf, (size_t)n * HP_COMM_REC_LEN, at)) {
        snprintf(err, errlen, "%s: the file was cut short while it was being read",
                 s->p->map_path);
        return NULL;
    }
    for (uint32_t i = 0; i < n; i++)
        hp_comm_rec_get(s->buf + (size_t)i * HP_COMM_REC_LEN, &s->recs[i]);
    return s->recs;
}

/* A growable array of runs. */
typedef struct run_list {
    hpf_comm_run *v;
    size_t n, cap;
} run_list;

static int add_run(run_list *l, const hpf_comm_run *run)
{
    if (l->n == l->cap) {
        size_t cap = l->cap ? 2 * l->cap : 1024;
        hpf_comm_run *v = realloc(l->v, cap * sizeof *v);
        if (!v)
            return -1;
        l->v = v;
        l->cap = cap;
    }
    l->v[l->n++] = *run;
    return 0;
}

/* The runs of rank r, appended to l. */
static int rank_runs(hpf_comm_src *s, const hpf_merged *m, uint32_t r, run_list *l,
                     char *err, size_t errlen)
{
    const hp_rank_data *rd = &s->p->ranks[r];
    hpf_comm_run run = {0, r, 0, 0, 0};
    uint32_t local = 0;
    for (uint32_t at = 0; at < rd->ncomms;) {
        uint32_t n = rd->ncomms - at < SCAN_RECORDS ? rd->ncomms - at : SCAN_RECORDS;
        const hp_comm_rec *c = hpf_comm_src_get(s, r, at, n, err, errlen);
        if (!c)
            return -1;
        for (uint32_t i = 0; i < n; i++) {
            assert(c[i].node < rd->nnodes);
            if (run.n && c[i].node == local) {
                run.n++;
                continue;
            }
            if (run.n && add_run(l, &run))
                goto oom;
            local = c[i].node;
            run.node = m->node_map[r][local];
            run.thread = rd->nodes[local].thread;
            run.first = at + i;
            run.n = 1;
        }
        at += n;
    }
    if (run.n && add_run(l, &run))
        goto oom;
    return 0;
oom:
    snprintf(err, errlen, "out of memory");
    return -1;
}

int hpf_comm_runs(hpf_comm_src *s, const hpf_merged *m, hpf_comm_run **runs, size_t *nruns,
                  char *err, size_t errlen)
{
    run_list l = {NULL, 0, 0};
    size_t *start = NULL;
    hpf_comm_run *sorted = NULL;
    *runs = NULL;
    *nruns = 0;
    for (uint32_t r = 0; r < s->p->nranks; r++)
        if (rank_runs(s, m, r, &l, err, errlen))
            goto fail;
    /* counting sort on the merged node id (1..nnodes) */
    start = calloc((size_t)m->nnodes + 2, sizeof *start);
    sorted = malloc((l.n ? l.n : 1) * sizeof *sorted);
    if (!start || !sorted) {
        snprintf(err, errlen, "out of memory");
        goto fail;
    }
    for (size_t i = 0; i < l.n; i++) {
        assert(l.v[i].node >= 1 && l.v[i].node <= m->nnodes);
        start[l.v[i].node + 1]++;
    }
    for (uint32_t g = 1; g <= m->nnodes; g++)
        start[g + 1] += start[g];
    for (size_t i = 0; i < l.n; i++)
        sorted[start[l.v[i].node]++] = l.v[i];
    free(start);
    free(l.v);
    *runs = sorted;
    *nruns = l.n;
    return 0;
fail:
    free(start);
    free(sorted);
    free(l.v);
    return -1;
}

/* Sorts the refs of one (node, rank) by thread, keeping equal threads in
 * record order (insertion sort: a node has a record per thread or two). */
static void sort_by_thread(const hp_rank_data *rd, hpf_stat_ref *v, size_t n)
{
    for (size_t i = 1; i < n; i++) {
        hpf_stat_ref x = v[i];
        uint32_t t = rd->nodes[x.local].thread;
        size_t j = i;
        for (; j > 0 && rd->nodes[v[j - 1].local].thread > t; j--)
            v[j] = v[j - 1];
        v[j] = x;
    }
}

int hpf_stat_order(const hpf_profile *p, const hpf_merged *m, hpf_stat_ref **refs,
                   size_t *nrefs)
{
    size_t total = 0, *start = calloc((size_t)m->nnodes + 2, sizeof *start);
    *refs = NULL;
    *nrefs = 0;
    if (!start)
        return -1;
    for (uint32_t r = 0; r < p->nranks; r++)
        for (uint32_t i = 0; i < p->ranks[r].nnodes; i++) {
            uint32_t g = m->node_map[r][i];
            assert(g >= 1 && g <= m->nnodes);
            start[g + 1]++;
            total++;
        }
    hpf_stat_ref *v = malloc((total ? total : 1) * sizeof *v);
    if (!v) {
        free(start);
        return -1;
    }
    for (uint32_t g = 1; g <= m->nnodes; g++)
        start[g + 1] += start[g];
    for (uint32_t r = 0; r < p->nranks; r++)
        for (uint32_t i = 0; i < p->ranks[r].nnodes; i++)
            v[start[m->node_map[r][i]]++] = (hpf_stat_ref){r, i};
    free(start);
    /* within a node the ranks are in order; each rank's records by thread */
    for (size_t i = 0; i < total;) {
        size_t j = i + 1;
        uint32_t g = m->node_map[v[i].rank][v[i].local];
        while (j < total && v[j].rank == v[i].rank && m->node_map[v[j].rank][v[j].local] == g)
            j++;
        if (j - i > 1)
            sort_by_thread(&p->ranks[v[i].rank], v + i, j - i);
        i = j;
    }
    *refs = v;
    *nrefs = total;
    return 0;
}
