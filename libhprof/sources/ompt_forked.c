/*
 * ompt_forked.c - the parallel regions (and host teams leagues) a thread
 * has forked and not yet ended, innermost last: the OMPT tool's own record
 * of which region a parallel-end callback ends (hp_ompt.h).
 *
 * libomp (14) reports a region's end with the parallel data of its team
 * after it has given the team back to its pool.  Another thread forking a
 * region in between (a nested region, forked by each thread of the outer
 * team) may have taken that team already: its parallel data then holds
 * the tool's state of that other region, whose workers are still to read
 * it at their implicit-task begin.  Ending the region named there would
 * end the other thread's region (its workers' implicit tasks then lost)
 * and leave this one open.  A region ends on the thread that forked it,
 * nested regions first, so every parallel-begin pushes the region's state
 * here (NULL if it has none) and every parallel-end pops the innermost.
 */
#include "config.h"

#ifdef HAVE_OMPT
#include "hp_ompt.h"
#include "hp_stack.h"

typedef struct forked {
    void **regions;           /* innermost last (hp_stack.h) */
    uint32_t n, cap;
    uint32_t lost;            /* pushes not kept (no memory): the innermost */
} forked;

static __thread forked fk __attribute__((tls_model("initial-exec")));

void hp_ompt_forked_push(void *region)
{
    /* once one is lost, the deeper ones are too: the pops stay in order */
    if (fk.lost || (fk.n >= fk.cap &&
                    !hp_stack_room((void **)&fk.regions, &fk.cap, fk.n, sizeof(void *)))) {
        fk.lost++;
        return;
    }
    fk.regions[fk.n++] = region;
}

void *hp_ompt_forked_pop(void)
{
    if (fk.lost) {
        fk.lost--;
        return NULL;
    }
    return fk.n ? fk.regions[--fk.n] : NULL;   /* (none: a runtime's stray end) */
}
#endif
