/*
 * site.c - the process-wide site registry.  Sites live in fixed chunks so
 * their addresses never move; insertion takes a mutex, lookup by id does not.
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include "hp_site.h"
#include "hp_map.h"

#define CHUNK_BITS 10
#define CHUNK_SIZE (1u << CHUNK_BITS)
#define MAX_CHUNKS 4096u

static hp_site *chunks[MAX_CHUNKS];
static uint32_t nsites;
static hp_map by_addr;   /* return address -> site id */
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

static char *dup_or_null(const char *s)
{
    return s ? strdup(s) : NULL;
}

/* Appends a zeroed site; caller holds the lock.  HP_NONE when full. */
static uint32_t append_locked(void)
{
    uint32_t id = nsites;
    uint32_t c = id >> CHUNK_BITS;
    if (c >= MAX_CHUNKS)
        return HP_NONE;
    if (!chunks[c] && !(chunks[c] = calloc(CHUNK_SIZE, sizeof(hp_site))))
        return HP_NONE;
    hp_site *s = &chunks[c][id & (CHUNK_SIZE - 1)];
    memset(s, 0, sizeof *s);
    s->parent = s->callee = HP_NONE;
    __atomic_store_n(&nsites, id + 1, __ATOMIC_RELEASE); /* hp_site_flags reads it unlocked */
    return id;
}

static void ensure_reserved_locked(void)
{
    if (nsites)
        return;
    uint32_t root = append_locked(), over = append_locked();
    if (root == HP_NONE || over == HP_NONE)
        return;
    hp_site_get(root)->kind = HP_KIND_ROOT;
    hp_site_get(root)->name = "<root>";
    hp_site_get(over)->kind = HP_KIND_OVERFLOW;
    hp_site_get(over)->name = "<overflow>";
}

uint32_t hp_site_add_static(uint32_t kind, const char *name, const char *func,
                            const char *file, uint32_t line, uint32_t end_line,
                            uint32_t parent, uint32_t callee)
{
    pthread_mutex_lock(&lock);
    ensure_reserved_locked();
    uint32_t id = append_locked();
    if (id != HP_NONE) {
        hp_site *s = hp_site_get(id);
        s->kind = kind;
        s->name_copy = dup_or_null(name);
        s->name = s->name_copy ? s->name_copy : "?";
        s->func = dup_or_null(func);
        s->file = dup_or_null(file);
        s->line = line;
        s->end_line = end_line;
        s->parent = parent;
        s->callee = callee;
    }
    pthread_mutex_unlock(&lock);
    return id;
}

uint32_t hp_site_dynamic(uintptr_t addr, uint32_t kind, const char *name,
                         uint32_t flags)
{
    return hp_site_dynamic_keyed(hp_site_key(addr, kind), addr, kind, name, flags);
}

uint32_t hp_site_dynamic_keyed(uint64_t key, uintptr_t addr, uint32_t kind,
                               const char *name, uint32_t flags)
{
    pthread_mutex_lock(&lock);
    ensure_reserved_locked();
    uint32_t id = hp_map_get(&by_addr, key);
    if (id == HP_MAP_MISSING) {
        id = append_locked();
        if (id != HP_NONE && hp_map_put(&by_addr, key, id) == 0) {
            hp_site *s = hp_site_get(id);
            s->kind = kind;
            s->name = name;
            s->flags = flags | HP_SITEF_DYNAMIC;
            s->addr = addr;
        } else {
            id = HP_SITE_OVERFLOW;
        }
    }
    pthread_mutex_unlock(&lock);
    return id;
}

uint32_t hp_site_count(void)
{
    pthread_mutex_lock(&lock);
    ensure_reserved_locked();
    uint32_t n = nsites;
    pthread_mutex_unlock(&lock);
    return n;
}

uint32_t hp_site_flags(uint32_t id)
{
    if (id >= __atomic_load_n(&nsites, __ATOMIC_ACQUIRE))
        return 0;
    return __atomic_load_n(&hp_site_get(id)->flags, __ATOMIC_RELAXED);
}

hp_site *hp_site_get(uint32_t id)
{
    return &chunks[id >> CHUNK_BITS][id & (CHUNK_SIZE - 1)];
}

void hp_site_registry_reset(void)
{
    pthread_mutex_lock(&lock);
    for (uint32_t id = 0; id < nsites; id++) {
        hp_site *s = hp_site_get(id);
        free(s->name_copy);
        free(s->func);
        free(s->file);
        free(s->module);
    }
    nsites = 0;
    hp_map_free(&by_addr);
    ensure_reserved_locked();
    pthread_mutex_unlock(&lock);
}

void hp_site_link_callee(uint32_t call, uint32_t site)
{
    if (call == HP_SITE_OVERFLOW)
        return;
    uint32_t none = HP_NONE;
    hp_site *cs = hp_site_get(call);
    if (__atomic_load_n(&cs->callee, __ATOMIC_RELAXED) == HP_NONE)
        __atomic_compare_exchange_n(&cs->callee, &none, site, 0, __ATOMIC_RELAXED,
                                    __ATOMIC_RELAXED);
}
