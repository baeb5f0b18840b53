/*
 * hp_die_name.h - the display name of a function found in DWARF, for its
 * unit's language (die_name.c, on hp_names.h's rules).
 */
#ifndef HP_DIE_NAME_H
#define HP_DIE_NAME_H

#include <elfutils/libdw.h>

/* The display name of a subprogram or inlined-subroutine DIE: a C++
 * function demangled from its linkage name ("solver::Field<double>::sum()
 * const"), a lambda's operator(), which gcc gives no linkage name, rebuilt
 * as the demangler writes it ("main::{lambda(int)#1}::operator()(int)
 * const"), a C function by its DW_AT_name.  malloc'ed; NULL if the DIE
 * has no name. */
char *hp_die_name(Dwarf_Die *scope);

#endif
