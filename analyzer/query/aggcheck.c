/*
 * aggcheck.c - hprof-query --check of an aggregated profile (aggcheck.h).
 * What a full profile's check verifies per rank and thread holds for the
 * sums over them, so the same rules with the tolerance summed over the
 * ranks (1% and 2 us per record): children within parents (rule a; but
 * see forked_above), every
 * distribution sane (rule f: no negative time, min <= max <= sum, no time
 * without calls, histogram counts = ranks present <= ranks of the run,
 * worst rank a rank of the run), communication classes likewise, and
 * shares within their clocks (rule e: root within wall x threads, MPI
 * time within wall x threads calling MPI).
 */
#include <stdarg.h>
#include <stdlib.h>
#include "aggcheck.h"

#define MAX_SAID 20

typedef struct checker {
    FILE *out;
    uint64_t problems;
} checker;

static void problem(checker *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void problem(checker *c, const char *fmt, ...)
{
    va_list ap;
    if (c->problems++ >= MAX_SAID)
        return;
    fputs("check: ", c->out);
    va_start(ap, fmt);
    vfprintf(c->out, fmt, ap);
    va_end(ap);
    fputc('\n', c->out);
}

static double slack(double t, double records)
{
    return 0.01 * t + 2e-6 * records;
}

/* Rule f on one distribution; what names it ("node 3 (MPI_Send@a.c:4)"). */
static void check_dist(checker *c, const hp_anode *n, uint32_t nranks, const char *what,
                       const char *label)
{
    uint64_t hist = 0;
    for (int k = 0; k < HP_AGG_BINS; k++)
        hist += n->hist[k];
    if (hist != n->ranks)
        problem(c, "%s (%s): histogram counts %llu ranks, the record %u", what, label,
                (unsigned long long)hist, n->ranks);
    if (n->ranks > nranks || (n->ranks && n->max_rank >= nranks))
        problem(c, "%s (%s): %u ranks, worst rank %u, in a run of %u", what, label, n->ranks,
                n->max_rank, nranks);
    if (n->ranks && (n->min > n->max || n->max > n->time + slack(n->time, n->ranks)))
        problem(c, "%s (%s): min %g, max %g, sum %g out of order", what, label, n->min, n->max,
                n->time);
    if (n->time > 0 && n->calls == 0)
        problem(c, "%s (%s): time %g without calls", what, label, n->time);
    if (n->excl > n->time + slack(n->time, n->ranks))
        problem(c, "%s (%s): exclusive time %g above its time %g", what, label, n->excl, n->time);
}

/* Does some rank record on more than one thread? */
static int threaded(const hpf_aggfile *f)
{
    for (uint32_t r = 0; r < f->nranks; r++)
        if (f->ranks[r].threads > 1)
            return 1;
    return 0;
}

/* Per node: an OpenMP construct lies below it.  A worker thread's tree
 * holds the context its region was forked in as records without calls
 * (checktree.c's ran_here), so the sums over threads of such a node's
 * children include the workers' time, which its own sum does not: there
 * rule a compares each child with the nearest ancestor that ran on its
 * thread, which sums cannot tell.  Those nodes are held to what sums do
 * tell: time - exclusive time (per thread min(own, children)) is at
 * most the children's time.  Parents come before children. */
static unsigned char *forked_above(const hp_aggprof *a)
{
    unsigned char *mark = calloc((size_t)a->nnodes + 1, 1);
    for (uint32_t g = a->nnodes; mark && g-- > 1;)
        if (mark[g] || a->sites[a->nodes[g].site].kind == HP_KIND_OMP)
            mark[a->nodes[g].parent] = 1;
    return mark;
}

/* Rule a on node g, whose children sum to kids over nkids records. */
static void check_children(checker *c, const hp_anode *n, int forked, double kids, double nkids,
                           const char *what, const char *label)
{
    if (!forked && kids > n->time + slack(n->time, nkids))
        problem(c, "%s (%s): children sum to %g s, more than its %g s", what, label, kids,
                n->time);
    if (forked && n->time - n->excl > kids + slack(n->time, nkids + n->ranks))
        problem(c, "%s (%s): time %g s less exclusive %g s exceeds its children's %g s", what,
                label, n->time, n->excl, kids);
}

static void check_nodes(checker *c, const hpf_aggfile *f, char **labels)
{
    const hp_aggprof *a = &f->tree;
    double *kids = calloc((size_t)a->nnodes + 1, sizeof *kids);
    double *nkids = calloc((size_t)a->nnodes + 1, sizeof *nkids);
    unsigned char *forked = threaded(f) ? forked_above(a) : calloc((size_t)a->nnodes + 1, 1);
    char what[48];
    if (!kids || !nkids || !forked) {
        problem(c, "out of memory");
    } else {
        for (uint32_t g = 1; g < a->nnodes; g++) {
            kids[a->nodes[g].parent] += a->nodes[g].time;
            nkids[a->nodes[g].parent] += a->nodes[g].ranks;
        }
        for (uint32_t g = 0; g < a->nnodes; g++) {
            const hp_anode *n = &a->nodes[g];
            snprintf(what, sizeof what, "node %u", g + 1);
            check_dist(c, n, f->nranks, what, labels[n->site]);
            if (g)
                check_children(c, n, forked[g], kids[g], nkids[g], what, labels[n->site]);
        }
    }
    free(kids);
    free(nkids);
    free(forked);
    for (uint32_t s = 0; s < a->nsites; s++) {
        snprintf(what, sizeof what, "site %u", s + 1);
        check_dist(c, &a->sitedist[s], f->nranks, what, labels[s]);
    }
}

static void check_comms(checker *c, const hpf_aggfile *f, char **labels)
{
    for (uint32_t i = 0; i < f->tree.ncomms; i++) {
        const hp_acomm *m = &f->tree.comms[i];
        const char *label = labels[f->tree.nodes[m->node].site];
        double t = m->tran + m->sync;
        if (m->ranks == 0 || m->ranks > f->nranks || m->max_rank >= f->nranks)
            problem(c, "comm of node %u (%s): %u ranks, worst rank %u, in a run of %u",
                    m->node + 1, label, m->ranks, m->max_rank, f->nranks);
        if (m->min > m->max || m->rank_max > t + slack(t, m->ranks))
            problem(c, "comm of node %u (%s): min %g, max %g, worst rank's %g of %g s",
                    m->node + 1, label, m->min, m->max, m->rank_max, t);
        if (i && (m->node < f->tree.comms[i - 1].node ||
                  (m->node == f->tree.comms[i - 1].node && m->pclass <= f->tree.comms[i - 1].pclass)))
            problem(c, "comm of node %u (%s): records out of order or repeated", m->node + 1,
                    label);
    }
}

static void check_ranks(checker *c, const hpf_aggfile *f)
{
    double root = 0;
    for (uint32_t r = 0; r < f->nranks; r++) {
        const hp_rank_total *t = &f->ranks[r];
        double clock = t->wall * (t->threads > 1 ? t->threads : 1);
        double mpi_clock = t->wall * t->mpi_threads;
        root += t->time;
        if (t->time > clock + slack(clock, 1))
            problem(c, "rank %u: %g thread-s recorded in %g s of wall x threads", r, t->time,
                    clock);
        if (t->mpi_time > mpi_clock + slack(mpi_clock, 1) && t->mpi_threads)
            problem(c, "rank %u: MPI time %g s above wall x threads calling MPI %g s", r,
                    t->mpi_time, mpi_clock);
    }
    double tree_root = f->tree.nodes[0].time;
    if (root > tree_root + slack(tree_root, f->nranks) ||
        tree_root > root + slack(root, f->nranks))
        problem(c, "the ranks' totals sum to %g s, the tree's root to %g s", root, tree_root);
}

int hpq_agg_check(const hpf_aggfile *f, char **labels, FILE *out)
{
    checker c = {out, 0};
    check_nodes(&c, f, labels);
    check_comms(&c, f, labels);
    check_ranks(&c, f);
    if (c.problems > MAX_SAID)
        fprintf(out, "check: ... %llu problems in all\n", (unsigned long long)c.problems);
    if (c.problems)
        return 1;
    fprintf(out, "check: ok: aggregated profile of %u ranks, %u nodes, %u sites, %u comm "
                 "classes: children within parents, distributions consistent (histogram ="
                 " ranks, min <= max <= sum, no time without calls), shares <= 100%%"
                 " (tolerance 1%% + 2 us per rank and record)\n",
            f->nranks, f->tree.nnodes, f->tree.nsites, f->tree.ncomms);
    return 0;
}
