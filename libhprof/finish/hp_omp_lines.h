/*
 * hp_omp_lines.h - OpenMP sites at their construct's line, named after the
 * user's function, when call sites are resolved (resolve.c).
 *
 * A construct's code lives in a function the compiler outlined: gcc names
 * it `work._omp_fn.N` and nests its DWARF entry in work's, without a
 * declaration line; clang names it `.omp_outlined.`,
 * `.omp_outlined._debug__.N`, ... at the top of the unit, declared at the
 * pragma's line.  A site is named after the user function that contains
 * the construct: for gcc, the function whose DWARF entry holds the
 * outlined one's (else the name up to `._omp_fn.`); for clang, the
 * function of the same file declared last before the outlined one
 * (functions do not nest in C, so that is the one whose body holds the
 * pragma).
 *
 * gcc keys a region, and a task, by the outlined function's entry, whose
 * first line row is, from -O1 on, often a line of the body (a pragma at
 * line 62 reported at 65), and has no declaration line.  The pragma's
 * line is among the outlined function's own line rows (gcc puts the
 * data-sharing code there) and before the body's: hp_omp_pragma.h picks
 * it from the lines this file finds.
 */
#ifndef HP_OMP_LINES_H
#define HP_OMP_LINES_H

#include <stdint.h>
#include <elfutils/libdwfl.h>

/* Is `func` the name of a function the compiler outlined for OpenMP? */
int hp_omp_is_outlined(const char *func);

/* ... by clang (`.omp_outlined.`, `.omp_task_entry.`, ...)? */
int hp_omp_is_clang_outlined(const char *func);

/* The user function around the outlined function `func`, the innermost
 * function at pc in mod; a new string, or NULL when unknown. */
char *hp_omp_user_function(Dwfl_Module *mod, Dwarf_Addr pc, const char *func);

/* For pc in a function gcc outlined (named `func`): the lines of its own
 * line rows (not those of code inlined into it), sorted, without repeats;
 * a new array of *n lines.  NULL for any other function, or unknown. */
int *hp_omp_gcc_own_lines(Dwfl_Module *mod, Dwarf_Addr pc, const char *func, int *n);

/* A construct's end barrier reached by a tail jump (`jmp GOMP_barrier`,
 * `jmp GOMP_loop_end` as a function's last act) carries the line gcc
 * gives the function's epilogue (an outlined function's: its region's
 * pragma), which is no line of the construct.  The barrier ends the
 * construct whose code runs just before that epilogue: returns the
 * address of the last instruction, in address order, before the rows of
 * the jump's line that lead to it (inside the function), 0 if none.
 * clang gives the jump the construct's own line (a single's end barrier,
 * its pragma's): 0 in code clang outlined. */
Dwarf_Addr hp_omp_before_epilogue(Dwfl_Module *mod, Dwarf_Addr jump);

/* The declaration line of the function whose entry is pc (clang declares
 * an outlined function at its pragma's line); 0 when pc is no entry. */
int hp_omp_entry_decl_line(Dwfl_Module *mod, Dwarf_Addr pc);

/* clang outlines the loop of a combined construct (`parallel for`) as a
 * function declared at the loop statement's line, and libomp reports a
 * dynamic or ordered loop at its dispatch call, on that line too; the
 * first row of the outlined function's entry is the pragma's.  For pc in
 * the clang-outlined function `func` declared at `line`: that pragma's
 * line; else 0. */
int hp_omp_clang_body_pragma_line(Dwfl_Module *mod, Dwarf_Addr pc, const char *func, int line);

/* The first line row that starts exactly at ra (the code right after
 * a call) and begins a statement (is_stmt), when it is of `file`: its
 * line and column (1-based).  Returns 1 if there is one
 * (hp_omp_follow.h). */
int hp_omp_statement_at(Dwfl_Module *mod, uintptr_t ra, const char *file, int *line, int *col);

/* gcc gives a single's GOMP_single_start and the GOMP_barrier that ends
 * it one line (the statement before the single) when it gives it neither
 * the single's nor a line of its block: is the barrier call returning to
 * ra, at `line`, that of a single, i.e. does a single's call in the same
 * function before it have that line? */
int hp_omp_ends_single(Dwfl_Module *mod, uintptr_t ra, int line);

#endif
