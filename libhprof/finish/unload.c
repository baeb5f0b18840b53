/*
 * unload.c - dlclose, interposed: what a module takes with it when the
 * program unloads it.  A dynamic site is a return address, resolved to
 * function, file and line at the end of the run (resolve.c); once its
 * module is unmapped, that address names nothing, or code of a module
 * loaded there later.  So before the real dlclose the dynamic sites not
 * yet resolved are resolved while every module is still there, and after
 * it the address range of a module that went and held dynamic sites is
 * reserved (no access, no memory), so that no module loaded later gets
 * the addresses those sites and every per-thread memo of them are keyed
 * by.  Static sites need neither: their strings are copied when they are
 * registered (site.c).
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <link.h>
#include <pthread.h>
#include <stdlib.h>
#include <sys/mman.h>
#include "hp_resolve.h"
#include "hp_site.h"

#ifndef MAP_FIXED_NOREPLACE
#define MAP_FIXED_NOREPLACE 0x100000
#endif

/* A loaded module: where the loader put it and the pages it spans. */
typedef struct loaded {
    uintptr_t base, lo, hi;
    int main_program;
} loaded;

typedef struct module_list {
    loaded *m;
    size_t n, cap;
} module_list;

static pthread_mutex_t unload_lock = PTHREAD_MUTEX_INITIALIZER;
/* This thread is inside the wrapper (libdw might close a module). */
static __thread int unloading;

static int add_module(struct dl_phdr_info *info, size_t size, void *arg)
{
    (void)size;
    module_list *l = arg;
    uintptr_t lo = UINTPTR_MAX, hi = 0;
    for (int i = 0; i < info->dlpi_phnum; i++) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
        if (ph->p_type != PT_LOAD)
            continue;
        uintptr_t start = info->dlpi_addr + ph->p_vaddr;
        if (start < lo)
            lo = start;
        if (start + ph->p_memsz > hi)
            hi = start + ph->p_memsz;
    }
    if (lo >= hi)
        return 0;
    if (l->n == l->cap) {
        size_t cap = l->cap ? 2 * l->cap : 32;
        loaded *m = realloc(l->m, cap * sizeof *m);
        if (!m)
            return 1;
        l->m = m;
        l->cap = cap;
    }
    uintptr_t page = 4096;
    int main_program = l->n == 0 && (!info->dlpi_name || !info->dlpi_name[0]);
    l->m[l->n++] = (loaded){info->dlpi_addr, lo & ~(page - 1), (hi + page - 1) & ~(page - 1),
                            main_program};
    return 0;
}

static module_list loaded_modules(void)
{
    module_list l = {0};
    dl_iterate_phdr(add_module, &l);
    return l;
}

static const loaded *module_at(const module_list *l, uintptr_t addr)
{
    for (size_t i = 0; i < l->n; i++)
        if (addr >= l->m[i].lo && addr < l->m[i].hi)
            return &l->m[i];
    return NULL;
}

/* Is there a dynamic site not resolved yet in a module other than the
 * main program (which no dlclose unloads)? */
static int unresolved_in_libraries(const module_list *l)
{
    uint32_t n = hp_site_count();
    for (uint32_t id = 0; id < n; id++) {
        const hp_site *s = hp_site_get(id);
        const loaded *m;
        if ((s->flags & HP_SITEF_DYNAMIC) && !s->module && (m = module_at(l, s->addr)) &&
            !m->main_program)
            return 1;
    }
    return 0;
}

static int holds_dynamic_site(const loaded *m)
{
    uint32_t n = hp_site_count();
    for (uint32_t id = 0; id < n; id++) {
        const hp_site *s = hp_site_get(id);
        if ((s->flags & HP_SITEF_DYNAMIC) && s->addr >= m->lo && s->addr < m->hi)
            return 1;
    }
    return 0;
}

static int still_loaded(const module_list *after, const loaded *m)
{
    for (size_t i = 0; i < after->n; i++)
        if (after->m[i].base == m->base && after->m[i].lo == m->lo)
            return 1;
    return 0;
}

/* Keeps the pages of a module that went from being mapped again, when
 * they are still free (another thread may have loaded something there). */
static void reserve(const loaded *m)
{
    void *at = (void *)m->lo;
    void *p = mmap(at, m->hi - m->lo, PROT_NONE,
                   MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_FIXED_NOREPLACE, -1, 0);
    if (p != MAP_FAILED && p != at)
        munmap(p, m->hi - m->lo);   /* a kernel that took the address as a hint */
}

/* The modules of `before` that are gone from `after` and held dynamic
 * sites keep their address ranges reserved. */
static void reserve_gone(const module_list *before, const module_list *after)
{
    for (size_t i = 0; i < before->n; i++) {
        const loaded *m = &before->m[i];
        if (!m->main_program && !still_loaded(after, m) && holds_dynamic_site(m))
            reserve(m);
    }
}

__attribute__((visibility("default"))) int dlclose(void *handle)
{
    static int (*real_dlclose)(void *);
    if (!real_dlclose)
        real_dlclose = (int (*)(void *))dlsym(RTLD_NEXT, "dlclose");
    if (!real_dlclose)
        return -1;
    if (unloading)
        return real_dlclose(handle);
    unloading = 1;
    pthread_mutex_lock(&unload_lock);
    module_list before = loaded_modules();
    if (unresolved_in_libraries(&before))
        hp_resolve_dynamic_sites();
    int rc = real_dlclose(handle);
    module_list after = loaded_modules();
    if (rc == 0 && before.n && after.n)
        reserve_gone(&before, &after);
    pthread_mutex_unlock(&unload_lock);
    unloading = 0;
    free(before.m);
    free(after.m);
    return rc;
}
