/*
 * hp_aggprof.h - the aggregated profile (HPROF_AGGREGATE): one merged
 * calling-context tree whose nodes carry distributions over ranks instead
 * of every rank's records, so its size is O(nodes) plus O(ranks) per-rank
 * totals.  The same encoding travels up the runtime's reduction tree
 * (pmpi/reduce_tree.c) and goes into the file rank 0 writes.
 *
 * File: preamble with version HP_FORMAT_AGG_VERSION (readers of version 5
 * refuse it in one line), RUN, RTOT, STRS, SITE, ASIT, ANOD, ACOM, END.
 *   RTOT  n x hp_rank_total (HP_RANK_TOTAL_LEN bytes each, rank order)
 *   STRS  as in a rank's block; SITE n x hp_site_rec (merged sites: string
 *         indices into this STRS, parent/callee indices into this SITE)
 *   ASIT  nsites x hp_anode record: per site, the distribution of a rank's
 *         time in the site's outermost nodes (the flat view's), its calls
 *         in all of them; parent HP_NONE, site its index
 *   ANOD  n x hp_anode record (HP_ANODE_LEN bytes): node 0 is the root,
 *         a node's parent precedes it
 *   ACOM  n x hp_acomm record (HP_ACOMM_LEN bytes)
 * A reduction message is STRS, SITE, ASIT, ANOD and ACOM only.
 *
 * Nodes are merged as the analyzer merges them (analyzer/db/merge.c):
 * sites by (kind, name, func, file, line) or (kind, name, module, offset),
 * nodes by (parent, site), every thread's root is node 0.  Per node and
 * rank the value is the rank's compensated time summed over its threads
 * (hp_compensate.h), as hprof-merge's node_time takes it.
 *
 * Histogram: HP_AGG_BINS fixed log-spaced bins of per-rank time, so that
 * two parts merge exactly (bins relative to min/max would not): bin 0
 * holds ranks below 1 us, bin k (1..14) [10^((k-13)/2), 10^((k-12)/2)) s,
 * i.e. half-decades from 1 us to 10 s, bin 15 ranks of 10 s and more.
 */
#ifndef HP_AGGPROF_H
#define HP_AGGPROF_H

#include "hp_profile.h"

#define HP_FORMAT_AGG_VERSION 6u
#define HP_AGG_BINS 16

#define HP_SEC_RTOT HP_FOURCC('R', 'T', 'O', 'T')
#define HP_SEC_ANOD HP_FOURCC('A', 'N', 'O', 'D')
#define HP_SEC_ASIT HP_FOURCC('A', 'S', 'I', 'T')
#define HP_SEC_ACOM HP_FOURCC('A', 'C', 'O', 'M')

/* One merged node: its distribution over the ranks that ran it. */
typedef struct hp_anode {
    uint32_t parent;     /* node index, HP_NONE for the root */
    uint32_t site;       /* index into the merged sites */
    uint32_t ranks;      /* ranks with a record of it */
    uint32_t max_rank;   /* lowest rank holding max */
    uint32_t max_thread; /* that rank's thread with the most time (lowest
                            of equals) */
    uint64_t calls;      /* summed over ranks and threads */
    double time;         /* summed over ranks (compensated, inclusive) */
    double min, max;     /* over the ranks that ran it */
    double excl;         /* exclusive time, per rank and thread, summed */
    uint32_t hist[HP_AGG_BINS];
} hp_anode;
#define HP_ANODE_LEN (5 * 4 + 8 + 4 * 8 + HP_AGG_BINS * 4)

/* Peer classes of a node's communication: the rank x rank matrix is not
 * kept; every point-to-point peer adds to one class. */
enum hp_peer_class { HP_PEERC_P2P = 0, HP_PEERC_COLL = 1, HP_PEERC_FILE = 2 };

typedef struct hp_acomm {
    uint32_t node, pclass;      /* enum hp_peer_class */
    uint32_t ranks, max_rank;   /* ranks with records; lowest with most time */
    uint64_t count, sent, recv;
    double tran, sync;          /* summed */
    double min, max;            /* single transfer */
    double rank_max;            /* most tran + sync of one rank */
} hp_acomm;
#define HP_ACOMM_LEN (4 * 4 + 3 * 8 + 5 * 8)

/* One rank's totals (RTOT). */
typedef struct hp_rank_total {
    uint32_t rank, threads, flags, omp_threads;
    uint32_t mpi_threads;         /* threads that made MPI calls */
    double wall, mpi_time, time;  /* time: its root's compensated time */
    uint64_t sent, recv, messages;  /* with rank peers (not *all*, *file*) */
    char host[64];
} hp_rank_total;
#define HP_RANK_TOTAL_LEN (5 * 4 + 3 * 8 + 3 * 8 + 64)

typedef struct hp_aggprof {
    uint32_t nstrings, capstrings;
    char **strings;               /* 0 is "" */
    uint32_t nsites, capsites;
    hp_site_rec *sites;
    hp_anode *sitedist;           /* nsites, capsites: ASIT */
    uint32_t nnodes, capnodes;
    hp_anode *nodes;
    uint32_t ncomms, capcomms;
    hp_acomm *comms;
} hp_aggprof;

/* The histogram bin of a per-rank time. */
uint32_t hp_agg_bin(double seconds);
/* The lower bound of bin k, seconds (0 for bin 0). */
double hp_agg_bin_low(uint32_t k);

void hp_aggprof_encode(hp_buf *b, const hp_aggprof *a);
void hp_rank_totals_encode(hp_buf *b, const hp_rank_total *t, uint32_t n);
void hp_encode_agg_preamble(hp_buf *b);
/* Decodes the STRS, SITE, ANOD, ACOM sections at p (len bytes), checking
 * every index; 0, or -1 with *bad the offending offset. */
int hp_aggprof_decode(hp_aggprof *a, const unsigned char *p, size_t len, size_t *bad);
/* The RTOT section at p: the bytes it took, or -1. */
int hp_rank_totals_decode(const unsigned char *p, size_t len, hp_rank_total **t, uint32_t *n);
void hp_aggprof_free(hp_aggprof *a);

#endif
