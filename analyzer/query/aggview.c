/*
 * aggview.c - the views of an aggregated profile (aggview.h).  Numbers are
 * defined as the full profile's database defines them (db/db_agg.c), so
 * the two modes print the same values: per node, mean = sum / ranks of the
 * run, min = 0 when a rank never ran it, imbalance = max x ranks / sum,
 * pct = share of the root's time; per site, time in its outermost nodes.
 */
#include "config.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "aggview.h"
#include "aggcheck.h"
#include "db/merge.h"
#include "read/hpf_agg.h"

static char **site_labels(const hp_aggprof *a)
{
    hp_rank_data rd;
    memset(&rd, 0, sizeof rd);
    rd.nstrings = a->nstrings;
    rd.strings = a->strings;
    char **labels = calloc(a->nsites ? a->nsites : 1, sizeof *labels);
    for (uint32_t i = 0; labels && i < a->nsites; i++) {
        char *l = hpf_site_label(&rd, &a->sites[i]);
        if (l && (a->sites[i].flags & HP_SITEF_ESTIMATED)) {
            char *marked = NULL;
            if (asprintf(&marked, "%s [est]", l) < 0)
                marked = NULL;
            free(l);
            l = marked;
        }
        labels[i] = l ? l : strdup("?");
    }
    return labels;
}

static void free_labels(char **labels, uint32_t n)
{
    for (uint32_t i = 0; labels && i < n; i++)
        free(labels[i]);
    free(labels);
}

/* "b0 b1 ... b15": the histogram of per-rank times. */
static void hist_text(const uint32_t *hist, char *buf, size_t len)
{
    size_t at = 0;
    buf[0] = 0;
    for (int k = 0; k < HP_AGG_BINS && at < len; k++) {
        int n = snprintf(buf + at, len - at, "%s%u", k ? " " : "", hist[k]);
        at += n > 0 ? (size_t)n : 0;
    }
}

static void print_header(const hpf_aggfile *f, FILE *out)
{
    uint32_t threads = 0, omp = 0, mt_min = UINT32_MAX, mt_max = 0;
    double wall_max = 0, wall_sum = 0, thread_s = 0, pmin = 0, pmax = 0, psum = 0;
    for (uint32_t r = 0; r < f->nranks; r++) {
        const hp_rank_total *t = &f->ranks[r];
        double pct = t->wall > 0 && t->mpi_threads ? 100.0 * t->mpi_time / (t->wall * t->mpi_threads)
                                                   : 0.0;
        threads = t->threads > threads ? t->threads : threads;
        omp = t->omp_threads > omp ? t->omp_threads : omp;
        mt_min = t->mpi_threads < mt_min ? t->mpi_threads : mt_min;
        mt_max = t->mpi_threads > mt_max ? t->mpi_threads : mt_max;
        wall_max = t->wall > wall_max ? t->wall : wall_max;
        wall_sum += t->wall;
        thread_s += t->wall * (t->threads > 1 ? t->threads : 1);
        pmin = r == 0 || pct < pmin ? pct : pmin;
        pmax = pct > pmax ? pct : pmax;
        psum += pct;
    }
    fputs("program:   ", out);
    hpq_print_text_string(out, f->run.program ? f->run.program : "?");
    fputc('\n', out);
    fprintf(out, "ranks:     %u x %u threads (recording; OpenMP threads: %u)\n", f->nranks,
            threads, omp);
    fprintf(out, "profile:   aggregated (HPROF_AGGREGATE): distributions over ranks, "
                 "no per-rank records\n");
    fprintf(out, "wall:      %.6f s (max over ranks), %.6f s summed over ranks\n", wall_max,
            wall_sum);
    fprintf(out, "threads:   %.6f thread-s (wall x threads recording, summed over ranks):"
                 " the root row, 100%% of pct\n", thread_s);
    char mt[48];
    if (mt_min == mt_max)
        snprintf(mt, sizeof mt, "%u", mt_max);
    else
        snprintf(mt, sizeof mt, "%u-%u", mt_min, mt_max);
    fprintf(out, "MPI time:  %.1f%% min, %.1f%% mean, %.1f%% max over ranks, of wall x "
                 "threads calling MPI (%s per rank)\n\n",
            pmin, f->nranks ? psum / f->nranks : 0, pmax, mt);
}

/* The run's thread time: per rank its wall time times its threads that
 * recorded (at least 1), as the full profile's root row and pct. */
static double rank_thread_time(const hp_rank_total *t)
{
    return t->wall * (t->threads > 1 ? t->threads : 1);
}

static double total_thread_time(const hpf_aggfile *f)
{
    double total = 0;
    for (uint32_t r = 0; r < f->nranks; r++)
        total += rank_thread_time(&f->ranks[r]);
    return total;
}

/* ---- the tree ---- */

static const char *const tree_cols[] = {"node", "depth", "site", "calls", "time", "mean", "min",
                                        "max", "imbalance", "pct", "parent", "excl",
                                        "worst_rank", "worst_thread", "ranks", "hist"};
enum { T_NODE, T_DEPTH, T_SITE, T_CALLS, T_TIME, T_MEAN, T_MIN, T_MAX, T_IMB, T_PCT,
       T_PARENT, T_EXCL, T_WRANK, T_WTHR, T_RANKS, T_HIST, T_NCOLS };

typedef struct tree_walk {
    const hp_aggprof *a;
    char **labels;
    uint32_t *kids, *first, *depth;  /* children by parent, sorted by time */
    double nranks, root_time;
    hpq_table *t;
    hp_anode root;                   /* the root's row */
    int indent;                      /* text: labels indented by depth */
    long max_depth, max_rows;        /* limits: -1 and 0 for none */
} tree_walk;

static const hp_aggprof *sort_tree;

static int by_time(const void *x, const void *y)
{
    const hp_anode *a = &sort_tree->nodes[*(const uint32_t *)x];
    const hp_anode *b = &sort_tree->nodes[*(const uint32_t *)y];
    if (a->time != b->time)
        return a->time > b->time ? -1 : 1;
    return *(const uint32_t *)x < *(const uint32_t *)y ? -1 : 1;
}

static void add_distribution(hpq_table *t, const hp_anode *n, double nranks, int first_col)
{
    hpq_set_real(t, first_col, n->time / nranks);
    hpq_set_real(t, first_col + 1, n->ranks < nranks ? 0.0 : n->min);
    hpq_set_real(t, first_col + 2, n->max);
    if (n->time > 0)
        hpq_set_real(t, first_col + 3, n->max * nranks / n->time);
}

/* The root row carries the run's thread time (report_tree.c's
 * root_carries_total): calls are the threads, the worst rank the one with
 * the most thread time, no worst thread. */
static hp_anode root_row(const hpf_aggfile *f)
{
    hp_anode n = f->tree.nodes[0];
    double kids = 0;
    for (uint32_t g = 1; g < f->tree.nnodes; g++)
        if (f->tree.nodes[g].parent == 0)
            kids += f->tree.nodes[g].time;
    n.calls = 0;
    n.time = 0;
    n.ranks = f->nranks;
    memset(n.hist, 0, sizeof n.hist);
    for (uint32_t r = 0; r < f->nranks; r++) {
        double t = rank_thread_time(&f->ranks[r]);
        n.calls += f->ranks[r].threads > 1 ? f->ranks[r].threads : 1;
        n.time += t;
        if (r == 0 || t > n.max) {
            n.max = t;
            n.max_rank = r;
        }
        if (r == 0 || t < n.min)
            n.min = t;
        n.hist[hp_agg_bin(t)]++;
    }
    n.excl = n.time > kids ? n.time - kids : 0;
    return n;
}

static void add_tree_row(tree_walk *w, uint32_t g, uint32_t depth)
{
    const hp_anode *n = g ? &w->a->nodes[g] : &w->root;
    char hist[HP_AGG_BINS * 11];
    hpq_table *t = w->t;
    hpq_table_add_row(t);
    hpq_set_int(t, T_NODE, g + 1);
    hpq_set_int(t, T_DEPTH, depth);
    if (w->indent) {
        char *label = NULL;
        if (asprintf(&label, "%*s%s", 2 * (int)depth, "", w->labels[n->site]) < 0)
            label = NULL;
        hpq_set_str(t, T_SITE, label ? label : w->labels[n->site]);
        free(label);
    } else {
        hpq_set_str(t, T_SITE, w->labels[n->site]);
    }
    hpq_set_int(t, T_CALLS, (int64_t)n->calls);
    hpq_set_real(t, T_TIME, n->time);
    add_distribution(t, n, w->nranks, T_MEAN);
    hpq_set_real(t, T_PCT, w->root_time > 0 ? 100.0 * n->time / w->root_time : 0.0);
    if (g) {
        hpq_set_int(t, T_PARENT, n->parent + 1);
        hpq_set_real(t, T_MIN, n->ranks < w->nranks ? 0.0 : n->min);
    } else {
        hpq_set_real(t, T_IMB, n->time > 0 ? n->max * w->nranks / n->time : 0.0);
    }
    hpq_set_real(t, T_EXCL, n->excl);
    if (n->ranks)
        hpq_set_int(t, T_WRANK, n->max_rank);
    if (n->ranks && g)
        hpq_set_int(t, T_WTHR, n->max_thread);
    hpq_set_int(t, T_RANKS, n->ranks);
    hist_text(n->hist, hist, sizeof hist);
    hpq_set_str(t, T_HIST, hist);
}

/* Preorder, children by time; an explicit stack (trees are deep). */
static int walk_tree(tree_walk *w)
{
    uint32_t n = w->a->nnodes, sp = 0;
    uint32_t *stack = malloc(((size_t)n + 1) * sizeof *stack);
    if (!stack)
        return -1;
    stack[sp++] = 0;
    while (sp && (w->max_rows == 0 || w->t->nrows < (size_t)w->max_rows)) {
        uint32_t g = stack[--sp];
        if (g && w->a->nodes[g].calls == 0 && w->first[g + 1] == w->first[g])
            continue;   /* an unused leaf, such as an empty <overflow> */
        add_tree_row(w, g, w->depth[g]);
        if (w->max_depth >= 0 && w->depth[g] >= (uint32_t)w->max_depth)
            continue;
        for (uint32_t k = w->first[g + 1]; k-- > w->first[g];)
            stack[sp++] = w->kids[k];
    }
    free(stack);
    return 0;
}

/* Children lists (counting sort by parent), each sorted by time. */
static int index_children(tree_walk *w)
{
    const hp_aggprof *a = w->a;
    uint32_t n = a->nnodes;
    w->first = calloc((size_t)n + 2, sizeof *w->first);
    w->kids = malloc(((size_t)n + 1) * sizeof *w->kids);
    w->depth = calloc((size_t)n + 1, sizeof *w->depth);
    if (!w->first || !w->kids || !w->depth)
        return -1;
    for (uint32_t g = 1; g < n; g++) {
        w->first[a->nodes[g].parent + 2]++;
        w->depth[g] = w->depth[a->nodes[g].parent] + 1;
    }
    for (uint32_t g = 0; g <= n; g++)
        w->first[g + 1] += w->first[g];
    for (uint32_t g = 1; g < n; g++)
        w->kids[w->first[a->nodes[g].parent + 1]++] = g;
    sort_tree = a;
    for (uint32_t g = 0; g < n; g++)
        qsort(w->kids + w->first[g], w->first[g + 1] - w->first[g], sizeof *w->kids, by_time);
    return 0;
}

static hpq_table *tree_table(const hpf_aggfile *f, char **labels, const hpq_agg_request *rq)
{
    tree_walk w = {&f->tree, labels, NULL, NULL, NULL, f->nranks, total_thread_time(f), NULL,
                   root_row(f), rq->format == HPQ_TEXT, rq->depth, rq->top};
    w.t = hpq_table_new(T_NCOLS, tree_cols);
    if (w.t && (index_children(&w) || walk_tree(&w))) {
        hpq_table_free(w.t);
        w.t = NULL;
    }
    free(w.first);
    free(w.kids);
    free(w.depth);
    if (w.t) {
        static const int six[] = {T_TIME, T_MEAN, T_MIN, T_MAX, T_EXCL};
        for (size_t i = 0; i < sizeof six / sizeof six[0]; i++)
            hpq_table_decimals(w.t, six[i], 6);
        hpq_table_decimals(w.t, T_IMB, 2);
        hpq_table_decimals(w.t, T_PCT, 1);
        hpq_table_text_hide(w.t, T_DEPTH);
        hpq_table_text_hide(w.t, T_PARENT);
        hpq_table_text_hide(w.t, T_MEAN);
        hpq_table_text_heading(w.t, T_IMB, "imb");
        hpq_table_text_heading(w.t, T_WRANK, "wrank");
        hpq_table_text_heading(w.t, T_WTHR, "wthr");
    }
    return w.t;
}

/* ---- flat ---- */

static const char *const flat_cols[] = {"site", "label", "kind", "calls", "time", "excl", "mean",
                                        "min", "max", "imbalance", "pct", "worst_rank",
                                        "worst_thread", "ranks", "hist"};
enum { F_SITE, F_LABEL, F_KIND, F_CALLS, F_TIME, F_EXCL, F_MEAN, F_MIN, F_MAX, F_IMB, F_PCT,
       F_WRANK, F_WTHR, F_RANKS, F_HIST, F_NCOLS };

static int by_site_time(const void *x, const void *y)
{
    const hp_anode *a = &sort_tree->sitedist[*(const uint32_t *)x];
    const hp_anode *b = &sort_tree->sitedist[*(const uint32_t *)y];
    if (a->time != b->time)
        return a->time > b->time ? -1 : 1;
    return *(const uint32_t *)x < *(const uint32_t *)y ? -1 : 1;
}

static void add_flat_row(hpq_table *t, const hpf_aggfile *f, char **labels, const double *excl,
                         uint32_t s)
{
    const hp_anode *d = &f->tree.sitedist[s];
    double root = total_thread_time(f);
    char hist[HP_AGG_BINS * 11];
    hpq_table_add_row(t);
    hpq_set_int(t, F_SITE, s + 1);
    hpq_set_str(t, F_LABEL, labels[s]);
    hpq_set_str(t, F_KIND, hp_kind_name(f->tree.sites[s].kind));
    hpq_set_int(t, F_CALLS, (int64_t)d->calls);
    hpq_set_real(t, F_TIME, d->time);
    hpq_set_real(t, F_EXCL, excl[s]);
    add_distribution(t, d, f->nranks, F_MEAN);
    hpq_set_real(t, F_PCT, root > 0 ? 100.0 * d->time / root : 0.0);
    if (d->max > 0) {     /* as site_worst: ranks with time only */
        hpq_set_int(t, F_WRANK, d->max_rank);
        hpq_set_int(t, F_WTHR, d->max_thread);
    }
    hpq_set_int(t, F_RANKS, d->ranks);
    hist_text(d->hist, hist, sizeof hist);
    hpq_set_str(t, F_HIST, hist);
}

static hpq_table *flat_table(const hpf_aggfile *f, char **labels, long top)
{
    const hp_aggprof *a = &f->tree;
    uint32_t *order = malloc(((size_t)a->nsites + 1) * sizeof *order);
    double *excl = calloc((size_t)a->nsites + 1, sizeof *excl);
    hpq_table *t = order && excl ? hpq_table_new(F_NCOLS, flat_cols) : NULL;
    if (t) {
        for (uint32_t g = 0; g < a->nnodes; g++)
            excl[a->nodes[g].site] += a->nodes[g].excl;
        for (uint32_t s = 0; s < a->nsites; s++)
            order[s] = s;
        sort_tree = a;
        qsort(order, a->nsites, sizeof *order, by_site_time);
        for (uint32_t k = 0; k < a->nsites && (top == 0 || k < (uint32_t)top); k++)
            add_flat_row(t, f, labels, excl, order[k]);
        static const int six[] = {F_TIME, F_EXCL, F_MEAN, F_MIN, F_MAX};
        for (size_t i = 0; i < sizeof six / sizeof six[0]; i++)
            hpq_table_decimals(t, six[i], 6);
        hpq_table_decimals(t, F_IMB, 2);
        hpq_table_decimals(t, F_PCT, 1);
        hpq_table_text_hide(t, F_MEAN);
        hpq_table_text_heading(t, F_IMB, "imb");
        hpq_table_text_heading(t, F_WRANK, "wrank");
        hpq_table_text_heading(t, F_WTHR, "wthr");
    }
    free(order);
    free(excl);
    return t;
}

/* ---- comm of a site ---- */

static const char *const comm_cols[] = {"node", "peers", "count", "bytes_sent", "bytes_recv",
                                        "tran", "sync", "min", "max", "ranks", "worst_rank",
                                        "worst_time"};
enum { C_NODE, C_PEERS, C_COUNT, C_SENT, C_RECV, C_TRAN, C_SYNC, C_MIN, C_MAX, C_RANKS,
       C_WRANK, C_WTIME, C_NCOLS };

/* The sites the user named: the exact label, else every label that
 * contains the text; -1 when none. */
static int select_sites(const hp_aggprof *a, char **labels, const char *want, unsigned char *sel)
{
    int n = 0;
    for (uint32_t s = 0; s < a->nsites; s++)
        n += sel[s] = strcmp(labels[s], want) == 0;
    for (uint32_t s = 0; n == 0 && s < a->nsites; s++)
        sel[s] = strstr(labels[s], want) != NULL;
    for (uint32_t s = 0; n == 0 && s < a->nsites; s++)
        n += sel[s];
    return n ? n : -1;
}

static hpq_table *comm_table(const hp_aggprof *a, const unsigned char *sel)
{
    static const char *const peers[] = {"*ranks*", "*all*", "*file*"};
    hpq_table *t = hpq_table_new(C_NCOLS, comm_cols);
    for (uint32_t i = 0; t && i < a->ncomms; i++) {
        const hp_acomm *c = &a->comms[i];
        if (!sel[a->nodes[c->node].site])
            continue;
        hpq_table_add_row(t);
        hpq_set_int(t, C_NODE, c->node + 1);
        hpq_set_str(t, C_PEERS, peers[c->pclass]);
        hpq_set_int(t, C_COUNT, (int64_t)c->count);
        hpq_set_int(t, C_SENT, (int64_t)c->sent);
        hpq_set_int(t, C_RECV, (int64_t)c->recv);
        hpq_set_real(t, C_TRAN, c->tran);
        hpq_set_real(t, C_SYNC, c->sync);
        hpq_set_real(t, C_MIN, c->min);
        hpq_set_real(t, C_MAX, c->max);
        hpq_set_int(t, C_RANKS, c->ranks);
        hpq_set_int(t, C_WRANK, c->max_rank);
        hpq_set_real(t, C_WTIME, c->rank_max);
    }
    if (t) {
        static const int six[] = {C_TRAN, C_SYNC, C_MIN, C_MAX, C_WTIME};
        for (size_t i = 0; i < sizeof six / sizeof six[0]; i++)
            hpq_table_decimals(t, six[i], 6);
        hpq_table_text_bytes(t, C_SENT);
        hpq_table_text_bytes(t, C_RECV);
    }
    return t;
}

static int report_comm(const hpf_aggfile *f, char **labels, const hpq_agg_request *rq,
                       FILE *out)
{
    unsigned char *sel = calloc((size_t)f->tree.nsites + 1, 1);
    if (!sel || select_sites(&f->tree, labels, rq->comm_site, sel) < 0) {
        if (sel)
            fprintf(stderr, "hprof-query: no site matches '%s'\n", rq->comm_site);
        free(sel);
        return 1;
    }
    hpq_table *t = comm_table(&f->tree, sel);
    if (rq->format == HPQ_TEXT) {
        fprintf(out, "communication of %s (per node and peer class; the rank x rank detail is "
                     "not kept in an aggregated profile)\n", rq->comm_site);
    }
    int rc = !t || hpq_table_print(t, out, rq->format) != 0;
    hpq_table_free(t);
    free(sel);
    return rc;
}

int hpq_agg_report(const char *path, const hpq_agg_request *rq, FILE *out)
{
    hpf_aggfile f;
    char err[1024];
    if (hpf_agg_read(path, &f, err, sizeof err)) {
        fprintf(stderr, "hprof-query: %s\n", err);
        return 1;
    }
    char **labels = site_labels(&f.tree);
    int rc = 1;
    if (!labels) {
        fprintf(stderr, "hprof-query: out of memory\n");
    } else if (rq->check) {
        rc = hpq_agg_check(&f, labels, out);
    } else if (rq->comm_site) {
        rc = report_comm(&f, labels, rq, out);
    } else {
        if (rq->format == HPQ_TEXT && !rq->flat)
            print_header(&f, out);
        hpq_table *t = rq->flat ? flat_table(&f, labels, rq->top) : tree_table(&f, labels, rq);
        rc = !t || hpq_table_print(t, out, rq->format) != 0;
        if (!t)
            fprintf(stderr, "hprof-query: out of memory\n");
        hpq_table_free(t);
    }
    free_labels(labels, f.tree.nsites);
    hpf_agg_free(&f);
    return rc;
}
