/*
 * names.c - display names of procedures per source language
 * (hp_names.h), one rule for the runtime (the end of a run names what it
 * finds in DWARF and symbol tables) and the instrumenter (tier 2's site
 * names).  C++ names are demangled by the C++ runtime's own
 * __cxa_demangle, looked up in the process (a C++ program has libstdc++
 * or libc++ loaded, hprof-instrument has libclang's; the runtime itself
 * is C and links neither).
 */
#include <dlfcn.h>
#include <stdlib.h>
#include <string.h>

#include <dwarf.h>

#include "hp_names.h"

enum hp_lang hp_lang_of_dwarf(int dw_lang)
{
    switch (dw_lang) {
    case DW_LANG_C89: case DW_LANG_C: case DW_LANG_C99: case DW_LANG_C11:
        return HP_LANG_C;
    case DW_LANG_C_plus_plus: case DW_LANG_C_plus_plus_03:
    case DW_LANG_C_plus_plus_11: case DW_LANG_C_plus_plus_14:
        return HP_LANG_CXX;
    case DW_LANG_Fortran77: case DW_LANG_Fortran90: case DW_LANG_Fortran95:
    case DW_LANG_Fortran03: case DW_LANG_Fortran08:
        return HP_LANG_FORTRAN;
    default:
        /* DW_LANG_C_plus_plus_17/20 (0x2a, 0x2b: newer than some dwarf.h) */
        return dw_lang == 0x2a || dw_lang == 0x2b ? HP_LANG_CXX : HP_LANG_UNKNOWN;
    }
}

typedef char *(*hp_demangler)(const char *mangled, char *out, size_t *len, int *status);

char *hp_name_cxx(const char *linkage)
{
    hp_demangler demangle;
    int status = -1;
    char *out;

    if (!linkage || strncmp(linkage, "_Z", 2) != 0)
        return NULL;
    *(void **)&demangle = dlsym(RTLD_DEFAULT, "__cxa_demangle");
    if (!demangle)
        return NULL;
    out = demangle(linkage, NULL, NULL, &status);
    if (status != 0) {
        free(out);
        return NULL;
    }
    return out;
}

char *hp_name_display(const char *linkage, const char *name, enum hp_lang lang)
{
    char *better = NULL;

    switch (lang) {
    case HP_LANG_CXX:
    case HP_LANG_UNKNOWN:   /* a symbol table's name: C++ when mangled */
        better = hp_name_cxx(linkage);
        break;
    case HP_LANG_C:
    case HP_LANG_FORTRAN:
        break;
    }
    if (better)
        return better;
    if (name)
        return strdup(name);
    return linkage ? strdup(linkage) : NULL;
}
