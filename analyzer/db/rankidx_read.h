/*
 * rankidx_read.h - reading the per-node index of per-rank rows
 * (rankidx.h, rankidx_read.c) for the virtual tables of detail.c.
 */
#ifndef HPF_RANKIDX_READ_H
#define HPF_RANKIDX_READ_H

#include <stddef.h>
#include <stdint.h>
#include <sqlite3.h>
#include "db_order.h"
#include "rankidx.h"

/* The database's index: HPF_RIX_STAT, HPF_RIX_STAT_COMM, or 0 (none:
 * merged without one, or its table dropped). */
int hpf_rix_mode(sqlite3 *db);

/* One node's blob and a cursor on it, for a scan in rank order. */
typedef struct hpf_rix_blob {
    uint32_t node;
    int more;                   /* head holds its next row */
    unsigned char *data;
    hpf_rix_cur cur;
    hpf_rix_row head;
} hpf_rix_blob;

enum { HPF_RIX_ONE = 1, HPF_RIX_NODES, HPF_RIX_RANKS };

/* A scan of stat rows from the index: a batch of rows at a time (one
 * node's, or one rank's), rows[at] and nodes[at] the current row. */
typedef struct hpf_rix_scan {
    int mode;                   /* HPF_RIX_ONE, _NODES or _RANKS */
    hpf_rix_row *rows;
    uint32_t *nodes;
    size_t n, at, cap;
    sqlite3_stmt *one, *all;    /* one node's blob; every node's in order */
    hpf_rix_blob *blobs;        /* rank order: every node's */
    size_t nblobs;
    uint32_t rank;              /* rank order: the next rank */
    int any;                    /* rank order: rows remain */
    char err[256];
} hpf_rix_scan;

/* Starts a scan of node g's rows, or of every row (by_rank: in (rank,
 * thread, node) order, else (node, rank, thread)): 0, or -1 with s->err.
 * A scan is over when s->at == s->n. */
int hpf_rix_scan_node(hpf_rix_scan *s, sqlite3 *db, int64_t g);
int hpf_rix_scan_all(hpf_rix_scan *s, sqlite3 *db, int by_rank);
/* The next row: 0, or -1 with s->err. */
int hpf_rix_scan_next(hpf_rix_scan *s);
void hpf_rix_scan_free_blobs(hpf_rix_scan *s);
void hpf_rix_scan_free(hpf_rix_scan *s);

/* The comm runs of the rows (node, comm blob) sql selects from
 * rank_index, in their order (*runs' `first` unused; the runs' records
 * at (*offsets)[k] in the profile): 0, or -1 with err. */
int hpf_rix_comm_runs(sqlite3 *db, const char *sql, hpf_comm_run **runs, uint64_t **offsets,
                      size_t *nruns, char *err, size_t errlen);

/* Reads comm records from the profile's file descriptor fd. */
typedef struct hpf_rix_comms {
    int fd;
    unsigned char *raw;
    hp_comm_rec *recs;
    uint32_t cap;               /* records room at raw and recs */
} hpf_rix_comms;

/* The n records at offset, valid until the next call: NULL with err. */
const hp_comm_rec *hpf_rix_comm_get(hpf_rix_comms *b, uint64_t offset, uint32_t n,
                                    char *err, size_t errlen);
void hpf_rix_comms_free(hpf_rix_comms *b);

#endif
