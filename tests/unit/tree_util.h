/*
 * tree_util.h - what the cmocka tests of the probes ask of the calling
 * thread's calling-context tree (test_probe.c, test_fast.c).
 */
#ifndef TREE_UTIL_H
#define TREE_UTIL_H

#include "hp_thread.h"

/* How many nodes of the calling thread stand for `site`. */
static inline unsigned tree_nodes_of_site(uint32_t site)
{
    hp_thread *t = hp_thread_self();
    unsigned n = 0;
    for (uint32_t i = 0; i < t->nnodes; i++)
        n += hp_node_at(t, i)->site == site;
    return n;
}

#endif
