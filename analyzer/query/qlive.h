/*
 * qlive.h - the live snapshots of a running job (HPROF_LIVE): finding
 * PATH.live/rank<N>.hpf, merging the latest of them into a temporary
 * database, the header line that says how old each rank's snapshot is,
 * and the snapshots' part in a dead run's merge (a rank killed without
 * writing its own file).
 */
#ifndef HPQ_LIVE_H
#define HPQ_LIVE_H

#include <stddef.h>
#include <stdint.h>
#include <sqlite3.h>
#include "db/parts.h"

/* The live folder of path: path itself when it is a folder, else the
 * profile's path PATH.hpf (or PATH) with .live for .hpf.  Into buf. */
void hpq_live_dir(const char *path, char *buf, size_t len);

/* Merges the snapshots in the live folder of path into a new temporary
 * database (*db_path, malloc'ed: the caller unlinks and frees it) and
 * opens it read-only; header gets "live: ..." (the age of each rank's
 * snapshot, the ranks with none yet).  0, or -1 with one line in err. */
int hpq_live_open(const char *path, sqlite3 **db, char **db_path, char *header, size_t hlen,
                  char *err, size_t errlen);

/* From the second call on, appends to buf (after its text) a line of the
 * rates between each rank's last two snapshots seen by the calls so far: calls/s, MPI and
 * OpenMP wait shares, the ranks that fall behind (qlive_rates.c). */
void hpq_live_rates(hpf_profile *p, char *buf, size_t len);

/* When path names a profile that was never written (ranks killed with
 * SIGKILL) and its live folder holds snapshots: the run's files, in in,
 * and 1 - each rank's NAME.rank<N>.hpf if it wrote one, else its
 * snapshot.  0 when not so; -1 with one line in err. */
int hpq_live_as_run(const char *path, hpf_input *in, char *err, size_t errlen);

/* A dead run's per-rank files (in): adds NAME.live/rank<N>.hpf of each
 * rank N that left no NAME.rank<N>.hpf (killed with SIGKILL), so that its
 * last snapshot stands for its data.  0, or -1 without memory. */
int hpq_live_add_to_parts(hpf_input *in);

/* Appends to buf "rank N: live snapshot from T s before the end" for
 * each rank of p whose records came from a live snapshot among in's files
 * ("; " before each when buf is not empty). */
void hpq_live_note(const hpf_input *in, const hpf_profile *p, char *buf, size_t len);

#endif
