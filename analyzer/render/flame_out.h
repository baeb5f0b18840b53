/*
 * flame_out.h - hprof-query's pictures of the calling-context tree
 * (flame.h): folded stacks (--folded) and a self-contained SVG flame
 * graph (--flamegraph).  flame_out.c writes the folded stacks and a
 * picture whole or not at all; flame_svg.c draws the SVG.
 */
#ifndef HPQ_FLAME_OUT_H
#define HPQ_FLAME_OUT_H

#include <stdio.h>
#include "query/flame.h"

/* Writer of one output: fn(ctx, tree, out) writes to out, 0 or -1. */
typedef int (*hpq_fwriter)(const hpq_ctx *ctx, const hpq_ftree *tr, FILE *out);

/* Writes through fn to path (a temporary file next to it, renamed when
 * complete), or to ctx->out when path is NULL.  0; -1 with ctx->err set
 * on a database error; -2 with ctx->err naming path when it cannot be
 * written (nothing is left behind). */
int hpq_write_output(const hpq_ctx *ctx, const char *path, hpq_fwriter fn);

int hpq_write_folded(const hpq_ctx *ctx, const hpq_ftree *tr, FILE *out);
int hpq_write_flamegraph(const hpq_ctx *ctx, const hpq_ftree *tr, FILE *out);

/* The two reports: --folded [-o FILE] and --flamegraph FILE. */
int hpq_report_folded(const hpq_ctx *ctx, const char *path);
int hpq_report_flamegraph(const hpq_ctx *ctx, const char *path);

#endif
