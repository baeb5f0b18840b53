/*
 * symindex.c - per-module indexes of symbol tables for hp_sym_at
 * (hp_symindex.h): the symbols a lookup can return, sorted by address,
 * with the highest end of any symbol up to each entry, so that the search
 * for the symbols containing an address stops where none can.
 */
#include <assert.h>
#include <stdlib.h>
#include "hp_symindex.h"

typedef struct sym_entry {
    GElf_Addr addr;       /* where the symbol starts in the process */
    GElf_Addr max_end;    /* the highest end of this and every entry before */
    GElf_Sym sym;
    const char *name;
    int rank;             /* binding: global 3, weak 2, other 1 */
} sym_entry;

typedef struct sym_index {
    Dwfl_Module *mod;
    sym_entry *e;
    size_t n;
} sym_index;

static sym_index *indexes;
static size_t nindexes;

static int binding_rank(const GElf_Sym *sym)
{
    switch (GELF_ST_BIND(sym->st_info)) {
    case STB_GLOBAL: return 3;
    case STB_WEAK: return 2;
    default: return 1;
    }
}

/* Symbols a lookup may return: named, defined, and neither a section, a
 * file nor thread-local (those dwfl_module_addrinfo skips too). */
static int indexed(const char *name, const GElf_Sym *sym, GElf_Word shndx)
{
    int type = GELF_ST_TYPE(sym->st_info);
    return name && name[0] && shndx != SHN_UNDEF && type != STT_SECTION && type != STT_FILE &&
           type != STT_TLS;
}

/* By address; at one address the preferred symbol (sized, then the
 * better binding) last, where a backward search meets it first. */
static int entry_cmp(const void *a, const void *b)
{
    const sym_entry *x = a, *y = b;
    if (x->addr != y->addr)
        return x->addr < y->addr ? -1 : 1;
    if ((x->sym.st_size != 0) != (y->sym.st_size != 0))
        return x->sym.st_size != 0 ? 1 : -1;
    return x->rank - y->rank;
}

static void build(sym_index *ix)
{
    int n = dwfl_module_getsymtab(ix->mod);
    ix->e = n > 1 ? malloc((size_t)n * sizeof *ix->e) : NULL;
    ix->n = 0;
    if (!ix->e)
        return;
    for (int i = 1; i < n; i++) {
        sym_entry *s = &ix->e[ix->n];
        GElf_Word shndx = SHN_UNDEF;
        s->name = dwfl_module_getsym_info(ix->mod, i, &s->sym, &s->addr, &shndx, NULL, NULL);
        if (!indexed(s->name, &s->sym, shndx))
            continue;
        s->rank = binding_rank(&s->sym);
        ix->n++;
    }
    if (ix->n)
        qsort(ix->e, ix->n, sizeof *ix->e, entry_cmp);
    GElf_Addr max_end = 0;
    for (size_t i = 0; i < ix->n; i++) {
        GElf_Addr end = ix->e[i].addr + ix->e[i].sym.st_size;
        max_end = end > max_end ? end : max_end;
        ix->e[i].max_end = max_end;
    }
}

static const sym_index *index_of(Dwfl_Module *mod)
{
    for (size_t i = 0; i < nindexes; i++)
        if (indexes[i].mod == mod)
            return &indexes[i];
    sym_index *more = realloc(indexes, (nindexes + 1) * sizeof *indexes);
    if (!more)
        return NULL;
    indexes = more;
    sym_index *ix = &indexes[nindexes++];
    ix->mod = mod;
    build(ix);
    return ix;
}

/* The number of entries starting at or before addr. */
static size_t entries_upto(const sym_index *ix, GElf_Addr addr)
{
    size_t lo = 0, hi = ix->n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (ix->e[mid].addr <= addr)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

const char *hp_sym_at(Dwfl_Module *mod, Dwarf_Addr addr, GElf_Off *off, GElf_Sym *sym)
{
    const sym_index *ix = mod ? index_of(mod) : NULL;
    if (!ix)
        return NULL;
    const sym_entry *found = NULL, *sizeless = NULL;
    for (size_t i = entries_upto(ix, addr); i-- > 0 && !found;) {
        const sym_entry *s = &ix->e[i];
        if (s->sym.st_size != 0 && addr - s->addr < s->sym.st_size)
            found = s;      /* the innermost sized symbol around addr */
        else if (s->sym.st_size == 0 && !sizeless)
            sizeless = s;   /* the nearest sizeless one, if none is */
        else if (s->max_end <= addr)
            break;          /* nothing from here down reaches addr */
    }
    if (!found)
        found = sizeless;
    if (!found)
        return NULL;
    assert(found->addr <= addr);
    if (off)
        *off = addr - found->addr;
    if (sym)
        *sym = found->sym;
    return found->name;
}

void hp_sym_forget(void)
{
    for (size_t i = 0; i < nindexes; i++)
        free(indexes[i].e);
    free(indexes);
    indexes = NULL;
    nindexes = 0;
}
