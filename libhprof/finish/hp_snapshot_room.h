/*
 * hp_snapshot_room.h - what a live snapshot (hp_snapshot_live) keeps for
 * the next one, so that a large tree whose counts mostly stand still
 * costs little: rd's node and comm arrays (reused, never faulted in
 * again), where each thread's records are in them (a record whose counts
 * did not move is not written again, and a bit says which were), and the
 * records whose time is MPI time (only new records are classified).
 * Used by snapshot.c; the live image (hp_snapshot_image.h) holds one.
 */
#ifndef HP_SNAPSHOT_ROOM_H
#define HP_SNAPSHOT_ROOM_H

#include <stddef.h>
#include <stdint.h>
#include "hp_profile.h"

typedef struct hp_snapshot_room {
    size_t nodes, comms;      /* capacities of rd->nodes and rd->comms */
    uint64_t *changed;        /* bit i: rd->nodes[i] was (re)written */
    size_t changed_words;
    uint32_t *bases, *counts; /* thread i's first record and records */
    uint32_t nthreads;        /* 0: nothing known, every record is read */
    double per_tick;          /* the seconds of a tick they were taken with */
    unsigned char *inside;    /* per record: MPI or beneath an MPI record */
    uint32_t *mpi;            /* the outermost MPI records, in order */
    uint32_t nmpi, classified; /* of mpi; records classified so far */
    size_t inside_cap, mpi_cap;
} hp_snapshot_room;

/* The bitmap of changed records, for n records, all clear.  0 or -1. */
int hp_room_clear_changed(hp_snapshot_room *room, uint64_t n);
static inline void hp_room_mark(hp_snapshot_room *room, uint32_t id)
{
    room->changed[id >> 6] |= 1ull << (id & 63);
}
/* How many of thread i's records, at base now, the kept array holds at
 * the same place from the last snapshot (0: none). */
uint32_t hp_room_known(const hp_snapshot_room *room, uint32_t i, uint32_t base);
/* Each thread's base and count (counts[2 i]) for the next snapshot. */
void hp_room_remember(hp_snapshot_room *room, const uint32_t *counts, uint32_t nt);
/* hp_rank_mpi_time of rd, classifying only the records new since the
 * last snapshot (all of them when records moved). */
double hp_room_mpi_time(hp_snapshot_room *room, const hp_rank_data *rd);
void hp_snapshot_room_free(hp_snapshot_room *room);

#endif
