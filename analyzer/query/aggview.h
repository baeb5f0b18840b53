/*
 * aggview.h - hprof-query on an aggregated profile (HPROF_AGGREGATE,
 * read/hpf_agg.h): the run header and top-down tree, --flat, --comm SITE
 * and --check, straight from the file's distributions (no database: its
 * per-rank rows do not exist).
 */
#ifndef HPQ_AGGVIEW_H
#define HPQ_AGGVIEW_H

#include <stdio.h>
#include "table.h"

typedef struct hpq_agg_request {
    int flat, check;
    const char *comm_site;
    hpq_format format;
    long depth;     /* tree: deepest level listed, -1 all */
    long top;       /* rows listed (tree and flat), 0 all */
} hpq_agg_request;

/* The exit status: 0, 1 (a problem, said on stderr in one line, or
 * --check found some). */
int hpq_agg_report(const char *path, const hpq_agg_request *rq, FILE *out);

#endif
