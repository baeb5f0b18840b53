/*
 * cyg.c - tier 1: procedures and call sites of code compiled with
 * -finstrument-functions.  Each call opens two nodes, the call site
 * (keyed by its return address) and the procedure under it (keyed by the
 * function's entry); both are resolved to names and lines at the end of
 * the run like every dynamic site.  The frames live on a per-thread stack
 * because the hooks have none of their own.
 */
#include <stdlib.h>
#include "hp_enter.h"
#include "hp_site.h"

struct hp_call_stack {
    uint32_t n, cap;
    hprof_frame *frames;
};

#define HOOK __attribute__((no_instrument_function, visibility("default")))

void __cyg_profile_func_enter(void *fn, void *call_site) HOOK;
void __cyg_profile_func_exit(void *fn, void *call_site) HOOK;

/* Two fresh frames on the thread's stack, or NULL without memory. */
static hprof_frame *push_pair(hp_thread *t)
{
    struct hp_call_stack *s = t->calls;
    if (!s && !(s = t->calls = calloc(1, sizeof *s)))
        return NULL;
    if (s->n + 2 > s->cap) {
        uint32_t cap = s->cap ? s->cap * 2 : 256;
        hprof_frame *f = realloc(s->frames, sizeof *f * cap);
        if (!f)
            return NULL;
        s->frames = f;
        s->cap = cap;
    }
    s->n += 2;
    return &s->frames[s->n - 2];
}

static uint32_t dynamic_site(hp_thread *t, uintptr_t addr, uint32_t kind, uint32_t flags)
{
    uint64_t key = hp_site_key(addr, kind);
    uint32_t site = hp_map_get(&t->site_cache, key);
    if (site == HP_MAP_MISSING) {
        site = hp_site_dynamic(addr, kind, kind == HP_KIND_CALL ? "call" : "procedure", flags);
        if (site != HP_SITE_OVERFLOW)
            hp_map_put(&t->site_cache, key, site);
    }
    return site;
}

void __cyg_profile_func_enter(void *fn, void *call_site)
{
    hp_thread *t = hp_thread_self();
    hprof_frame *f = t ? push_pair(t) : NULL;
    if (!f)
        return;
    f[0].node = f[1].node = HP_FRAME_OFF;
    if (!hp_collecting)
        return;
    uint32_t call = dynamic_site(t, (uintptr_t)call_site, HP_KIND_CALL, 0);
    uint32_t proc = dynamic_site(t, (uintptr_t)fn, HP_KIND_PROCEDURE, HP_SITEF_ENTRY);
    hp_site *cs = hp_site_get(call);
    if (cs->callee == HP_NONE && call != HP_SITE_OVERFLOW)
        cs->callee = proc;
    hp_enter_site(t, &f[0], call, 0);
    hp_enter_site(t, &f[1], proc, 0);
}

void __cyg_profile_func_exit(void *fn, void *call_site)
{
    hp_thread *t = hp_tls_self;
    (void)fn;
    (void)call_site;
    if (!t || !t->calls || t->calls->n < 2)
        return;
    hprof_frame *f = &t->calls->frames[t->calls->n - 2];
    hp_exit_site(t, &f[1]);
    hp_exit_site(t, &f[0]);
    t->calls->n -= 2;
}

void hp_call_stack_free(struct hp_call_stack *s)
{
    if (s)
        free(s->frames);
    free(s);
}
