/*
 * hp_enter.h - the funnel of enter/exit events: instrumented probes
 * (probe.c) and -finstrument-functions hooks (cyg.c) both open and close
 * calling-context nodes only through these two functions, which fold
 * recursion (a site already open on this thread's stack gets no new node;
 * its count goes to the outermost activation and its time is not counted
 * twice), throttle tiny hot sites and keep the current context.  Inline:
 * they are the whole cost of a probe.
 */
#ifndef HP_ENTER_H
#define HP_ENTER_H

#include "hprof_probe.h"
#include "hp_clock.h"
#include "hp_thread.h"

#define HP_FRAME_OFF 0xffffffffu     /* nothing was opened */
#define HP_FRAME_FOLDED 0xfffffffeu  /* a recursive activation, counted only */

/* Throttling: a node timed `calls` times whose mean stays below `ticks`
 * is from then on only counted.  calls == 0 turns throttling off. */
extern uint64_t hp_throttle_calls, hp_throttle_ticks;
void hp_throttle_set(uint64_t calls, uint64_t ticks);

/* Opens site (a communication statement when is_comm) under the current
 * context of t, filling f for hp_exit_site. */
static inline void hp_enter_site(hp_thread *t, hprof_frame *f, uint32_t site, int is_comm)
{
    hp_active *a = hp_active_of(t, site);
    f->site = site;
    if (__builtin_expect(!a, 0)) {
        f->node = HP_FRAME_OFF;
        return;
    }
    if (a->depth) {
        a->depth++;
        hp_node_at(t, a->node)->count++;
        f->node = HP_FRAME_FOLDED;
        return;
    }
    uint32_t node = hp_cct_child(t, t->current, site);
    hp_node *n = hp_node_at(t, node);
    f->rec = n;     /* nodes never move (chunked); the active table may */
    a->depth = 1;
    a->node = node;
    f->node = node;
    f->saved = t->current;
    f->saved_comm = t->comm_ctx;
    t->current = node;
    if (is_comm)
        t->comm_ctx = node;
    if (n->flags & HP_NODEF_THROTTLED) {
        n->count++;
        f->start = a->start = 0;
        return;
    }
    f->start = a->start = hp_ticks();
}

static inline void hp_exit_site(hp_thread *t, hprof_frame *f)
{
    if (f->node == HP_FRAME_OFF)
        return;
    t->active[f->site].depth--;
    if (f->node == HP_FRAME_FOLDED)
        return;
    hp_node *n = f->rec;
    if (f->start) {
        hp_node_add(n, hp_ticks() - f->start);
        if (hp_throttle_calls && n->timed >= hp_throttle_calls &&
            n->ticks < n->timed * hp_throttle_ticks)
            n->flags |= HP_NODEF_THROTTLED;
    }
    t->current = f->saved;
    t->comm_ctx = f->saved_comm;
}

#endif
