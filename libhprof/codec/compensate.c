/*
 * compensate.c - intrusion compensation of one rank's node times
 * (hp_compensate.h): a bottom-up pass for the cost of the events beneath
 * every node, then a top-down pass that clamps and fits children in their
 * parents.  Nodes are in parent-before-child order (hp_format.h).
 */
#include <assert.h>
#include <stdlib.h>
#include "hp_compensate.h"

uint32_t hp_cost_kind_of(const hp_site_rec *s, int timed)
{
    int dynamic = (s->flags & HP_SITEF_DYNAMIC) != 0;
    switch (s->kind) {
    case HP_KIND_OMP:
        return HP_COST_OMP;
    case HP_KIND_COMM:
        if (dynamic)
            return HP_COST_MPI;
        break;
    case HP_KIND_CALL:
        if (s->flags & HP_SITEF_FRAME)  /* its calls are the MPI calls below it */
            return HP_COST_KINDS;
        if (dynamic && (s->flags & HP_SITEF_MPI))
            return HP_COST_MPI;
        if (dynamic) /* a tier-1 hook pair opens the call and its procedure */
            return timed ? HP_COST_HOOK_TIMED : HP_COST_HOOK_COUNTED;
        break;
    case HP_KIND_PROCEDURE:
        if (dynamic) /* costed with its call node */
            return HP_COST_KINDS;
        break;
    case HP_KIND_LOOP:
    case HP_KIND_REGION:
        break;
    default:
        return HP_COST_KINDS;
    }
    if (timed)
        return HP_COST_PROBE_TIMED;
    return s->flags & HP_SITEF_LEAF ? HP_COST_PROBE_LEAF : HP_COST_PROBE_COUNTED;
}

static hp_event_cost cost_of(const hp_rank_data *rd, const hp_site_rec *s, int timed)
{
    uint32_t k = hp_cost_kind_of(s, timed);
    hp_event_cost none = {0, 0};
    return k < HP_COST_KINDS ? rd->info.cost[k] : none;
}

static const hp_site_rec *site_of(const hp_rank_data *rd, const hp_node_rec *n)
{
    static const hp_site_rec root = {.kind = HP_KIND_ROOT};
    return n->site < rd->nsites ? &rd->sites[n->site] : &root;
}

/* What a call counted only costs: throttled, or (a site never throttled)
 * a recursive activation folded into its outermost one. */
static hp_event_cost counted_cost(const hp_rank_data *rd, const hp_site_rec *s)
{
    if (hp_cost_kind_of(s, 0) == HP_COST_PROBE_COUNTED && !(s->flags & HP_SITEF_THROTTLED))
        return rd->info.cost[HP_COST_PROBE_FOLDED];
    return cost_of(rd, s, 0);
}

/* The outside cost of n's own events: its timed and its counted calls. */
static double own_outside(const hp_rank_data *rd, const hp_node_rec *n)
{
    const hp_site_rec *s = site_of(rd, n);
    uint64_t timed = n->timed <= n->count ? n->timed : n->count;
    return (double)timed * cost_of(rd, s, 1).outside +
           (double)(n->count - timed) * counted_cost(rd, s).outside;
}

/* The share of the events beneath n that lie in its raw time. */
static double timed_share(const hp_rank_data *rd, const hp_node_rec *n)
{
    uint32_t flags = site_of(rd, n)->flags;
    if (!(flags & HP_SITEF_THROTTLED) || (flags & HP_SITEF_ESTIMATED) || n->count == 0 ||
        n->timed >= n->count)
        return 1.0;
    return (double)n->timed / (double)n->count;
}

/* The calls whose time holds the inside cost of a timed call: the timed
 * ones, or all of them when the time is an estimate (its counted calls
 * at the mean of its timed ones, that cost included). */
static uint64_t inside_calls(const hp_rank_data *rd, const hp_node_rec *n)
{
    if (site_of(rd, n)->flags & HP_SITEF_ESTIMATED)
        return n->count;
    return n->timed <= n->count ? n->timed : n->count;
}

/* Did n run (the checker's test: calls or time); a thread's root never
 * holds its children (rule e checks them). */
static int holds_children(const hp_node_rec *n)
{
    return n->parent != HP_NONE && (n->count > 0 || n->time > 0);
}

/* beneath[i]: outside cost of everything below node i; also the per-thread
 * totals of all event costs into stats. */
static void sum_beneath(const hp_rank_data *rd, double *beneath, hp_comp_stats *stats)
{
    uint32_t nthreads = 0;
    for (uint32_t i = rd->nnodes; i-- > 0;) {
        const hp_node_rec *n = &rd->nodes[i];
        double own = own_outside(rd, n);
        stats->overhead_total += own;
        if (n->thread + 1 > nthreads)
            nthreads = n->thread + 1;
        if (n->parent != HP_NONE && n->parent < i)
            beneath[n->parent] += own + beneath[i];
    }
    double *per_thread = calloc(nthreads ? nthreads : 1, sizeof *per_thread);
    if (!per_thread)
        return;
    for (uint32_t i = 0; i < rd->nnodes; i++)
        if (rd->nodes[i].parent == HP_NONE)
            per_thread[rd->nodes[i].thread] += beneath[i];
    for (uint32_t t = 0; t < nthreads; t++)
        if (per_thread[t] > stats->overhead)
            stats->overhead = per_thread[t];
    free(per_thread);
}

/* The nearest ancestor of each node that holds it (HP_NONE: none), and
 * the sums of the compensated and of the raw times of what each node
 * holds. */
static void sum_held(const hp_rank_data *rd, const double *time, uint32_t *holder,
                     double *held, double *held_raw)
{
    for (uint32_t i = 0; i < rd->nnodes; i++) {
        uint32_t p = rd->nodes[i].parent;
        if (p == HP_NONE || p >= i)
            holder[i] = HP_NONE;
        else
            holder[i] = holds_children(&rd->nodes[p]) ? p : holder[p];
    }
    for (uint32_t i = 0; i < rd->nnodes; i++)
        if (holder[i] != HP_NONE) {
            held[holder[i]] += time[i];
            held_raw[holder[i]] += rd->nodes[i].time;
        }
}

/* Top-down: each node's held nodes scaled to fit in its final time.  What
 * they exceeded it by in the raw times already (records that break the
 * checker's rule as measured) is left for the checker to see:
 * compensation adds no violation and hides none. */
static void fit_children(const hp_rank_data *rd, double *time, const uint32_t *holder,
                         const double *held, const double *held_raw, hp_comp_stats *stats)
{
    double *scale = malloc(sizeof *scale * (rd->nnodes ? rd->nnodes : 1));
    if (!scale)
        return;
    for (uint32_t i = 0; i < rd->nnodes; i++) {
        if (holder[i] != HP_NONE)
            time[i] *= scale[holder[i]];
        double excess = held_raw[i] - rd->nodes[i].time;
        double room = time[i] + (excess > 0 ? excess : 0);
        scale[i] = 1.0;
        if (held[i] > room) {
            scale[i] = room / held[i];
            if (held[i] > room * (1 + 1e-9)) /* more than rounding */
                stats->clamped_fit++;
        }
    }
    free(scale);
}

int hp_compensate(const hp_rank_data *rd, double *time, double *min, double *max,
                  hp_comp_stats *stats)
{
    size_t n = rd->nnodes ? rd->nnodes : 1;
    double *beneath = calloc(n, sizeof *beneath), *held = calloc(2 * n, sizeof *held);
    uint32_t *holder = malloc(n * sizeof *holder);
    hp_comp_stats st = {0, 0, 0, 0};
    if (!beneath || !held || !holder) {
        free(beneath);
        free(held);
        free(holder);
        return -1;
    }
    sum_beneath(rd, beneath, &st);
    for (uint32_t i = 0; i < rd->nnodes; i++) {
        const hp_node_rec *nd = &rd->nodes[i];
        double own_in = (double)inside_calls(rd, nd) * cost_of(rd, site_of(rd, nd), 1).inside;
        time[i] = nd->time - own_in - timed_share(rd, nd) * beneath[i];
        if (nd->parent == HP_NONE)
            time[i] = nd->time; /* a root has no time of its own to correct */
        if (time[i] < 0) {
            time[i] = 0;
            st.clamped_zero++;
        }
    }
    sum_held(rd, time, holder, held, held + n);
    fit_children(rd, time, holder, held, held + n, &st);
    for (uint32_t i = 0; i < rd->nnodes; i++) {
        const hp_node_rec *nd = &rd->nodes[i];
        double ratio = nd->time > 0 ? time[i] / nd->time : 1.0;
        assert(ratio >= 0 && ratio <= 1.0 + 1e-9);
        min[i] = nd->min * ratio;
        max[i] = nd->max * ratio;
    }
    free(beneath);
    free(held);
    free(holder);
    if (stats)
        *stats = st;
    return 0;
}

int hp_compensate_in_place(hp_rank_data *rd, hp_comp_stats *stats)
{
    size_t n = rd->nnodes ? rd->nnodes : 1;
    double *v = malloc(3 * n * sizeof *v);
    if (!v || hp_compensate(rd, v, v + n, v + 2 * n, stats) != 0) {
        free(v);
        return -1;
    }
    for (uint32_t i = 0; i < rd->nnodes; i++) {
        rd->nodes[i].time = v[i];
        rd->nodes[i].min = v[n + i];
        rd->nodes[i].max = v[2 * n + i];
    }
    free(v);
    return 0;
}
