/*
 * hp_site.h - the site registry: every statement hprof keeps records for.
 * Static sites come from instrumented code; dynamic sites are created at
 * run time from a call's return address and resolved to file:line at the
 * end of the run (hp_resolve.h).  Ids are process-wide and never reused.
 */
#ifndef HP_SITE_H
#define HP_SITE_H

#include <stdint.h>
#include "hp_format.h"

typedef struct hp_site {
    uint32_t kind;      /* enum hp_site_kind */
    uint32_t flags;     /* HP_SITEF_* */
    const char *name;   /* MPI function, procedure, ...: a string of
                           libhprof's own, or name_copy */
    char *name_copy;    /* owned: a static site's name, copied from its
                           module (which dlclose may unmap before the end) */
    char *func, *file, *module;  /* owned; NULL when unknown */
    uint32_t line, end_line, parent, callee;
    uintptr_t addr;     /* return address of a dynamic site */
    uint64_t offset;    /* addr relative to its module */
} hp_site;

/* Dynamic sites are keyed by address and kind: a function's entry may
 * coincide with the return address of a call just before it. */
static inline uint64_t hp_site_key(uintptr_t addr, uint32_t kind)
{
    return (uint64_t)addr ^ ((uint64_t)kind << 56);
}

#define HP_SITE_ROOT 0u
#define HP_SITE_OVERFLOW 1u

/* Registers a site known at compile time.  name, func and file are
 * copied (they may lie in a module unloaded before the run ends).  Returns its id, or HP_NONE without memory. */
uint32_t hp_site_add_static(uint32_t kind, const char *name, const char *func,
                            const char *file, uint32_t line, uint32_t end_line,
                            uint32_t parent, uint32_t callee);
/* The site of return address `addr`, created on first use with `kind`,
 * `name` (a static string) and `flags`.  Thread-safe (takes a mutex; the
 * hot path goes through the per-thread cache in hp_thread.h first). */
uint32_t hp_site_dynamic(uintptr_t addr, uint32_t kind, const char *name,
                         uint32_t flags);
/* The same with the caller's own key (several sites at one address). */
uint32_t hp_site_dynamic_keyed(uint64_t key, uintptr_t addr, uint32_t kind,
                               const char *name, uint32_t flags);
uint32_t hp_site_count(void);
/* Site id's flags without the lock (a signal handler's probe may ask); 0
 * for an id the registry has not given out (a calibration's scratch
 * sites). */
uint32_t hp_site_flags(uint32_t id);
hp_site *hp_site_get(uint32_t id);
/* Forget every site but the two reserved ones (unit tests only). */
void hp_site_registry_reset(void);

/* Call site `call` reaches procedure `site` (the first one seen stays):
 * set once, atomically, as several threads may make the same call. */
void hp_site_link_callee(uint32_t call, uint32_t site);

#endif
