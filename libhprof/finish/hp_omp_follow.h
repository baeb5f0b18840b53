/*
 * hp_omp_follow.h - the worksharing construct that a barrier call ends,
 * told by the statement that runs right after the call.
 *
 * gcc gives the call of a loop's end barrier (GOMP_barrier,
 * GOMP_loop_end) the line row of whatever code comes before it in
 * address order, which need not be the loop's: the previous loop's body
 * for the second of two `omp for` loops in a serial `for (m...)` (NPB SP
 * compute_rhs), or, with -finstrument-functions, the setup of the serial
 * loop that follows (NPB LU ssor).  The code right after the call (its
 * return address) is what runs once the barrier is passed, and gcc gives
 * it a row of its own that marks the beginning of a statement (is_stmt):
 *  - the increment of a serial `for` (`m++`): the barrier ends the
 *    construct that is the last statement of that loop's body;
 *  - the first line of a statement: the barrier ends the construct whose
 *    statement comes right before it (only blanks and comments between).
 * Either way the construct is proved by the source's own adjacency, not
 * by a distance; a construct with `nowait` has no barrier and proves
 * nothing, nor does a preprocessor line in between (an explicit
 * barrier).  Anything else: 0, and the site is placed as before
 * (hp_omp_pragma.h).
 */
#ifndef HP_OMP_FOLLOW_H
#define HP_OMP_FOLLOW_H

/* The line of the worksharing directive (one of `directives`, e.g.
 * {"for", "sections", NULL}) that the statement starting at line:col of
 * C file `file` follows, as above; `from` is a line at a statement
 * boundary before it (the outlined function's first own line).  0 if
 * none is proved. */
int hp_omp_follow_construct(const char *file, int from, int line, int col,
                            const char *const *directives);

#endif
