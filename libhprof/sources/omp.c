/*
 * omp.c - what the OpenMP sources share (hp_omp.h): construct names, the
 * site of a construct, and the table of omp locks a thread holds.
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
    return hp_event_site_keyed(t, key, addr, HP_KIND_OMP, hp_omp_names[what],
                               entry ? HP_SITEF_ENTRY : 0);
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
                hp_event_leaf(t, l->held[i].site, now - l->held[i].start);
            return;
        }
}
