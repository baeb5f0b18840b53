/*
 * hp_finish.h - the one end-of-run pipeline, for serial and MPI runs
 * alike.  Its stages, in order:
 *   1. take  - the sources close what is open (hp_source.h), the clock is
 *              refined, dynamic sites are resolved to file:line, and the
 *              records are read (snapshot: sinks only read) into an
 *              hp_rank_data with the run's description;
 *   2. agg   - the per-site summary (one rank's, or reduced over ranks by
 *              pmpi/reduce.c);
 *   3. write - the profile: by this process alone (a serial run, or the
 *              rank that calls MPI_Abort: the other ranks' blocks marked
 *              missing), or collectively with MPI-IO (pmpi/output.c);
 *   4. print - the summary on stderr (rank 0).
 * process.c (at exit) and pmpi/init.c (MPI_Finalize, MPI_Abort) drive it.
 */
#ifndef HP_FINISH_H
#define HP_FINISH_H

#include <stddef.h>
#include "hp_profile.h"
#include "hp_summary.h"

/* Stage 1: this rank's records and, in *run, the run's description
 * (the command line is read unless run->program is set).  0, or -1 when
 * memory ran out and rd is incomplete. */
int hp_finish_take(hp_rank_data *rd, hp_run_info *run, uint32_t rank, uint32_t nranks);

/* Stage 3 without MPI: a whole profile of run->nranks blocks written by
 * this process, rd's at rd->info.rank and the others empty and flagged
 * missing, under the profile path with ".<tag>" (tag NULL: none).  0, or
 * -1 with errno set (ENOMEM: out of memory) and nothing written; path
 * "" when there was no place to write it (one warning already said why). */
int hp_finish_write_local(const hp_rank_data *rd, const hp_run_info *run, const char *tag,
                          char *path, size_t len);
/* The same under the given path, used as it is. */
int hp_finish_write_local_at(const hp_rank_data *rd, const hp_run_info *run, const char *path);
/* The block of a rank whose records are not in such a file. */
void hp_finish_encode_missing_rank(hp_buf *b, uint32_t rank);

/* Stage 4: the summary of agg, naming the profile written at path (NULL:
 * none was written). */
void hp_finish_print(const hp_agg *agg, const hp_run_info *run, const char *path);

/* All four stages for a process that never called MPI_Init. */
void hp_finish_serial(void);
/* The same for such a process that is dying (hp_crash.h's writer):
 * flags are the rank's HP_RANKF_*; one line instead of the summary. */
void hp_finish_serial_dying(uint32_t flags);
/* How who ended (flags HP_RANKF_*): "SIGTERM ended rank 2", "rank 2
 * exited without MPI_Finalize". */
const char *hp_finish_ending(uint32_t flags, const char *who, char *buf, size_t len);

#endif
