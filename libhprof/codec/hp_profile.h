/*
 * hp_profile.h - the in-memory picture of one profile, as the writer builds
 * it from the runtime's records and as the reader decodes it from a file,
 * plus the encoder that turns it into the bytes described in hp_format.h.
 */
#ifndef HP_PROFILE_H
#define HP_PROFILE_H

#include "hp_format.h"

typedef struct hp_run_info {
    uint32_t nranks;
    uint32_t clock;          /* enum hp_clock_kind */
    double ticks_per_sec;
    uint64_t start_ns, end_ns;
    char *program;
    uint32_t argc;
    char **argv;
} hp_run_info;

typedef struct hp_rank_info {
    uint32_t rank, threads, pid, flags;
    uint32_t omp_threads;    /* 0 when the program has no OpenMP runtime */
    uint64_t start_ns, end_ns;
    double wall, mpi_time;
    uint64_t overflow_events;
    char *host;
    hp_event_cost cost[HP_COST_KINDS];  /* calibrated event costs; all 0:
                                           unknown (a version 2-3 file) */
} hp_rank_info;

typedef struct hp_rank_data {
    hp_rank_info info;
    uint32_t nstrings;
    char **strings;
    uint32_t nsites;
    hp_site_rec *sites;
    uint32_t nnodes;
    hp_node_rec *nodes;
    uint32_t ncomms;
    hp_comm_rec *comms;
    uint32_t ntasks;
    hp_task_rec *tasks;      /* the task timeline (HPROF_TASK_TRACE) */
    uint32_t nevents;        /* counter events (HPROF_COUNTERS), CNTR section */
    char **events;           /* their names */
    uint32_t ncounters;
    hp_counter_rec *counters;
} hp_rank_data;

/* Growable byte buffer; on allocation failure `failed` is set and further
 * appends are ignored, so callers check once at the end. */
typedef struct hp_buf {
    unsigned char *data;
    size_t len, cap;
    int failed;
} hp_buf;

void hp_buf_free(hp_buf *b);
unsigned char *hp_buf_reserve(hp_buf *b, size_t n); /* NULL on failure */
void hp_buf_put_u32(hp_buf *b, uint32_t v);
void hp_buf_put_u64(hp_buf *b, uint64_t v);
void hp_buf_put_f64(hp_buf *b, double v);
void hp_buf_put_str(hp_buf *b, const char *s);

/* A section of any kind: its header, then (after the payload) its length
 * and CRC patched in. */
size_t hp_section_begin(hp_buf *b, uint32_t tag);
void hp_section_end(hp_buf *b, size_t at);
void hp_encode_preamble(hp_buf *b);
void hp_encode_run(hp_buf *b, const hp_run_info *run);
void hp_encode_rank(hp_buf *b, const hp_rank_data *rd);
/* Its parts around the node and comm sections (live snapshots encode
 * those two themselves): rank info, strings and sites; tasks and counters. */
void hp_encode_rank_head(hp_buf *b, const hp_rank_data *rd);
void hp_encode_rank_tail(hp_buf *b, const hp_rank_data *rd);
/* `file_len` is the length of everything before the END section. */
void hp_encode_end(hp_buf *b, uint32_t nranks, uint64_t file_len);
#define HP_END_SECTION_LEN (HP_SECTION_HEADER_LEN + 12u)

void hp_rank_data_free(hp_rank_data *rd);

/* Decodes a CNTR payload (hp_format.h) of len bytes into rd's events and
 * counters, checking every record against rd's nnodes.  0, or -1 with
 * *bad the offset in the payload and a one-line reason in why. */
int hp_counters_decode(const unsigned char *p, size_t len, hp_rank_data *rd, size_t *bad,
                       char *why, size_t whylen);
void hp_run_info_free(hp_run_info *run);

#endif
