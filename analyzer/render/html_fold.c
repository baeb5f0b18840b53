/*
 * html_fold.c - the calling-context tree as hprof-report's page shows it
 * (html.h): a large tree with its small nodes folded, so that the tree
 * and the flame graph stay within a page (the full tree is hprof-query's).
 *
 * A tree of at most FOLD_BUDGET nodes is shown whole.  A larger one shows
 *   - the root, the BAR_NODES nodes with the largest imbalance cost (the
 *     imbalance section's, html_imb.c) and every communication statement
 *     with at least FOLD_SHARE of the root's time, whatever the budget;
 *   - then the other nodes with at least FOLD_SHARE of the root's time by
 *     decreasing inclusive time, while the page's entries stay within
 *     FOLD_BUDGET (a node with children counts two: itself and the folded
 *     entry it may get);
 * each with its ancestors.  The children a shown node does not show
 * become one entry after its shown ones, "N smaller nodes", N the nodes
 * of their subtrees: its inclusive time the sum of theirs (so a parent's
 * children add up as in the full tree: inclusive = exclusive + shown
 * children + the folded entry) and its exclusive time the sum of their
 * subtrees' exclusive times.  A folded entry's id is -(its parent's id).
 */
#include "config.h"
#include <assert.h>
#include <stdlib.h>
#include <string.h>
#include "html.h"
#include "query/report_util.h"

typedef struct folding {
    const hpq_ftree *full;
    char *keep;             /* [i]: full->nodes[i] is shown */
    size_t *parent;         /* [i]: index of its parent, (size_t)-1 for none */
    size_t *sub_n;          /* [i]: nodes in its subtree, itself included */
    double *sub_excl;       /* [i]: exclusive time of its subtree */
    size_t cost;            /* entries the shown nodes take (FOLD_BUDGET's unit) */
} folding;

#define NONE ((size_t)-1)

static size_t index_of(const folding *f, const hpq_fnode *nd)
{
    return (size_t)(nd - f->full->nodes);
}

/* Is full node i in the tree under the root? */
static int reachable(const folding *f, size_t i)
{
    return f->parent[i] != NONE || &f->full->nodes[i] == f->full->root;
}

/* Shows node i and its ancestors, adding their entries to f->cost. */
static void keep_with_ancestors(folding *f, size_t i)
{
    if (!reachable(f, i))
        return;
    for (; i != NONE && !f->keep[i]; i = f->parent[i]) {
        f->keep[i] = 1;
        f->cost += 1 + (f->full->nodes[i].nkids > 0);
    }
}

/* Each node's parent index, and its subtree's node count and exclusive
 * time, summed up in reverse preorder (no recursion: trees can be deep). */
static int index_tree(folding *f)
{
    const hpq_ftree *tr = f->full;
    size_t *order = malloc((tr->n + 1) * sizeof *order), len = 0;
    if (!order)
        return -1;
    for (size_t i = 0; i < tr->n; i++) {
        f->parent[i] = NONE;
        f->sub_n[i] = 1;
        f->sub_excl[i] = tr->nodes[i].excl;
    }
    order[len++] = index_of(f, tr->root);
    for (size_t k = 0; k < len; k++) {      /* breadth first: parents first */
        const hpq_fnode *nd = &tr->nodes[order[k]];
        for (size_t c = 0; c < nd->nkids; c++) {
            size_t ci = index_of(f, nd->kids[c]);
            f->parent[ci] = order[k];
            order[len++] = ci;
        }
    }
    for (size_t k = len; k-- > 1;) {
        size_t i = order[k], p = f->parent[i];
        f->sub_n[p] += f->sub_n[i];
        f->sub_excl[p] += f->sub_excl[i];
    }
    free(order);
    return 0;
}

static int is_comm(const hpq_fnode *nd)
{
    return nd->cls == HPQ_FC_MPI_TRAN || nd->cls == HPQ_FC_MPI_SYNC;
}

/* By decreasing inclusive time, then from the root down, then by id. */
static int by_decreasing_time(const void *a, const void *b)
{
    const hpq_fnode *x = *(hpq_fnode *const *)a, *y = *(hpq_fnode *const *)b;
    if (x->incl != y->incl)
        return x->incl > y->incl ? -1 : 1;
    if (x->depth != y->depth)
        return x->depth < y->depth ? -1 : 1;
    return x->id < y->id ? -1 : x->id > y->id;
}

/* The nodes every page shows, then the largest within the budget. */
static int choose_shown(const hpq_ctx *ctx, folding *f)
{
    const hpq_ftree *tr = f->full;
    double least = FOLD_SHARE * tr->root->incl;   /* of the root: the smallest shown */
    const hpq_fnode *costly[BAR_NODES];
    int k = hpq_html_costliest(ctx, tr, costly, BAR_NODES);
    if (k < 0)
        return -1;
    keep_with_ancestors(f, index_of(f, tr->root));
    for (int i = 0; i < k; i++)
        keep_with_ancestors(f, index_of(f, costly[i]));
    for (size_t i = 0; i < tr->n; i++)
        if (is_comm(&tr->nodes[i]) && tr->nodes[i].incl >= least && tr->nodes[i].incl > 0)
            keep_with_ancestors(f, i);
    const hpq_fnode **by_time = malloc((tr->n + 1) * sizeof *by_time);
    if (!by_time)
        return hpq_oom(ctx);
    for (size_t i = 0; i < tr->n; i++)
        by_time[i] = &tr->nodes[i];
    qsort(by_time, tr->n, sizeof *by_time, by_decreasing_time);
    for (size_t i = 0; i < tr->n && f->cost < FOLD_BUDGET; i++) {
        if (by_time[i]->incl < least || by_time[i]->incl <= 0)
            break;
        keep_with_ancestors(f, index_of(f, by_time[i]));
    }
    free(by_time);
    return 0;
}

/* ---- the folded copy ---- */

/* The children of full node i that are not shown: their number (0: no
 * folded entry), in fold their sums and in *nodes the nodes of their
 * subtrees. */
static size_t hidden_kids(const folding *f, size_t i, hpq_fnode *fold, size_t *nodes)
{
    const hpq_fnode *nd = &f->full->nodes[i];
    size_t hidden = 0;
    memset(fold, 0, sizeof *fold);
    *nodes = 0;
    for (size_t c = 0; c < nd->nkids; c++) {
        size_t ci = index_of(f, nd->kids[c]);
        if (f->keep[ci])
            continue;
        hidden++;
        fold->incl += nd->kids[c]->incl;
        fold->excl += f->sub_excl[ci];
        *nodes += f->sub_n[ci];
    }
    fold->id = -nd->id;
    fold->parent = nd->id;
    fold->cls = HPQ_FC_COMPUTE;
    fold->depth = nd->depth + 1;
    return hidden;
}

/* Node i's copy in out: its label, its shown children then its folded
 * entry (at fold, or NULL); to[j] is full node j's copy. */
static int copy_node(const folding *f, size_t i, hpq_fnode **to, hpq_fnode *fold,
                     hpq_ftree *out)
{
    const hpq_fnode *nd = &f->full->nodes[i];
    hpq_fnode *cp = to[i];
    *cp = *nd;
    cp->label = strdup(nd->label);
    cp->kids = malloc((nd->nkids + 1) * sizeof *cp->kids);
    cp->nkids = 0;
    if (!cp->label || !cp->kids)
        return -1;
    for (size_t c = 0; c < nd->nkids; c++)
        if (f->keep[index_of(f, nd->kids[c])])
            cp->kids[cp->nkids++] = to[index_of(f, nd->kids[c])];
    if (fold)
        cp->kids[cp->nkids++] = fold;
    out->max_depth = cp->depth > out->max_depth ? cp->depth : out->max_depth;
    return 0;
}

/* A folded entry's label, "N smaller nodes", N the nodes it holds. */
static int label_fold(hpq_fnode *fold, size_t folded, hpq_ftree *out)
{
    if (asprintf(&fold->label, "%zu smaller node%s", folded, folded == 1 ? "" : "s") < 0) {
        fold->label = NULL;
        return -1;
    }
    out->max_depth = fold->depth > out->max_depth ? fold->depth : out->max_depth;
    return 0;
}

/* The shown nodes' copies in id order, after the folded entries (by
 * increasing id, so decreasing parent id): out->nodes stays sorted. */
static int build_copy(const folding *f, hpq_ftree *out, size_t *nfolded)
{
    const hpq_ftree *full = f->full;
    size_t shown = 0, folds = 0;
    hpq_fnode scratch;
    size_t nodes;
    for (size_t i = 0; i < full->n; i++)
        if (f->keep[i]) {
            shown++;
            folds += hidden_kids(f, i, &scratch, &nodes) > 0;
        }
    hpq_fnode **to = calloc(full->n + 1, sizeof *to);
    out->nodes = calloc(shown + folds + 1, sizeof *out->nodes);
    if (!to || !out->nodes) {
        free(to);
        return -1;
    }
    out->n = shown + folds;
    size_t next_fold = 0, next = folds;
    for (size_t i = 0; i < full->n; i++)
        if (f->keep[i])
            to[i] = &out->nodes[next++];
    int rc = 0;
    *nfolded = 0;
    for (size_t i = full->n; i-- > 0 && rc == 0;) {
        if (!f->keep[i])
            continue;
        hpq_fnode *fold = NULL;
        if (hidden_kids(f, i, &out->nodes[next_fold], &nodes) > 0) {
            fold = &out->nodes[next_fold++];
            *nfolded += nodes;
            rc = label_fold(fold, nodes, out);
        }
        if (rc == 0)
            rc = copy_node(f, i, to, fold, out);
    }
    out->root = to[index_of(f, full->root)];
    free(to);
    return rc;
}

static void free_folding(folding *f)
{
    free(f->keep);
    free(f->parent);
    free(f->sub_n);
    free(f->sub_excl);
}

int hpq_html_fold(const hpq_ctx *ctx, const hpq_ftree *full, hpq_ftree *out, size_t *nfolded)
{
    memset(out, 0, sizeof *out);
    *nfolded = 0;
    if (!full->root || full->n <= FOLD_BUDGET)
        return 0;
    folding f = {full, calloc(full->n, 1), malloc(full->n * sizeof(size_t)),
                 malloc(full->n * sizeof(size_t)), malloc(full->n * sizeof(double)), 0};
    int rc = f.keep && f.parent && f.sub_n && f.sub_excl && index_tree(&f) == 0
                 ? 0 : hpq_oom(ctx);
    if (rc == 0)
        rc = choose_shown(ctx, &f);
    if (rc == 0 && build_copy(&f, out, nfolded) != 0)
        rc = hpq_oom(ctx);
    free_folding(&f);
    if (rc != 0 || *nfolded == 0)
        hpq_ftree_free(out);
    return rc;
}
