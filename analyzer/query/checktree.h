/*
 * checktree.h - the checker of hprof-query --check (check.h) and its
 * per (rank, thread) tree rules (checktree.c): the checker's state, the
 * node paths and roles, and how a violation is printed and counted.
 */
#ifndef HPQ_CHECKTREE_H
#define HPQ_CHECKTREE_H

#include <stdint.h>
#include "report.h"

#define HPQ_CHECK_REL 0.01      /* 1% of the enclosing time */
#define HPQ_CHECK_EPS 2e-6      /* seconds per record summed: clock granularity */
#define HPQ_CHECK_MAX_SHOWN 20  /* violations printed */

/* What a run of the checker found and looked at. */
typedef struct hpq_checker {
    const hpq_ctx *ctx;
    uint64_t violations;
    uint64_t nodes_checked;   /* (node, rank, thread) records */
    uint64_t groups;          /* (rank, thread) pairs */
    uint64_t task_pairs;      /* (rank, construct) pairs compared in rule d */
    uint64_t ranks;
    int complete;             /* rule d applies: no rank aborted, missing, overflowed */
    /* the node table, indexed by node id (1..nnodes) */
    uint32_t nnodes;
    uint32_t *parent;
    unsigned char *role;      /* enum hpq_node_role */
    char **label;             /* the node's site label ("" for the root) */
} hpq_checker;

/* The path "/label/label/..." of node id ("/" for the root), built from
 * the parent links into buf (cut with "..." when it does not fit). */
const char *hpq_node_path(const hpq_checker *ck, uint32_t id, char *buf, size_t len);

enum hpq_node_role { HPQ_ROLE_OTHER, HPQ_ROLE_REGION, HPQ_ROLE_TASK, HPQ_ROLE_WAIT,
                     HPQ_ROLE_CREATE };

/* Prints violation number ck->violations + 1 (if still shown) and counts it.
 * rank/thread < 0: not about one. */
void hpq_violation(hpq_checker *ck, char rule, int64_t rank, int64_t thread, uint32_t node,
                   const char *fmt, ...) __attribute__((format(printf, 6, 7)));

/* Rules a, b, c, f and the placement half of d, over the stat table (checktree.c). */
int hpq_check_trees(hpq_checker *ck);

#endif
