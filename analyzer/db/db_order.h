/*
 * db_order.h - the stat and comm rows in merged-node order (db_order.c):
 * the database keeps a node's rows together, so that a node's rows are
 * one range of the table's key and no index has to be sorted after.
 */
#ifndef HPF_DB_ORDER_H
#define HPF_DB_ORDER_H

#include <stddef.h>
#include <stdint.h>
#include "read/hpf_read.h"
#include "merge.h"

/* Consecutive comm records of one rank and one local node. */
typedef struct hpf_comm_run {
    uint32_t node;      /* merged node id */
    uint32_t rank;
    uint32_t first, n;  /* records [first, first + n) of the rank */
    uint32_t thread;
} hpf_comm_run;

/* The comm records of a profile, read rank by rank or run by run: a
 * rank's records still in the file of a mapped profile are read from it
 * (pread: the pages are not kept, and another thread may decode and free
 * them meanwhile, hpf_load_comms), decoded ones where they are (a pipe,
 * ranks taken from other files).  Opened before that thread starts. */
typedef struct hpf_comm_src {
    const hpf_profile *p;
    int fd;                 /* the mapped profile's file, or -1 */
    unsigned char *in_file; /* per rank: its records are read from fd */
    unsigned char *buf;
    size_t cap;             /* bytes at buf */
    hp_comm_rec *recs;
    size_t nrecs;           /* records at recs */
} hpf_comm_src;

int hpf_comm_src_open(hpf_comm_src *s, const hpf_profile *p, char *err, size_t errlen);
void hpf_comm_src_close(hpf_comm_src *s);

/* Records [first, first + n) of rank r, valid until the next call.  NULL
 * with err set (out of memory, a file cut short). */
const hp_comm_rec *hpf_comm_src_get(hpf_comm_src *s, uint32_t r, uint32_t first, uint32_t n,
                                    char *err, size_t errlen);

/* The runs of every rank's comm records, in merged-node order (ranks in
 * order within a node, records in order within a rank): *runs (free it),
 * *nruns.  Needs the node records (the thread of a run).  0, or -1 with
 * err set. */
int hpf_comm_runs(hpf_comm_src *s, const hpf_merged *m, hpf_comm_run **runs, size_t *nruns,
                  char *err, size_t errlen);

/* One node record of one rank. */
typedef struct hpf_stat_ref {
    uint32_t rank, local;
} hpf_stat_ref;

/* Every rank's node records in (merged node, rank, thread) order: *refs
 * (free it), *nrefs.  Records of one rank, merged node and thread (two
 * sites of a rank merged into one) are adjacent.  0, or -1 without
 * memory. */
int hpf_stat_order(const hpf_profile *p, const hpf_merged *m, hpf_stat_ref **refs,
                   size_t *nrefs);

#endif
