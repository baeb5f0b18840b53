/*
 * hp_map.h - an open-addressing hash map from a 64-bit key to a 32-bit
 * value, owned by one thread (no locking).  Used for calling-context
 * children, communication records and the per-thread site cache.
 */
#ifndef HP_MAP_H
#define HP_MAP_H

#include <stdint.h>

typedef struct hp_map {
    uint64_t *keys;
    uint32_t *vals;
    uint32_t cap;   /* power of two, 0 before the first insert */
    uint32_t used;
} hp_map;

#define HP_MAP_MISSING 0xffffffffu

static inline uint64_t hp_map_hash(uint64_t k)
{
    k ^= k >> 33;
    k *= 0xff51afd7ed558ccdull;
    k ^= k >> 33;
    return k;
}

/* Value for key, or HP_MAP_MISSING.  Key ~0 is reserved (empty slot). */
static inline uint32_t hp_map_get(const hp_map *m, uint64_t key)
{
    if (!m->cap)
        return HP_MAP_MISSING;
    uint32_t mask = m->cap - 1;
    for (uint32_t i = (uint32_t)hp_map_hash(key) & mask;; i = (i + 1) & mask) {
        if (m->keys[i] == key)
            return m->vals[i];
        if (m->keys[i] == UINT64_MAX)
            return HP_MAP_MISSING;
    }
}

/* Insert or replace; returns 0, or -1 when memory ran out. */
int hp_map_put(hp_map *m, uint64_t key, uint32_t val);
void hp_map_clear(hp_map *m);
void hp_map_free(hp_map *m);

#endif
