/*
 * fast.c - fast sites (hp_fast.h): arming a site after its slow exit,
 * closing timed fast activations, and closing the activations a non-local
 * exit skipped, fast and slow ones, innermost first.
 */
#include <assert.h>
#include "hp_clock.h"
#include "hp_fast_pair.h"
#include "hp_site.h"

/* Makes `node` fast under its parent: counted only if it is throttled,
 * else timed, which needs the TSC as the clock (the probes read it
 * inline). */
static void arm(hp_thread *t, uint32_t node)
{
    hp_node *n = hp_node_at(t, node);
    int counted = (n->flags & HP_NODEF_THROTTLED) != 0;
    if (n->parent == HP_NO_NODE || node == t->overflow || (n->flags & HP_NODEF_FOLDED))
        return; /* recursive sites stay with the runtime: it folds them */
    if (!counted && !hp_clock_use_tsc)
        return; /* probes read the TSC inline: timed slots need it as the clock */
    hp_fast *f = &t->fast[n->site];
    f->node = node;
    f->count = NULL;
    f->rec = n;
    f->sp = UINTPTR_MAX;
    __asm__ volatile("" ::: "memory"); /* a signal handler's probe sees it whole */
    f->parent = n->parent;
    n->flags |= HP_NODEF_FAST;
    if (counted)
        hp_fast_counted(f, n);
}

void hp_fast_counted(hp_fast *f, hp_node *n)
{
    assert(f->node != HP_NO_NODE && f->rec == n);
    f->count = &n->count;
    if (!(hp_site_flags(n->site) & HP_SITEF_LEAF) || f->parent == HP_NO_NODE)
        return;
    f->leaf = f->parent;
    __asm__ volatile("" ::: "memory"); /* a signal handler's probe counts it once */
    f->parent = HP_NO_NODE;
}

void hp_fast_after_exit(hp_thread *t, const hprof_frame *f)
{
    if (f->node >= HPROF_FRAME_FAST_TIMED)
        return;
    assert(f->site < t->nactive);
    hp_fast *s = &t->fast[f->site];
    const hp_node *n = f->rec;
    if (s->parent == HP_NO_NODE && s->leaf == HP_NO_NODE)
        arm(t, f->node);
    else if (s->node == f->node && !s->count && (n->flags & HP_NODEF_THROTTLED))
        hp_fast_counted(s, hp_node_at(t, f->node));
}

int hp_fast_is_open(const hp_thread *t, uint32_t site)
{
    uint32_t fast = t->fast[site].node;
    for (uint32_t n = t->current; n != HP_NO_NODE; n = hp_node_at(t, n)->parent)
        if (n == fast)
            return 1;
    return 0;
}

/* The fast activation that is the innermost one, NULL if that is not a
 * fast activation. */
static hp_fast *innermost_fast(hp_thread *t)
{
    const hp_node *n = hp_node_at(t, t->current);
    if (!(n->flags & HP_NODEF_FAST))
        return NULL;
    hp_fast *f = &t->fast[n->site];
    return f->node == t->current && f->sp != UINTPTR_MAX ? f : NULL;
}

/* Closes the innermost activation, the fast one f, at now. */
static void close_fast(hp_thread *t, hp_fast *f, uint64_t now)
{
    hp_node *n = f->rec;
    f->sp = UINTPTR_MAX;
    t->current = n->parent;
    if (!f->count) {
        hp_node_add(n, now > f->start ? now - f->start : 0);
        if (hp_event_throttle(n))
            hp_fast_counted(f, n);
    }
}

/* Closes the innermost activation if it is a fast one recorded below
 * stack address sp (gone), at now: 1 if it did. */
static int close_fast_gone(hp_thread *t, uintptr_t sp, uint64_t now)
{
    hp_fast *f = innermost_fast(t);
    if (!f || f->sp >= sp)
        return 0;
    close_fast(t, f, now);
    return 1;
}

void hp_fast_unwind(hp_frames *s, uintptr_t sp)
{
    hp_thread *t = s->t;
    uint64_t now = hp_ticks();
    for (;;) {
        if (close_fast_gone(t, sp, now))
            continue;
        if (s->open[s->n - 1].sp < sp) { /* open[0] lies above every stack */
            hp_frames_close_above(s, s->n - 1);
            continue;
        }
        return;
    }
}

void hp_fast_exit_slow(hp_frames *s, hp_thread *t, const hprof_frame *f)
{
    uint32_t node = f->saved_comm;
    uint64_t now = hp_ticks();
    hp_fast *mine = &t->fast[hp_node_at(t, node)->site];
    if (mine->node != node || mine->sp != (uintptr_t)f)
        return; /* closed already, as gone, by an earlier probe */
    if (t->current != node) {
        /* it left activations open inside: close them, innermost first */
        if (s->t != t || !hp_fast_is_open(t, hp_node_at(t, node)->site))
            return;
        while (t->current != node) {
            hp_fast *in = innermost_fast(t);
            if (in)
                close_fast(t, in, now);
            else if (s->n > HP_FRAMES_BASE)
                hp_frames_close_above(s, s->n - 1);
            else
                return;
        }
    }
    close_fast(t, mine, now);
}

/* ------------------------------------------- pairs of the tier-1 hooks
 * (hp_fast_pair.h): the exit of a pair that is not the innermost
 * activation any more, or not open any more. */

const char hp_fast_pair_mark;

/* Closes the fast activation of site opened at sp if it is still open,
 * with what it left open inside that the table knows (fast activations);
 * the context goes back to its parent, as a slow frame's exit does. */
static void pair_close_one(hp_thread *t, uint32_t site, uintptr_t sp, uint64_t now)
{
    assert(site < t->nactive);
    hp_fast *mine = &t->fast[site];
    if (mine->sp != sp)
        return; /* closed already (gone at an earlier event) */
    if (!hp_fast_is_open(t, site)) {
        mine->sp = UINTPTR_MAX; /* not on the context any more (reset) */
        return;
    }
    while (t->current != mine->node) {
        hp_fast *in = innermost_fast(t);
        if (!in)
            break;
        close_fast(t, in, now);
    }
    hp_fast_pair_close_one(mine, now);
    t->current = hp_node_at(t, mine->node)->parent;
}

void hp_fast_pair_close_slow(hp_thread *t, uint32_t call, uint32_t proc, uintptr_t sp)
{
    uint64_t now = hp_ticks();
    pair_close_one(t, proc, sp, now);
    pair_close_one(t, call, sp, now);
}

void hp_fast_pair_unwind(hp_frames *s, uintptr_t sp)
{
    hp_thread *t = s->t;
    uint64_t now = hp_ticks();
    for (;;) {
        if (close_fast_gone(t, sp, now))
            continue;
        const hp_open *top = &s->open[s->n - 1];
        if (top->sp >= sp) /* open[0] lies above every stack */
            return;
        if (s->n >= HP_FRAMES_BASE + 2 && hp_fast_pair_frame(&top->f)) {
            pair_close_one(t, top->f.site, top->sp, now);
            pair_close_one(t, top[-1].f.site, top->sp, now);
            hp_frames_publish(s, s->n - 2);
        } else {
            hp_frames_close_above(s, s->n - 1);
        }
    }
}
