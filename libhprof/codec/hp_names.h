/*
 * hp_names.h - the display name of a procedure for its source language:
 * what the end of a run writes into the profile for a function found in
 * the debug information or the symbol table.  A C++ symbol is demangled
 * ("_ZNK6solver5FieldIdE3sumEv" -> "solver::Field<double>::sum() const");
 * a C name stays as it is.  One function per language (names.c), so each
 * language's rules live apart.
 */
#ifndef HP_NAMES_H
#define HP_NAMES_H

/* The source languages hprof names procedures for. */
enum hp_lang {
    HP_LANG_UNKNOWN = 0,   /* no debug information: told by the symbol's form */
    HP_LANG_C,
    HP_LANG_CXX,
    HP_LANG_FORTRAN
};

/* The language of a DW_AT_language value (DW_LANG_*). */
enum hp_lang hp_lang_of_dwarf(int dw_lang);

/* The display name of a procedure in language lang (runtime and
 * instrumenter), from its linkage
 * (symbol) name and its plain source name, either of which may be NULL;
 * malloc'ed, NULL when both are NULL or out of memory.  When a name
 * cannot be made better (no demangler in the process: a C program has no
 * libstdc++) the plain name is kept, else the linkage name. */
char *hp_name_display(const char *linkage, const char *name, enum hp_lang lang);

/* C++: the demangled linkage name (malloc'ed), or NULL when it is no
 * mangled name or the process has no demangler (__cxa_demangle). */
char *hp_name_cxx(const char *linkage);

#endif
