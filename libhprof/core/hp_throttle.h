/*
 * hp_throttle.h - the time of throttled nodes.  A node throttled (hot and
 * tiny, hp_event.h) is only counted from then on, while what is recorded
 * beneath it (a rare slow callee, a wait, an MPI call) stays measured.
 * Its time is never left at its timed calls alone, or a child would
 * outgrow it; it is
 *     time = the time of everything recorded beneath it (measured, or
 *            estimated alike for a throttled child)
 *          + excl x count / timed,
 * where excl is what its timed calls spent outside what was recorded
 * beneath it by then (taken when it is throttled, hp_throttle_begin).  The
 * part of that time that is estimated rather than measured is
 *     est = excl x (count - timed) / timed + the est of its children,
 * so the time of a throttled node holds all of its children, and the
 * profile says how much of it is an estimate.  A node that is not
 * throttled keeps its measured time (est = 0); the estimates of the
 * throttled nodes beneath it are fitted into it at the end of the run
 * (hp_throttle_fit): an estimate never exceeds what was measured around it.
 */
#ifndef HP_THROTTLE_H
#define HP_THROTTLE_H

#include "hp_thread.h"

/* Per node i of one thread, in ticks, indexed i - first. */
typedef struct hp_node_times {
    double *time;         /* its time (measured, or estimated when throttled) */
    double *est;          /* the estimated part of time */
    double *beneath;      /* the sum of its children's time */
    double *beneath_est;  /* the sum of its children's est */
} hp_node_times;

/* Allocates the arrays for n nodes (zeroed); 0, or -1 without memory. */
int hp_node_times_alloc(hp_node_times *nt, uint32_t n);
void hp_node_times_free(hp_node_times *nt);

/* The times of the nodes of t's subtree rooted at `first` among the nodes
 * [first, end) (a child is always created after its parent); the others
 * stay 0.  The thread's own records: its owner, or the end of the run. */
void hp_throttle_estimate(const hp_thread *t, uint32_t first, uint32_t end, hp_node_times *nt);

/* Fits the estimates of nodes [0, end) of t into the time of their
 * parents: when a node's children exceed it, their estimated parts shrink
 * together (never their measured ones), top-down; a thread's root and
 * the nodes that did not run on t bound nothing.  Reads time[] and est[]
 * (any unit: the end of the run's seconds, with the activations still
 * open added), recomputes beneath[] and beneath_est[] from them. */
void hp_throttle_fit(const hp_thread *t, uint32_t end, hp_node_times *nt);

#endif
