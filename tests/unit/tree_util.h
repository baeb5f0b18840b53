/*
 * tree_util.h - what the cmocka tests of the probes and hooks ask of the
 * calling thread's calling-context tree, and their common set-up
 * (test_probe.c, test_fast.c, test_cyg_fast.c; include cmocka.h first).
 */
#ifndef TREE_UTIL_H
#define TREE_UTIL_H

#include <stdio.h>
#include "hp_clock.h"
#include "hp_event.h"
#include "hp_thread.h"

/* cmocka set-up: no records, no node limit, no throttling, collecting. */
static inline int tree_fresh(void **state)
{
    (void)state;
    hp_threads_free_all();
    hp_records_set_max_nodes(1000000);
    hp_throttle_set(0, 0);
    hp_collecting = 1;
    return 0;
}

/* Timed fast nodes need the TSC as the clock (the probes read it
 * inline): a test that needs them skips without it. */
static inline void tree_need_tsc(void)
{
    if (!hp_clock_use_tsc) {
        printf("# skipped: no TSC clock here, timed nodes are not made fast\n");
        skip();
    }
}

/* How many nodes of the calling thread stand for `site`. */
static inline unsigned tree_nodes_of_site(uint32_t site)
{
    hp_thread *t = hp_thread_self();
    unsigned n = 0;
    for (uint32_t i = 0; i < t->nnodes; i++)
        n += hp_node_at(t, i)->site == site;
    return n;
}

/* The calling thread's node of `site` under node `parent`, NULL if none. */
static inline hp_node *tree_node_under(uint32_t parent, uint32_t site)
{
    hp_thread *t = hp_thread_self();
    for (uint32_t i = 0; i < t->nnodes; i++)
        if (hp_node_at(t, i)->site == site && hp_node_at(t, i)->parent == parent)
            return hp_node_at(t, i);
    return NULL;
}

/* The index of the calling thread's node n. */
static inline uint32_t tree_index_of(const hp_node *n)
{
    hp_thread *t = hp_thread_self();
    for (uint32_t i = 0; i < t->nnodes; i++)
        if (hp_node_at(t, i) == n)
            return i;
    return HP_NO_NODE;
}

#endif
