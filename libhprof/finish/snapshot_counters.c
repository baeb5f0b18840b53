/*
 * snapshot_counters.c - copies every thread's counter values per node
 * (hp_counters.h) into the CNTR records of hp_rank_data, node ids as the
 * node snapshot numbers them (a thread's nodes follow the earlier
 * threads').  The activations the calling thread still has open (main,
 * a loop around MPI_Finalize) get their values up to now, as their time
 * does; another thread's counters cannot be read from here, so its open
 * activations keep what their earlier, closed ones gathered.
 */
#include <stdlib.h>
#include <string.h>
#include "hp_counters.h"
#include "hp_snapshot.h"
#include "hp_thread.h"

/* Thread t's values of its first nnodes nodes, nnodes x ne, with those of
 * its open activations added when it is the calling thread. */
static uint64_t *thread_values(hp_thread *t, uint32_t nnodes, uint32_t ne)
{
    uint64_t *v = calloc((size_t)nnodes * ne + 1, sizeof *v);
    uint64_t now[HP_COUNTERS_MAX];
    if (!v)
        return NULL;
    for (uint32_t i = 0; i < nnodes; i++)
        for (uint32_t k = 0; k < ne; k++)
            v[(size_t)i * ne + k] = hp_counters_value(t, i, k);
    if (hp_counters_now(t, now) != 0)
        return v;
    for (uint32_t s = 0; s < t->nactive; s++) {
        const hp_active *a = &t->active[s];
        if (!a->depth || !a->start || a->node >= nnodes)
            continue;
        for (uint32_t k = 0; k < ne; k++) {
            uint64_t start = hp_counters_site_start(t, s, k);
            v[(size_t)a->node * ne + k] += now[k] > start ? now[k] - start : 0;
        }
    }
    return v;
}

/* Appends thread t's values that are not 0 to rd->counters (room for
 * every one of them). */
static void append_thread(hp_rank_data *rd, const uint64_t *v, uint32_t base, uint32_t nnodes,
                          uint32_t ne)
{
    for (uint32_t i = 0; i < nnodes; i++)
        for (uint32_t k = 0; k < ne; k++)
            if (v[(size_t)i * ne + k])
                rd->counters[rd->ncounters++] =
                    (hp_counter_rec){base + i, k, v[(size_t)i * ne + k]};
}

static int copy_event_names(hp_rank_data *rd, uint32_t ne)
{
    rd->events = calloc(ne, sizeof *rd->events);
    if (!rd->events)
        return -1;
    for (uint32_t k = 0; k < ne; k++) {
        rd->events[k] = strdup(hp_counters_name(k));
        if (!rd->events[k])
            return -1;
        rd->nevents = k + 1;
    }
    return 0;
}

int hp_snapshot_counters(hp_rank_data *rd, const uint32_t *counts, uint32_t nt)
{
    uint32_t ne = hp_counters_count(), base = 0;
    size_t room = 0;
    if (!ne)
        return 0;
    if (copy_event_names(rd, ne) != 0)
        return -1;
    for (uint32_t i = 0; i < nt; i++)
        room += (size_t)counts[2 * i] * ne;
    rd->counters = calloc(room + 1, sizeof *rd->counters);
    if (!rd->counters)
        return -1;
    for (uint32_t i = 0; i < nt; i++) {
        uint64_t *v = thread_values(hp_thread_get(i), counts[2 * i], ne);
        if (!v)
            return -1;
        append_thread(rd, v, base, counts[2 * i], ne);
        free(v);
        base += counts[2 * i];
    }
    return 0;
}
