/*
 * statrow.h - one row of the `stat` table: the node records of one
 * (merged node, rank, thread) summed, usually one record (two sites of a
 * rank merged into one node give two).  Shared by the merge, which writes
 * the rows (db_rows.c), and the per-rank rows read back from the profile
 * of a database merged without them (detail.c), so both give the same
 * numbers.
 */
#ifndef HPF_STATROW_H
#define HPF_STATROW_H

#include <stdint.h>
#include "hp_profile.h"

typedef struct hpf_stat_row {
    uint64_t count, timed;
    double time, min, max;          /* compensated */
    double raw_time, raw_min, raw_max;
} hpf_stat_row;

/* Record i of a rank with n node records and compensated values v
 * (time, min, max: dbcomp.h). */
static inline hpf_stat_row hpf_stat_record(const hp_node_rec *nd, const double *v, uint32_t n,
                                           uint32_t i)
{
    return (hpf_stat_row){nd->count, nd->timed, v[i], v[n + i], v[2 * n + i],
                          nd->time, nd->min, nd->max};
}

/* Folds b (another record of the row) into a: minima over timed records. */
static inline void hpf_stat_add(hpf_stat_row *a, const hpf_stat_row *b)
{
    if (b->timed > 0 && (a->timed == 0 || b->min < a->min))
        a->min = b->min;
    if (b->timed > 0 && (a->timed == 0 || b->raw_min < a->raw_min))
        a->raw_min = b->raw_min;
    a->max = b->max > a->max ? b->max : a->max;
    a->raw_max = b->raw_max > a->raw_max ? b->raw_max : a->raw_max;
    a->count += b->count;
    a->timed += b->timed;
    a->time += b->time;
    a->raw_time += b->raw_time;
}

#endif
