/*
 * hp_overhead.h - what the end-of-run summary shows of intrusion
 * compensation (hp_compensate.h): a rank's records with the calibrated
 * cost of the measurement taken out (HPROF_COMPENSATE=on, the default),
 * and the estimated overhead of the run either way.  The profile file
 * keeps the raw times.
 */
#ifndef HP_OVERHEAD_H
#define HP_OVERHEAD_H

#include "hp_compensate.h"

/* *shown is rd with compensated node times when compensation is on (its
 * nodes a copy that the caller frees with hp_overhead_view_free; the rest
 * shared with rd), else rd itself; *st the estimate (zero when rd has no
 * calibrated costs).  Returns 0, -1 without memory. */
int hp_overhead_view(const hp_rank_data *rd, hp_rank_data *shown, hp_comp_stats *st);
void hp_overhead_view_free(const hp_rank_data *rd, hp_rank_data *shown);

#endif
