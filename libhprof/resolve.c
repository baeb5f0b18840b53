/*
 * resolve.c - address to function/file/line with libdw's Dwfl interface
 * over the live process.
 */
#include <elfutils/libdwfl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "hp_resolve.h"
#include "hp_site.h"

static char *find_debuginfo_path;
static const Dwfl_Callbacks proc_callbacks = {
    .find_elf = dwfl_linux_proc_find_elf,
    .find_debuginfo = dwfl_standard_find_debuginfo,
    .debuginfo_path = &find_debuginfo_path,
};

static char *base_name_dup(const char *path)
{
    const char *slash = path ? strrchr(path, '/') : NULL;
    return strdup(slash ? slash + 1 : path ? path : "?");
}

static int resolve_one(Dwfl *dwfl, hp_site *s)
{
    /* A return address points after the call, so the call is one byte
     * back; a function's entry is looked up as it is. */
    Dwarf_Addr pc = (Dwarf_Addr)s->addr - ((s->flags & HP_SITEF_ENTRY) ? 0 : 1);
    Dwfl_Module *mod = dwfl_addrmodule(dwfl, pc);
    if (!mod) {
        s->module = strdup("?");
        s->offset = s->addr;
        return 0;
    }
    Dwarf_Addr start = 0;
    const char *mname = dwfl_module_info(mod, NULL, &start, NULL, NULL, NULL, NULL, NULL);
    s->module = base_name_dup(mname);
    s->offset = (uint64_t)(s->addr - start);
    const char *fn = dwfl_module_addrname(mod, pc);
    if (fn)
        s->func = strdup(fn);
    Dwfl_Line *line = dwfl_module_getsrc(mod, pc);
    int lineno = 0;
    const char *file = line ? dwfl_lineinfo(line, NULL, &lineno, NULL, NULL, NULL) : NULL;
    if (!file)
        return 0;
    s->file = strdup(file);
    s->line = (uint32_t)lineno;
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
        else {
            s->module = strdup("?");
            s->offset = s->addr;
        }
    }
    dwfl_end(dwfl);
    return resolved;
}
