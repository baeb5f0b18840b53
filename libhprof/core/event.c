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

/* Each frame of a call path from node up: one more count, and ticks when
 * timed (a throttled region is only counted).  by_site: frames known by
 * their sites' flag (a team thread's copies of the forker's frames). */
static void frames_add(hp_thread *t, uint32_t node, uint64_t ticks, int timed, int by_site)
{
    while (node != HP_NO_NODE && node != HP_ROOT_NODE) {
        hp_node *n = hp_node_at(t, node);
        int frame = by_site ? (hp_site_flags(n->site) & HP_SITEF_FRAME) != 0
                            : (n->flags & HP_NODEF_FRAME) != 0;
        if (!frame)
            break;
        if (timed)
            hp_node_add(n, ticks);
        else
            n->count++;
        node = n->parent;
    }
}

void hp_event_team_fork(hp_thread *t, hp_omp_team *team, uint32_t region, uintptr_t ra,
                        uint64_t start)
{
    team->frames = HP_NO_NODE;
    team->outer = t->current;
    team->forker = t;
    team->fork_ticks = start;
    if (ra && hp_callpath_depth > 1 && t->current == HP_ROOT_NODE) {
        uint32_t ctx = hp_event_callpath_from(t, ra, (uintptr_t)__builtin_return_address(0));
        if (ctx != t->current && ctx != t->overflow) {
            team->frames = ctx;
            t->current = ctx;   /* the frames are the forker's context until the close */
        }
    }
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

void hp_event_team_close(hp_thread *t, const hp_omp_team *team)
{
    if (t != team->forker)
        return;
    uint64_t now = hp_ticks();
    uint64_t ticks = team->fork_ticks && now > team->fork_ticks ? now - team->fork_ticks : 0;
    /* work at the forker's task level, as a task run is: a wait the fork
     * ran inside (a deferred target task run in a taskwait forks its
     * teams) leaves it out */
    t->task_acc += ticks;
    if (team->frames == HP_NO_NODE)
        return;
    frames_add(t, team->frames, ticks, 1, 0);
    t->current = team->outer;
}

void hp_event_team_begin(hp_thread *t, const hp_omp_team *team, hprof_frame *f,
                       hp_omp_saved *saved)
{
    *saved = (hp_omp_saved){t->current, t->team, t->task_cur, t->task_fold, t->task_acc,
                            team->frames != HP_NO_NODE && t != team->forker};
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
    uint64_t start = f->start;
    hp_event_exit(t, f);
    /* a thread of the team: the frames above the region count its part */
    if (saved->frame_time && f->node < HP_FRAME_FOLDED)
        frames_add(t, hp_node_at(t, f->node)->parent, start ? hp_ticks() - start : 0,
                   start != 0, 1);
    t->current = saved->node;
    t->team = saved->team;
    t->task_cur = saved->task;
    t->task_fold = saved->task_fold;
    t->task_acc = saved->task_acc;
}
