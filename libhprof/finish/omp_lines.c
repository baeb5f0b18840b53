/*
 * omp_lines.c - the user function and the pragma's line of OpenMP sites
 * in outlined code (hp_omp_lines.h), from DWARF, when sites are resolved.
 */
#include <dwarf.h>
#include <stdbool.h>
#include <sys/types.h>
#include <stdlib.h>
#include <string.h>
#include "hp_die_name.h"
#include "hp_omp_lines.h"
#include "hp_resolve.h"
#include "hp_site.h"
#include "hp_symindex.h"

#define GCC_OUTLINED "._omp_fn."
#define GCC_COPY "._omp_cpyfn."
#define CLANG_PREFIX ".omp"

int hp_omp_is_outlined(const char *func)
{
    return func && (strstr(func, GCC_OUTLINED) || strstr(func, GCC_COPY) ||
                    strncmp(func, CLANG_PREFIX, strlen(CLANG_PREFIX)) == 0);
}

int hp_omp_is_clang_outlined(const char *func)
{
    return func && strncmp(func, CLANG_PREFIX, strlen(CLANG_PREFIX)) == 0;
}

/* gcc: the name up to its outlined suffix. */
static char *gcc_user_function(const char *func)
{
    const char *cut = strstr(func, GCC_OUTLINED);
    if (!cut)
        cut = strstr(func, GCC_COPY);
    return cut && cut > func ? strndup(func, (size_t)(cut - func)) : NULL;
}

/* The innermost function scope at pc whose name is `func` (clang's
 * `.omp_outlined._debug__` is inlined into `.omp_outlined.`), or the
 * origin of that inlined copy. */
static int outlined_scope(Dwarf_Die *cu, Dwarf_Addr pc, const char *func, Dwarf_Die *out)
{
    Dwarf_Die *scopes = NULL;
    int n = dwarf_getscopes(cu, pc, &scopes), found = 0;
    for (int i = 0; i < n && !found; i++) {
        int tag = dwarf_tag(&scopes[i]);
        if (tag != DW_TAG_subprogram && tag != DW_TAG_inlined_subroutine)
            continue;
        Dwarf_Attribute attr;
        const char *s = dwarf_formstring(dwarf_attr_integrate(&scopes[i], DW_AT_name, &attr));
        if (!s || strcmp(s, func) != 0)
            continue;
        /* an inlined copy: its declaration is that of its origin */
        if (tag == DW_TAG_inlined_subroutine &&
            !dwarf_formref_die(dwarf_attr(&scopes[i], DW_AT_abstract_origin, &attr), out))
            break;
        if (tag == DW_TAG_subprogram)
            *out = scopes[i];
        found = 1;
    }
    free(scopes);
    return found;
}

/* Is die a function definition of the user's (not a prototype, not
 * compiler-made)? */
static int user_definition(Dwarf_Die *die, const char **name)
{
    Dwarf_Attribute attr;
    if (dwarf_tag(die) != DW_TAG_subprogram || dwarf_hasattr(die, DW_AT_declaration) ||
        dwarf_hasattr(die, DW_AT_artificial))
        return 0;
    *name = dwarf_formstring(dwarf_attr_integrate(die, DW_AT_name, &attr));
    return *name && !hp_omp_is_outlined(*name);
}

/* The index of a declaration's file in its unit's file table (compared,
 * not looked up: libdw 0.188 finds no name for DWARF 5's index 0). */
static int decl_file_index(Dwarf_Die *die, Dwarf_Word *index)
{
    Dwarf_Attribute attr;
    return dwarf_formudata(dwarf_attr_integrate(die, DW_AT_decl_file, &attr), index);
}

/* clang: the user function of the same file declared last at or before
 * the outlined function's declaration line. */
static char *preceding_function(Dwarf_Die *cu, Dwarf_Die *outlined)
{
    int at;
    Dwarf_Word file;
    if (decl_file_index(outlined, &file) != 0 || dwarf_decl_line(outlined, &at) != 0)
        return NULL;
    Dwarf_Die die, best_die;
    const char *best = NULL;
    int best_line = -1;
    if (dwarf_child(cu, &die) != 0)
        return NULL;
    do {
        const char *name;
        int line;
        Dwarf_Word f;
        if (!user_definition(&die, &name) || dwarf_decl_line(&die, &line) != 0 ||
            line > at || line <= best_line || decl_file_index(&die, &f) != 0 || f != file)
            continue;
        best = name;
        best_die = die;
        best_line = line;
    } while (dwarf_siblingof(&die, &die) == 0);
    return best ? hp_die_name(&best_die) : NULL;
}

/* The subprogram DIE under die whose entry is addr, depth first: gcc
 * nests an outlined function's DIE in its parent function's, whose
 * address range does not hold it (so dwarf_getscopes cannot find it).
 * *top: the outermost function around it (itself at the top level). */
static int find_subprogram(Dwarf_Die *die, Dwarf_Addr addr, Dwarf_Die *out, int depth,
                           Dwarf_Die *top)
{
    Dwarf_Die child;
    Dwarf_Addr low;
    if (depth > 32 || dwarf_child(die, &child) != 0)
        return 0;
    do {
        int tag = dwarf_tag(&child);
        if (tag == DW_TAG_subprogram && dwarf_lowpc(&child, &low) == 0 && low == addr) {
            *out = *top = child;
            return 1;
        }
        if ((tag == DW_TAG_subprogram || tag == DW_TAG_lexical_block) &&
            find_subprogram(&child, addr, out, depth + 1, top)) {
            if (depth == 0)
                *top = child;
            return 1;
        }
    } while (dwarf_siblingof(&child, &child) == 0);
    return 0;
}

/* The name of the function gcc outlined the code at pc from: that of the
 * outermost function its DWARF entry is nested in (the source name, not
 * a C++ linkage name); NULL when unknown. */
static char *gcc_enclosing_name(Dwfl_Module *mod, Dwarf_Addr pc)
{
    GElf_Sym sym;
    GElf_Off off = 0;
    if (!hp_sym_at(mod, pc, &off, &sym))
        return NULL;
    Dwarf_Addr bias = 0;
    Dwarf_Die *cu = hp_resolve_unit(mod, pc - off, &bias);
    Dwarf_Die fn, top;
    Dwarf_Attribute attr;
    if (!cu || !find_subprogram(cu, pc - off - bias, &fn, 0, &top))
        return NULL;
    const char *name = dwarf_formstring(dwarf_attr_integrate(&top, DW_AT_name, &attr));
    return name && !hp_omp_is_outlined(name) ? hp_die_name(&top) : NULL;
}

char *hp_omp_user_function(Dwfl_Module *mod, Dwarf_Addr pc, const char *func)
{
    if (!hp_omp_is_outlined(func))
        return NULL;
    char *user = gcc_user_function(func);
    if (user) {
        char *source_name = gcc_enclosing_name(mod, pc);
        if (source_name) {
            free(user);
            return source_name;
        }
        return user;
    }
    Dwarf_Addr bias = 0;
    Dwarf_Die *cu = hp_resolve_unit(mod, pc, &bias);
    Dwarf_Die outlined, top;
    /* (an outlined function's entry, whose first code is inlined: the
     * function that starts there) */
    if (!cu || (!outlined_scope(cu, pc - bias, func, &outlined) &&
                !find_subprogram(cu, pc - bias, &outlined, 0, &top)))
        return NULL;
    return preceding_function(cu, &outlined);
}

/* The code inlined into a function: its address ranges (unit-relative),
 * and the first line of the user function around it: gcc's ranges of
 * inlined code miss some of its rows (a loop's condition), whose lines,
 * those of a function defined earlier, are then below this one. */
#define MAX_INLINED 256
typedef struct inlined {
    Dwarf_Addr lo[MAX_INLINED], hi[MAX_INLINED];
    int n;
    int min_line;
} inlined;

/* Adds the ranges of the subroutines inlined into die (not into the
 * functions nested in it). */
static void collect_inlined(Dwarf_Die *die, inlined *in, int depth)
{
    Dwarf_Die child;
    if (depth > 64 || dwarf_child(die, &child) != 0)
        return;
    do {
        int tag = dwarf_tag(&child);
        if (tag == DW_TAG_inlined_subroutine) {
            Dwarf_Addr base, lo, hi;
            ptrdiff_t off = 0;
            while (in->n < MAX_INLINED &&
                   (off = dwarf_ranges(&child, off, &base, &lo, &hi)) > 0) {
                in->lo[in->n] = lo;
                in->hi[in->n++] = hi;
            }
        } else if (tag == DW_TAG_lexical_block) {
            collect_inlined(&child, in, depth + 1);
        }
    } while (dwarf_siblingof(&child, &child) == 0);
}

static int is_inlined(const inlined *in, Dwarf_Addr a)
{
    for (int i = 0; i < in->n; i++)
        if (a >= in->lo[i] && a < in->hi[i])
            return 1;
    return 0;
}

/* A growing set of lines. */
typedef struct line_set {
    int *v;
    int n, cap;
} line_set;

static int add_line(line_set *set, int line)
{
    if (set->n == set->cap) {
        int cap = set->cap ? set->cap * 2 : 64;
        int *v = realloc(set->v, (size_t)cap * sizeof *v);
        if (!v)
            return -1;
        set->v = v;
        set->cap = cap;
    }
    set->v[set->n++] = line;
    return 0;
}

static int by_value(const void *a, const void *b)
{
    int x = *(const int *)a, y = *(const int *)b;
    return (x > y) - (x < y);
}

/* The lines of the rows in [lo, hi) from `file`, outside the code in
 * `in`, sorted, without repeats. */
static int own_lines(Dwarf_Die *cu, Dwarf_Addr lo, Dwarf_Addr hi, const char *file,
                     const inlined *in, line_set *set)
{
    Dwarf_Lines *lines;
    size_t n;
    if (dwarf_getsrclines(cu, &lines, &n) != 0)
        return -1;
    for (size_t i = 0; i < n; i++) {
        Dwarf_Line *l = dwarf_onesrcline(lines, i);
        Dwarf_Addr a;
        int line;
        const char *src;
        if (!l || dwarf_lineaddr(l, &a) != 0 || a < lo || a >= hi ||
            dwarf_lineno(l, &line) != 0 || line <= 0 || line < in->min_line ||
            is_inlined(in, a) || !(src = dwarf_linesrc(l, NULL, NULL)) ||
            strcmp(src, file) != 0)
            continue;
        if (add_line(set, line) != 0)
            return -1;
    }
    if (set->n == 0)
        return -1;
    qsort(set->v, (size_t)set->n, sizeof *set->v, by_value);
    int k = 1;
    for (int i = 1; i < set->n; i++)
        if (set->v[i] != set->v[k - 1])
            set->v[k++] = set->v[i];
    set->n = k;
    return 0;
}

int *hp_omp_gcc_own_lines(Dwfl_Module *mod, Dwarf_Addr pc, const char *func, int *n)
{
    GElf_Sym sym;
    GElf_Off off = 0;
    if (!func || !strstr(func, GCC_OUTLINED) ||
        !hp_sym_at(mod, pc, &off, &sym) || sym.st_size == 0)
        return NULL;
    Dwarf_Addr entry = pc - off, bias = 0;
    Dwarf_Die *cu = hp_resolve_unit(mod, entry, &bias);
    Dwarf_Line *l = cu ? dwarf_getsrc_die(cu, entry - bias) : NULL;
    const char *file = l ? dwarf_linesrc(l, NULL, NULL) : NULL;
    inlined *in = file ? calloc(1, sizeof *in) : NULL;
    if (!in)
        return NULL;
    Dwarf_Die fn, top;
    if (find_subprogram(cu, entry - bias, &fn, 0, &top)) {
        collect_inlined(&fn, in, 0);
        dwarf_decl_line(&top, &in->min_line);
    }
    line_set set = {0};
    if (own_lines(cu, entry - bias, entry - bias + sym.st_size, file, in, &set) != 0) {
        free(set.v);
        set.v = NULL;
    }
    free(in);
    *n = set.n;
    return set.v;
}

/* The row of the line table that covers a (unit-relative): its index,
 * -1 if none. */
static ssize_t row_at(Dwarf_Lines *lines, size_t n, Dwarf_Addr a)
{
    ssize_t best = -1;
    Dwarf_Addr best_addr = 0;
    for (size_t i = 0; i < n; i++) {
        Dwarf_Line *l = dwarf_onesrcline(lines, i);
        Dwarf_Addr at;
        bool end = false;
        if (!l || dwarf_lineaddr(l, &at) != 0 || at > a || (best >= 0 && at < best_addr))
            continue;
        dwarf_lineendsequence(l, &end);
        best = end ? -1 : (ssize_t)i;
        best_addr = at;
    }
    return best;
}

Dwarf_Addr hp_omp_before_epilogue(Dwfl_Module *mod, Dwarf_Addr jump)
{
    GElf_Sym sym;
    GElf_Off off = 0;
    Dwarf_Addr bias = 0;
    Dwarf_Lines *lines;
    size_t n;
    const char *func = hp_sym_at(mod, jump, &off, &sym);
    Dwarf_Die *cu = func && !hp_omp_is_clang_outlined(func) ? hp_resolve_unit(mod, jump, &bias)
                                                            : NULL;
    if (!cu || dwarf_getsrclines(cu, &lines, &n) != 0)
        return 0;
    Dwarf_Addr entry = jump - off - bias, a = jump - bias;
    ssize_t i = row_at(lines, n, a);
    int epilogue = 0, line;
    if (i < 0 || dwarf_lineno(dwarf_onesrcline(lines, (size_t)i), &epilogue) != 0)
        return 0;
    /* back over the epilogue's rows (the line that closes the function)
     * to the last code before it, in address order */
    for (Dwarf_Addr at = a; at > entry;) {
        Dwarf_Addr row_addr;
        Dwarf_Line *l = dwarf_onesrcline(lines, (size_t)i);
        if (!l || dwarf_lineaddr(l, &row_addr) != 0 || row_addr <= entry)
            return 0;
        at = row_addr - 1;
        if ((i = row_at(lines, n, at)) < 0 ||
            dwarf_lineno(dwarf_onesrcline(lines, (size_t)i), &line) != 0)
            return 0;
        if (line > 0 && line != epilogue)
            return at + bias;
    }
    return 0;
}

int hp_omp_entry_decl_line(Dwfl_Module *mod, Dwarf_Addr pc)
{
    Dwarf_Addr bias = 0;
    Dwarf_Die *cu = hp_resolve_unit(mod, pc, &bias);
    Dwarf_Die fn, top;
    int line = 0;
    if (!cu || !find_subprogram(cu, pc - bias, &fn, 0, &top) || dwarf_decl_line(&fn, &line) != 0)
        return 0;
    return line;
}

int hp_omp_clang_body_pragma_line(Dwfl_Module *mod, Dwarf_Addr pc, const char *func, int line)
{
    if (!func || strncmp(func, CLANG_PREFIX, strlen(CLANG_PREFIX)) != 0 || line <= 0)
        return 0;
    Dwarf_Addr bias = 0;
    Dwarf_Die *cu = hp_resolve_unit(mod, pc, &bias);
    Dwarf_Die outlined;
    int decl = 0, pragma = 0;
    GElf_Sym sym;
    GElf_Off off = 0;
    if (!cu || !outlined_scope(cu, pc - bias, func, &outlined) ||
        dwarf_decl_line(&outlined, &decl) != 0 || decl != line || !hp_sym_at(mod, pc, &off, &sym))
        return 0;
    if (!hp_resolve_line(mod, pc - off, &pragma))
        return 0;
    return pragma > 0 && pragma < line ? pragma : 0;
}

int hp_omp_statement_at(Dwfl_Module *mod, uintptr_t ra, const char *file, int *line, int *col)
{
    Dwarf_Addr bias = 0;
    Dwarf_Lines *lines;
    size_t n;
    Dwarf_Die *cu = file ? hp_resolve_unit(mod, ra, &bias) : NULL;
    if (!cu || dwarf_getsrclines(cu, &lines, &n) != 0)
        return 0;
    for (size_t i = 0; i < n; i++) {
        Dwarf_Line *l = dwarf_onesrcline(lines, i);
        Dwarf_Addr a;
        bool stmt = false;
        const char *src;
        if (!l || dwarf_lineaddr(l, &a) != 0 || a != ra - bias ||
            dwarf_linebeginstatement(l, &stmt) != 0 || !stmt)
            continue;
        /* the first statement that begins there decides */
        src = dwarf_linesrc(l, NULL, NULL);
        return src && strcmp(src, file) == 0 && dwarf_lineno(l, line) == 0 && *line > 0 &&
               dwarf_linecol(l, col) == 0 && *col > 0;
    }
    return 0;
}

/* The line of the call that returns to ra (0 if unknown). */
static int call_line(Dwfl_Module *mod, uintptr_t ra)
{
    int line = 0;
    return hp_resolve_line(mod, ra - 1, &line) ? line : 0;
}

int hp_omp_ends_single(Dwfl_Module *mod, uintptr_t ra, int line)
{
    GElf_Sym sym;
    GElf_Off off = 0;
    if (line <= 0 || !hp_sym_at(mod, ra - 1, &off, &sym))
        return 0;
    uintptr_t entry = ra - 1 - off;
    uint32_t n = hp_site_count();
    for (uint32_t id = 0; id < n; id++) {
        const hp_site *s = hp_site_get(id);
        if (s->kind == HP_KIND_OMP && (s->flags & HP_SITEF_DYNAMIC) && s->name &&
            strcmp(s->name, "single") == 0 && s->addr > entry && s->addr < ra &&
            call_line(mod, s->addr) == line)
            return 1;
    }
    return 0;
}
