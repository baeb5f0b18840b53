/*
 * keymap.c - open-addressing (linear probing) hash map from byte strings
 * to uint32 values; see keymap.h.
 */
#include <stdlib.h>
#include <string.h>
#include "keymap.h"

static uint64_t hash_bytes(const void *key, size_t len)
{
    const unsigned char *p = key;
    uint64_t h = 0xcbf29ce484222325ull; /* FNV-1a */
    for (size_t i = 0; i < len; i++) {
        h ^= p[i];
        h *= 0x100000001b3ull;
    }
    return h;
}

void hpf_keymap_init(hpf_keymap *m)
{
    memset(m, 0, sizeof *m);
}

void hpf_keymap_free(hpf_keymap *m)
{
    for (size_t i = 0; i < m->cap; i++)
        free(m->slots[i].key);
    free(m->slots);
    memset(m, 0, sizeof *m);
}

static hpf_keymap_slot *find_slot(hpf_keymap_slot *slots, size_t cap, uint64_t hash,
                                  const void *key, size_t keylen)
{
    size_t i = (size_t)hash & (cap - 1);
    for (;;) {
        hpf_keymap_slot *s = &slots[i];
        if (!s->key)
            return s;
        if (s->hash == hash && s->keylen == keylen && memcmp(s->key, key, keylen) == 0)
            return s;
        i = (i + 1) & (cap - 1);
    }
}

static int grow(hpf_keymap *m)
{
    size_t cap = m->cap ? m->cap * 2 : 256;
    hpf_keymap_slot *slots = calloc(cap, sizeof *slots);
    if (!slots)
        return -1;
    for (size_t i = 0; i < m->cap; i++) {
        hpf_keymap_slot *old = &m->slots[i];
        if (old->key)
            *find_slot(slots, cap, old->hash, old->key, old->keylen) = *old;
    }
    free(m->slots);
    m->slots = slots;
    m->cap = cap;
    return 0;
}

int hpf_keymap_intern(hpf_keymap *m, const void *key, size_t keylen, uint32_t value,
                      uint32_t *found, int *added)
{
    if ((m->used + 1) * 2 > m->cap && grow(m))
        return -1;
    uint64_t hash = hash_bytes(key, keylen);
    hpf_keymap_slot *s = find_slot(m->slots, m->cap, hash, key, keylen);
    *added = 0;
    if (!s->key) {
        s->key = malloc(keylen ? keylen : 1);
        if (!s->key)
            return -1;
        memcpy(s->key, key, keylen);
        s->keylen = keylen;
        s->hash = hash;
        s->value = value;
        m->used++;
        *added = 1;
    }
    *found = s->value;
    return 0;
}
