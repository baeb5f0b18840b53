/*
 * hp_fast.h - fast sites: the part of tier-2 probing that instrumented
 * code does inline (hprof_probe.h).  A site whose node under a context is
 * known is armed in the thread's fast table (one context per site and
 * thread); its probes, entered in that context, switch the context and
 * either bump the node's count (throttled nodes) or take the start time,
 * without calling the runtime.  The runtime arms sites after their slow
 * exits, closes timed fast activations, and closes the activations a
 * longjmp or pthread_exit skipped, fast and slow ones alike, innermost
 * first.  The invariants of the event boundary hold: a fast activation
 * is the thread's current context while it runs, so every record made
 * inside it lands under its node; a recursive entry of a fast site folds
 * into it (hp_event_enter asks hp_fast_is_open).
 */
#ifndef HP_FAST_H
#define HP_FAST_H

#include "hp_frames.h"
#include "hp_counters.h"

/* After a slow exit of frame f (not a communication statement): its site
 * becomes fast under f's context if it is fast nowhere yet, or only
 * counted there once throttled. */
void hp_fast_after_exit(hp_thread *t, const hprof_frame *f);

/* Slot f of the node n, just throttled (no activation of it open), only
 * counts it from now on: in place, or, for a leaf site (HP_SITEF_LEAF),
 * without switching the context (hprof_probe_fast.leaf). */
void hp_fast_counted(hp_fast *f, hp_node *n);

/* A slow probe opened f's node: if that node is a fast one, its open
 * activation is not an inline one. */
static inline void hp_fast_opened_slow(hp_thread *t, const hprof_frame *f)
{
    if (f->node < HPROF_FRAME_FAST_TIMED &&
        __builtin_expect(((const hp_node *)f->rec)->flags & HP_NODEF_FAST, 0))
        t->fast[f->site].sp = UINTPTR_MAX;
}

/* Whether the innermost activation is a fast one recorded below stack
 * address sp, gone (the test before hp_fast_unwind on the slow path). */
static inline int hp_fast_innermost_gone(const hp_thread *t, uintptr_t sp)
{
    const hp_node *n = hp_node_at(t, t->current);
    return __builtin_expect(n->flags & HP_NODEF_FAST, 0) && t->fast[n->site].sp < sp &&
           t->fast[n->site].node == t->current;
}

/* Closes the activations recorded below stack address sp (gone: a
 * longjmp or pthread_exit left them), fast ones from the thread's fast
 * table and slow ones from s, innermost first, with the time up to now. */
void hp_fast_unwind(hp_frames *s, uintptr_t sp);

/* The exit of a fast activation that needs the runtime (timed, or not the
 * innermost one any more): closes what it left open inside, then it. */
void hp_fast_exit_slow(hp_frames *s, hp_thread *t, const hprof_frame *f);

static inline void hp_fast_exit(hp_frames *s, hp_thread *t, const hprof_frame *f)
{
    if (__builtin_expect(f->node == HPROF_FRAME_FAST_TIMED, 1)) {
        hp_fast *mine = &t->fast[f->site];
        if (__builtin_expect(mine->node == f->saved_comm && t->current == f->saved_comm &&
                             mine->sp == (uintptr_t)f && !mine->count, 1)) {
            hp_node *n = mine->rec;
            hp_node_add(n, hp_ticks() - mine->start);
            t->current = n->parent;
            if (__builtin_expect(hp_event_throttle(n), 0))
                hp_fast_counted(mine, n);
            return;
        }
    }
    hp_fast_exit_slow(s, t, f);
}

/* Lets t's probes use its fast table again (slow path, collecting).
 * Never while counters are read: the inline probes do not read them. */
static inline void hp_fast_enable(hp_thread *t)
{
    if (!hp_counters_on)
        t->nfast = t->nactive;
}

#endif
