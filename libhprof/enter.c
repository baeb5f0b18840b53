/*
 * enter.c - opening and closing calling-context nodes for procedures,
 * loops, call and communication statements: recursion folding (a site
 * already open on this thread's stack gets no new node; its count goes to
 * the outermost activation and its time is not counted twice) and
 * automatic throttling of tiny hot sites.
 */
#include "hp_clock.h"
#include "hp_enter.h"
#include "hp_site.h"

static uint64_t throttle_calls = 100000;
static uint64_t throttle_ticks;

void hp_throttle_set(uint64_t calls, uint64_t ticks)
{
    throttle_calls = calls;
    throttle_ticks = ticks;
}

void hp_enter_site(hp_thread *t, hprof_frame *f, uint32_t site)
{
    hp_active *a = hp_active_of(t, site);
    f->site = site;
    if (!a) {
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
    a->depth = 1;
    a->node = node;
    f->node = node;
    f->saved = t->current;
    f->saved_comm = t->comm_ctx;
    t->current = node;
    if (hp_site_get(site)->kind == HP_KIND_COMM)
        t->comm_ctx = node;
    if (n->flags & HP_NODEF_THROTTLED) {
        n->count++;
        f->start = a->start = 0;
        return;
    }
    f->start = a->start = hp_ticks();
}

static void maybe_throttle(hp_node *n)
{
    if (throttle_calls && n->timed >= throttle_calls &&
        n->ticks < n->timed * throttle_ticks)
        n->flags |= HP_NODEF_THROTTLED;
}

void hp_exit_site(hp_thread *t, hprof_frame *f)
{
    if (f->node == HP_FRAME_OFF)
        return;
    t->active[f->site].depth--;
    if (f->node == HP_FRAME_FOLDED)
        return;
    hp_node *n = hp_node_at(t, f->node);
    if (f->start) {
        hp_node_add(n, hp_ticks() - f->start);
        maybe_throttle(n);
    }
    t->current = f->saved;
    t->comm_ctx = f->saved_comm;
}
