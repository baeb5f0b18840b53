/*
 * detail_src.h - the profile behind a database merged without per-rank
 * rows, decoded once and indexed by merged node (detail_src.c): what the
 * virtual tables of detail.c read their rows from.
 */
#ifndef HPF_DETAIL_SRC_H
#define HPF_DETAIL_SRC_H

#include <stddef.h>
#include <sqlite3.h>
#include "db_order.h"
#include "dbcomp.h"
#include "merge.h"
#include "rankidx_read.h"
#include "statrow.h"

typedef struct hpf_detail_src {
    int state;                  /* 0 not read yet, 1 read, -1 failed (err) */
    int rix;                    /* the per-rank index (rankidx.h): 0 not looked at yet,
                                   -1 none, HPF_RIX_STAT or HPF_RIX_STAT_COMM */
    uint32_t nnodes;            /* merged nodes, once the index or the profile is read */
    char err[1024];
    hpf_profile p;              /* node records decoded, comm records in the file */
    hpf_merged m;
    hpf_comp comp;
    hpf_stat_ref *refs;         /* node records in (node, rank, thread) order */
    size_t nrefs;
    size_t *node_refs;          /* node g's records: refs[node_refs[g] .. node_refs[g+1]) */
    hpf_stat_ref *rank_refs;    /* the same in (rank, thread, node) order, once asked for */
    hpf_comm_run *runs;         /* comm records in node order */
    size_t nruns;
    int64_t *run_id;            /* id of run k's first row (comm.id), run_id[nruns] = rows + 1 */
    size_t *node_runs;          /* node g's runs: runs[node_runs[g] .. node_runs[g+1]) */
    uint64_t *run_offset;       /* runs from the index: run k's records in the profile */
    int comm_fd;                /* ... read from this file (comm_fd_open) */
    int comm_fd_open;
    struct hpf_node_runs *node_idx; /* from the index: node g's runs, once asked for */
    size_t cached;              /* comm records held there (at most HPF_DETAIL_CACHE) */
} hpf_detail_src;

/* One node's comm runs from the index (hpf_detail_node_runs): run k's
 * records at offset[k] in the profile, its first row's id id[k] (id[n]:
 * the last id + 1); recs, when not NULL, every record of the node read
 * once (run k's at recs[id[k] - id[0]]). */
typedef struct hpf_node_runs {
    int done;
    size_t n;
    hpf_comm_run *runs;
    uint64_t *offset;
    int64_t *id;
    hp_comm_rec *recs;
} hpf_node_runs;

/* The comm records of nodes kept in memory for the scans after the first
 * (a view reads a site's rows several times): at most this many. */
#define HPF_DETAIL_CACHE ((size_t)1 << 20)

/* Reads the profile that db (its run keys source_files, source, source_id)
 * was merged from and merges it, once: 0, or -1 with s->err one line
 * naming the profile ("gone or changed: keep it or merge with --detail"). */
int hpf_detail_load(hpf_detail_src *s, sqlite3 *db);

/* Makes the rows of `stat` (comm 0) or `comm` (1) readable: from the
 * per-rank index when the database has one (rankidx.h; the comm records
 * then read from the profile, s->run_offset), else from the profile
 * decoded (hpf_detail_load, then hpf_detail_stats or _comms).  0, or -1
 * with s->err. */
int hpf_detail_ready(hpf_detail_src *s, sqlite3 *db, int comm);

/* From the index (s->rix HPF_RIX_STAT_COMM, hpf_detail_ready done): node
 * g's comm runs, decoded from its blob alone and numbered from its
 * comm_range, and its records read while they fit (HPF_DETAIL_CACHE);
 * or every node's runs in s->runs, s->run_id, s->run_offset (a scan by
 * id or of everything).  NULL / -1 with s->err. */
const hpf_node_runs *hpf_detail_node_runs(hpf_detail_src *s, sqlite3 *db, int64_t g);
int hpf_detail_comm_all(hpf_detail_src *s, sqlite3 *db);

/* Once loaded: the stat rows' index (the ranks compensated, refs,
 * node_refs), the comm rows' (runs, node_runs, run_id), each made on
 * first use.  0, or -1 with s->err. */
int hpf_detail_stats(hpf_detail_src *s);
int hpf_detail_comms(hpf_detail_src *s);
void hpf_detail_free(hpf_detail_src *s);

/* s->rank_refs made (once): 0, or -1 without memory. */
int hpf_detail_rank_order(hpf_detail_src *s);

/* The stat row made of refs [k, *next) (s->refs or s->rank_refs): the
 * records of one node, rank and thread from k on. */
hpf_stat_row hpf_detail_stat(const hpf_detail_src *s, const hpf_stat_ref *refs, size_t k,
                             size_t *next);

/* The index of the run holding comm row `id` (1-based), or nruns. */
size_t hpf_detail_run_of(const hpf_detail_src *s, int64_t id);

#endif
