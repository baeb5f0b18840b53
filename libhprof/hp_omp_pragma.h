/*
 * hp_omp_pragma.h - the line of a `#pragma omp` directive in a source
 * file, for OpenMP sites whose line the debug information does not give.
 *
 * gcc from -O1 on gives the calls it makes for some constructs the line
 * of a neighbouring statement: GOMP_single_start the line before the
 * single, GOMP_ordered_start that of the loop or of the region,
 * GOMP_loop_end that of the region or of the loop body; the pragma's own
 * line is then in no line row at all.  Such a site is placed at the
 * directive of its kind inside the lines of its outlined function
 * (from the region's pragma to the function's last line) that is nearest
 * to the line the call has (the earlier one on a tie).  With no such
 * directive there (or no source file), the line stays.
 */
#ifndef HP_OMP_PRAGMA_H
#define HP_OMP_PRAGMA_H

/* The directive names (the first word after `omp`) that construct
 * `name` (hp_omp_names) is placed at, NULL-terminated; NULL when its
 * call's line is right. */
const char *const *hp_omp_pragma_directives(const char *name);

/* The line in [lo, hi] of `file` holding `#pragma omp D` for a D in
 * directives, nearest to `near`; 0 if none. */
int hp_omp_pragma_line(const char *file, int lo, int hi, int near,
                       const char *const *directives);

#endif
