/*
 * hp_snapshot_image.h - a rank's live snapshot (hp_live.h) kept in memory
 * from one snapshot to the next, so that a large tree costs little when
 * few of its records change: the records' arrays are reused (no fresh
 * pages), the node and comm sections stay encoded and only the records
 * that differ are encoded again, their payloads are checksummed in 64 KiB
 * blocks of which only the changed ones are checksummed again, and the
 * file is written from its pieces (writev) without copying them together.
 * The file is the same, byte for byte, as hp_finish_write_local_at's.
 */
#ifndef HP_SNAPSHOT_IMAGE_H
#define HP_SNAPSHOT_IMAGE_H

#include "hp_snapshot.h"

/* The payload of a section of fixed-size records, as last written. */
typedef struct hp_image_part {
    unsigned char *data;
    size_t len, cap;
    uint32_t *crc;        /* CRC of each block */
    unsigned char *stale; /* 1: the block changed since its CRC was taken */
    size_t nblocks, blocks_cap;
} hp_image_part;

typedef struct hp_snapshot_image {
    hp_rank_data rd;            /* the last snapshot's records */
    hp_snapshot_room room;      /* rd's node and comm arrays, kept */
    hp_image_part nodes, comms; /* the NODE and COMM payloads */
    hp_buf head, middle, tail;  /* the rest of the file, encoded each time */
} hp_snapshot_image;

/* Reads this process's records into im (hp_snapshot_live) with info as
 * the rank's (im owns info->host from here) and brings the node and comm
 * payloads up to date.  The rank's window (info's end_ns and wall, from
 * start_ticks) ends once the records are read: every call they count
 * ended inside it, however long the reading thread waited for a core.
 * 0, or -1 without memory (im stays usable). */
int hp_snapshot_image_take(hp_snapshot_image *im, const hp_rank_info *info, uint64_t start_ticks);

/* Writes im as a whole-run file of run->nranks blocks (the other ranks'
 * missing) to path, through path.partial and a rename.  0, or -1 with
 * errno set. */
int hp_snapshot_image_write(hp_snapshot_image *im, const hp_run_info *run, const char *path);

void hp_snapshot_image_free(hp_snapshot_image *im);

#endif
