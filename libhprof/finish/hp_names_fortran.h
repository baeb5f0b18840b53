/*
 * hp_names_fortran.h - the names a Fortran programmer knows a procedure
 * by, for every view: `halo_mod::exchange` for gfortran's module procedure
 * `__halo_mod_MOD_exchange`, the program's own name (`heat`) for `MAIN__`,
 * `heat::inner` for the internal procedure `inner` (its symbol
 * `inner.0`) of `heat`.  Scopes are joined with "::", outermost first:
 * modules, then host procedures, then the procedure.
 */
#ifndef HP_NAMES_FORTRAN_H
#define HP_NAMES_FORTRAN_H

#include <stddef.h>
#include <elfutils/libdwfl.h>

/* The scopes joined with "::" (n >= 1), freshly allocated. */
char *hp_fortran_join(const char *const *scopes, size_t n);

/* gfortran's module procedure symbol `__MOD_MOD_PROC` as `MOD::PROC`
 * (freshly allocated); NULL for any other symbol (`MAIN__` and an
 * internal procedure's `name.N` need debug information). */
char *hp_fortran_symbol_name(const char *sym);

/* The display name of func, a name the resolver found for code at pc of
 * mod (a DWARF name, a linkage name or a symbol), when pc lies in a
 * Fortran unit with debug information and func names the procedure
 * there (or one of the unit's procedures by name: an inlined copy);
 * else hp_fortran_symbol_name(func).  NULL when there is nothing to
 * rename; freshly allocated otherwise.  Code of an OpenMP body gcc
 * outlined (`MAIN__._omp_fn.0`, or the user's name the resolver put in
 * its place) is named after the procedure the body lies in. */
char *hp_fortran_name_at(Dwfl_Module *mod, Dwarf_Addr pc, const char *func);

#endif
