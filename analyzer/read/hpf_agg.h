/*
 * hpf_agg.h - reading an aggregated profile (HPROF_AGGREGATE,
 * hp_aggprof.h): the run, the ranks' totals and the merged tree with its
 * distributions.  A full profile is read by hpf_read.h.
 */
#ifndef HPF_AGG_H
#define HPF_AGG_H

#include <stddef.h>
#include "hp_aggprof.h"

typedef struct hpf_aggfile {
    uint64_t file_len;
    hp_run_info run;
    uint32_t nranks;
    hp_rank_total *ranks;   /* ranks[i].rank == i */
    hp_aggprof tree;
} hpf_aggfile;

/* 1 when the file at path starts like an aggregated profile, else 0. */
int hpf_is_aggregate(const char *path);
/* 0, or -1 with a one-line message (file, offset, reason) in err. */
int hpf_agg_read(const char *path, hpf_aggfile *out, char *err, size_t errlen);
void hpf_agg_free(hpf_aggfile *f);

#endif
