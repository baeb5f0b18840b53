/*
 * hp_symindex.h - the symbol around an address in a module, as libdwfl's
 * dwfl_module_addrinfo finds it, from an index of the module's symbol
 * table built once per resolution: dwfl_module_addrinfo searches the
 * whole table at every call, so the end of a run cost as many table scans
 * as it resolved OpenMP and MPI sites (28 M instructions for 12 lookups
 * in a program of 8,000 functions).  With the index, a module costs one
 * pass over its table and a sort, and a lookup a binary search.
 */
#ifndef HP_SYMINDEX_H
#define HP_SYMINDEX_H

#include <elfutils/libdwfl.h>

/* The name of the symbol of mod that addr lies in (the innermost sized
 * one, a global preferred to a weak or local one at the same address,
 * else the nearest sizeless one before it), with *sym and *off (addr
 * minus the symbol's start); NULL when none.  The name lives as long as
 * the module's Dwfl. */
const char *hp_sym_at(Dwfl_Module *mod, Dwarf_Addr addr, GElf_Off *off, GElf_Sym *sym);

/* Drops every index: call before dwfl_end of the modules' Dwfl. */
void hp_sym_forget(void);

#endif
