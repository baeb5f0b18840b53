/*
 * hp_omp_fortran.h - OpenMP directives in Fortran source text, for
 * omp_pragma.c's placement of OpenMP sites (hp_omp_pragma.h), which
 * otherwise reads `#pragma omp`: the sentinels `!$omp` (free form, first
 * non-blank) and `!$omp`, `c$omp`, `*$omp` in column 1 (fixed form),
 * case-insensitive; a directive continued over lines (`!$omp&`, or a line
 * ending in `&`) starts at its first line; Fortran's `do` is C's `for`.
 * The lines are those of omp_pragma.c's sources: text[i] is line lo + i.
 */
#ifndef HP_OMP_FORTRAN_H
#define HP_OMP_FORTRAN_H

enum { HP_FORTRAN_FREE = 1, HP_FORTRAN_FIXED = 2 };

/* Is file a Fortran source, by its suffix: HP_FORTRAN_FREE or _FIXED
 * (.f .F .for .ftn), else 0? */
int hp_omp_fortran_file(const char *file);

/* Does the line start a directive `D ...` for a D in directives (NULL
 * terminated; "for" stands for `do` too)? */
int hp_omp_fortran_is_directive(const char *line, const char *const *directives);

/* The last line of the construct the directive at line l starts: its
 * `!$omp end D` line, or for a `do` without one, the end of its DO loop;
 * hi when not found. */
int hp_omp_fortran_construct_end(char *const *text, int lo, int hi, int l, int form);

/* The first line of the directive that line l continues (l itself when
 * it continues none). */
int hp_omp_fortran_directive_start(char *const *text, int lo, int hi, int l);

#endif
