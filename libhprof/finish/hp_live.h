/*
 * hp_live.h - live snapshots (HPROF_LIVE=S): a thread of the runtime
 * that, every S seconds, writes this rank's records as they stand to
 * PATH.live/rank<N>.hpf (PATH: the profile's path without .hpf), the same
 * whole-run file a dying rank writes (the other ranks marked missing), so
 * that hprof-query merges them like a dead run's per-rank files.
 *
 * The thread calls no MPI and takes no lock the hot path takes.  It reads
 * the other threads' trees while they grow (hp_snapshot_live): a node or
 * comm record is counted once its fields are set (the counts are published
 * with release stores), chunks never move and a thread's old chunk tables
 * are kept, so every read is of memory that stays valid.  Each counter is
 * one aligned 64-bit word, read whole: a torn read can pair a call's count
 * with the time before that call (count one ahead of time, min not yet
 * set), never a count lower than an earlier snapshot's nor above what the
 * thread had at that moment.  Calls still open are left out; a reset
 * (MPI_Pcontrol(2)) starts the counts over.  The file is written under a
 * temporary name and renamed: a reader sees the old snapshot or the new.
 * The thread (named hprof-live) keeps its last snapshot for the next
 * (hp_snapshot_image.h): only the records whose counts moved cost.
 */
#ifndef HP_LIVE_H
#define HP_LIVE_H

#include <stdint.h>

/* Starts the snapshot thread for rank of nranks when HPROF_LIVE is set
 * (after the rank and the profile's name are known); nothing otherwise. */
void hp_live_start(uint32_t rank, uint32_t nranks);
/* Stops the thread and waits for it, at most 3 s (a snapshot under way
 * is finished; a thread that a fatal signal stopped is left). */
void hp_live_stop(void);
/* Removes this rank's snapshot, and PATH.live/ once it is empty: the
 * rank's own profile has been written and replaces it. */
void hp_live_remove(void);
/* Writes one snapshot now (the thread's work; tests and bench).  0, or
 * -1 with errno set. */
int hp_live_write(void);

#endif
