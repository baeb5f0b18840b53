/*
 * hp_omp_pragma.h - the line of a `#pragma omp` directive in a source
 * file, for OpenMP sites whose line gcc's debug information does not give.
 *
 * gcc gives the calls it makes for some constructs the line of a
 * neighbouring statement: GOMP_single_start, GOMP_atomic_start and
 * GOMP_taskgroup_end that of the statement before the construct,
 * GOMP_ordered_start that of the loop or of the region (from -O1 on),
 * GOMP_loop_end that of the region, of the loop body or of the statement
 * after the loop, and the GOMP_barrier that ends a single, a static loop
 * or sections that of the statement before the construct or of one in
 * it; the pragma's own line is then in no line row at all.  Such a site
 * is placed, within the lines of its outlined function (from the region's
 * pragma to its last line):
 *  - a single, an ordered block, an atomic or a taskwait/taskgroup wait at
 *    the next directive of its kind from the call's line (else the
 *    nearest);
 *  - the end of a dynamic loop or of sections at the `for`/`sections`
 *    whose statement (block or statement up to its `;`) holds the call's
 *    line, else the last one before it, else the next;
 *  - a barrier whose call is not on a `#pragma omp barrier` line ends a
 *    worksharing construct: it becomes that construct's "implicit
 *    barrier", at the single/for/sections whose statement holds the line,
 *    else the next one.
 *  - an atomic whose call lies in the body of a for, sections or parallel
 *    with a reduction clause and no atomic directive is gcc's combining
 *    of that reduction (GOMP_atomic_start/end around a reduction of
 *    several variables): a "reduction" at that directive;
 * With no such directive (or no source file) the site stays as it is.
 * A construct's end barrier that gcc puts on an explicit barrier's line
 * stays a "barrier" there.
 *
 * A region, or a task, keyed by its outlined function's entry is placed
 * at the first of the function's own lines that holds a directive of its
 * kind (parallel..., task or taskloop): the outlined function's rows
 * include its pragma's line (the data-sharing code), the body follows the
 * pragma, and the pragmas of constructs nested in it follow too, while
 * code inlined into it that escaped the inlined ranges of the debug
 * information (a recursive task's copy of its own function) has no such
 * directive at a smaller line.  Without one, the first own line.
 */
#ifndef HP_OMP_PRAGMA_H
#define HP_OMP_PRAGMA_H

/* Places OpenMP site `*name` (hp_omp_names) at `*line` in `file`; lines
 * (n, sorted) are those of its outlined function's own rows, entry != 0
 * when the site is keyed by that function's entry.  May change both. */
void hp_omp_pragma_place(const char *file, const int *lines, int n, int entry,
                         const char **name, int *line);

/* Does line `line` of C file `file` hold a `#pragma omp` directive (a
 * site already at its construct's line), of `directive` unless NULL? */
int hp_omp_pragma_at(const char *file, int line, const char *directive);

/* The last character of the string or character literal that starts at
 * c (its closing quote, else the line's last character). */
const char *hp_omp_pragma_literal_end(const char *c);

/* The text of line `line` of `file` (read once per resolution, as for
 * the placement), NULL past its end or when it cannot be read. */
const char *hp_omp_pragma_line_text(const char *file, int line);

/* The last line of the C function whose definition starts at decl_line
 * (its body's closing brace), for a construct orphaned in it, found in
 * the source; 0 when unknown (no file, Fortran). */
int hp_omp_pragma_function_end(const char *file, int decl_line);

/* A Fortran directive continued over lines (`!$omp&`, or a line ending
 * in `&`): gfortran puts the calls of the construct on its last line;
 * *line, when it continues a directive, becomes that directive's first
 * line.  Nothing changes for other files. */
void hp_omp_pragma_directive_start(const char *file, int *line);

/* Does line `line` of `file` hold a directive that may begin a loop
 * construct (`#pragma omp for`, `parallel for`, `!$omp do`, `sections`,
 * ...)? */
int hp_omp_pragma_loop_on_line(const char *file, int line);

/* Drops the source files read for hp_omp_pragma_place (at the end of a
 * resolution: they are read once per resolution, not once per site). */
void hp_omp_pragma_forget(void);

#endif
