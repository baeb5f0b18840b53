/*
 * merge.h - unifies the per-rank models of a decoded profile: sites equal
 * across ranks get one global id, and the calling-context trees of all
 * ranks and threads fold into one merged tree.  Ids are 1-based (they
 * become SQLite row ids); 0 means "none".
 */
#ifndef HPF_MERGE_H
#define HPF_MERGE_H

#include "read/hpf_read.h"

typedef struct hpf_gsite {
    uint32_t rank, local;   /* first occurrence: rank and its local site id */
    uint32_t parent;        /* global ids, 0 if none */
    uint32_t callee;
    char *label;            /* see hpf_site_label; " [est]" appended when
                               any rank estimated its time (HP_SITEF_ESTIMATED) */
    uint32_t throttled;     /* HP_SITEF_THROTTLED and HP_SITEF_ESTIMATED of
                               any rank (the site's flags are its first rank's) */
} hpf_gsite;

typedef struct hpf_gnode {
    uint32_t parent;        /* merged node id, 0 for the root */
    uint32_t site;          /* global site id */
    uint32_t depth;         /* 0 for the root */
    int outer;              /* no ancestor has the same site: its inclusive
                               time is not already inside another's */
    uint32_t lo, hi;        /* preorder interval: a node's subtree is the nodes
                               whose lo lies in [lo, hi] (no path strings:
                               paths are built from parent links on demand) */
} hpf_gnode;

typedef struct hpf_merged {
    uint32_t nsites;
    hpf_gsite *sites;       /* global site id i+1 is sites[i] */
    uint32_t nnodes;
    hpf_gnode *nodes;       /* merged node id i+1 is nodes[i]; 1 is the root */
    uint32_t nranks;
    uint32_t **site_map;    /* site_map[rank][local site] = global id */
    uint32_t **node_map;    /* node_map[rank][local node] = merged id */
} hpf_merged;

/* Returns 0, or -1 when out of memory or a profile's file was cut short
 * (m is then freed).  Node records left in the file (hpf_read_lazy) are
 * loaded rank by rank and dropped again. */
int hpf_merge(hpf_profile *p, hpf_merged *m);
void hpf_merged_free(hpf_merged *m);

/* The last steps of hpf_merge on sites and nodes already in m (a node
 * after its parent): " [est]" on the labels of estimated sites, the
 * preorder intervals and the outer marks.  0, or -1 without memory. */
int hpf_merge_finish(hpf_merged *m);

/* Human label of a site: "MPI_Send@file.c:42", "MPI_Send@libx.so+0x1a2b"
 * when unresolved, the function name for procedures.  malloc'ed. */
char *hpf_site_label(const hp_rank_data *rd, const hp_site_rec *s);

#endif
