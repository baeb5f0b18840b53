/*
 * reqmap.c - the table of outstanding requests: what each request still
 * has to record when a Wait or Test completes it.
 *
 * A handle value alone cannot name a request.  Open MPI hands back one
 * shared, already-completed request for every eager MPI_Isend, so many
 * outstanding requests carry the same value; and under
 * MPI_THREAD_MULTIPLE a handle freed inside one thread's MPI_Wait can be
 * given to another thread's new request before the first thread looks
 * its request up.  So every entry carries the post sequence number it was
 * registered with, a key holds a list of entries (newest first), and a
 * completion asks for the newest entry of its handle registered before
 * the completing call began (hp_reqmap_now): a handle reused meanwhile
 * was registered later, and of several requests that share one handle
 * each completion takes one.
 *
 * Sharded by the handle's hash, each shard an open-addressing table whose
 * bucket holds a key's newest entry itself, and a pool for the older
 * entries of keys registered more than once (Open MPI's shared handle):
 * a request of its own handle, the usual case, is put and taken without
 * touching the pool (callgrind, bench/msgrate.c: about 30 instructions
 * less per message than a bucket pointing into the pool).  Only under
 * MPI_THREAD_MULTIPLE do the sequence counter become atomic and a shard
 * take its spin lock.
 *
 * Below MPI_THREAD_MULTIPLE (one thread in MPI at a time) a front cache
 * comes before the shards: one slot per hash of the handle, holding the
 * non-persistent entries of one key, oldest first (a shared handle's
 * newer ones on a stack of the slot's own).  What cannot stay there (a
 * persistent request of the slot's key, no memory) goes to the shards
 * and marks the slot `newer', so the slot answers only while the shards
 * hold no newer entry of its key.  A completion finding its key there
 * takes it without hashing into a shard, probing or erasing (callgrind,
 * bench/msgrate.c, instructions added per message: 1395 -> 1331 for a
 * request of its own handle, -> 1270 with the shared handle's stack).
 * Every question about a key looks at its slot first, then at the shards,
 * then at the slot again when the slot's entries are the older ones.  A
 * request posted there is written in place by its poster, and a
 * completion of the slot's newest entry is taken in place, both inline in
 * the callers (hp_reqmap_post, hp_reqmap_complete in hp_mpi.h, which
 * declares the front); the rest is here (hp_reqmap_post_slow,
 * hp_reqmap_complete_slow, put_slow).  Callgrind, bench/msgrate.c,
 * instructions added per message: 1121 -> 1019 in place and without
 * registers saved, -> 829 inline.
 */
#include <assert.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include "hp_mpi.h"
#include "hp_stack.h"

#define SHARDS 64
#define NONE 0xffffffffu

typedef hp_reqmap_entry entry;

typedef struct bucket {
    uintptr_t key;       /* 0 = empty */
    entry newest;        /* the key's newest entry; .next: its older ones */
} bucket;

typedef struct shard {
    atomic_flag lock;
    uint32_t cap, used;  /* buckets */
    bucket *buckets;
    entry *pool;         /* older entries of keys registered more than once */
    uint32_t pool_cap, pool_used;
    uint32_t free_head;  /* 1 + first free entry of the pool, 0: none */
} shard;

static shard shards[SHARDS];
int hp_reqmap_need_locks;

/* The front (hp_mpi.h) and the post sequence numbers: hp_reqmap_seq
 * below MPI_THREAD_MULTIPLE, seq_atomic under it. */
typedef hp_reqmap_front front;
hp_reqmap_front hp_reqmap_fronts[HP_REQMAP_FRONT_SLOTS];
uint32_t hp_reqmap_front_used;
static _Atomic uint64_t seq_atomic = 1;
uint64_t hp_reqmap_seq = 1;

static void front_flush(void);

void hp_reqmap_set_threaded(int threaded)
{
    front_flush();
    atomic_store(&seq_atomic, hp_reqmap_seq);
    hp_reqmap_need_locks = threaded;
}

uint64_t hp_reqmap_now(void)
{
    if (hp_reqmap_need_locks)
        return atomic_load(&seq_atomic);
    return hp_reqmap_seq;
}

static uint64_t next_seq(void)
{
    if (hp_reqmap_need_locks)
        return atomic_fetch_add(&seq_atomic, 1);
    return hp_reqmap_seq++;
}

static inline uint64_t mix(uintptr_t k)
{
    uint64_t x = (uint64_t)k;
    x ^= x >> 31;
    x *= 0x9e3779b97f4a7c15ull;
    x ^= x >> 29;
    return x;
}

/* One hash picks the shard (low bits) and the home bucket (the bits
 * above them). */
static inline shard *shard_of(uint64_t h)
{
    return &shards[h & (SHARDS - 1)];
}

static void lock_shard(shard *s)
{
    if (hp_reqmap_need_locks)
        while (atomic_flag_test_and_set_explicit(&s->lock, memory_order_acquire))
            ;
}

static void unlock_shard(shard *s)
{
    if (hp_reqmap_need_locks)
        atomic_flag_clear_explicit(&s->lock, memory_order_release);
}

static inline uint32_t home_of(const shard *s, uint64_t h)
{
    return (uint32_t)(h >> 8) & (s->cap - 1);
}

/* The bucket of key (hash h), or NULL. */
static inline bucket *find(shard *s, uintptr_t key, uint64_t h)
{
    if (!s->cap)
        return NULL;
    uint32_t mask = s->cap - 1;
    for (uint32_t i = home_of(s, h);; i = (i + 1) & mask) {
        if (s->buckets[i].key == key)
            return &s->buckets[i];
        if (s->buckets[i].key == 0)
            return NULL;
    }
}

/* The bucket of key (hash h), or the empty one where it would go; the
 * caller has made room. */
static inline bucket *find_slot(shard *s, uintptr_t key, uint64_t h)
{
    uint32_t mask = s->cap - 1, i = home_of(s, h);
    while (s->buckets[i].key != 0 && s->buckets[i].key != key)
        i = (i + 1) & mask;
    return &s->buckets[i];
}

static int grow_buckets(shard *s)
{
    uint32_t cap = s->cap ? s->cap * 2 : 64, oldcap = s->cap;
    bucket *n = calloc(cap, sizeof *n), *old = s->buckets;
    if (!n)
        return -1;
    s->buckets = n;
    s->cap = cap;
    for (uint32_t i = 0; i < oldcap; i++)
        if (old[i].key)
            *find_slot(s, old[i].key, mix(old[i].key)) = old[i];
    free(old);
    return 0;
}

/* Removes bucket b keeping every probe chain intact (backward shift). */
static void erase_bucket(shard *s, bucket *b)
{
    uint32_t mask = s->cap - 1;
    uint32_t i = (uint32_t)(b - s->buckets);
    for (uint32_t j = (i + 1) & mask; s->buckets[j].key; j = (j + 1) & mask) {
        uint32_t home = home_of(s, mix(s->buckets[j].key));
        /* Move j back to i when its home is not in (i, j]. */
        if (((j - home) & mask) >= ((j - i) & mask)) {
            s->buckets[i] = s->buckets[j];
            i = j;
        }
    }
    s->buckets[i].key = 0;
    s->used--;
}

static inline uint32_t alloc_entry(shard *s)
{
    if (s->free_head) {
        uint32_t e = s->free_head - 1;
        s->free_head = s->pool[e].next;
        return e;
    }
    if (s->pool_used == s->pool_cap) {
        uint32_t cap = s->pool_cap ? s->pool_cap * 2 : 64;
        entry *p = realloc(s->pool, sizeof *p * cap);
        if (!p)
            return NONE;
        s->pool = p;
        s->pool_cap = cap;
    }
    return s->pool_used++;
}

static inline void free_entry(shard *s, uint32_t e)
{
    s->pool[e].next = s->free_head;
    s->free_head = e + 1;
}

/* The entry of a key's list: link 0 is the bucket's own, k > 0 pool entry
 * k - 1. */
static inline entry *entry_at(shard *s, bucket *b, uint32_t link)
{
    return link == 0 ? &b->newest : &s->pool[link - 1];
}

/* Adds (seq, info) to bucket b, whose key is registered already; the
 * list stays ordered newest first (two threads may register one shared
 * handle in either order).  The usual case, the newest, is written in
 * place (one copy of the entry less, callgrind).  -1 without memory. */
static int add_older_or_newer(shard *s, bucket *b, uint64_t seq, const hp_req_info *info)
{
    uint32_t p = alloc_entry(s);
    if (p == NONE)
        return -1;
    if (seq > b->newest.seq) {
        s->pool[p] = b->newest;
        b->newest.seq = seq;
        b->newest.next = p;
        b->newest.info = *info;
        return 0;
    }
    s->pool[p].seq = seq;
    s->pool[p].info = *info;
    entry *prev = &b->newest;
    while (prev->next != NONE && s->pool[prev->next].seq > seq)
        prev = &s->pool[prev->next];
    s->pool[p].next = prev->next;
    prev->next = p;
    return 0;
}

/* The link (entry_at) of the newest entry of b registered before
 * `before`, or NONE. */
static inline uint32_t newest_before(shard *s, bucket *b, uint64_t before)
{
    if (b->newest.seq < before)
        return 0;
    for (uint32_t p = b->newest.next; p != NONE; p = s->pool[p].next)
        if (s->pool[p].seq < before)
            return p + 1;
    return NONE;
}

/* Removes the entry at link from b (the bucket goes with its last). */
static inline __attribute__((always_inline)) void remove_entry(shard *s, bucket *b, uint32_t link)
{
    if (link == 0) {
        uint32_t older = b->newest.next;
        if (older == NONE) {
            erase_bucket(s, b);
            return;
        }
        b->newest = s->pool[older];
        free_entry(s, older);
        return;
    }
    entry *prev = &b->newest;
    while (prev->next != link - 1)
        prev = &s->pool[prev->next];
    prev->next = s->pool[link - 1].next;
    free_entry(s, link - 1);
}

/* Registers (seq, info) under key in the shards. */
static int table_put(uintptr_t key, uint64_t seq, const hp_req_info *info)
{
    int rc = -1;
    uint64_t h = mix(key);
    shard *s = shard_of(h);
    lock_shard(s);
    if ((s->used + 1) * 2 <= s->cap || grow_buckets(s) == 0) {
        bucket *b = find_slot(s, key, h);
        if (b->key == 0) {
            b->key = key;
            b->newest.seq = seq;
            b->newest.next = NONE;
            b->newest.info = *info;
            s->used++;
            rc = 0;
        } else {
            rc = add_older_or_newer(s, b, seq, info);
        }
    }
    unlock_shard(s);
    return rc;
}

static inline front *front_of(uintptr_t key)
{
    return hp_reqmap_front_of(key);
}

/* Entry i of f's entries, oldest first (f->one, then f->more[]). */
static inline entry *front_at(front *f, uint32_t i)
{
    return i == 0 ? &f->one : &f->more[i - 1];
}

/* The index of the newest of f's entries registered before `before`,
 * NONE if there is none. */
static inline uint32_t front_newest_before(front *f, uint64_t before)
{
    for (uint32_t i = f->nmore + 1; i > 0; i--)
        if (front_at(f, i - 1)->seq < before)
            return i - 1;
    return NONE;
}

/* Copies f's entry i to *out and removes it (the slot goes with its last). */
static inline void front_take(front *f, uint32_t i, hp_req_info *out)
{
    *out = front_at(f, i)->info;
    hp_reqmap_front_used--;
    if (f->nmore == 0) {
        f->key = 0;
        return;
    }
    for (; i < f->nmore; i++)
        *front_at(f, i) = *front_at(f, i + 1);
    f->nmore--;
}

/* Key's slot when it holds key's newest entry registered before `before`
 * (the shards hold no newer entry of key), its index in *i; else NULL:
 * then the shards answer. */
static inline front *front_hit(uintptr_t key, uint64_t before, uint32_t *i)
{
    front *f = front_of(key);
    if (hp_reqmap_need_locks || f->key != key || f->newer)
        return NULL;
    *i = front_newest_before(f, before);
    return *i == NONE ? NULL : f;
}

/* After the shards had no entry of key registered before `before`: key's
 * slot if it holds one (index in *i); gone: the shards hold no entry of
 * key at all (so none newer than the slot's). */
static front *front_older(uintptr_t key, uint64_t before, int gone, uint32_t *i)
{
    front *f = front_of(key);
    if (hp_reqmap_need_locks || f->key != key)
        return NULL;
    if (gone)
        f->newer = 0;
    *i = front_newest_before(f, before);
    return *i == NONE ? NULL : f;
}

/* Moves every front entry to the shards (before the threading changes). */
static void front_flush(void)
{
    for (uint32_t i = 0; i < HP_REQMAP_FRONT_SLOTS; i++) {
        front *f = &hp_reqmap_fronts[i];
        for (uint32_t k = 0; f->key && k <= f->nmore; k++)
            table_put(f->key, front_at(f, k)->seq, &front_at(f, k)->info);
        hp_reqmap_front_used -= f->key ? f->nmore + 1 : 0;
        f->key = 0;
        f->nmore = 0;
    }
}

/* A shared handle's slot is full: more room, then the inline path again
 * (NULL without memory: put_slow then sends the entry to the shards). */
hp_req_info *hp_reqmap_post_slow(uintptr_t key)
{
    front *f = front_of(key);
    if (hp_reqmap_need_locks || f->key != key || f->newer ||
        !hp_stack_room((void **)&f->more, &f->cap, f->nmore, sizeof *f->more))
        return NULL;
    return hp_reqmap_post(key, 0);
}

/* What hp_reqmap_post leaves out: locks, persistent requests, a slot
 * held by another key, a shared handle with newer entries in the shards. */
static __attribute__((noinline)) int put_slow(uintptr_t key, const hp_req_info *info)
{
    uint64_t seq = next_seq();
    if (hp_reqmap_need_locks)
        return table_put(key, seq, info);
    front *f = front_of(key);
    if (f->key == key)
        f->newer = 1;   /* the shards hold its newest entry from now on */
    return table_put(key, seq, info);
}

int hp_reqmap_put(uintptr_t key, const hp_req_info *info)
{
    if (!key)
        return -1;
    hp_req_info *in = hp_reqmap_post(key, info->persistent);
    if (!in)
        return put_slow(key, info);
    *in = *info;
    return 0;
}

int hp_reqmap_take(uintptr_t key, uint64_t before, hp_req_info *out)
{
    uint32_t i;
    front *f = front_hit(key, before, &i);
    if (f) {
        front_take(f, i, out);
        return 0;
    }
    int rc = -1;
    uint64_t h = mix(key);
    shard *s = shard_of(h);
    lock_shard(s);
    bucket *b = find(s, key, h);
    uint32_t link = b ? newest_before(s, b, before) : NONE;
    if (link != NONE) {
        *out = entry_at(s, b, link)->info;
        remove_entry(s, b, link);
        rc = 0;
    }
    unlock_shard(s);
    if (rc != 0 && (f = front_older(key, before, b == NULL, &i)) != NULL) {
        front_take(f, i, out);
        rc = 0;
    }
    return rc;
}

/* f's entry i, removed, as hp_reqmap_complete returns it: the newest
 * stays where it is (nothing moves over it until the next put), an older
 * one is copied to *buf before the newer ones move down. */
static inline const hp_req_info *front_take_ref(front *f, uint32_t i, hp_req_info *buf)
{
    if (i < f->nmore) {
        front_take(f, i, buf);
        return buf;
    }
    const hp_req_info *in = &front_at(f, i)->info;
    hp_reqmap_front_used--;
    if (f->nmore == 0)
        f->key = 0;
    else
        f->nmore--;
    return in;
}

/* hp_reqmap_complete for what the front's fast path leaves out. */
const hp_req_info *hp_reqmap_complete_slow(uintptr_t key, uint64_t before, hp_req_info *buf)
{
    uint32_t i;
    const hp_req_info *in;
    front *f = front_hit(key, before, &i);
    if (f) {    /* never persistent */
        in = front_take_ref(f, i, buf);
        return in->active ? in : NULL;
    }
    int rc = -1;
    uint64_t h = mix(key);
    shard *s = shard_of(h);
    lock_shard(s);
    bucket *b = find(s, key, h);
    uint32_t link = b ? newest_before(s, b, before) : NONE;
    if (link != NONE) {
        hp_req_info *e = &entry_at(s, b, link)->info;
        *buf = *e;
        rc = e->active ? 0 : -1;
        if (e->persistent)
            e->active = 0;
        else
            remove_entry(s, b, link);
    }
    unlock_shard(s);
    if (link == NONE && (f = front_older(key, before, b == NULL, &i)) != NULL) {
        in = front_take_ref(f, i, buf);
        return in->active ? in : NULL;
    }
    return rc == 0 ? buf : NULL;
}

int hp_reqmap_start(uintptr_t key, uint64_t ticks, hp_req_info *out)
{
    int rc = -1;
    const front *f = front_of(key);
    if (!hp_reqmap_need_locks && f->key == key && !f->newer)
        return -1;      /* key's newest entry is not persistent */
    uint64_t h = mix(key);
    shard *s = shard_of(h);
    lock_shard(s);
    bucket *b = find(s, key, h);
    if (b && b->newest.info.persistent) {
        hp_req_info *in = &b->newest.info;
        in->active = 1;
        in->post_ticks = ticks;
        *out = *in;
        rc = 0;
    }
    unlock_shard(s);
    return rc;
}

size_t hp_reqmap_outstanding(void)
{
    size_t n = hp_reqmap_need_locks ? 0 : hp_reqmap_front_used;
    for (int i = 0; i < SHARDS; i++) {
        shard *s = &shards[i];
        lock_shard(s);
        uint32_t unused = 0;
        for (uint32_t f = s->free_head; f; f = s->pool[f - 1].next)
            unused++;
        assert(unused <= s->pool_used);
        n += s->used + (s->pool_used - unused);
        unlock_shard(s);
    }
    return n;
}

void hp_reqmap_free_all(void)
{
    for (uint32_t i = 0; i < HP_REQMAP_FRONT_SLOTS; i++)
        free(hp_reqmap_fronts[i].more);
    memset(hp_reqmap_fronts, 0, sizeof hp_reqmap_fronts);
    hp_reqmap_front_used = 0;
    for (int i = 0; i < SHARDS; i++) {
        shard *s = &shards[i];
        lock_shard(s);
        free(s->buckets);
        free(s->pool);
        s->buckets = NULL;
        s->pool = NULL;
        s->cap = s->used = s->pool_cap = s->pool_used = s->free_head = 0;
        unlock_shard(s);
    }
}
