/*
 * nodemap.h - a hash map from a merged node's key (parent id, global site
 * id) to its id, for the merger: the keys live in the slots, so a tree of
 * 10^6 nodes costs no allocation per node (keymap.h holds byte strings).
 */
#ifndef HPF_NODEMAP_H
#define HPF_NODEMAP_H

#include <stddef.h>
#include <stdint.h>

typedef struct hpf_nodemap_slot {
    uint32_t parent, site;
    uint32_t id;        /* 0 = empty slot (ids start at 1) */
} hpf_nodemap_slot;

typedef struct hpf_nodemap {
    hpf_nodemap_slot *slots;
    size_t cap;         /* power of two */
    size_t used;
} hpf_nodemap;

void hpf_nodemap_init(hpf_nodemap *m);
void hpf_nodemap_free(hpf_nodemap *m);

/* Looks (parent, site) up; if absent inserts it with id `id` (> 0).
 * *found is the id now associated with the key, *added says whether it
 * was inserted.  Returns -1 on allocation failure. */
int hpf_nodemap_intern(hpf_nodemap *m, uint32_t parent, uint32_t site, uint32_t id,
                       uint32_t *found, int *added);

#endif
