/*
 * nodemap.c - open-addressing (linear probing) hash map from (parent,
 * site) pairs to node ids; see nodemap.h.
 */
#include <assert.h>
#include <stdlib.h>
#include <string.h>
#include "nodemap.h"

static size_t slot_of(uint32_t parent, uint32_t site, size_t cap)
{
    uint64_t h = ((uint64_t)parent << 32 | site) * 0x9e3779b97f4a7c15ull;
    return (size_t)(h >> 32) & (cap - 1);
}

static hpf_nodemap_slot *find_slot(hpf_nodemap_slot *slots, size_t cap, uint32_t parent,
                                   uint32_t site)
{
    size_t i = slot_of(parent, site, cap);
    for (;;) {
        hpf_nodemap_slot *s = &slots[i];
        if (!s->id || (s->parent == parent && s->site == site))
            return s;
        i = (i + 1) & (cap - 1);
    }
}

void hpf_nodemap_init(hpf_nodemap *m)
{
    memset(m, 0, sizeof *m);
}

void hpf_nodemap_free(hpf_nodemap *m)
{
    free(m->slots);
    memset(m, 0, sizeof *m);
}

static int grow(hpf_nodemap *m)
{
    size_t cap = m->cap ? m->cap * 2 : 1024;
    hpf_nodemap_slot *slots = calloc(cap, sizeof *slots);
    if (!slots)
        return -1;
    for (size_t i = 0; i < m->cap; i++) {
        const hpf_nodemap_slot *old = &m->slots[i];
        if (old->id)
            *find_slot(slots, cap, old->parent, old->site) = *old;
    }
    free(m->slots);
    m->slots = slots;
    m->cap = cap;
    return 0;
}

int hpf_nodemap_intern(hpf_nodemap *m, uint32_t parent, uint32_t site, uint32_t id,
                       uint32_t *found, int *added)
{
    assert(id > 0);
    if ((m->used + 1) * 2 > m->cap && grow(m))
        return -1;
    hpf_nodemap_slot *s = find_slot(m->slots, m->cap, parent, site);
    *added = !s->id;
    if (*added) {
        s->parent = parent;
        s->site = site;
        s->id = id;
        m->used++;
    }
    *found = s->id;
    return 0;
}
