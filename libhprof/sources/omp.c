/*
 * omp.c - what the OpenMP sources share (hp_omp.h): construct names and
 * the site of a construct (omp_lock.c: the omp locks).
 */
#include "hp_omp.h"
#include "hp_site.h"

const char *const hp_omp_names[HP_OMP_NWHAT] = {
    "parallel", "implicit barrier", "barrier", "critical wait", "critical",
    "lock wait", "lock", "loop", "single", "master", "task", "task create",
    "taskwait", "fork", "join", "ordered wait", "ordered", "atomic", "flush",
    "target",
};

uint32_t hp_omp_site(hp_thread *t, uintptr_t addr, int entry, int what)
{
    /* One address carries several constructs (a critical's wait and hold):
     * the construct is part of the key. */
    uint64_t key = hp_site_key(addr, HP_KIND_OMP) ^ ((uint64_t)(what + 1) << 48);
    return hp_event_site_keyed(t, key, addr, HP_KIND_OMP, hp_omp_names[what],
                               entry ? HP_SITEF_ENTRY : 0);
}
