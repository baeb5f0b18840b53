/*
 * hp_ompt_kinds.h - what the OMPT tool records for a kind of event that
 * libomp reports, as a construct of hp_omp.h.
 */
#ifndef HP_OMPT_KINDS_H
#define HP_OMPT_KINDS_H

/* The wait a sync region of OMPT kind `kind` (ompt_sync_region_t) is:
 * HP_OMP_IMPLICIT_BARRIER, HP_OMP_BARRIER or HP_OMP_TASKWAIT (taskwait
 * and taskgroup); -1 when not recorded. */
int hp_ompt_wait_what(int kind);

#endif
