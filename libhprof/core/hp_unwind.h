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

/* The same, also giving the stack addresses the walk read, in order: at[0]
 * holds ra (the caller's return-address slot), at[i] out[i - 1], and
 * at[got + 1], when *reads is got + 2, a 0 that ended the walk.  *reads is
 * 0 when libunwind did the walk (no addresses known).  at[] has room for
 * want + 2.  The same stack words at the same addresses from the same
 * frame and key make the same walk (callpath.c's memo). */
int hp_unwind_above_at(uintptr_t ra, uintptr_t key, uintptr_t frame, uintptr_t *out, int want,
                       uintptr_t *at, int *reads);

/* Reads the process's modules now (at start-up: not in the first timed
 * event that needs a frame's offset). */
void hp_unwind_init(void);

/* How many walks libunwind did so far (the first from each place, and
 * those through frames without a simple rule): for tests. */
unsigned long hp_unwind_slow_walks(void);

#endif
