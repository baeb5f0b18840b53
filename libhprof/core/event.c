/*
 * event.c - the out-of-line part of the event boundary (hp_event.h): the
 * throttling settings, sites keyed per thread, calls under way at a
 * dying process's end, and OpenMP teams.
 */
#include "hp_event.h"
#include "hp_site.h"

uint64_t hp_throttle_calls = 100000;
uint64_t hp_throttle_ticks;

void hp_throttle_set(uint64_t calls, uint64_t ticks)
{
    hp_throttle_calls = calls;
    hp_throttle_ticks = ticks;
}

uint32_t hp_event_site_keyed(hp_thread *t, uint64_t key, uintptr_t addr, uint32_t kind,
                             const char *name, uint32_t flags)
{
    uint32_t site = hp_map_get(&t->site_cache, key);
    if (site == HP_MAP_MISSING) {
        site = hp_site_dynamic_keyed(key, addr, kind, name, flags);
        if (site != HP_SITE_OVERFLOW)
            hp_map_put(&t->site_cache, key, site);
    }
    return site;
}

void hp_event_calls_under_way(uint64_t now, uint32_t (*node_of)(hp_thread *t, uintptr_t ra,
                                                               uint32_t id))
{
    uint32_t n = hp_thread_count();
    for (uint32_t i = 0; i < n; i++) {
        hp_thread *t = hp_thread_get(i);
        uint64_t start = t ? __atomic_load_n(&t->call_start, __ATOMIC_ACQUIRE) : 0;
        if (!start || now <= start)
            continue;
        hp_event_time(t, node_of(t, t->call_ra, t->call_id), now - start);
        hp_event_call_end(t);
    }
}

void hp_event_team_fork(hp_thread *t, hp_omp_team *team, uint32_t region)
{
    uint32_t chain[HP_OMP_MAX_DEPTH], n = 0;
    for (uint32_t node = t->current; node != HP_ROOT_NODE && node != HP_NO_NODE;
         node = hp_node_at(t, node)->parent)
        if (n < HP_OMP_MAX_DEPTH)
            chain[n++] = hp_node_at(t, node)->site;
    static uint32_t teams;
    team->id = __atomic_add_fetch(&teams, 1, __ATOMIC_RELAXED);
    team->depth = n;
    for (uint32_t i = 0; i < n; i++)
        team->path[i] = chain[n - 1 - i];
    team->region = region;
}

void hp_event_team_begin(hp_thread *t, const hp_omp_team *team, hprof_frame *f,
                       hp_omp_saved *saved)
{
    *saved = (hp_omp_saved){t->current, t->team, t->task_cur, t->task_fold, t->task_acc};
    t->team = team->id;
    t->task_cur = 0;
    t->task_fold = 0;
    t->task_acc = 0;
    uint32_t node = HP_ROOT_NODE;
    for (uint32_t i = 0; i < team->depth; i++)
        node = hp_cct_child(t, node, team->path[i]);
    t->current = node;
    hp_event_enter(t, f, team->region, 0);
}

void hp_event_team_end(hp_thread *t, hprof_frame *f, const hp_omp_saved *saved)
{
    hp_event_exit(t, f);
    t->current = saved->node;
    t->team = saved->team;
    t->task_cur = saved->task;
    t->task_fold = saved->task_fold;
    t->task_acc = saved->task_acc;
}
