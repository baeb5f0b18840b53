/*
 * pomp2_team.c - the POMP2 source's parallel regions:
 *  - Parallel_fork .. Parallel_join on the master, Parallel_begin ..
 *    Parallel_end on every thread of the team: the "parallel" node, opened
 *    under the forking thread's context (hp_event_team_begin); "fork" (fork
 *    until the master's begin) and "join" (master's end until join) beside
 *    it on the master.  The team's context goes from the master to the
 *    workers through the region: p2_region.team for a region forked
 *    outside any parallel region, else a small list keyed by the forking
 *    thread's position in the enclosing teams (omp_get_ancestor_thread_num
 *    at every level), so one level of nesting or more, with the same
 *    region forked by several threads at once, is kept apart.
 */
#include "hp_pomp2.h"


/* The forking thread's position in the enclosing teams, levels 1..level. */
static uint64_t team_key(int level)
{
    uint64_t k = 1469598103934665603ull ^ (uint64_t)level;
    for (int l = 1; l <= level; l++) {
        k ^= (uint64_t)(hp_p2_rt.get_ancestor ? hp_p2_rt.get_ancestor(l) : 0) + 1;
        k *= 1099511628211ull;
    }
    return k;
}

static inline int omp_level(void)
{
    return hp_p2_rt.get_level ? hp_p2_rt.get_level() : 0;
}

API void POMP2_Parallel_fork(POMP2_Region_handle *handle, int if_clause, int num_threads,
                             POMP2_Task_handle *old_task, const char ctc_string[])
{
    uint64_t now = hp_ticks();
    (void)if_clause;
    (void)num_threads;
    p2_region *r = region_of(handle, ctc_string);
    p2_tls *g = hp_p2_tls_get();
    if (g && old_task)
        *old_task = g->task;
    if (!r || !g)
        return;
    uint32_t i = g->nfork++;
    if (i >= MAX_PAR)
        return;
    p2_team *team = &g->fork[i];
    hp_thread *t = recorder();
    team->master = t;
    team->fork_start = now;
    team->master_end = 0;
    team->region = r;
    if (t)
        hp_event_team_fork(t, &team->ctx, hp_p2_region_site(r, HP_OMP_PARALLEL), 0, 0);
    int level = omp_level();
    if (level == 0) {
        team->next = r->team;
        __atomic_store_n(&r->team, team, __ATOMIC_RELEASE);
    } else {
        team->key = team_key(level);
        pthread_mutex_lock(&r->nest_lock);
        team->next = r->nested;
        r->nested = team;
        pthread_mutex_unlock(&r->nest_lock);
    }
}

API void POMP2_Parallel_join(POMP2_Region_handle *handle, POMP2_Task_handle old_task)
{
    uint64_t now = hp_ticks();
    p2_region *r = region_of(handle, NULL);
    p2_tls *g = hp_p2_tls;
    if (g)
        g->task = old_task;
    if (!r || !g || !g->nfork)
        return;
    uint32_t i = --g->nfork;
    if (i >= MAX_PAR)
        return;
    p2_team *team = &g->fork[i];
    if (team->region != r)
        return;
    if (r->team == team) {
        __atomic_store_n(&r->team, team->next, __ATOMIC_RELEASE);
    } else {
        pthread_mutex_lock(&r->nest_lock);
        for (p2_team **p = &r->nested; *p; p = &(*p)->next)
            if (*p == team) {
                *p = team->next;
                break;
            }
        pthread_mutex_unlock(&r->nest_lock);
    }
    hp_thread *t = hp_tls_self;
    if (team->master && team->master == t && team->master_end && hp_collecting)
        hp_event_leaf(t, hp_p2_region_site(r, HP_OMP_JOIN), now - team->master_end);
}

/* The team of r that this thread has just joined. */
static p2_team *find_team(p2_region *r)
{
    int level = omp_level() - 1;   /* the forking thread's level */
    if (level <= 0)
        return __atomic_load_n(&r->team, __ATOMIC_ACQUIRE);
    uint64_t key = team_key(level);
    p2_team *found = NULL;
    pthread_mutex_lock(&r->nest_lock);
    for (p2_team *p = r->nested; p; p = p->next)
        if (p->key == key) {
            found = p;
            break;
        }
    pthread_mutex_unlock(&r->nest_lock);
    return found;
}

API void POMP2_Parallel_begin(POMP2_Region_handle *handle)
{
    uint64_t now = hp_ticks();
    p2_region *r = region_of(handle, NULL);
    p2_tls *g = hp_p2_tls_get();
    if (!g)
        return;
    uint32_t i = g->npar++;
    if (i >= MAX_PAR)
        return;
    p2_par *p = &g->par[i];
    p->opened = 0;
    p->team = r ? find_team(r) : NULL;
    p->old_task = g->task;
    g->task = POMP2_Get_new_task_handle();
    if (!p->team || !p->team->master || !hp_collecting || hp_p2_off)
        return;
    hp_thread *t = hp_thread_self();
    if (!t)
        return;
    if (t == p->team->master)
        hp_event_leaf(t, hp_p2_region_site(r, HP_OMP_FORK), now - p->team->fork_start);
    hp_event_team_begin(t, &p->team->ctx, &p->f, &p->saved);
    p->opened = 1;
}

API void POMP2_Parallel_end(POMP2_Region_handle *handle)
{
    (void)handle;
    p2_tls *g = hp_p2_tls;
    if (!g || !g->npar)
        return;
    uint32_t i = --g->npar;
    if (i >= MAX_PAR)
        return;
    p2_par *p = &g->par[i];
    g->task = p->old_task;
    /* constructs left open inside the region are dropped */
    if (!p->opened)
        return;
    hp_thread *t = hp_tls_self;
    hp_event_team_end(t, &p->f, &p->saved);
    if (p->team && t == p->team->master)
        p->team->master_end = hp_ticks();
}
