/*
 * hp_calibrate.h - the start-up calibration of what each kind of event
 * costs on this machine (enum hp_cost_kind in hp_format.h), for intrusion
 * compensation (hp_compensate.h) and for the instrumentation policy
 * (hprof-query --suggest-filter reads the probe cost).
 *
 * Each kind is measured by one small function in calibrate.c that runs the
 * kind's real code path many times (the minimum of a few batches) on a
 * scratch thread record outside the registry, with sites that exist only
 * in that record: nothing of it reaches a profile.  Costs are kept in
 * ticks (the clock's rate is refined at the end of the run) and turned
 * into seconds by the snapshot.
 */
#ifndef HP_CALIBRATE_H
#define HP_CALIBRATE_H

#include <stdint.h>
#include "hp_format.h"

/* Ticks per event of each kind, measured by hp_calibrate (0 until then). */
typedef struct hp_cost_ticks {
    double outside, inside;
} hp_cost_ticks;
extern hp_cost_ticks hp_event_cost_ticks[HP_COST_KINDS];

/* Measures every kind but the tier-1 hooks' (about 0.15 ms), on the
 * calling thread when it has no records yet, else on a short-lived thread;
 * called once at start-up, before throttling is configured. */
void hp_calibrate(void);
/* Measures the tier-1 hook kinds if the hooks recorded, and puts the
 * costs in `costs` (a snapshot's).  At the end of a run (not a dying one),
 * as the hooks' first call loads the unwinder (0.2-0.3 ms that no other
 * run should pay), and AFTER the snapshot: it runs on the calling thread,
 * whose probe and hook frame stacks it drops (what they would record later
 * is never written; later probes and hooks start new ones).  Once. */
void hp_calibrate_hooks(hp_event_cost costs[HP_COST_KINDS]);
/* The same during the run, on a short-lived thread (the calling thread's
 * frames stay): for virtual time's clock (pmpi/hp_vtime.h), which charges
 * the hooks' cost as they fire.  Nothing if the hooks have not recorded
 * yet or their costs are known. */
void hp_calibrate_hooks_early(void);

/* What the calling thread's events cost so far, in ticks: per node, its
 * timed calls at the timed kind's "outside" cost and its counted ones at
 * the counted (throttled) or folded kind's, as compensation charges them
 * (hp_compensate.h).  A walk of the thread's nodes, whose cost kinds the
 * caller's cache keeps (zeroed at first; one cache per thread).  0 for a
 * thread without records or without memory.  Virtual time's clock
 * (pmpi/hp_vtime.h). */
typedef struct hp_charge_cache {
    const void *thread;     /* the records the kinds are of */
    unsigned char (*kinds)[2];  /* per node index: timed, counted kind */
    uint32_t n, cap;
} hp_charge_cache;
uint64_t hp_calibrated_charge(hp_charge_cache *c);

/* The calibrated costs in seconds at the clock's current rate. */
void hp_calibrated_costs(hp_event_cost out[HP_COST_KINDS]);

#endif
