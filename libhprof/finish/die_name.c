/*
 * die_name.c - the display name of a function found in DWARF
 * (hp_die_name.h): its linkage name, demangled, or its DW_AT_name, as
 * names.c rules for the unit's language; and C++ lambdas.  gcc gives a
 * lambda's operator() no linkage name, only DW_AT_name "operator()" in an
 * unnamed structure (the closure type) inside the function that wrote it,
 * and inlines it there at -O2 where no symbol is left either.  The name
 * is rebuilt as the demangler writes the symbol of an out-of-line copy:
 * "main::{lambda(int)#1}::operator()(int) const", the enclosing function
 * named by the caller's rules, #N counting the closures before this one
 * in that function (as gcc numbers them, whatever their parameters),
 * "const" unless the lambda is mutable.
 */
#include <dwarf.h>
#include <elfutils/libdw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hp_die_name.h"
#include "hp_names.h"

#define MAX_DEPTH 64

/* Follows abstract origins and specifications to the DIE that was declared. */
static void declared(Dwarf_Die *die)
{
    Dwarf_Attribute attr;
    Dwarf_Die next;
    for (int i = 0; i < 8; i++) {
        if (dwarf_formref_die(dwarf_attr(die, DW_AT_abstract_origin, &attr), &next) ||
            dwarf_formref_die(dwarf_attr(die, DW_AT_specification, &attr), &next))
            *die = next;
        else
            return;
    }
}

/* The DIEs from the unit down to the one at offset target: *depth of them
 * (path[0] the unit's first level), 0 when not found.  DIEs are in
 * depth-first order by offset, so one child per level holds the target. */
static int path_to(Dwarf_Die *cu, Dwarf_Off target, Dwarf_Die *path, int *depth)
{
    Dwarf_Die scope = *cu, child;
    *depth = 0;
    while (*depth < MAX_DEPTH && dwarf_child(&scope, &child) == 0) {
        Dwarf_Die holder = child, next;
        int found = 0;
        for (;;) {
            if (dwarf_dieoffset(&child) > target)
                break;
            holder = child;
            found = 1;
            if (dwarf_siblingof(&child, &next) != 0)
                break;
            child = next;
        }
        if (!found)
            return 0;
        path[(*depth)++] = holder;
        if (dwarf_dieoffset(&holder) == target)
            return 1;
        scope = holder;
    }
    return 0;
}

/* Appends the C++ spelling of type die to buf (the demangler's: "int
 * const&", "double*"); a class by its own name. */
static void type_name(Dwarf_Die *die, char *buf, size_t len, int depth)
{
    Dwarf_Attribute attr;
    Dwarf_Die inner;
    int has = dwarf_formref_die(dwarf_attr(die, DW_AT_type, &attr), &inner) != NULL;
    const char *suffix = NULL;
    size_t n = strlen(buf);

    switch (dwarf_tag(die)) {
    case DW_TAG_pointer_type: suffix = "*"; break;
    case DW_TAG_reference_type: suffix = "&"; break;
    case DW_TAG_rvalue_reference_type: suffix = "&&"; break;
    case DW_TAG_const_type: suffix = " const"; break;
    case DW_TAG_volatile_type: suffix = " volatile"; break;
    case DW_TAG_typedef:   /* a mangled name has the type it stands for */
        if (has && depth <= 16) {
            type_name(&inner, buf, len, depth + 1);
            return;
        }
        /* fall through */
    default: {
        const char *name = dwarf_diename(die);
        snprintf(buf + n, len - n, "%s", name ? name : "?");
        return;
    }
    }
    if (depth > 16)
        return;
    if (has)
        type_name(&inner, buf, len, depth + 1);
    else
        snprintf(buf + strlen(buf), len - strlen(buf), "void");
    n = strlen(buf);
    snprintf(buf + n, len - n, "%s", suffix);
}

/* "(int, double const&)" of function op, and whether its object is
 * const (a method's, a lambda's). */
static void signature(Dwarf_Die *op, char *buf, size_t len, int *is_const)
{
    Dwarf_Die child, t, p;
    Dwarf_Attribute attr;
    int first = 1;
    snprintf(buf, len, "(");
    *is_const = 0;
    if (dwarf_child(op, &child) == 0) {
        do {
            if (dwarf_tag(&child) != DW_TAG_formal_parameter ||
                !dwarf_formref_die(dwarf_attr(&child, DW_AT_type, &attr), &t))
                continue;
            if (dwarf_hasattr(&child, DW_AT_artificial)) {
                /* the closure pointer: const unless the lambda is mutable */
                while (dwarf_tag(&t) == DW_TAG_const_type &&
                       dwarf_formref_die(dwarf_attr(&t, DW_AT_type, &attr), &p))
                    t = p;
                *is_const = dwarf_tag(&t) == DW_TAG_pointer_type &&
                            dwarf_formref_die(dwarf_attr(&t, DW_AT_type, &attr), &p) &&
                            dwarf_tag(&p) == DW_TAG_const_type;
                continue;
            }
            if (!first)
                snprintf(buf + strlen(buf), len - strlen(buf), ", ");
            first = 0;
            type_name(&t, buf, len, 0);
        } while (dwarf_siblingof(&child, &child) == 0);
    }
    snprintf(buf + strlen(buf), len - strlen(buf), ")");
}

/* The operator() of closure type st, if st is one. */
static int closure_op(Dwarf_Die *st, Dwarf_Die *op)
{
    Dwarf_Die child;
    if (dwarf_tag(st) != DW_TAG_structure_type && dwarf_tag(st) != DW_TAG_class_type)
        return 0;
    if (dwarf_diename(st) || dwarf_child(st, &child) != 0)
        return 0;
    do {
        const char *n = dwarf_diename(&child);
        if (dwarf_tag(&child) == DW_TAG_subprogram && n && strcmp(n, "operator()") == 0) {
            *op = child;
            return 1;
        }
    } while (dwarf_siblingof(&child, &child) == 0);
    return 0;
}

/* The closures in the subtree of die before offset upto (not inside
 * other closures: theirs are another function's). */
static int count_before(Dwarf_Die *die, Dwarf_Off upto, int depth)
{
    Dwarf_Die child, op;
    int n = 0;
    if (depth > MAX_DEPTH || dwarf_child(die, &child) != 0)
        return 0;
    do {
        if (dwarf_dieoffset(&child) >= upto)
            break;
        if (closure_op(&child, &op)) {
            n++;
        } else if (dwarf_tag(&child) != DW_TAG_structure_type && dwarf_tag(&child) != DW_TAG_class_type) {
            n += count_before(&child, upto, depth + 1);
        }
    } while (dwarf_siblingof(&child, &child) == 0);
    return n;
}

/* The lambda's name, or NULL when scope is no lambda's operator();
 * outer_name names the function that wrote it. */
static char *lambda_name(Dwarf_Die *scope, char *(*outer_name)(Dwarf_Die *scope))
{
    Dwarf_Die op = *scope, cu, path[MAX_DEPTH];
    int depth, is_const;
    declared(&op);
    const char *name = dwarf_diename(&op);
    if (!name || strcmp(name, "operator()") != 0 || !dwarf_diecu(&op, &cu, NULL, NULL) ||
        !path_to(&cu, dwarf_dieoffset(&op), path, &depth) || depth < 3)
        return NULL;
    Dwarf_Die *closure = &path[depth - 2], check;
    int f = depth - 3;
    while (f >= 0 && dwarf_tag(&path[f]) != DW_TAG_subprogram)
        f--;
    if (f < 0 || !closure_op(closure, &check))
        return NULL;
    char sig[512];
    signature(&op, sig, sizeof sig, &is_const);
    int nth = 1 + count_before(&path[f], dwarf_dieoffset(closure), 0);
    char *outer = outer_name(&path[f]);
    size_t len = (outer ? strlen(outer) : 1) + 2 * strlen(sig) + 64;
    char *out = malloc(len);
    if (out)
        snprintf(out, len, "%s::{lambda%s#%d}::operator()%s%s", outer ? outer : "?", sig, nth, sig,
                 is_const ? " const" : "");
    free(outer);
    return out;
}

/* Appends s to buf. */
static void add(char *buf, size_t len, const char *s)
{
    size_t n = strlen(buf);
    snprintf(buf + n, len - n, "%s", s);
}

/* A C++ function of internal linkage (static, anonymous namespace) that
 * gcc inlined everywhere has no symbol and no linkage name: its name as
 * the demangler would write it, "ns::f(double*, int)"; NULL for a
 * function of external linkage (extern "C" ones have no linkage name
 * either, and are named as they are). */
static char *internal_name(Dwarf_Die *scope)
{
    Dwarf_Die fn = *scope, cu, path[MAX_DEPTH];
    int depth = 0, is_const;
    declared(&fn);
    const char *name = dwarf_diename(&fn);
    if (!name || dwarf_hasattr(&fn, DW_AT_external) || strcmp(name, "main") == 0)
        return NULL;
    char buf[2048] = "", sig[1024];
    if (dwarf_diecu(&fn, &cu, NULL, NULL) && path_to(&cu, dwarf_dieoffset(&fn), path, &depth))
        for (int i = 0; i < depth - 1; i++) {
            int tag = dwarf_tag(&path[i]);
            if (tag != DW_TAG_namespace && tag != DW_TAG_structure_type && tag != DW_TAG_class_type)
                continue;
            const char *n = dwarf_diename(&path[i]);
            add(buf, sizeof buf, n ? n : "(anonymous namespace)");
            add(buf, sizeof buf, "::");
        }
    add(buf, sizeof buf, name);
    signature(&fn, sig, sizeof sig, &is_const);
    add(buf, sizeof buf, sig);
    if (is_const)
        add(buf, sizeof buf, " const");
    return strdup(buf);
}

char *hp_die_name(Dwarf_Die *scope)
{
    Dwarf_Attribute attr;
    Dwarf_Die cu;
    const char *name = dwarf_formstring(dwarf_attr_integrate(scope, DW_AT_name, &attr));
    const char *linkage = dwarf_formstring(dwarf_attr_integrate(scope, DW_AT_linkage_name, &attr));
    if (!linkage)
        linkage = dwarf_formstring(dwarf_attr_integrate(scope, DW_AT_MIPS_linkage_name, &attr));
    if (!name && !linkage)
        return NULL;
    enum hp_lang lang = dwarf_diecu(scope, &cu, NULL, NULL) ? hp_lang_of_dwarf(dwarf_srclang(&cu))
                                                            : HP_LANG_UNKNOWN;
    char *cxx = NULL;
    if (lang == HP_LANG_CXX && !linkage && name && strcmp(name, "operator()") == 0)
        cxx = lambda_name(scope, hp_die_name);   /* gcc names no lambda */
    else if (lang == HP_LANG_CXX && !linkage && name)
        cxx = internal_name(scope);
    return cxx ? cxx : hp_name_display(linkage, name, lang);
}
