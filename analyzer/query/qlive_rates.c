/*
 * qlive_rates.c - what changed between two live merges (qlive.h): calls
 * per second, the share of MPI and of OpenMP waits in the thread time of
 * the last interval, and the ranks that fall behind in it (the share of
 * the interval their MPI-calling thread spent outside MPI above the
 * ranks' mean by more than 10%: the others wait for them in MPI).  Each
 * rank's deltas are between its own last two snapshots.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "db/ovh_class.h"
#include "hp_format.h"
#include "qlive.h"

typedef struct rank_totals {
    int present;
    double wall, threads, calls, mpi, omp_wait;
} rank_totals;

/* Per rank, the totals of its latest snapshot seen and of the one before
 * (a rank's snapshot changes once per interval, not at every merge). */
static rank_totals *latest, *before;
static uint32_t nknown;

static int is_omp_wait(const hp_rank_data *rd, uint32_t site)
{
    if (site >= rd->nsites || rd->sites[site].kind != HP_KIND_OMP)
        return 0;
    const hp_site_rec *s = &rd->sites[site];
    const char *name = s->name < rd->nstrings ? rd->strings[s->name] : NULL;
    return hpf_ovh_site_class(hp_kind_name(s->kind), name, s->flags) == HPF_OC_SYNC;
}

/* Rank r's totals; its node records are read from the file for it when
 * the reader left them there (hpf_load_nodes), and dropped again. */
static void totals_of(hpf_profile *p, uint32_t r, rank_totals *t)
{
    const hp_rank_data *rd = &p->ranks[r];
    char ignored[256];
    memset(t, 0, sizeof *t);
    t->present = !(rd->info.flags & HP_RANKF_MISSING);
    t->wall = rd->info.wall;
    t->threads = rd->info.threads ? rd->info.threads : 1;
    t->mpi = rd->info.mpi_time;
    if (!t->present || hpf_load_nodes(p, r, ignored, sizeof ignored) != 0) {
        t->present = 0;     /* no interval from a rank whose nodes cannot be read */
        return;
    }
    for (uint32_t i = 0; i < rd->nnodes; i++) {
        const hp_node_rec *n = &rd->nodes[i];
        t->calls += (double)n->count;
        if (is_omp_wait(rd, n->site))
            t->omp_wait += n->time;
    }
    hpf_drop_nodes(p, r);
}

/* Share of rank r's last interval that its MPI-calling thread spent
 * outside MPI; -1 when it has no interval yet. */
static double busy_share(uint32_t r)
{
    const rank_totals *a = &before[r], *b = &latest[r];
    double dt = b->wall - a->wall;
    if (!a->present || !b->present || dt <= 0)
        return -1;
    double busy = dt - (b->mpi - a->mpi);
    return busy > 0 ? busy / dt : 0;
}

/* Appends the rates line to buf (after what is there). */
static void rates_line(char *buf, size_t len)
{
    double span = 0, calls = 0, thread_time = 0, mpi = 0, omp = 0, mean = 0;
    uint32_t counted = 0;
    for (uint32_t r = 0; r < nknown; r++) {
        const rank_totals *a = &before[r], *b = &latest[r];
        double share = busy_share(r), dt = b->wall - a->wall;
        if (share < 0)
            continue;
        span = dt > span ? dt : span;
        calls += (b->calls - a->calls) / dt;
        thread_time += dt * b->threads;
        mpi += b->mpi - a->mpi;
        omp += b->omp_wait - a->omp_wait;
        mean += share;
        counted++;
    }
    size_t at = strlen(buf);
    if (!counted || thread_time <= 0) {
        snprintf(buf + at, len - at, "\nlast interval: no rank has two snapshots yet");
        return;
    }
    mean /= counted;
    at += (size_t)snprintf(buf + at, len - at, "\nlast %.1f s: %.0f calls/s, MPI %.1f%%, "
                           "OpenMP waits %.1f%% of thread time; behind:", span, calls,
                           100 * mpi / thread_time, 100 * omp / thread_time);
    if (counted < 2) {
        snprintf(buf + at, len - at, " - (one rank's interval so far)");
        return;
    }
    uint32_t behind = 0;
    for (uint32_t r = 0; r < nknown && at < len; r++) {
        double share = busy_share(r);
        if (share >= 0 && mean > 0 && share > 1.1 * mean)
            at += (size_t)snprintf(buf + at, len - at, "%s rank %u (+%.0f%%)", behind++ ? "," : "",
                                   r, 100 * (share / mean - 1));
    }
    if (!behind && at < len)
        snprintf(buf + at, len - at, " none");
}

void hpq_live_rates(hpf_profile *p, char *buf, size_t len)
{
    static int merges;  /* the first merge (and --once) has no rates line */
    if (nknown != p->nranks) {
        free(latest);
        free(before);
        latest = calloc(p->nranks ? p->nranks : 1, sizeof *latest);
        before = calloc(p->nranks ? p->nranks : 1, sizeof *before);
        nknown = latest && before ? p->nranks : 0;
    }
    for (uint32_t r = 0; r < nknown; r++) {
        rank_totals now;
        totals_of(p, r, &now);
        if (now.present && now.wall != latest[r].wall) {
            before[r] = latest[r];
            latest[r] = now;
        }
    }
    if (merges++)
        rates_line(buf, len);
}
