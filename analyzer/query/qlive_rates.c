/*
 * qlive_rates.c - what changed between two live merges (qlive.h): calls
 * per second, the share of MPI and of OpenMP waits in the thread time of
 * the last interval, and the ranks that fall behind in it (their
 * computing time, thread time less those waits, above the ranks' mean
 * by more than 10%: the others wait for them).  Each rank's deltas are
 * taken over its own snapshots' times.
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

static rank_totals *previous;
static uint32_t nprevious;

static int is_omp_wait(const hp_rank_data *rd, uint32_t site)
{
    if (site >= rd->nsites || rd->sites[site].kind != HP_KIND_OMP)
        return 0;
    const hp_site_rec *s = &rd->sites[site];
    const char *name = s->name < rd->nstrings ? rd->strings[s->name] : NULL;
    return hpf_ovh_site_class(hp_kind_name(s->kind), name, s->flags) == HPF_OC_SYNC;
}

static void totals_of(const hp_rank_data *rd, rank_totals *t)
{
    memset(t, 0, sizeof *t);
    t->present = !(rd->info.flags & HP_RANKF_MISSING);
    t->wall = rd->info.wall;
    t->threads = rd->info.threads ? rd->info.threads : 1;
    t->mpi = rd->info.mpi_time;
    for (uint32_t i = 0; i < rd->nnodes; i++) {
        const hp_node_rec *n = &rd->nodes[i];
        t->calls += (double)n->count;
        if (is_omp_wait(rd, n->site))
            t->omp_wait += n->time;
    }
}

/* Appends the rates line to buf (after what is there). */
static void rates_line(const rank_totals *now, uint32_t n, char *buf, size_t len)
{
    double span = 0, calls = 0, thread_time = 0, mpi = 0, omp = 0, mean = 0;
    double *compute = calloc(n ? n : 1, sizeof *compute);
    uint32_t counted = 0;
    if (!compute)
        return;
    for (uint32_t r = 0; r < n; r++) {
        const rank_totals *a = &previous[r], *b = &now[r];
        double dt = b->wall - a->wall;
        if (!a->present || !b->present || dt <= 0)
            continue;
        double tt = dt * b->threads;
        span = dt > span ? dt : span;
        calls += (b->calls - a->calls) / dt;
        thread_time += tt;
        mpi += b->mpi - a->mpi;
        omp += b->omp_wait - a->omp_wait;
        compute[r] = tt - (b->mpi - a->mpi) - (b->omp_wait - a->omp_wait);
        mean += compute[r];
        counted++;
    }
    size_t at = strlen(buf);
    if (!counted || thread_time <= 0) {
        snprintf(buf + at, len - at, "\nlast interval: no rank has a newer snapshot yet");
        free(compute);
        return;
    }
    mean /= counted;
    at += (size_t)snprintf(buf + at, len - at, "\nlast %.1f s: %.0f calls/s, MPI %.1f%%, "
                           "OpenMP waits %.1f%% of thread time; behind:", span, calls,
                           100 * mpi / thread_time, 100 * omp / thread_time);
    uint32_t behind = 0;
    for (uint32_t r = 0; r < n && at < len; r++)
        if (previous[r].present && now[r].present && mean > 0 && compute[r] > 1.1 * mean) {
            at += (size_t)snprintf(buf + at, len - at, "%s rank %u (+%.0f%%)", behind++ ? "," : "",
                                   r, 100 * (compute[r] / mean - 1));
        }
    if (!behind && at < len)
        snprintf(buf + at, len - at, " none");
    free(compute);
}

void hpq_live_rates(const hpf_profile *p, char *buf, size_t len)
{
    rank_totals *now = calloc(p->nranks ? p->nranks : 1, sizeof *now);
    if (!now)
        return;
    for (uint32_t r = 0; r < p->nranks; r++)
        totals_of(&p->ranks[r], &now[r]);
    if (previous && nprevious == p->nranks)
        rates_line(now, p->nranks, buf, len);
    free(previous);
    previous = now;
    nprevious = p->nranks;
}
