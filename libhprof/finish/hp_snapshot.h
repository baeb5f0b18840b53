/*
 * hp_snapshot.h - copies this process's live records (site registry and
 * every thread's tree) into the neutral hp_rank_data picture that the
 * file writer and the summary read.
 */
#ifndef HP_SNAPSHOT_H
#define HP_SNAPSHOT_H

#include "hp_profile.h"
#include "hp_snapshot_room.h"

/* Fills rd's strings, sites, nodes, comms and task timeline (times from
 * start_ticks, the rank's start; activations still open are closed at
 * end_ticks, the end of its wall window), and info.threads, info.mpi_time,
 * info.overflow_events, info.flags; the caller fills the rest of rd->info.
 * Returns 0, or -1 when memory ran out. */
int hp_snapshot(hp_rank_data *rd, uint64_t start_ticks, uint64_t end_ticks);


/* The same while the process runs, from another thread (hp_live.h):
 * only calls that have ended (none still open), no counters and no task
 * timeline; records created while it reads are left for the next one.
 * room NULL: rd is empty and every array new; otherwise rd's node and comm
 * arrays (room's capacities) are reused and grown, and the rest of rd is
 * empty.  0, or -1 without memory. */
int hp_snapshot_live(hp_rank_data *rd, uint64_t now_ticks, hp_snapshot_room *room);

/* The counter values of the first counts[2 i] nodes of each thread i
 * (HPROF_COUNTERS; nothing when none count) into rd's CNTR records, node
 * ids numbered as hp_snapshot numbers them.  0, or -1 without memory. */
int hp_snapshot_counters(hp_rank_data *rd, const uint32_t *counts, uint32_t nt);

/* Time of the outermost MPI nodes of rd (communication statements and
 * local MPI calls, HP_SITEF_MPI), summed over its threads: the rank's MPI
 * time in thread-seconds. */
double hp_rank_mpi_time(const hp_rank_data *rd);
/* Whether record i of rd is an outermost MPI record (its time is MPI
 * time), with inside[i] set when it is MPI or beneath such a record
 * (inside[] of the records before it set). */
int hp_rank_outermost_mpi(const hp_rank_data *rd, uint32_t i, unsigned char *inside);
/* Threads of rd that made an MPI call (have a communication node that
 * counted calls): MPI time is a share of this many times the wall. */
uint32_t hp_rank_mpi_threads(const hp_rank_data *rd);

#endif
