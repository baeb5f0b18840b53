/*
 * resolve.c - address to function/file/line with libdw's Dwfl interface
 * over the live process.  An MPI call site whose call went through a
 * function that tail-called the MPI function (hp_tailcall.h) is named
 * after that function, at the line of its tail jump.  A tier-1 call of
 * an inlined function is named by the inlined call's own line.
 */
#include <dwarf.h>
#include <elfutils/libdw.h>
#include <elfutils/libdwfl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "hp_die_name.h"
#include "hp_names.h"
#include "hp_names_fortran.h"
#include "hp_omp_follow.h"
#include "hp_omp_lines.h"
#include "hp_omp_pragma.h"
#include "hp_resolve.h"
#include "hp_site.h"
#include "hp_symindex.h"
#include "hp_tailcall.h"

/* s->func by the name its language shows it by (hp_names_fortran.h); a
 * call path's frame, named after its function, follows. */
static void display_name(hp_site *s, Dwfl_Module *mod, Dwarf_Addr pc)
{
    char *shown = hp_fortran_name_at(mod, pc, s->func);
    if (!shown)
        return;
    if (s->name == s->func)
        s->name = shown;
    free(s->func);
    s->func = shown;
}

/* Is a file named debuglink where the .gnu_debuglink rules look for it:
 * beside the module, in its .debug/, or under /usr/lib/debug/ + its
 * directory? */
static int debuglink_target_exists(const char *file, const char *debuglink)
{
    char dir[PATH_MAX], path[PATH_MAX + 64];
    const char *slash = file ? strrchr(file, '/') : NULL;
    snprintf(dir, sizeof dir, "%.*s", slash ? (int)(slash - file) : 0, slash ? file : "");
    const char *const forms[] = {"%s/%s", "%s/.debug/%s", "/usr/lib/debug%s/%s"};
    for (size_t i = 0; i < sizeof forms / sizeof forms[0]; i++) {
        snprintf(path, sizeof path, forms[i], dir, debuglink);
        if (access(path, R_OK) == 0)
            return 1;
    }
    return 0;
}

/* Separate debug information, found on this machine: by build id under
 * the debug directories, then by the module's .gnu_debuglink if it has
 * one.  libdw's standard search would first load its debuginfod client
 * (libcurl and a dozen libraries: 10-17 ms at every program's end) for a
 * module without debug information, even with DEBUGINFOD_URLS unset; a
 * user who sets it gets the standard search, servers included. */
static int find_debuginfo(Dwfl_Module *mod, void **user, const char *modname, Dwarf_Addr base,
                          const char *file, const char *debuglink, GElf_Word crc, char **found)
{
    const char *urls = getenv("DEBUGINFOD_URLS");
    if (urls && *urls)
        return dwfl_standard_find_debuginfo(mod, user, modname, base, file, debuglink, crc,
                                            found);
    int fd = dwfl_build_id_find_debuginfo(mod, user, modname, base, file, debuglink, crc, found);
    if (fd >= 0 || !debuglink || !debuglink_target_exists(file, debuglink))
        return fd;
    return dwfl_standard_find_debuginfo(mod, user, modname, base, file, debuglink, crc, found);
}

static char *find_debuginfo_path;
static const Dwfl_Callbacks proc_callbacks = {
    .find_elf = dwfl_linux_proc_find_elf,
    .find_debuginfo = find_debuginfo,
    .debuginfo_path = &find_debuginfo_path,
};

static char *base_name_dup(const char *path)
{
    const char *slash = path ? strrchr(path, '/') : NULL;
    return strdup(slash ? slash + 1 : path ? path : "?");
}

/* The compile unit around pc.  The address index (.debug_aranges) is the
 * fast way, but clang emits none by default: then the units are searched
 * one by one. */
Dwarf_Die *hp_resolve_unit(Dwfl_Module *mod, Dwarf_Addr pc, Dwarf_Addr *bias)
{
    Dwarf_Die *cu = dwfl_module_addrdie(mod, pc, bias);
    if (cu)
        return cu;
    while ((cu = dwfl_module_nextcu(mod, cu, bias)) != NULL)
        if (dwarf_haspc(cu, pc - *bias) == 1)
            return cu;
    return NULL;
}

/* The innermost function around pc, inlined ones included: a call in a
 * function the compiler inlined into main belongs to that function.
 * NULL when there is no debug information. */
static char *innermost_function(Dwfl_Module *mod, Dwarf_Addr pc)
{
    Dwarf_Addr bias = 0;
    Dwarf_Die *cu = hp_resolve_unit(mod, pc, &bias);
    Dwarf_Die *scopes = NULL;
    char *name = NULL;
    int n = cu ? dwarf_getscopes(cu, pc - bias, &scopes) : 0;
    for (int i = 0; i < n && !name; i++) {
        int tag = dwarf_tag(&scopes[i]);
        if (tag != DW_TAG_subprogram && tag != DW_TAG_inlined_subroutine)
            continue;
        name = hp_die_name(&scopes[i]);
    }
    free(scopes);
    return name;
}

static int is_code_scope(int tag)
{
    return tag == DW_TAG_subprogram || tag == DW_TAG_inlined_subroutine ||
           tag == DW_TAG_lexical_block;
}

/* Walks down the concrete scopes around pc from its unit: the innermost
 * inlined call (*inl) and the function scope that made it (*caller).
 * (dwarf_getscopes continues past an inlined call with the scopes of the
 * inlined function's own definition, not with its caller.)  Returns 1 when
 * pc lies in an inlined call. */
/* A function nested in `outer` (its child, or inside its lexical blocks:
 * a region in a loop's body) whose code holds pc: gcc's outlined body of
 * an OpenMP region is a DW_TAG_subprogram inside the function of the
 * region, with code of its own elsewhere. */
static int nested_function_with_pc(Dwarf_Die *outer, Dwarf_Addr pc, Dwarf_Die *nested,
                                   int depth)
{
    Dwarf_Die child;
    if (depth > 32 || dwarf_child(outer, &child) != 0)
        return 0;
    do {
        int tag = dwarf_tag(&child);
        if (tag == DW_TAG_subprogram && dwarf_haspc(&child, pc) == 1) {
            *nested = child;
            return 1;
        }
        if (tag == DW_TAG_lexical_block &&
            nested_function_with_pc(&child, pc, nested, depth + 1))
            return 1;
    } while (dwarf_siblingof(&child, &child) == 0);
    return 0;
}

static int innermost_inlined_call(Dwarf_Die *cu, Dwarf_Addr pc, Dwarf_Die *inl,
                                  Dwarf_Die *caller)
{
    Dwarf_Die scope = *cu, child, func = *cu, nested;
    int found = 0;
    for (int depth = 0; depth < 256 && dwarf_child(&scope, &child) == 0; depth++) {
        int inside = 0;
        do {
            int tag = dwarf_tag(&child);
            inside = is_code_scope(tag) && dwarf_haspc(&child, pc) == 1;
            if (!inside && tag == DW_TAG_subprogram &&
                nested_function_with_pc(&child, pc, &nested, 0)) {
                func = child;        /* named after the user's function */
                child = nested;      /* descend into the nested one */
                inside = 1;
                continue;
            }
            if (inside && tag == DW_TAG_inlined_subroutine) {
                *inl = child;
                *caller = func;
                found = 1;
            }
            if (inside && tag != DW_TAG_lexical_block)
                func = child;
        } while (!inside && dwarf_siblingof(&child, &child) == 0);
        if (!inside)
            break;
        scope = child;
    }
    return found;
}

/* A tier-1 hook of an inlined function (HP_SITEF_INLINED): pc lies in the
 * inlined copy, whose DW_TAG_inlined_subroutine carries the file and line
 * of the call the compiler inlined.  Returns 1 and fills s. */
static int resolve_inlined_call(Dwfl_Module *mod, Dwarf_Addr pc, hp_site *s)
{
    Dwarf_Addr bias = 0;
    Dwarf_Die *cu = hp_resolve_unit(mod, pc, &bias);
    Dwarf_Die inl, caller;
    Dwarf_Attribute attr;
    Dwarf_Word line = 0, file = 0;
    Dwarf_Files *files = NULL;
    if (!cu || !innermost_inlined_call(cu, pc - bias, &inl, &caller) ||
        dwarf_formudata(dwarf_attr(&inl, DW_AT_call_line, &attr), &line) != 0)
        return 0;
    if (dwarf_formudata(dwarf_attr(&inl, DW_AT_call_file, &attr), &file) == 0 &&
        dwarf_getsrcfiles(cu, &files, NULL) == 0) {
        const char *name = dwarf_filesrc(files, file, NULL, NULL);
        s->file = name ? strdup(name) : NULL;
    }
    s->func = dwarf_tag(&caller) == DW_TAG_compile_unit ? NULL : hp_die_name(&caller);
    display_name(s, mod, pc);
    s->line = (uint32_t)line;
    return 1;
}

const char *hp_resolve_line(Dwfl_Module *mod, Dwarf_Addr pc, int *lineno)
{
    Dwfl_Line *line = dwfl_module_getsrc(mod, pc);
    if (line)
        return dwfl_lineinfo(line, NULL, lineno, NULL, NULL, NULL);
    Dwarf_Addr bias = 0;
    Dwarf_Die *cu = hp_resolve_unit(mod, pc, &bias);
    Dwarf_Line *l = cu ? dwarf_getsrc_die(cu, pc - bias) : NULL;
    if (!l || dwarf_lineno(l, lineno) != 0)
        return NULL;
    return dwarf_linesrc(l, NULL, NULL);
}

/* The runtime entries through which an OpenMP construct's records may
 * have been reached by a tail call: a function whose last act is a
 * region (clang forks through __kmpc_fork_call), a barrier or a taskwait
 * ends in a jump there, and the return address lies in its caller. */
#define OMP_TAIL_CALLEES 4
static const struct {
    const char *name;
    const char *callee[OMP_TAIL_CALLEES];
} omp_tail_callees[] = {
    {"parallel", {"__kmpc_fork_call", NULL}},
    {"fork", {"__kmpc_fork_call", NULL}},
    {"join", {"__kmpc_fork_call", NULL}},
    {"implicit barrier", {"__kmpc_fork_call", NULL}},
    /* a tail call seen by gcc's trampoline is a "barrier" whichever
     * entry ends the construct (gomp_real.c) */
    {"barrier", {"GOMP_barrier", "__kmpc_barrier", "GOMP_loop_end", "GOMP_sections_end"}},
    {"taskwait", {"GOMP_taskwait", "__kmpc_omp_taskwait", "GOMP_taskgroup_end", NULL}},
};

/* Finds the tail call by which OpenMP site s was reached, if any: only a
 * jump to one of its runtime entries found in the function called proves
 * it.  A site keyed by an outlined function's entry (gcc's trampoline saw
 * the outlined function's tail call, or libomp reported an address of its
 * own) is looked for from there, for a barrier or a taskwait only (a
 * region keyed so is where it is). */
static int omp_tail_call(Dwfl *dwfl, const hp_site *s, Dwarf_Addr entry, hp_tailcall *tc)
{
    if (entry && strcmp(s->name, "barrier") != 0 && strcmp(s->name, "taskwait") != 0)
        return 0;
    for (size_t i = 0; i < sizeof omp_tail_callees / sizeof omp_tail_callees[0]; i++) {
        if (strcmp(s->name, omp_tail_callees[i].name) != 0)
            continue;
        for (int k = 0; k < OMP_TAIL_CALLEES && omp_tail_callees[i].callee[k]; k++) {
            const char *callee = omp_tail_callees[i].callee[k];
            if (entry ? hp_tailcall_from(dwfl, entry, callee, tc)
                      : hp_tailcall_find(dwfl, s->addr, callee, tc) && tc->jump)
                return 1;
        }
    }
    return 0;
}

/* libomp's entries that synchronize a reduction: __kmpc_end_reduce waits
 * for the team after the critical or atomic combination, __kmpc_reduce in
 * the tree combination (OMPT reports both waits as implementation
 * barriers at the entry's return address; the construct's own end barrier
 * is a call of its own).  Such a wait is the construct's "reduction", not
 * a second "implicit barrier". */
static int omp_reduction_wait(Dwfl *dwfl, const hp_site *s)
{
    static const char *const entries[] = {"__kmpc_end_reduce", "__kmpc_reduce",
                                          "__kmpc_end_reduce_nowait", "__kmpc_reduce_nowait"};
    if (s->kind != HP_KIND_OMP || (s->flags & HP_SITEF_ENTRY) || !s->name ||
        strcmp(s->name, "implicit barrier") != 0)
        return 0;
    for (size_t i = 0; i < sizeof entries / sizeof entries[0]; i++)
        if (hp_tailcall_calls(dwfl, s->addr, entries[i]))
            return 1;
    return 0;
}

/* Is pc the first instruction of a function (an OMPT region keyed by its
 * outlined function, one byte after it)? */
static int function_entry(Dwfl *dwfl, Dwarf_Addr pc)
{
    Dwfl_Module *mod = dwfl_addrmodule(dwfl, pc);
    GElf_Sym sym;
    GElf_Off off = 1;
    return mod && hp_sym_at(mod, pc, &off, &sym) && off == 0;
}

/* Is the jump at pc on the line of an explicit `#pragma omp barrier` (one
 * that ends its function)? */
static int explicit_barrier(Dwfl_Module *mod, Dwarf_Addr pc)
{
    int line = 0;
    const char *file = hp_resolve_line(mod, pc, &line);
    return file && line > 0 && hp_omp_pragma_at(file, line, "barrier");
}

/* For an MPI call site, an OpenMP region, or a tier-1 call keyed by the
 * outlined function that tail-called it (cyg.c), reached through a tail call:
 * the address to name it by (the tail jump, else the entry of the
 * function that made it) and its module.  0 for every other site. */
static Dwarf_Addr tail_call_pc(Dwfl *dwfl, hp_site *s, Dwfl_Module **mod)
{
    hp_tailcall tc;
    if (!s->name)
        return 0;
    if (s->kind == HP_KIND_COMM && !(s->flags & HP_SITEF_ENTRY)) {
        if (!hp_tailcall_find(dwfl, s->addr, s->name, &tc))
            return 0;
    } else if (s->kind == HP_KIND_CALL && (s->flags & HP_SITEF_ENTRY)) {
        if (s->callee == HP_NONE ||
            !hp_tailcall_to(dwfl, s->addr, hp_site_get(s->callee)->addr, &tc))
            return 0;
    } else if (s->kind == HP_KIND_OMP) {
        Dwarf_Addr entry = (s->flags & HP_SITEF_ENTRY) ? s->addr
                           : function_entry(dwfl, s->addr - 1) ? s->addr - 1 : 0;
        if (!omp_tail_call(dwfl, s, entry, &tc))
            return 0;
    } else {
        return 0;
    }
    Dwarf_Addr pc = tc.jump ? tc.jump : tc.func;
    if (!(*mod = dwfl_addrmodule(dwfl, pc)))
        return 0;
    if (tc.jump && s->kind == HP_KIND_OMP && strcmp(s->name, "barrier") == 0 &&
        !explicit_barrier(*mod, pc)) {
        Dwarf_Addr before = hp_omp_before_epilogue(*mod, pc);
        if (before)
            pc = before;    /* the construct it ends (hp_omp_lines.h) */
    }
    s->flags |= HP_SITEF_TAILCALL;
    return pc;
}

/* The construct whose end barrier the call of site s is, proved by the
 * statement that starts right after the call (hp_omp_follow.h), within
 * the outlined function's lines from `from`: its line, 0 if not proved.
 * Not for a call on an explicit barrier's line, nor a tail call (nothing
 * of the function follows it). */
static int follow_construct(const hp_site *s, Dwfl_Module *mod, int from)
{
    static const char *const barrier_ends[] = {"for", "sections", "single", NULL};
    static const char *const loop_ends[] = {"for", "sections", NULL};
    const char *const *ends = strcmp(s->name, "barrier") == 0            ? barrier_ends
                              : strcmp(s->name, "implicit barrier") == 0 ? loop_ends
                                                                          : NULL;
    int line = 0, col = 0;
    if (!ends || (s->flags & HP_SITEF_TAILCALL) ||
        hp_omp_pragma_at(s->file, (int)s->line, "barrier") ||
        !hp_omp_statement_at(mod, s->addr, s->file, &line, &col))
        return 0;
    return hp_omp_follow_construct(s->file, from, line, col, ends);
}

/* A barrier that clang's outlined code reached by a tail jump (a
 * single's end as a region's last act: hp_omp_lines.h) is on the line
 * clang gives it, its construct's: the end of the worksharing construct
 * there, if any. */
static int clang_construct_end(const hp_site *s, Dwfl_Module *mod, Dwarf_Addr pc)
{
    static const char *const worksharing[] = {"single", "for", "sections"};
    if (!(s->flags & HP_SITEF_TAILCALL) || strcmp(s->name, "barrier") != 0 ||
        !hp_omp_is_clang_outlined(hp_sym_at(mod, pc, NULL, NULL)))
        return 0;
    for (size_t i = 0; i < sizeof worksharing / sizeof worksharing[0]; i++)
        if (hp_omp_pragma_at(s->file, (int)s->line, worksharing[i]))
            return 1;
    return 0;
}

/* An OpenMP site in outlined code: at its pragma's line when gcc's line
 * rows do not give it (hp_omp_lines.h, hp_omp_pragma.h), named after the
 * user's function. */
static void place_omp_outlined(hp_site *s, Dwfl_Module *mod, Dwarf_Addr pc, int entry)
{
    int n, line = (int)s->line;
    int *lines = hp_omp_gcc_own_lines(mod, pc, s->func, &n);
    if (lines) {
        /* a single's end barrier is placed as the single (hp_omp_lines.h);
         * one reached by a tail jump is looked for before the code pc
         * ends (the last before the epilogue, as for a call at pc) */
        uintptr_t ra = (s->flags & HP_SITEF_TAILCALL) ? (uintptr_t)pc + 1 : s->addr;
        int ends_single = !entry && strcmp(s->name, "barrier") == 0 &&
                          hp_omp_ends_single(mod, ra, line);
        const char *as = ends_single ? "single" : s->name;
        int after = entry || ends_single ? 0 : follow_construct(s, mod, lines[0]);
        if (after) {
            as = "implicit barrier";
            line = after;
        } else {
            hp_omp_pragma_place(s->file, lines, n, entry, &as, &line);
        }
        s->name = ends_single ? "implicit barrier" : as;
        s->line = (uint32_t)line;
        free(lines);
    } else if ((line = hp_omp_entry_decl_line(mod, pc)) > 0) {
        s->line = (uint32_t)line;   /* an OMPT region keyed by its outlined function */
    } else if (!entry && clang_construct_end(s, mod, pc)) {
        s->name = "implicit barrier";
    } else if (!entry && (strcmp(s->name, "loop") == 0 || strcmp(s->name, "reduction") == 0) &&
               !hp_omp_pragma_loop_on_line(s->file, (int)s->line) &&
               (line = hp_omp_clang_body_pragma_line(mod, pc, s->func, (int)s->line)) > 0) {
        s->line = (uint32_t)line;   /* a combined construct's dynamic or ordered loop */
    }
    char *user = hp_omp_user_function(mod, pc, s->func);
    if (user) {
        free(s->func);
        s->func = user;
    }
}

/* The user function whose code holds pc when it is no outlined one: the
 * innermost inlined call at pc (an orphaned construct in a function gcc
 * inlined into a region's outlined function), else the function itself
 * (one called from a region).  Fills its definition's line and returns
 * its name (a new string), NULL when pc is in an outlined function's own
 * code or the definition is not in `file`. */
static char *orphan_function(Dwfl_Module *mod, Dwarf_Addr pc, const char *file, int *decl)
{
    Dwarf_Addr bias = 0;
    Dwarf_Die *cu = hp_resolve_unit(mod, pc, &bias);
    Dwarf_Die fn, caller, *scopes = NULL;
    int found = 0;
    if (!cu)
        return NULL;
    if (innermost_inlined_call(cu, pc - bias, &fn, &caller)) {
        found = 1;
    } else {
        int n = dwarf_getscopes(cu, pc - bias, &scopes);
        for (int i = 0; i < n && !found; i++)
            if (dwarf_tag(&scopes[i]) == DW_TAG_subprogram) {
                fn = scopes[i];
                found = 1;
            }
        free(scopes);
    }
    const char *decl_file = found ? dwarf_decl_file(&fn) : NULL;
    if (!decl_file || !file || strcmp(decl_file, file) != 0 || dwarf_decl_line(&fn, decl) != 0)
        return NULL;
    char *name = hp_die_name(&fn);
    if (name && hp_omp_is_outlined(name)) {
        free(name);
        return NULL;
    }
    return name;
}

/* A construct orphaned in a user function (a call's site, not an entry):
 * placed, like one in outlined code, among the function's lines, from its
 * definition to its body's end, and named after it. */
static int place_omp_orphan(hp_site *s, Dwfl_Module *mod, Dwarf_Addr pc)
{
    int range[2], line = (int)s->line;
    char *func = orphan_function(mod, pc, s->file, &range[0]);
    if (!func)
        return 0;
    range[1] = hp_omp_pragma_function_end(s->file, range[0]);
    if (range[1] < line || line < range[0]) {
        free(func);     /* not C, or the line is not the function's */
        return 0;
    }
    if (!hp_omp_pragma_at(s->file, line, NULL)) {
        const char *as = s->name;
        hp_omp_pragma_place(s->file, range, 2, 0, &as, &line);
        s->name = as;
        s->line = (uint32_t)line;
    }
    free(s->func);
    s->func = func;
    return 1;
}

/* ... and the first line of a Fortran directive continued over lines,
 * whose calls gfortran puts on its last (hp_omp_pragma.h). */
static void place_omp_site(hp_site *s, Dwfl_Module *mod, Dwarf_Addr pc, int entry)
{
    if (entry || !place_omp_orphan(s, mod, pc))
        if (hp_omp_is_outlined(s->func))
            place_omp_outlined(s, mod, pc, entry);
    int line = (int)s->line;
    hp_omp_pragma_directive_start(s->file, &line);
    s->line = (uint32_t)line;
}

/* An OpenMP site one byte past a function's first byte (the OMPT tool
 * keys a region by its outlined function so, as a return address): no
 * call returns there, so it is that function's entry, whatever code was
 * inlined at its start. */
static int omp_keyed_by_entry(Dwfl_Module *mod, const hp_site *s, Dwarf_Addr pc)
{
    GElf_Sym sym;
    GElf_Off off = 1;
    return s->kind == HP_KIND_OMP && !(s->flags & HP_SITEF_ENTRY) &&
           hp_sym_at(mod, pc, &off, &sym) && off == 0 &&
           GELF_ST_TYPE(sym.st_info) == STT_FUNC;
}

/* A site at no module's address: module "?", the address as its offset
 * when it fits the profile's counts (< 2^63), else 0.  An OpenMP runtime
 * may pass no code pointer at all (address 0): one byte back from it
 * wrapped to the top of the address space and gave "address - start" of
 * whatever module lay there, 2^64 - 1.4e14, which the reader refused. */
static void unresolved(hp_site *s)
{
    s->module = strdup("?");
    s->offset = s->addr <= (uintptr_t)INT64_MAX ? s->addr : 0;
}

static int resolve_one(Dwfl *dwfl, hp_site *s)
{
    /* A return address points after the call, so the call is one byte
     * back; a function's entry is looked up as it is. */
    Dwarf_Addr pc = (Dwarf_Addr)s->addr - ((s->flags & HP_SITEF_ENTRY) ? 0 : 1);
    Dwfl_Module *mod = s->addr ? dwfl_addrmodule(dwfl, pc) : NULL;
    Dwarf_Addr start = 0, end = 0;
    const char *mname = mod ? dwfl_module_info(mod, NULL, &start, &end, NULL, NULL, NULL,
                                               NULL) : NULL;
    if (!mod || s->addr < start || s->addr > end) {
        unresolved(s);
        return 0;
    }
    s->module = base_name_dup(mname);
    s->offset = (uint64_t)(s->addr - start);
    if (omp_reduction_wait(dwfl, s))
        s->name = "reduction";
    /* The module and offset stay those of the return address (the site's
     * identity); function, file and line may move to a tail-calling one. */
    Dwfl_Module *tail_mod = NULL;
    Dwarf_Addr tail_pc = tail_call_pc(dwfl, s, &tail_mod);
    int entry = (s->flags & HP_SITEF_ENTRY) != 0 || omp_keyed_by_entry(mod, s, pc);
    if (tail_pc) {
        pc = tail_pc;
        mod = tail_mod;
        entry = 0;   /* named after the jump, not the entry */
    }
    if ((s->flags & HP_SITEF_INLINED) && resolve_inlined_call(mod, pc, s)) {
        if (s->file)
            s->flags |= HP_SITEF_RESOLVED;
        return s->file != NULL;
    }
    s->func = entry ? NULL : innermost_function(mod, pc);
    if (!s->func) {
        const char *fn = hp_sym_at(mod, pc, NULL, NULL);
        s->func = fn ? hp_name_display(fn, fn, HP_LANG_UNKNOWN) : NULL;
    }
    if (s->kind == HP_KIND_CALL && hp_omp_is_outlined(s->func)) {
        char *user = hp_omp_user_function(mod, pc, s->func);   /* a region's call */
        if (user) {
            free(s->func);
            s->func = user;
        }
    }
    if (s->kind != HP_KIND_OMP)     /* named once placed (place_omp_site) */
        display_name(s, mod, pc);
    if ((s->flags & HP_SITEF_FRAME) && s->func)
        s->name = s->func;      /* a call path's frame: the function it lies in */
    int lineno = 0;
    const char *file = hp_resolve_line(mod, pc, &lineno);
    if (!file)
        return 0;
    s->file = strdup(file);
    s->line = (uint32_t)lineno;
    if (s->kind == HP_KIND_OMP) {
        place_omp_site(s, mod, pc, entry);
        display_name(s, mod, pc);
    }
    s->flags |= HP_SITEF_RESOLVED;
    return 1;
}

int hp_resolve_dynamic_sites(void)
{
    Dwfl *dwfl = dwfl_begin(&proc_callbacks);
    if (!dwfl)
        return 0;
    int ok = dwfl_linux_proc_report(dwfl, getpid()) == 0 &&
             dwfl_report_end(dwfl, NULL, NULL) == 0;
    int resolved = 0;
    uint32_t n = hp_site_count();
    for (uint32_t id = 0; id < n; id++) {
        hp_site *s = hp_site_get(id);
        if (!(s->flags & HP_SITEF_DYNAMIC) || s->module)
            continue;
        if (ok)
            resolved += resolve_one(dwfl, s);
        else
            unresolved(s);
    }
    hp_sym_forget();
    hp_omp_pragma_forget();
    dwfl_end(dwfl);
    return resolved;
}
