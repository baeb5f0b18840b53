/*
 * reqmap.c - the table of outstanding requests: what each request will
 * record when a Wait or Test completes it.  Sharded by the handle's hash,
 * each shard an open-addressing table.  Only under MPI_THREAD_MULTIPLE,
 * where one thread may complete a request another posted, does a shard
 * take its spin lock; threads then rarely meet and never sleep.
 */
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include "hp_mpi.h"

#define SHARDS 64

typedef struct slot {
    uintptr_t key;      /* 0 = empty */
    hp_req_info info;
} slot;

typedef struct shard {
    atomic_flag lock;
    uint32_t cap, used;
    slot *slots;
} shard;

static shard shards[SHARDS];
static int need_locks;

void hp_reqmap_set_threaded(int threaded)
{
    need_locks = threaded;
}

static uint64_t mix(uintptr_t k)
{
    uint64_t x = (uint64_t)k;
    x ^= x >> 31;
    x *= 0x9e3779b97f4a7c15ull;
    x ^= x >> 29;
    return x;
}

static shard *shard_of(uintptr_t key)
{
    return &shards[mix(key) % SHARDS];
}

static void lock_shard(shard *s)
{
    if (need_locks)
        while (atomic_flag_test_and_set_explicit(&s->lock, memory_order_acquire))
            ;
}

static void unlock_shard(shard *s)
{
    if (need_locks)
        atomic_flag_clear_explicit(&s->lock, memory_order_release);
}

static slot *find(shard *s, uintptr_t key)
{
    if (!s->cap)
        return NULL;
    uint32_t mask = s->cap - 1;
    for (uint32_t i = (uint32_t)(mix(key) >> 8) & mask;; i = (i + 1) & mask) {
        if (s->slots[i].key == key)
            return &s->slots[i];
        if (s->slots[i].key == 0)
            return NULL;
    }
}

static void place(shard *s, uintptr_t key, const hp_req_info *info)
{
    uint32_t mask = s->cap - 1;
    uint32_t i = (uint32_t)(mix(key) >> 8) & mask;
    while (s->slots[i].key != 0 && s->slots[i].key != key)
        i = (i + 1) & mask;
    if (s->slots[i].key == 0)
        s->used++;
    s->slots[i].key = key;
    s->slots[i].info = *info;
}

static int grow(shard *s)
{
    uint32_t cap = s->cap ? s->cap * 2 : 64;
    slot *n = calloc(cap, sizeof *n);
    if (!n)
        return -1;
    slot *old = s->slots;
    uint32_t oldcap = s->cap;
    s->slots = n;
    s->cap = cap;
    s->used = 0;
    for (uint32_t i = 0; i < oldcap; i++)
        if (old[i].key)
            place(s, old[i].key, &old[i].info);
    free(old);
    return 0;
}

/* Removes slot i keeping every probe chain intact (backward shift). */
static void erase(shard *s, slot *victim)
{
    uint32_t mask = s->cap - 1;
    uint32_t i = (uint32_t)(victim - s->slots);
    for (uint32_t j = (i + 1) & mask; s->slots[j].key; j = (j + 1) & mask) {
        uint32_t home = (uint32_t)(mix(s->slots[j].key) >> 8) & mask;
        /* Move j back to i when its home is not in (i, j]. */
        if (((j - home) & mask) >= ((j - i) & mask)) {
            s->slots[i] = s->slots[j];
            i = j;
        }
    }
    s->slots[i].key = 0;
    s->used--;
}

void hp_reqmap_put(uintptr_t key, const hp_req_info *info)
{
    if (!key)
        return;
    shard *s = shard_of(key);
    lock_shard(s);
    if ((s->used + 1) * 2 <= s->cap || grow(s) == 0)
        place(s, key, info);
    unlock_shard(s);
}

int hp_reqmap_take(uintptr_t key, hp_req_info *out)
{
    shard *s = shard_of(key);
    lock_shard(s);
    slot *e = find(s, key);
    if (e) {
        *out = e->info;
        erase(s, e);
    }
    unlock_shard(s);
    return e ? 0 : -1;
}

int hp_reqmap_complete(uintptr_t key, hp_req_info *out)
{
    shard *s = shard_of(key);
    lock_shard(s);
    slot *e = find(s, key);
    int found = e && e->info.active;
    if (e) {
        *out = e->info;
        if (e->info.persistent)
            e->info.active = 0;
        else
            erase(s, e);
    }
    unlock_shard(s);
    return found ? 0 : -1;
}

void hp_reqmap_start(uintptr_t key, uint64_t ticks)
{
    shard *s = shard_of(key);
    lock_shard(s);
    slot *e = find(s, key);
    if (e) {
        e->info.active = 1;
        e->info.post_ticks = ticks;
    }
    unlock_shard(s);
}

void hp_reqmap_free_all(void)
{
    for (int i = 0; i < SHARDS; i++) {
        lock_shard(&shards[i]);
        free(shards[i].slots);
        shards[i].slots = NULL;
        shards[i].cap = shards[i].used = 0;
        unlock_shard(&shards[i]);
    }
}
