/*
 * flame.h - the calling-context tree as hprof-query's pictures see it
 * (flame.c loads it, with inclusive and exclusive times and a colour
 * class per node); the pictures drawn from it, folded stacks (--folded)
 * and a self-contained SVG flame graph (--flamegraph), are in
 * flame_out.h.
 */
#ifndef HPQ_FLAME_H
#define HPQ_FLAME_H

#include <stdio.h>
#include <stdint.h>
#include "report.h"

/* The colour class of a node, from its site. */
typedef enum hpq_fclass {
    HPQ_FC_ROOT,
    HPQ_FC_COMPUTE,     /* procedures, loops, calls, regions, OpenMP bodies */
    HPQ_FC_MPI_TRAN,    /* an MPI site whose transmission time >= its sync time */
    HPQ_FC_MPI_SYNC,    /* an MPI site whose sync time is larger */
    HPQ_FC_MPI_CONTROL, /* MPI calls that move no data: Init, Finalize, Comm_rank,
                           Comm_split, ... (sites flagged HP_SITEF_MPI) */
    HPQ_FC_OMP_SYNC,    /* barriers, waits, taskwait, flush */
    HPQ_FC_OMP_CONTROL, /* fork, join, task create */
    HPQ_FC_COUNT
} hpq_fclass;

typedef struct hpq_fnode {
    int64_t id, parent;
    char *label;
    hpq_fclass cls;
    double incl;        /* summed over ranks and threads (seconds) */
    double excl;        /* per rank and thread incl - children, >= 0, summed */
    double sync;        /* an MPI node's synchronization delay, summed (else 0) */
    int depth;          /* 0 at the root */
    size_t nkids;
    struct hpq_fnode **kids;    /* sorted by label, then id */
} hpq_fnode;

typedef struct hpq_ftree {
    hpq_fnode *nodes;   /* by increasing id */
    size_t n;
    hpq_fnode *root;
    int max_depth;
} hpq_ftree;

/* Loads the tree; 0, or -1 with ctx->err set. */
int hpq_ftree_load(const hpq_ctx *ctx, hpq_ftree *tr);
void hpq_ftree_free(hpq_ftree *tr);
/* The node with that id (binary search: nodes are by increasing id), or NULL. */
hpq_fnode *hpq_ftree_find(const hpq_ftree *tr, int64_t id);

#endif
