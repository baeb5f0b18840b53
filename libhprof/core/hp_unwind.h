/*
 * hp_unwind.h - the return addresses above a call site (unwind.c), for
 * the call paths of tier-0 sites (callpath.c).
 */
#ifndef HP_UNWIND_H
#define HP_UNWIND_H

#include <stdint.h>

/* The return addresses above ra, the return address of the call that
 * reached our code, innermost first, at most want of them: how many.
 * key is the return address into the function asking (the place in our
 * code the walk starts from), frame that function's frame address
 * (__builtin_frame_address(0)); the two find ra's frame without libunwind
 * after the first walk from key. */
int hp_unwind_above(uintptr_t ra, uintptr_t key, uintptr_t frame, uintptr_t *out, int want);

/* Reads the process's modules now (at start-up: not in the first timed
 * event that needs a frame's offset). */
void hp_unwind_init(void);

/* How many walks libunwind did so far (the first from each place, and
 * those through frames without a simple rule): for tests. */
unsigned long hp_unwind_slow_walks(void);

#endif
