/*
 * hp_compensate.h - intrusion compensation: a rank's node times with the
 * cost of the measurement taken out, from the event costs calibrated at
 * start-up (hp_format.h, enum hp_cost_kind).  Used by the end-of-run
 * summary and by the analyzer when it merges a profile; the file keeps the
 * raw times.
 *
 * Per node n (site kind -> event kind, hp_cost_kind_of), with C calls of
 * which T were timed and raw time R:
 *   own outside cost  O(n) = T x outside(timed kind) + (C - T) x outside(counted kind)
 * (counted: "probe counted" for a throttled site, "probe folded" for the
 * recursive activations of one never throttled)
 *   subtree cost      S(n) = O(n) + sum of S(c) over the children c of n
 *   compensated time  R'(n) = R - T x inside(timed kind) - f x sum of S(c)
 * where f = T / C for a node of a throttled site and 1 otherwise.  A
 * throttled node's raw time covers its timed calls only: the events
 * beneath it during its counted-only calls are not in R.  Throttling
 * picks nodes whose calls are alike (hot and tiny), so the events beneath
 * are taken as spread evenly over its calls.  (A recursive node's folded
 * activations are counted only too, but they lie inside its timed outer
 * activation, so everything beneath is in R: f = 1.)  A throttled site
 * written with HP_SITEF_ESTIMATED has R estimated over all C calls, with
 * everything beneath it (hp_throttle.h): f = 1, and C x inside(timed
 * kind) taken out (the estimate extends the mean of the timed calls,
 * that cost included, to the counted ones).
 *
 * Then R' is clamped to >= 0, and the children of each node that ran (a
 * node with calls or time, not a thread's root) are scaled down together
 * when they sum to more than the node (plus what they exceeded it by in
 * the raw times: records inconsistent as measured stay so for the
 * checker), so compensation never breaks the checker's rule a
 * (hprof-query --check).  min and max scale with the
 * node's time (rule f: min <= max <= time <= calls x max still holds).
 */
#ifndef HP_COMPENSATE_H
#define HP_COMPENSATE_H

#include "hp_profile.h"

/* What compensating one rank did. */
typedef struct hp_comp_stats {
    double overhead;          /* seconds of event cost on the thread that has most */
    double overhead_total;    /* summed over the rank's threads */
    uint64_t clamped_zero;    /* nodes whose compensated time went below 0 */
    uint64_t clamped_fit;     /* nodes whose children were scaled down to fit */
} hp_comp_stats;

/* The cost kind of the events a node of site s records, timed or counted
 * only; HP_COST_KINDS when it costs nothing (a thread's root). */
uint32_t hp_cost_kind_of(const hp_site_rec *s, int timed);

/* Compensated time, min and max of every node of rd into time[], min[] and
 * max[] (rd->nnodes entries each).  0 on success, -1 without memory. */
int hp_compensate(const hp_rank_data *rd, double *time, double *min, double *max,
                  hp_comp_stats *stats);

/* Replaces rd's node times by their compensated values (the summary's
 * records).  0 on success, -1 without memory (rd unchanged). */
int hp_compensate_in_place(hp_rank_data *rd, hp_comp_stats *stats);

#endif
