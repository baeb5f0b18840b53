/*
 * ompt_codeptr.c - the code ranges that are not the user's, for the OMPT
 * tool (hp_ompt_codeptr.h): the executable segments of the OpenMP runtime,
 * the dynamic loader and libhprof, found once with dl_iterate_phdr, so
 * that the check on every event is a few comparisons.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <execinfo.h>
#include <link.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/auxv.h>
#include "hp_ompt_codeptr.h"

#define MAX_RANGES 16

typedef struct range {
    uintptr_t lo, hi;
    int runtime;   /* the OpenMP runtime's (else the loader's or ours) */
} range;

static range ranges[MAX_RANGES];
static int nranges;
static uintptr_t ranges_lo, ranges_hi;   /* the span of all ranges: a quick "no" */

typedef struct wanted {
    uintptr_t runtime_fn, self_fn, loader_base;
} wanted;

static int contains(const struct dl_phdr_info *info, uintptr_t addr)
{
    for (int i = 0; i < info->dlpi_phnum; i++) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
        uintptr_t lo = info->dlpi_addr + ph->p_vaddr;
        if (ph->p_type == PT_LOAD && addr >= lo && addr < lo + ph->p_memsz)
            return 1;
    }
    return 0;
}

static int add_module(struct dl_phdr_info *info, size_t size, void *data)
{
    const wanted *w = data;
    (void)size;
    int runtime = w->runtime_fn && contains(info, w->runtime_fn);
    if (!runtime && !contains(info, w->self_fn) &&
        !(w->loader_base && info->dlpi_addr == w->loader_base))
        return 0;
    for (int i = 0; i < info->dlpi_phnum && nranges < MAX_RANGES; i++) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
        if (ph->p_type != PT_LOAD || !(ph->p_flags & PF_X))
            continue;
        uintptr_t lo = info->dlpi_addr + ph->p_vaddr;
        ranges[nranges++] = (range){lo, lo + ph->p_memsz, runtime};
    }
    return 0;
}

void hp_ompt_codeptr_init(void)
{
    wanted w = {(uintptr_t)dlsym(RTLD_DEFAULT, "omp_get_thread_num"),
                (uintptr_t)hp_ompt_codeptr_init, (uintptr_t)getauxval(AT_BASE)};
    nranges = 0;
    dl_iterate_phdr(add_module, &w);
    ranges_lo = UINTPTR_MAX;
    ranges_hi = 0;
    for (int i = 0; i < nranges; i++) {
        ranges_lo = ranges[i].lo < ranges_lo ? ranges[i].lo : ranges_lo;
        ranges_hi = ranges[i].hi > ranges_hi ? ranges[i].hi : ranges_hi;
    }
}

/* The range holding ra, or NULL. */
static const range *range_of(const void *ra)
{
    uintptr_t a = (uintptr_t)ra;
    if (a < ranges_lo || a >= ranges_hi)
        return NULL;   /* the user's code, typically: the executable lies below the libraries */
    for (int i = 0; i < nranges; i++)
        if (a >= ranges[i].lo && a < ranges[i].hi)
            return &ranges[i];
    return NULL;
}

int hp_ompt_foreign(const void *ra)
{
    return !ra || range_of(ra) != NULL;
}

int hp_ompt_in_runtime(const void *ra)
{
    const range *r = ra ? range_of(ra) : NULL;
    return r && r->runtime;
}

const void *hp_ompt_user_frame(void)
{
    void *frames[32];
    int n = backtrace(frames, 32);
    for (int i = 0; i < n; i++)
        if (!hp_ompt_foreign(frames[i]))
            return frames[i];
    return NULL;
}

const void *hp_ompt_user_caller(const void *ra)
{
    if (!hp_ompt_in_runtime(ra))
        return ra;
    const void *user = hp_ompt_user_frame();
    return user ? user : ra;
}
