/*
 * throttle.c - the time of throttled nodes (hp_throttle.h): the moment a
 * node is throttled, and the estimate of its time at the end of the run.
 */
#include <assert.h>
#include <stdlib.h>
#include "hp_event.h"
#include "hp_throttle.h"

int hp_node_times_alloc(hp_node_times *nt, uint32_t n)
{
    size_t k = n ? n : 1;
    nt->time = calloc(k, sizeof *nt->time);
    nt->est = calloc(k, sizeof *nt->est);
    nt->beneath = calloc(k, sizeof *nt->beneath);
    nt->beneath_est = calloc(k, sizeof *nt->beneath_est);
    if (nt->time && nt->est && nt->beneath && nt->beneath_est)
        return 0;
    hp_node_times_free(nt);
    return -1;
}

void hp_node_times_free(hp_node_times *nt)
{
    free(nt->time);
    free(nt->est);
    free(nt->beneath);
    free(nt->beneath_est);
    nt->time = nt->est = nt->beneath = nt->beneath_est = NULL;
}

/* Is node n (after first) in the subtree of first?  time[] is -1 for the
 * nodes before it that are not (a parent comes before its children). */
static int in_subtree(const hp_node *n, uint32_t first, const double *time)
{
    return n->parent != HP_NO_NODE && n->parent >= first && time[n->parent - first] >= 0;
}

void hp_throttle_estimate(const hp_thread *t, uint32_t first, uint32_t end, hp_node_times *nt)
{
    assert(first < end && end <= t->nnodes);
    /* time[] marks the subtree first (-1: outside it), then holds times */
    nt->time[0] = 0;
    for (uint32_t i = first + 1; i < end; i++)
        nt->time[i - first] = in_subtree(hp_node_at(t, i), first, nt->time) ? 0 : -1;
    for (uint32_t i = end; i-- > first;) {
        uint32_t k = i - first;
        if (nt->time[k] < 0) {
            nt->time[k] = 0;
            continue;
        }
        const hp_node *n = hp_node_at(t, i);
        if ((n->flags & HP_NODEF_THROTTLED) && n->timed) {
            double per_call = (double)n->excl / (double)n->timed;
            nt->est[k] = per_call * (double)(n->count - n->timed) + nt->beneath_est[k];
            nt->time[k] = per_call * (double)n->count + nt->beneath[k];
        } else {
            nt->est[k] = 0;
            nt->time[k] = (double)n->ticks;
        }
        if (i > first) {
            nt->beneath[n->parent - first] += nt->time[k];
            nt->beneath_est[n->parent - first] += nt->est[k];
        }
    }
}

/* beneath[] and beneath_est[] from time[] and est[]. */
static void sum_beneath(const hp_thread *t, uint32_t end, hp_node_times *nt)
{
    for (uint32_t i = 0; i < end; i++)
        nt->beneath[i] = nt->beneath_est[i] = 0;
    for (uint32_t i = 1; i < end; i++) {
        uint32_t p = hp_node_at(t, i)->parent;
        if (p != HP_NO_NODE && p < i) {
            nt->beneath[p] += nt->time[i];
            nt->beneath_est[p] += nt->est[i];
        }
    }
}

/* Does node n, of time `time`, bound its children?  Not a thread's root,
 * nor a node that did not run on the thread (the context a team's worker
 * rebuilds from its forking thread). */
static int holds_children(const hp_node *n, double time)
{
    return n->parent != HP_NO_NODE && (n->count > 0 || time > 0);
}

void hp_throttle_fit(const hp_thread *t, uint32_t end, hp_node_times *nt)
{
    /* share[i]: the fraction of its children's estimates node i takes out */
    double *share = calloc(end ? end : 1, sizeof *share);
    if (!share)
        return;
    sum_beneath(t, end, nt);
    for (uint32_t i = 0; i < end; i++) {
        const hp_node *n = hp_node_at(t, i);
        if (i > 0 && n->parent != HP_NO_NODE && n->parent < i && share[n->parent] > 0) {
            double cut = nt->est[i] * share[n->parent];
            nt->time[i] -= cut;
            nt->est[i] -= cut;
        }
        if (!holds_children(n, nt->time[i]))
            continue;
        double over = nt->beneath[i] - nt->time[i];
        if (over > 0 && nt->beneath_est[i] > 0)
            share[i] = over < nt->beneath_est[i] ? over / nt->beneath_est[i] : 1.0;
    }
    free(share);
}

/* The index of n among t's nodes. */
static uint32_t index_of(const hp_thread *t, const hp_node *n)
{
    for (uint32_t c = 0; c * HP_CHUNK < t->nnodes; c++) {
        const hp_node *chunk = t->node_chunks[c];
        if (n >= chunk && n < chunk + HP_CHUNK)
            return c * HP_CHUNK + (uint32_t)(n - chunk);
    }
    return HP_NO_NODE;
}

/* Runs once per node (after hp_throttle_calls timed calls of it, which
 * pay for the walk over the nodes created after it). */
void hp_throttle_begin(hp_node *n)
{
    hp_thread *t = hp_tls_self;
    uint32_t i = t ? index_of(t, n) : HP_NO_NODE;
    hp_node_times nt;
    n->excl = n->ticks;
    if (i != HP_NO_NODE && hp_node_times_alloc(&nt, t->nnodes - i) == 0) {
        hp_throttle_estimate(t, i, t->nnodes, &nt);
        n->excl = (double)n->ticks > nt.beneath[0] ? n->ticks - (uint64_t)nt.beneath[0] : 0;
        hp_node_times_free(&nt);
    }
    n->flags |= HP_NODEF_THROTTLED;
}
