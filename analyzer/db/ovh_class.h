/*
 * ovh_class.h - the overhead classes of hprof-query --overheads (the
 * SCALEA seed): the class of every site, and the definition of the two
 * tables the report reads, ovh_x (per node) and ovh_rank (per rank).
 *
 * hprof-merge stores both tables, computed in C rank by rank
 * (db_aggovh.c), except for a profile of one rank and one thread (its
 * rows are as small as the tables); the SQL here is their definition:
 * `hprof-merge --aggregate` re-runs it over the rows, and overheads.c
 * runs it into TEMP tables (which shadow the stored ones) under --raw or
 * on a database without them.  The schema:
 *
 *   ovh_x(node, lo, c0, c1, c2, c3, c5, loss): a node other than the root
 *     that has rows, its preorder lo, its exclusive time (per rank and
 *     thread: own - children, at least 0) summed over ranks and threads by
 *     class (c0 computation, c1 data movement, c2 synchronization, c3
 *     control, c5 unidentified), and its loss of parallelism: over the
 *     ranks, (T - 1) x f x the first thread's time in it outside parallel
 *     regions, 0 in or at a parallel region;
 *   ovh_rank(rank, wall, t, other, loss, f): per rank present its wall
 *     time, its threads T = max(threads, omp_threads, 1), the classified
 *     exclusive time of its nodes, its loss (the idle threads' time while
 *     the first thread runs serially, at most what wall x T leaves) and
 *     the share f of the idle time counted as loss.
 */
#ifndef HPF_OVH_CLASS_H
#define HPF_OVH_CLASS_H

#include <stddef.h>
#include <stdint.h>
#include <sqlite3.h>

enum hpf_oclass {
    HPF_OC_COMP, HPF_OC_DATA, HPF_OC_SYNC, HPF_OC_CTRL, HPF_OC_LOSS, HPF_OC_UNID, HPF_OC_N
};

/* The class of a site of kind `kind` (hp_kind_name), record name `name`
 * (may be NULL) and flags (HP_SITEF_*), as the SQL definition's: a site
 * flagged MPI that is not communication counts as kind "mpi"; an exact
 * (kind, name) entry first, then the kind's default, else computation. */
enum hpf_oclass hpf_ovh_site_class(const char *kind, const char *name, uint32_t flags);

/* The stored tables as hprof-merge creates them (empty, with indices). */
extern const char hpf_ovh_schema_sql[];

/* TEMP tables ovh_class (the class table) and ovh_node(id, parent, lo,
 * hi, depth, class, par, inpar): every node, its class, whether it is a
 * parallel region and whether one lies above it.  0, or -1 with err. */
int hpf_ovh_classify_nodes(sqlite3 *db, char *err, size_t errlen);

/* The definition: TEMP tables ovh_x and ovh_rank (with indices) from the
 * stat, comm and rank rows; needs hpf_ovh_classify_nodes first.  0, or -1
 * with err. */
int hpf_ovh_define(sqlite3 *db, char *err, size_t errlen);

/* Recomputes the stored ovh_x and ovh_rank from the rows with the
 * definition (hprof-merge --aggregate, inside its transaction).  0, or
 * -1 with err. */
int hpf_ovh_reaggregate(sqlite3 *db, char *err, size_t errlen);

/* 1 when the database holds ovh_x and ovh_rank and they apply (stat is
 * the stored one, not --raw's TEMP view over the raw times), else 0. */
int hpf_ovh_stored(sqlite3 *db);

#endif
