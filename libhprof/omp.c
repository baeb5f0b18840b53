/*
 * omp.c - OpenMP records in the calling-context tree (hp_omp.h): sites of
 * constructs, a team's shared context and the per-thread region nodes.
 */
#include "hp_omp.h"
#include "hp_site.h"

const char *const hp_omp_names[HP_OMP_NWHAT] = {
    "parallel", "implicit barrier", "barrier", "critical wait", "critical",
    "lock wait", "lock", "loop", "single", "master", "task", "task create",
    "taskwait", "fork", "join", "ordered wait", "ordered", "atomic", "flush",
};

uint32_t hp_omp_site(hp_thread *t, uintptr_t addr, int entry, int what)
{
    /* One address carries several constructs (a critical's wait and hold):
     * the construct is part of the key. */
    uint64_t key = hp_site_key(addr, HP_KIND_OMP) ^ ((uint64_t)(what + 1) << 48);
    uint32_t site = hp_map_get(&t->site_cache, key);
    if (site == HP_MAP_MISSING) {
        site = hp_site_dynamic_keyed(key, addr, HP_KIND_OMP, hp_omp_names[what],
                                     entry ? HP_SITEF_ENTRY : 0);
        if (site != HP_SITE_OVERFLOW)
            hp_map_put(&t->site_cache, key, site);
    }
    return site;
}

void hp_omp_team_init(hp_thread *t, hp_omp_team *team, uint32_t region)
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

void hp_omp_task_begin(hp_thread *t, const hp_omp_team *team, hprof_frame *f,
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
    hp_enter_site(t, f, team->region, 0);
}

void hp_omp_task_end(hp_thread *t, hprof_frame *f, const hp_omp_saved *saved)
{
    hp_exit_site(t, f);
    t->current = saved->node;
    t->team = saved->team;
    t->task_cur = saved->task;
    t->task_fold = saved->task_fold;
    t->task_acc = saved->task_acc;
}

void hp_omp_record(hp_thread *t, uint32_t site, uint64_t ticks)
{
    hp_node_add(hp_node_at(t, hp_cct_child(t, t->current, site)), ticks);
}

void hp_omp_record_wait(hp_thread *t, uint32_t site, uint64_t ticks, uint64_t mark)
{
    uint64_t ran = t->task_acc - mark;
    hp_omp_record(t, site, ticks > ran ? ticks - ran : 0);
}

void hp_omp_lock_acquired(hp_omp_locks *l, void *lock, uint64_t t1, uint32_t site, int nest)
{
    int free_slot = -1;
    for (int i = 0; i < HP_OMP_LOCKS; i++) {
        if (l->held[i].lock == lock) {
            if (nest) {
                l->held[i].depth++;
                return;
            }
            free_slot = i;   /* a stale entry: a simple lock is held once */
            break;
        }
        if (!l->held[i].lock && free_slot < 0)
            free_slot = i;
    }
    if (free_slot < 0)
        return;              /* too many locks held: this hold is not recorded */
    l->held[free_slot].lock = lock;
    l->held[free_slot].start = t1;
    l->held[free_slot].depth = 1;
    l->held[free_slot].site = site;
}

void hp_omp_lock_released(hp_omp_locks *l, hp_thread *t, void *lock, uint64_t now)
{
    for (int i = 0; i < HP_OMP_LOCKS; i++)
        if (l->held[i].lock == lock) {
            if (--l->held[i].depth)
                return;
            l->held[i].lock = NULL;
            if (l->held[i].site != HP_OMP_NO_SITE && t && hp_collecting)
                hp_omp_record(t, l->held[i].site, now - l->held[i].start);
            return;
        }
}
