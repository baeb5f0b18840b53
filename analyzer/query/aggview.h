/*
 * aggview.h - hprof-query --check of an aggregated profile (HPROF_AGGREGATE,
 * read/hpf_agg.h), straight from the file's distributions: the rules of
 * check.c on sums over ranks (aggcheck.h).  The other views read the
 * database hprof-merge makes of the profile (db/db_fromagg.h).
 */
#ifndef HPQ_AGGVIEW_H
#define HPQ_AGGVIEW_H

#include <stdio.h>

/* The exit status: 0 clean, 1 (a problem, said on stderr in one line, or
 * problems found, listed on out). */
int hpq_agg_check_file(const char *path, FILE *out);

#endif
