/*
 * map.c - growth and insertion of the hash map declared in hp_map.h.
 */
#include <stdlib.h>
#include <string.h>
#include "hp_map.h"

static void place(hp_map *m, uint64_t key, uint32_t val)
{
    uint32_t mask = m->cap - 1;
    uint32_t i = (uint32_t)hp_map_hash(key) & mask;
    while (m->keys[i] != UINT64_MAX && m->keys[i] != key)
        i = (i + 1) & mask;
    if (m->keys[i] == UINT64_MAX)
        m->used++;
    m->keys[i] = key;
    m->vals[i] = val;
}

static int grow(hp_map *m)
{
    uint32_t cap = m->cap ? m->cap * 2 : 64;
    uint64_t *keys = malloc(sizeof *keys * cap);
    uint32_t *vals = malloc(sizeof *vals * cap);
    if (!keys || !vals) {
        free(keys);
        free(vals);
        return -1;
    }
    memset(keys, 0xff, sizeof *keys * cap);
    hp_map old = *m;
    m->keys = keys;
    m->vals = vals;
    m->cap = cap;
    m->used = 0;
    for (uint32_t i = 0; i < old.cap; i++)
        if (old.keys[i] != UINT64_MAX)
            place(m, old.keys[i], old.vals[i]);
    free(old.keys);
    free(old.vals);
    return 0;
}

int hp_map_put(hp_map *m, uint64_t key, uint32_t val)
{
    if ((m->used + 1) * 2 > m->cap && grow(m) != 0)
        return -1;
    place(m, key, val);
    return 0;
}

void hp_map_clear(hp_map *m)
{
    if (m->cap)
        memset(m->keys, 0xff, sizeof *m->keys * m->cap);
    m->used = 0;
}

void hp_map_free(hp_map *m)
{
    free(m->keys);
    free(m->vals);
    memset(m, 0, sizeof *m);
}
