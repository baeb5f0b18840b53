/*
 * hp_summary.h - the end-of-run summary: a per-site table aggregated over
 * ranks (built on each rank, merged pairwise up a reduction tree, so rank 0
 * never receives every rank's records) and its text rendering.
 */
#ifndef HP_SUMMARY_H
#define HP_SUMMARY_H

#include <stdio.h>
#include "hp_profile.h"
#include "hp_counters.h"

#define HP_AGG_PEERS 8   /* destinations kept per site */

/* One destination of a site: world rank (HP_PEER_ALL: a collective's
 * whole communicator), transfers, and the bytes each way, which say
 * whether the site sent to it, received from it, or both. */
typedef struct hp_agg_peer {
    int32_t peer;
    uint64_t count, sent, recv;
} hp_agg_peer;

typedef struct hp_agg_row {
    char *label;          /* "MPI_Send@jacobi.c:42 (exchange)": the merge key */
    uint32_t kind;
    uint32_t flags;       /* HP_SITEF_THROTTLED of any rank */
    uint64_t count;
    double time_sum, time_max;
    uint32_t max_rank;    /* rank holding time_max */
    double tran, sync;
    uint64_t bytes;
    uint32_t npeers;
    hp_agg_peer peers[HP_AGG_PEERS];
    uint32_t ncounters;   /* HPROF_COUNTERS events, summed like time_sum */
    uint64_t counters[HP_COUNTERS_MAX];
} hp_agg_row;

typedef struct hp_agg {
    uint32_t nranks, threads_max, omp_threads_max;
    double wall_max, wall_sum;
    /* A rank's MPI share: its MPI time (thread-seconds) over wall x the
     * threads that made MPI calls, in percent; never above 100. */
    double mpi_pct_min, mpi_pct_max, mpi_pct_sum;
    double mpi_thread_s;      /* MPI time summed over ranks, thread-seconds */
    uint32_t mpi_threads_min, mpi_threads_max;  /* threads calling MPI per rank */
    uint64_t overflow_events;
    uint32_t overflow_ranks;  /* ranks that reached HPROF_MAX_NODES */
    double omp_wait, omp_thread_time;  /* OpenMP waits; threads x wall */
    double omp_loss;          /* serial time x idle threads (loss of parallelism) */
    /* Intrusion compensation (hp_overhead.h): the estimated cost of the
     * measurement on a rank's busiest thread (max over ranks) and summed
     * over threads and ranks; ranks whose times are shown compensated;
     * nodes clamped (below 0, or children scaled to fit). */
    double overhead_max, overhead_sum;
    uint32_t compensated_ranks;
    uint64_t comp_clamps;
    uint32_t nrows, cap;
    hp_agg_row *rows;
} hp_agg;

/* One rank's table from its snapshot. */
int hp_agg_from_rank(hp_agg *a, const hp_rank_data *rd);
/* into += from (both may hold several ranks). */
int hp_agg_merge(hp_agg *into, const hp_agg *from);
void hp_agg_encode(hp_buf *b, const hp_agg *a);
int hp_agg_decode(hp_agg *a, const unsigned char *p, size_t len);
void hp_agg_free(hp_agg *a);

typedef struct hp_summary_info {
    const char *program;
    const char *profile_path;   /* NULL when no file was written */
    int full;                   /* HPROF_SUMMARY=full */
    int top;                    /* rows in the "on" mode */
    int coll_sync;
} hp_summary_info;

void hp_summary_print(FILE *out, const hp_agg *a, const hp_summary_info *si);

/* Counters (summary_counters.c): adds node's counter values of rd to r;
 * into += from; the block of the first `top` rows (sorted by time) that
 * have counts. */
void hp_agg_add_counters(hp_agg_row *r, const hp_rank_data *rd, uint32_t node);
void hp_agg_merge_counters(hp_agg_row *into, const hp_agg_row *from);
void hp_summary_print_counters(FILE *out, const hp_agg_row *rows, uint32_t nrows, uint32_t top);

#endif
