/*
 * hp_resolve.h - turns the return addresses of dynamic sites into
 * function, file and line with libdw, once per address, in the process
 * that recorded them (so address-space randomisation cannot mislead it).
 */
#ifndef HP_RESOLVE_H
#define HP_RESOLVE_H

/* Resolves every dynamic site not yet resolved.  Sites without debug
 * information keep their module name and offset.  Returns the number of
 * sites resolved to a source line. */
int hp_resolve_dynamic_sites(void);

/* The compile unit around pc in mod (and its bias), through the address
 * index or, when there is none (clang's default), unit by unit. */
#include <elfutils/libdwfl.h>
Dwarf_Die *hp_resolve_unit(Dwfl_Module *mod, Dwarf_Addr pc, Dwarf_Addr *bias);

/* The file and line of pc in mod, through the address index or, when
 * there is none, its unit's line table (dwfl_module_getsrc alone finds
 * no line in a clang object built without -gdwarf-aranges); NULL when
 * unknown. */
const char *hp_resolve_line(Dwfl_Module *mod, Dwarf_Addr pc, int *lineno);

#endif
