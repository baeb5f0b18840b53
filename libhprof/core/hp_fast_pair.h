/*
 * hp_fast_pair.h - fast activations of a pair of nodes: a call statement
 * and the procedure under it, as the tier-1 hooks open them (cyg.c).
 * Like the tier-2 probes' fast sites (hp_fast.h): when the call's site is
 * fast under the thread's current context and the procedure's site fast
 * under the call's node, both are opened without the event boundary's
 * slow path: the context is switched, a throttled node's count bumped, a
 * timed one's start taken (once for both).  The source keeps a frame per
 * node on its own frame stack (hp_frames.h) so that its slot logic stays
 * the same; such a frame has node HP_FRAME_OFF (the core's closing of
 * frames passes over it) and rec set, and says which activation it
 * stands for.  hp_fast_pair_unwind closes them with the source's slow
 * frames by stack position, like hp_fast_unwind the probes' ones.
 */
#ifndef HP_FAST_PAIR_H
#define HP_FAST_PAIR_H

#include "hp_fast.h"

/* What marks a source's frame as one of a fast activation. */
extern const char hp_fast_pair_mark;

/* Whether the frame f of a source's stack stands for a fast activation
 * (hp_fast_pair_frame_set), not for one of hp_event_enter. */
static inline int hp_fast_pair_frame(const hprof_frame *f)
{
    return f->node == HP_FRAME_OFF && f->rec != NULL;
}

/* Makes f the frame of the fast activation of site (its node and the
 * rest are in the thread's fast table). */
static inline void hp_fast_pair_frame_set(hprof_frame *f, uint32_t site)
{
    f->node = HP_FRAME_OFF;
    f->site = site;
    f->rec = (void *)&hp_fast_pair_mark;
}

/* Marks a frame the source fills itself (the slow path) as no fast one. */
static inline void hp_fast_pair_frame_clear(hprof_frame *f)
{
    f->node = HP_FRAME_OFF;
    f->rec = NULL;
}

/* Whether call (under the current context) and proc (under call's node)
 * are fast there: then the source pushes their frames and opens them
 * with hp_fast_pair_start. */
static inline __attribute__((always_inline)) int hp_fast_pair_ready(const hp_thread *t,
                                                                    uint32_t call, uint32_t proc)
{
    if (__builtin_expect(call >= t->nfast || proc >= t->nfast, 0))
        return 0;
    const hp_fast *c = &t->fast[call], *p = &t->fast[proc];
    return c->parent == t->current && p->parent == c->node;
}

/* Opens the pair of call and proc hp_fast_pair_ready accepted, at stack
 * address sp: counts or start times, then the context.  The slots are
 * looked up again: a signal handler's hooks may have grown the table
 * since. */
static inline __attribute__((always_inline)) void hp_fast_pair_start(hp_thread *t, uint32_t call,
                                                                     uint32_t proc, uintptr_t sp)
{
    hp_fast *c = &t->fast[call], *p = &t->fast[proc];
    if (c->count && p->count) {
        ++*c->count;
        ++*p->count;
    } else {
        uint64_t now = hp_ticks();
        if (c->count)
            ++*c->count;
        if (p->count)
            ++*p->count;
        c->start = p->start = now;
    }
    c->sp = p->sp = sp;
    __asm__ volatile("" ::: "memory"); /* a signal handler's hooks see it whole */
    t->current = p->node;
}

/* Closes one fast activation, the innermost one, at now (if timed). */
static inline __attribute__((always_inline)) void hp_fast_pair_close_one(hp_fast *s, uint64_t now)
{
    if (!s->count) {
        hp_node *n = s->rec;
        hp_node_add(n, now > s->start ? now - s->start : 0);
        if (__builtin_expect(hp_event_throttle(n), 0))
            hp_fast_counted(s, n);
    }
    s->sp = UINTPTR_MAX;
}

/* The activations of call and proc opened at stack address sp end, or
 * whatever of them a non-local exit or a reset left: closes each that is
 * still open, what it left open inside first. */
void hp_fast_pair_close_slow(hp_thread *t, uint32_t call, uint32_t proc, uintptr_t sp);

/* hp_fast_unwind for a stack whose frames come in pairs, fast ones
 * (hp_fast_pair_frame) among them: closes the activations recorded below
 * stack address sp, fast and slow, innermost first. */
void hp_fast_pair_unwind(hp_frames *s, uintptr_t sp);

/* Closes the pair of call and proc opened at sp if its procedure is the
 * innermost activation (the common case, inline); 0 (nothing done) if
 * not: then hp_fast_pair_close_slow. */
static inline __attribute__((always_inline)) int hp_fast_pair_close(hp_thread *t, uint32_t call, uint32_t proc, uintptr_t sp)
{
    hp_fast *c = &t->fast[call], *p = &t->fast[proc];
    if (__builtin_expect(p->sp != sp || c->sp != sp || t->current != p->node ||
                             c->parent == HP_NO_NODE,
                         0))
        return 0;
    if (c->count && p->count) {
        c->sp = p->sp = UINTPTR_MAX;
    } else {
        uint64_t now = hp_ticks();
        hp_fast_pair_close_one(p, now);
        hp_fast_pair_close_one(c, now);
    }
    t->current = c->parent;
    return 1;
}

#endif
