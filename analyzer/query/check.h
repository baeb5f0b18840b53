/*
 * check.h - hprof-query --check: the invariants every profile must
 * satisfy, verified on its database (docs/formats.md, "Checking a profile").
 *
 * Per rank and thread:
 *   a  the children of a node fit in it: sum of their times <= its time
 *      (tolerance HPQ_CHECK_REL of the parent plus HPQ_CHECK_EPS per child;
 *      a thread's root has no time: its children are checked by e);
 *   b  the waits inside a parallel region fit in the region;
 *   c  tasks and waits fit in the construct that ran them (the nearest
 *      "task" or "parallel" node above): a task node is inclusive, so a
 *      task is never counted twice;
 *   d  complete runs only: task creations = executions per construct
 *      (file:line), and a "task create" sits where its creator ran;
 *   e  per rank: the MPI share (rank_mpi) and the OpenMP wait share of
 *      thread time are at most 100%, and per thread the top-level nodes
 *      sum to at most the rank's wall time;
 *   f  a node's numbers agree: time >= 0, no time without calls (but a
 *      task node: the fragments of untied tasks another thread completed
 *      and counted), min <= max <= time <= calls x max.
 */
#ifndef HPQ_CHECK_H
#define HPQ_CHECK_H

#include "checktree.h"

/* Runs every rule; prints a line per violation (at most
 * HPQ_CHECK_MAX_SHOWN) or one "ok" line.  Returns 0 when the profile
 * holds, 1 when it does not, -1 with a message in ctx->err on errors. */
int hpq_check(const hpq_ctx *ctx);

#endif
