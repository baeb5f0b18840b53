/*
 * keymap.h - a hash map from byte-string keys to uint32 values, used by
 * the merger to unify sites and calling-context nodes across ranks.
 */
#ifndef HPF_KEYMAP_H
#define HPF_KEYMAP_H

#include <stddef.h>
#include <stdint.h>

typedef struct hpf_keymap_slot {
    char *key;          /* NULL = empty slot */
    size_t keylen;
    uint64_t hash;
    uint32_t value;
} hpf_keymap_slot;

typedef struct hpf_keymap {
    hpf_keymap_slot *slots;
    size_t cap;         /* power of two */
    size_t used;
} hpf_keymap;

void hpf_keymap_init(hpf_keymap *m);
void hpf_keymap_free(hpf_keymap *m);

/* Looks `key` up; if absent inserts it with value `value`.  Returns the
 * value now associated with the key, sets *added when it was inserted.
 * Returns -1 on allocation failure. */
int hpf_keymap_intern(hpf_keymap *m, const void *key, size_t keylen, uint32_t value,
                      uint32_t *found, int *added);

#endif
