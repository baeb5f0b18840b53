/*
 * aggcheck.h - hprof-query --check of an aggregated profile: the rules of
 * check.c that hold for distributions over ranks.
 */
#ifndef HPQ_AGGCHECK_H
#define HPQ_AGGCHECK_H

#include <stdio.h>
#include "read/hpf_agg.h"

/* Prints "check: ok: ..." or one line per problem; 0 when clean, 1 not. */
int hpq_agg_check(const hpf_aggfile *f, char **labels, FILE *out);

#endif
