/*
 * merge.c - builds the merged view of a profile (see merge.h): global
 * sites keyed by (kind, name, func, file, line) or, for unresolved sites,
 * (kind, name, module, offset); merged nodes keyed by (parent, site).
 */
#include <assert.h>
#include "config.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "keymap.h"
#include "merge.h"
#include "nodemap.h"

static const char *base_name(const char *path)
{
    const char *slash = strrchr(path, '/');
    return slash ? slash + 1 : path;
}

char *hpf_site_label(const hp_rank_data *rd, const hp_site_rec *s)
{
    const char *name = rd->strings[s->name];
    const char *func = rd->strings[s->func];
    const char *file = rd->strings[s->file];
    const char *module = rd->strings[s->module];
    const char *base = *name ? name : hp_kind_name(s->kind);
    char *out;
    int n;

    if (s->kind == HP_KIND_PROCEDURE && !*name && *func)
        base = func;
    if (s->kind == HP_KIND_ROOT || s->kind == HP_KIND_OVERFLOW ||
        (s->kind == HP_KIND_PROCEDURE && base != hp_kind_name(s->kind)))
        n = asprintf(&out, "%s", base);
    else if (*file)
        n = asprintf(&out, "%s@%s:%u", base, base_name(file), s->line);
    else if (*module)
        n = asprintf(&out, "%s@%s+0x%llx", base, base_name(module),
                     (unsigned long long)s->offset);
    else
        n = asprintf(&out, "%s", base);
    return n < 0 ? NULL : out;
}

/* The identity of a site across ranks, as a byte string. */
static void site_key(hp_buf *b, const hp_rank_data *rd, const hp_site_rec *s)
{
    const char *file = rd->strings[s->file];
    b->len = 0;
    hp_buf_put_u32(b, s->kind);
    hp_buf_put_str(b, rd->strings[s->name]);
    if (*file) {
        hp_buf_put_u32(b, 1);
        hp_buf_put_str(b, rd->strings[s->func]);
        hp_buf_put_str(b, file);
        hp_buf_put_u32(b, s->line);
    } else {
        hp_buf_put_u32(b, 0);
        hp_buf_put_str(b, rd->strings[s->module]);
        hp_buf_put_u64(b, s->offset);
    }
}

/* Makes room for one more element of an array that grows by doubling. */
static int reserve(void **items, uint32_t count, uint32_t *cap, size_t elem)
{
    if (count < *cap)
        return 0;
    uint32_t ncap = *cap ? *cap * 2 : 64;
    void *p = realloc(*items, (size_t)ncap * elem);
    if (!p)
        return -1;
    *items = p;
    *cap = ncap;
    return 0;
}

static int map_rank_sites(hpf_merged *m, hpf_keymap *keys, uint32_t *cap,
                          const hpf_profile *p, uint32_t rank, hp_buf *key)
{
    const hp_rank_data *rd = &p->ranks[rank];
    uint32_t first_new = m->nsites;
    uint32_t *map = m->site_map[rank];

    for (uint32_t i = 0; i < rd->nsites; i++) {
        uint32_t id;
        int added;
        site_key(key, rd, &rd->sites[i]);
        if (key->failed || reserve((void **)&m->sites, m->nsites, cap, sizeof *m->sites) ||
            hpf_keymap_intern(keys, key->data, key->len, m->nsites + 1, &id, &added))
            return -1;
        map[i] = id;
        if (added) {
            hpf_gsite *g = &m->sites[m->nsites++];
            memset(g, 0, sizeof *g);
            g->rank = rank;
            g->local = i;
        }
        m->sites[id - 1].throttled |= rd->sites[i].flags & (HP_SITEF_THROTTLED | HP_SITEF_ESTIMATED);
    }
    for (uint32_t g = first_new; g < m->nsites; g++)
        if (!(m->sites[g].label = hpf_site_label(rd, &rd->sites[m->sites[g].local])))
            return -1;
    /* parent/callee of the sites first seen here, now that all are mapped */
    for (uint32_t g = first_new; g < m->nsites; g++) {
        const hp_site_rec *s = &rd->sites[m->sites[g].local];
        m->sites[g].parent = s->parent == HP_NONE ? 0 : map[s->parent];
        m->sites[g].callee = s->callee == HP_NONE ? 0 : map[s->callee];
    }
    return 0;
}

static int add_node(hpf_merged *m, uint32_t *cap, uint32_t parent, uint32_t site)
{
    if (reserve((void **)&m->nodes, m->nnodes, cap, sizeof *m->nodes))
        return -1;
    hpf_gnode *g = &m->nodes[m->nnodes];
    g->parent = parent;
    g->site = site;
    g->outer = 1;                       /* until mark_outer */
    g->depth = parent ? m->nodes[parent - 1].depth + 1 : 0;
    m->nnodes++;
    return 0;
}

/* The rank's node records are loaded from the file if they are left in
 * it (hpf_read_lazy), and dropped again after. */
static int map_rank_nodes(hpf_merged *m, hpf_nodemap *keys, uint32_t *cap, hpf_profile *p,
                          uint32_t rank)
{
    const hp_rank_data *rd = &p->ranks[rank];
    uint32_t *map = m->node_map[rank];
    char ignored[256];
    int held = rd->nodes != NULL, rc = -1;
    if (hpf_load_nodes(p, rank, ignored, sizeof ignored))
        return -1;

    for (uint32_t i = 0; i < rd->nnodes; i++) {
        const hp_node_rec *nd = &rd->nodes[i];
        uint32_t site = m->site_map[rank][nd->site];
        if (nd->parent == HP_NONE) {    /* every thread's root is node 1 */
            if (m->nnodes == 0 && add_node(m, cap, 0, site))
                goto done;
            map[i] = 1;
            continue;
        }
        uint32_t parent = map[nd->parent], id;
        int added;
        if (hpf_nodemap_intern(keys, parent, site, m->nnodes + 1, &id, &added) ||
            (added && add_node(m, cap, parent, site)))
            goto done;
        map[i] = id;
    }
    rc = 0;
done:
    if (!held)
        hpf_drop_nodes(p, rank);
    return rc;
}

static int alloc_maps(hpf_merged *m, const hpf_profile *p)
{
    m->nranks = p->nranks;
    m->site_map = calloc(p->nranks, sizeof *m->site_map);
    m->node_map = calloc(p->nranks, sizeof *m->node_map);
    if (!m->site_map || !m->node_map)
        return -1;
    for (uint32_t r = 0; r < p->nranks; r++) {
        m->site_map[r] = calloc(p->ranks[r].nsites + 1, sizeof **m->site_map);
        m->node_map[r] = calloc(p->ranks[r].nnodes + 1, sizeof **m->node_map);
        if (!m->site_map[r] || !m->node_map[r])
            return -1;
    }
    return 0;
}

/* The preorder interval of every node.  A node is always added after its
 * parent (ids grow downwards), so subtree sizes come from one pass from
 * the last node up, and the intervals from one pass down. */
static int number_subtrees(hpf_merged *m)
{
    uint32_t n = m->nnodes, *next = calloc((size_t)n + 1, sizeof *next);
    if (!next)
        return -1;
    for (uint32_t i = 0; i < n; i++)
        m->nodes[i].hi = 1;                     /* subtree size, for now */
    for (uint32_t id = n; id >= 2; id--) {
        const hpf_gnode *g = &m->nodes[id - 1];
        assert(g->parent && g->parent < id);
        m->nodes[g->parent - 1].hi += g->hi;
    }
    for (uint32_t id = 1; id <= n; id++) {
        hpf_gnode *g = &m->nodes[id - 1];
        uint32_t size = g->hi;
        g->lo = g->parent ? next[g->parent] : 1;
        if (g->parent)
            next[g->parent] += size;
        g->hi = g->lo + size - 1;
        next[id] = g->lo + 1;
    }
    free(next);
    return 0;
}

/* A node is outer when no ancestor has its site.  One pass in preorder
 * (by lo) keeps the open ancestors on a stack and, per site, how many of
 * them have it: linear, where walking up from each node costs its depth. */
static int mark_outer(hpf_merged *m)
{
    uint32_t n = m->nnodes;
    uint32_t *by_lo = malloc(((size_t)n + 1) * sizeof *by_lo);
    uint32_t *stack = malloc(((size_t)n + 1) * sizeof *stack);
    uint32_t *open = calloc((size_t)m->nsites + 1, sizeof *open);
    uint32_t sp = 0;
    int rc = -1;
    if (!by_lo || !stack || !open)
        goto done;
    for (uint32_t id = 1; id <= n; id++) {
        assert(m->nodes[id - 1].lo >= 1 && m->nodes[id - 1].lo <= n);
        by_lo[m->nodes[id - 1].lo - 1] = id;
    }
    for (uint32_t k = 0; k < n; k++) {
        hpf_gnode *g = &m->nodes[by_lo[k] - 1];
        assert(g->site <= m->nsites);
        while (sp && m->nodes[stack[sp - 1] - 1].hi < g->lo)
            open[m->nodes[stack[--sp] - 1].site]--;
        g->outer = open[g->site] == 0;
        open[g->site]++;
        stack[sp++] = by_lo[k];
    }
    rc = 0;
done:
    free(by_lo);
    free(stack);
    free(open);
    return rc;
}

/* Every view shows a site's label: a site whose time some rank estimated
 * (a throttled site, hp_format.h's HP_SITEF_ESTIMATED) says so in it. */
static int mark_estimated(hpf_merged *m)
{
    for (uint32_t i = 0; i < m->nsites; i++) {
        hpf_gsite *g = &m->sites[i];
        char *marked;
        if (!(g->throttled & HP_SITEF_ESTIMATED))
            continue;
        if (asprintf(&marked, "%s [est]", g->label) < 0)
            return -1;
        free(g->label);
        g->label = marked;
    }
    return 0;
}

int hpf_merge_finish(hpf_merged *m)
{
    return mark_estimated(m) || number_subtrees(m) || mark_outer(m) ? -1 : 0;
}

int hpf_merge(hpf_profile *p, hpf_merged *m)
{
    hpf_keymap site_keys;
    hpf_nodemap node_keys;
    hp_buf key = {0};
    uint32_t site_cap = 0, node_cap = 0;
    int rc = -1;

    memset(m, 0, sizeof *m);
    hpf_keymap_init(&site_keys);
    hpf_nodemap_init(&node_keys);
    if (alloc_maps(m, p))
        goto done;
    for (uint32_t r = 0; r < p->nranks; r++)
        if (map_rank_sites(m, &site_keys, &site_cap, p, r, &key) ||
            map_rank_nodes(m, &node_keys, &node_cap, p, r))
            goto done;
    if (hpf_merge_finish(m))
        goto done;
    rc = 0;
done:
    hp_buf_free(&key);
    hpf_keymap_free(&site_keys);
    hpf_nodemap_free(&node_keys);
    if (rc)
        hpf_merged_free(m);
    return rc;
}

void hpf_merged_free(hpf_merged *m)
{
    for (uint32_t i = 0; i < m->nsites; i++)
        free(m->sites[i].label);
    for (uint32_t r = 0; r < m->nranks; r++) {
        if (m->site_map)
            free(m->site_map[r]);
        if (m->node_map)
            free(m->node_map[r]);
    }
    free(m->site_map);
    free(m->node_map);
    free(m->sites);
    free(m->nodes);
    memset(m, 0, sizeof *m);
}
