/*
 * rankidx.h - the per-node index of per-rank rows (issue 26): in
 * aggregate mode hprof-merge writes, for each merged node, the stat rows
 * hprof-merge --detail would have stored (compensated, one per rank and
 * thread) and where the node's comm records lie in the profile, so that
 * the virtual tables of detail.c answer `node = N` without decoding
 * every rank (docs/formats.md, "The per-rank index").
 *
 * Table rank_index(node INTEGER PRIMARY KEY, comm BLOB, stat BLOB), one
 * row per node with records; run key `rank_index`: 1 stat only, 2 stat
 * and comm.  Both blobs are sequences of unsigned LEB128 varints:
 *   stat, per row in (rank, thread) order: rank - the previous row's
 *   rank (0 before the first), thread, count, flags, [timed unless
 *   flag TIMED_ALL], then the doubles not given by a flag, 8 bytes
 *   little-endian each, in the order raw_time, raw_min, raw_max, time,
 *   min, max;
 *   comm, per run of one rank's consecutive records of the node, in
 *   rank then record order: rank delta as above, thread, record count,
 *   byte offset of the first record in the profile.
 */
#ifndef HPF_RANKIDX_H
#define HPF_RANKIDX_H

#include <stddef.h>
#include <stdint.h>
#include "db_aggregator.h"
#include "statrow.h"

/* The stat row flags: a double equal (bit for bit) to another is not stored. */
enum {
    HPF_RIX_TIMED_ALL = 1,      /* timed == count */
    HPF_RIX_RMIN_IS_RTIME = 2,  /* raw_min == raw_time */
    HPF_RIX_RMAX_IS_RMIN = 4,   /* raw_max == raw_min */
    HPF_RIX_TIME_IS_RAW = 8,    /* time == raw_time */
    HPF_RIX_MIN_IS_RAW = 16,    /* min == raw_min */
    HPF_RIX_MAX_IS_RAW = 32,    /* max == raw_max */
    HPF_RIX_MAX_IS_MIN = 64,    /* max == min (when not raw_max) */
};

/* The run key's values. */
enum { HPF_RIX_STAT = 1, HPF_RIX_STAT_COMM = 2 };

/* Writes rank_index in aggregate mode (db_rows.c runs it with the others). */
extern const hpf_aggregator hpf_rankidx_aggregator;

/* One decoded stat row. */
typedef struct hpf_rix_row {
    uint32_t rank, thread;
    hpf_stat_row v;
} hpf_rix_row;

/* One decoded comm run. */
typedef struct hpf_rix_run {
    uint32_t rank, thread, n;
    uint64_t offset;
} hpf_rix_run;

/* A reader of one blob. */
typedef struct hpf_rix_cur {
    const unsigned char *at, *end;
    uint32_t rank;
} hpf_rix_cur;

static inline hpf_rix_cur hpf_rix_open(const void *blob, size_t len)
{
    return (hpf_rix_cur){blob, (const unsigned char *)blob + len, 0};
}

/* The next row (run) of the blob: 1, 0 at its end, -1 when it is cut short. */
int hpf_rix_next_stat(hpf_rix_cur *c, hpf_rix_row *out);
int hpf_rix_next_run(hpf_rix_cur *c, hpf_rix_run *out);

#endif
