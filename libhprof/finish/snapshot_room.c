/*
 * snapshot_room.c - what a live snapshot keeps for the next one
 * (hp_snapshot_room.h).
 */
#include <stdlib.h>
#include <string.h>
#include "hp_clock.h"
#include "hp_snapshot.h"

int hp_room_clear_changed(hp_snapshot_room *room, uint64_t n)
{
    size_t words = (size_t)(n + 63) / 64 + 1;
    if (words > room->changed_words) {
        uint64_t *bits = realloc(room->changed, words * sizeof *bits);
        if (!bits)
            return -1;
        room->changed = bits;
        room->changed_words = words;
    }
    memset(room->changed, 0, room->changed_words * sizeof *room->changed);
    return 0;
}

uint32_t hp_room_known(const hp_snapshot_room *room, uint32_t i, uint32_t base)
{
    if (i >= room->nthreads || room->bases[i] != base ||
        room->per_tick != 1.0 / hp_clock_ticks_per_sec())
        return 0;
    return room->counts[i];
}

/* Whether every record of the last snapshot keeps its id (its thread's
 * base did not move): the new ones then all come after them. */
static int ids_kept(const hp_snapshot_room *room, const uint32_t *counts, uint32_t nt)
{
    if (!room->nthreads || room->nthreads > nt)
        return 0;
    for (uint32_t i = 0, base = 0; i < room->nthreads; base += counts[2 * i], i++)
        if (room->bases[i] != base || (i + 1 < room->nthreads && counts[2 * i] != room->counts[i]))
            return 0;
    return 1;
}

void hp_room_remember(hp_snapshot_room *room, const uint32_t *counts, uint32_t nt)
{
    if (!ids_kept(room, counts, nt))
        room->classified = room->nmpi = 0;
    room->nthreads = 0;
    uint32_t *bases = realloc(room->bases, (nt ? nt : 1) * sizeof *bases);
    if (bases)
        room->bases = bases;
    uint32_t *kept = realloc(room->counts, (nt ? nt : 1) * sizeof *kept);
    if (kept)
        room->counts = kept;
    if (!bases || !kept)
        return;
    for (uint32_t i = 0, base = 0; i < nt; base += counts[2 * i], i++) {
        room->bases[i] = base;
        room->counts[i] = counts[2 * i];
    }
    room->nthreads = nt;
    room->per_tick = 1.0 / hp_clock_ticks_per_sec();
}

static int grow(void *array, size_t *cap, size_t n, size_t size)
{
    void **at = array;
    if (n <= *cap)
        return 0;
    size_t want = n + n / 4 + 64;
    void *bigger = realloc(*at, want * size);
    if (!bigger)
        return -1;
    *at = bigger;
    *cap = want;
    return 0;
}

double hp_room_mpi_time(hp_snapshot_room *room, const hp_rank_data *rd)
{
    if (room->classified > rd->nnodes || grow(&room->inside, &room->inside_cap, rd->nnodes, 1)) {
        room->classified = room->nmpi = 0;
        return hp_rank_mpi_time(rd);
    }
    for (uint32_t i = room->classified; i < rd->nnodes; i++) {
        if (!hp_rank_outermost_mpi(rd, i, room->inside))
            continue;
        if (grow(&room->mpi, &room->mpi_cap, (size_t)room->nmpi + 1, sizeof *room->mpi)) {
            room->classified = room->nmpi = 0;
            return hp_rank_mpi_time(rd);
        }
        room->mpi[room->nmpi++] = i;
    }
    room->classified = rd->nnodes;
    double sum = 0;
    for (uint32_t k = 0; k < room->nmpi; k++)
        sum += rd->nodes[room->mpi[k]].time;
    return sum;
}

void hp_snapshot_room_free(hp_snapshot_room *room)
{
    free(room->changed);
    free(room->bases);
    free(room->counts);
    free(room->inside);
    free(room->mpi);
    memset(room, 0, sizeof *room);
}
