/*
 * hp_omp_lines.h - OpenMP sites at their construct's line, named after the
 * user's function, when call sites are resolved (resolve.c).
 *
 * A construct's code lives in a function the compiler outlined: gcc names
 * it `work._omp_fn.N` and nests its DWARF entry in work's, without a
 * declaration line; clang names it `.omp_outlined.`,
 * `.omp_outlined._debug__.N`, ... at the top of the unit, declared at the
 * pragma's line.  A site is named after the user function that contains
 * the construct: gcc's name up to `._omp_fn.`; for clang, the function of
 * the same file declared last before the outlined one (functions do not
 * nest in C, so that is the one whose body holds the pragma).
 *
 * gcc keys a region, and a task's execution, by the outlined function's
 * entry, whose first line row is, from -O1 on, often a line of the body
 * (a pragma at line 62 reported at 65).  The pragma's line is the smallest
 * line of the outlined function's own rows (those of code inlined into it
 * left out): gcc puts the data-sharing code at the pragma's line and the
 * body follows the pragma.
 */
#ifndef HP_OMP_LINES_H
#define HP_OMP_LINES_H

#include <elfutils/libdwfl.h>

/* Is `func` the name of a function the compiler outlined for OpenMP? */
int hp_omp_is_outlined(const char *func);

/* The user function around the outlined function `func`, the innermost
 * function at pc in mod; a new string, or NULL when unknown. */
char *hp_omp_user_function(Dwfl_Module *mod, Dwarf_Addr pc, const char *func);

/* The pragma's line of the outlined function whose entry is pc in mod:
 * the smallest line of its own rows in the file of its entry.  0 when
 * unknown. */
int hp_omp_outlined_line(Dwfl_Module *mod, Dwarf_Addr pc);

/* For pc in a function gcc outlined (named `func`): the smallest and the
 * largest line of its own rows (from its pragma to its end).  Returns 0
 * for any other function, or when unknown. */
int hp_omp_gcc_outlined_span(Dwfl_Module *mod, Dwarf_Addr pc, const char *func, int *first,
                             int *last);

#endif
