/*
 * interactive.h - hprof-query -i: a command loop over one database with a
 * current node (ls, cd, pwd, top, comm, ranks, threads, flat, sql, ...),
 * each command running the report hprof-query runs for its option.
 */
#ifndef HPQ_INTERACTIVE_H
#define HPQ_INTERACTIVE_H

#include <stdio.h>
#include "query/report.h"

/* Reads commands from `in` until EOF or quit: with a prompt and line
 * editing when `in` is a terminal (and libedit was found), else line by
 * line without a prompt.  A failing command prints one line on stderr
 * and the loop goes on.  Returns 0. */
int hpq_interactive(const hpq_ctx *ctx, FILE *in);

#endif
