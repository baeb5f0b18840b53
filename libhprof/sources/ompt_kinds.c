/*
 * ompt_kinds.c - OMPT event kinds as hprof's OpenMP constructs
 * (hp_ompt_kinds.h), for the OMPT tool (ompt.c).
 */
#include "config.h"
#include "hp_ompt_kinds.h"

#ifdef HAVE_OMPT
#include HP_OMPT_HEADER
#include "hp_omp.h"

int hp_ompt_wait_what(int kind)
{
    switch (kind) {
    case ompt_sync_region_barrier_implicit:
    case ompt_sync_region_barrier_implicit_workshare:
    case ompt_sync_region_barrier_implicit_parallel:
    case ompt_sync_region_barrier_implementation:
        return HP_OMP_IMPLICIT_BARRIER;
    case ompt_sync_region_barrier:
    case ompt_sync_region_barrier_explicit:
        return HP_OMP_BARRIER;
    case ompt_sync_region_taskwait:
    case ompt_sync_region_taskgroup:
        return HP_OMP_TASKWAIT;
    default:
        return -1;
    }
}
#endif
