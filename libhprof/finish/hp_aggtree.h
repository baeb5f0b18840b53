/*
 * hp_aggtree.h - building and merging aggregated profiles (hp_aggprof.h)
 * at the end of a run: one rank's from its records, then two parts into
 * one at each step of the reduction tree (pmpi/reduce_tree.c).
 */
#ifndef HP_AGGTREE_H
#define HP_AGGTREE_H

#include "hp_aggprof.h"

/* The aggregate of one rank (rank = rd->info.rank), and its totals. */
int hp_aggtree_from_rank(hp_aggprof *a, const hp_rank_data *rd, hp_rank_total *tot);
/* into += from: sites, nodes and comm classes matched by their keys,
 * distributions combined.  0, or -1 without memory (into then unusable). */
int hp_aggtree_merge(hp_aggprof *into, const hp_aggprof *from);

#endif
