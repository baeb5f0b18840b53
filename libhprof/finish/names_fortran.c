/*
 * names_fortran.c - Fortran display names of procedures (hp_names_fortran.h)
 * for the end of the run's resolver (resolve.c): from the debug
 * information of a Fortran unit (gfortran nests a module's procedures in
 * its DW_TAG_module, an internal procedure in its host's
 * DW_TAG_subprogram, and names the main program's subprogram, flagged
 * DW_AT_main_subprogram, by the program's name), else from gfortran's
 * symbol of a module procedure.
 */
#include <dwarf.h>
#include <elfutils/libdw.h>
#include <stdlib.h>
#include <string.h>
#include "hp_names_fortran.h"
#include "hp_omp_lines.h"
#include "hp_resolve.h"

#define MOD_MARK "_MOD_"
#define MAX_SCOPES 32            /* nesting followed: modules, hosts, procedure */

char *hp_fortran_join(const char *const *scopes, size_t n)
{
    size_t len = 1;
    for (size_t i = 0; i < n; i++)
        len += strlen(scopes[i]) + 2;
    char *out = malloc(len), *p = out;
    if (!out)
        return NULL;
    for (size_t i = 0; i < n; i++) {
        if (i)
            *p++ = ':', *p++ = ':';
        size_t k = strlen(scopes[i]);
        memcpy(p, scopes[i], k);
        p += k;
    }
    *p = '\0';
    return out;
}

char *hp_fortran_symbol_name(const char *sym)
{
    if (!sym || strncmp(sym, "__", 2) != 0)
        return NULL;
    const char *mod = sym + 2, *mark = strstr(mod, MOD_MARK);
    if (!mark || mark == mod || !mark[strlen(MOD_MARK)])
        return NULL;
    char *module = strndup(mod, (size_t)(mark - mod));
    const char *scopes[2] = {module, mark + strlen(MOD_MARK)};
    char *out = module ? hp_fortran_join(scopes, 2) : NULL;
    free(module);
    return out;
}

static int is_fortran(Dwarf_Die *cu)
{
    switch (dwarf_srclang(cu)) {
    case DW_LANG_Fortran77: case DW_LANG_Fortran90: case DW_LANG_Fortran95:
    case DW_LANG_Fortran03: case DW_LANG_Fortran08:
        return 1;
    default:
        return 0;
    }
}

static const char *die_string(Dwarf_Die *die, int at)
{
    Dwarf_Attribute attr;
    return dwarf_formstring(dwarf_attr_integrate(die, at, &attr));
}

/* Does func start with name, followed by nothing or a '.' (gfortran's
 * `inner.0` of an internal procedure, gcc's clones `.constprop.0`)? */
static int names(const char *func, const char *name)
{
    size_t k = name ? strlen(name) : 0;
    return k && strncmp(func, name, k) == 0 && (func[k] == '\0' || func[k] == '.');
}

/* Is func a name of procedure die: its own, its linkage name, or the
 * main program's symbol MAIN__? */
static int is_named(Dwarf_Die *die, const char *func)
{
    Dwarf_Attribute attr;
    if (strcmp(func, "MAIN__") == 0)
        return dwarf_attr(die, DW_AT_main_subprogram, &attr) != NULL;
    return names(func, die_string(die, DW_AT_name)) ||
           names(func, die_string(die, DW_AT_linkage_name));
}

/* The search of a unit: the path of modules and procedures down to the
 * current DIE, the one to the procedure holding pc, the one to a
 * procedure named func. */
typedef struct walk {
    Dwarf_Addr pc;
    const char *func;
    Dwarf_Die path[MAX_SCOPES];
    int depth;
    Dwarf_Die at_pc[MAX_SCOPES], named[MAX_SCOPES];
    int n_at_pc, n_named;
    int outlined;           /* pc lies in an outlined OpenMP body */
} walk;

static void keep_path(const walk *w, Dwarf_Die *to, int *n)
{
    memcpy(to, w->path, (size_t)w->depth * sizeof *to);
    *n = w->depth;
}

static void visit(walk *w, Dwarf_Die *die);

static void visit_children(walk *w, Dwarf_Die *die)
{
    Dwarf_Die child;
    if (dwarf_child(die, &child) != 0)
        return;
    do
        visit(w, &child);
    while (dwarf_siblingof(&child, &child) == 0);
}

/* A procedure: gcc's outlined OpenMP bodies (nested in their function)
 * stand for the function around them. */
static void visit_procedure(walk *w, Dwarf_Die *die)
{
    if (hp_omp_is_outlined(die_string(die, DW_AT_name))) {
        if (w->depth && dwarf_haspc(die, w->pc) == 1) {
            keep_path(w, w->at_pc, &w->n_at_pc);
            w->outlined = 1;
        }
        return;
    }
    if (dwarf_hasattr(die, DW_AT_declaration) || w->depth == MAX_SCOPES)
        return;
    w->path[w->depth++] = *die;
    if (dwarf_haspc(die, w->pc) == 1)
        keep_path(w, w->at_pc, &w->n_at_pc);
    if (!w->n_named && is_named(die, w->func))
        keep_path(w, w->named, &w->n_named);
    visit_children(w, die);
    w->depth--;
}

static void visit(walk *w, Dwarf_Die *die)
{
    switch (dwarf_tag(die)) {
    case DW_TAG_subprogram:
        visit_procedure(w, die);
        break;
    case DW_TAG_module:
        if (w->depth == MAX_SCOPES)
            break;
        w->path[w->depth++] = *die;
        visit_children(w, die);
        w->depth--;
        break;
    case DW_TAG_lexical_block:
        visit_children(w, die);
        break;
    default:
        break;
    }
}

static char *join_path(Dwarf_Die *path, int n)
{
    const char *scopes[MAX_SCOPES];
    for (int i = 0; i < n; i++)
        if (!(scopes[i] = die_string(&path[i], DW_AT_name)))
            return NULL;
    return hp_fortran_join(scopes, (size_t)n);
}

/* A concrete copy of a procedure (DW_AT_abstract_origin: gcc puts the
 * out-of-line copy of a module procedure it also inlined at the unit's
 * top level) is named after its origin, in the origin's scopes. */
static char *join_origin(Dwarf_Die *die)
{
    Dwarf_Attribute attr;
    Dwarf_Die origin, *scopes = NULL;
    if (!dwarf_formref_die(dwarf_attr(die, DW_AT_abstract_origin, &attr), &origin) &&
        !dwarf_formref_die(dwarf_attr(die, DW_AT_specification, &attr), &origin))
        return NULL;
    int n = dwarf_getscopes_die(&origin, &scopes);
    const char *names[MAX_SCOPES];
    size_t k = 0;
    for (int i = n - 1; i >= 0 && k < MAX_SCOPES; i--) {
        int tag = dwarf_tag(&scopes[i]);
        const char *name = die_string(&scopes[i], DW_AT_name);
        if ((tag == DW_TAG_module || tag == DW_TAG_subprogram) && name &&
            !hp_omp_is_outlined(name))
            names[k++] = name;
    }
    char *out = k ? hp_fortran_join(names, k) : NULL;
    free(scopes);
    return out;
}

char *hp_fortran_name_at(Dwfl_Module *mod, Dwarf_Addr pc, const char *func)
{
    if (!func)
        return NULL;
    Dwarf_Addr bias = 0;
    Dwarf_Die *cu = mod ? hp_resolve_unit(mod, pc, &bias) : NULL;
    if (!cu || !is_fortran(cu))
        return hp_omp_is_outlined(func) ? NULL : hp_fortran_symbol_name(func);
    walk *w = calloc(1, sizeof *w);
    char *out = NULL;
    if (!w)
        return NULL;
    w->pc = pc - bias;
    w->func = func;
    visit_children(w, cu);
    /* code of an OpenMP body is named after the procedure around it */
    int at_pc = w->n_at_pc && (w->outlined || is_named(&w->at_pc[w->n_at_pc - 1], func));
    Dwarf_Die *path = at_pc ? w->at_pc : w->n_named && !hp_omp_is_outlined(func) ? w->named : NULL;
    int n = path == w->at_pc ? w->n_at_pc : w->n_named;
    if (path && !(out = join_origin(&path[n - 1])))
        out = join_path(path, n);
    free(w);
    if (out && strcmp(out, func) == 0) {
        free(out);
        return NULL;
    }
    if (!out && hp_omp_is_outlined(func))
        return NULL;
    return out ? out : hp_fortran_symbol_name(func);
}
