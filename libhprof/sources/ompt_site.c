/*
 * ompt_site.c - the OMPT tool's per-thread memo of sites (hp_ompt.h): the
 * site of construct `what` at a code address, kept in a small
 * direct-mapped table per thread, so that an event at an address seen
 * before costs a few instructions instead of a hash and a map lookup
 * (hp_omp_site).  Site ids belong to the process (hp_site.h): any thread
 * may use one another thread registered.  A slot holds what + 1, so that
 * an empty (zeroed) slot matches nothing, not even a NULL address.
 */
#include "config.h"

#ifdef HAVE_OMPT
#include <stdlib.h>
#include "hp_ompt.h"
#include "hp_site.h"

#define MEMO_SLOTS 256   /* a power of 2 */

typedef struct memo_slot {
    const void *ra;
    uint32_t what1;      /* what + 1; 0: empty */
    uint32_t site;
} memo_slot;

static __thread memo_slot *memo __attribute__((tls_model("initial-exec")));

static unsigned memo_index(const void *ra, int what)
{
    uintptr_t a = (uintptr_t)ra;
    return (unsigned)((a >> 4) ^ (a >> 12) ^ ((uintptr_t)what * 37u)) & (MEMO_SLOTS - 1);
}

/* Not memoized yet (or evicted): the registry's site, kept. */
static __attribute__((noinline)) uint32_t memo_miss(hp_thread *t, const void *ra, int what)
{
    memo_slot *m = memo ? memo : (memo = calloc(MEMO_SLOTS, sizeof *m));
    uint32_t site = hp_omp_site(t, (uintptr_t)ra, 0, what);
    if (m && site != HP_SITE_OVERFLOW)
        m[memo_index(ra, what)] = (memo_slot){ra, (uint32_t)what + 1, site};
    return site;
}

uint32_t hp_ompt_site(hp_thread *t, const void *ra, int what)
{
    const memo_slot *m = memo;
    if (__builtin_expect(m != NULL, 1)) {
        m += memo_index(ra, what);
        if (m->ra == ra && m->what1 == (uint32_t)what + 1)
            return m->site;
    }
    return memo_miss(t, ra, what);
}
#endif
