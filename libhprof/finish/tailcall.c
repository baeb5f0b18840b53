/*
 * tailcall.c - the function that reached an MPI call by a tail call
 * (hp_tailcall.h), found at the end of the run when call sites are
 * resolved.  x86-64 machine code is decoded just enough: the call before a
 * return address (`call rel32`, or `call *slot(%rip)` with -fno-plt), a
 * PLT stub (`jmp *slot(%rip)`, after endbr64 and a bnd prefix) and the
 * jumps that end a function in a tail call (`jmp rel32`, `jmp rel8`,
 * `jcc rel32`, `jmp *slot(%rip)`).  Every byte read lies inside a segment
 * of a loaded module, as dl_iterate_phdr lists them: code in executable
 * segments, GOT slots in readable ones.  Anything else keeps the return
 * address's own attribution.
 */
#include "config.h"
#include <dlfcn.h>
#include <link.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include "hp_symindex.h"
#include "hp_tailcall.h"

#if defined(__x86_64__)

#define MAX_FUNC_BYTES (1u << 20)   /* longer functions are not searched */

typedef struct segment {
    uintptr_t lo, hi;
    int exec;
} segment;

typedef struct memory {
    segment *segs;
    size_t n, cap;
    int failed;
} memory;

static int add_module(struct dl_phdr_info *info, size_t size, void *data)
{
    memory *m = data;
    (void)size;
    for (int i = 0; i < info->dlpi_phnum; i++) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
        if (ph->p_type != PT_LOAD || !(ph->p_flags & PF_R) || !ph->p_memsz)
            continue;
        if (m->n == m->cap) {
            size_t cap = m->cap ? m->cap * 2 : 64;
            segment *s = realloc(m->segs, cap * sizeof *s);
            if (!s) {
                m->failed = 1;
                return 1;
            }
            m->segs = s;
            m->cap = cap;
        }
        uintptr_t lo = info->dlpi_addr + ph->p_vaddr;
        m->segs[m->n++] = (segment){lo, lo + ph->p_memsz, (ph->p_flags & PF_X) != 0};
    }
    return 0;
}

/* Copies n bytes at address a, when they lie inside one segment
 * (an executable one if `code`).  Returns 0 on success. */
static int read_mem(const memory *m, uintptr_t a, void *out, size_t n, int code)
{
    for (size_t i = 0; i < m->n; i++) {
        const segment *s = &m->segs[i];
        if (a >= s->lo && a < s->hi && n <= s->hi - a && (s->exec || !code)) {
            memcpy(out, (const void *)a, n);
            return 0;
        }
    }
    return -1;
}

static int32_t rel32(const unsigned char *p)
{
    int32_t v;
    memcpy(&v, p, sizeof v);
    return v;
}

/* The 8-byte slot at `slot` (a GOT entry), as a code address. */
static int read_slot(const memory *m, uintptr_t slot, uintptr_t *to)
{
    uint64_t v;
    if (read_mem(m, slot, &v, sizeof v, 0) != 0)
        return -1;
    *to = (uintptr_t)v;
    return 0;
}

/* Target of the direct call ending at return address ra: `call rel32`
 * (E8) or `call *slot(%rip)` (FF 15).  Returns 0 when the instruction
 * before ra is neither. */
static int call_target(const memory *m, uintptr_t ra, uintptr_t *target)
{
    unsigned char b[6];
    if (read_mem(m, ra - 5, b, 5, 1) == 0 && b[0] == 0xe8) {
        *target = ra + (intptr_t)rel32(b + 1);
        return 1;
    }
    if (read_mem(m, ra - 6, b, 6, 1) == 0 && b[0] == 0xff && b[1] == 0x15)
        return read_slot(m, ra + (intptr_t)rel32(b + 2), target) == 0;
    return 0;
}

/* Where a jump or call to `at` ends up: through a PLT stub
 * ([endbr64] [bnd] jmp *slot(%rip)) to the slot's address, else `at`. */
static uintptr_t through_plt(const memory *m, uintptr_t at)
{
    static const unsigned char endbr64[4] = {0xf3, 0x0f, 0x1e, 0xfa};
    unsigned char b[6];
    uintptr_t p = at, to;
    if (read_mem(m, p, b, 4, 1) == 0 && memcmp(b, endbr64, 4) == 0)
        p += 4;
    if (read_mem(m, p, b, 1, 1) == 0 && b[0] == 0xf2)
        p += 1;
    if (read_mem(m, p, b, 6, 1) == 0 && b[0] == 0xff && b[1] == 0x25 &&
        read_slot(m, p + 6 + (intptr_t)rel32(b + 2), &to) == 0)
        return to;
    return at;
}

/* The function symbol that starts exactly at addr, with its size. */
static const char *function_at(Dwfl *dwfl, uintptr_t addr, GElf_Sym *sym)
{
    Dwfl_Module *mod = dwfl_addrmodule(dwfl, addr);
    GElf_Off off = 1;
    const char *name = mod ? hp_sym_at(mod, addr, &off, sym)
                           : NULL;
    if (!name || off != 0 || GELF_ST_TYPE(sym->st_info) != STT_FUNC)
        return NULL;
    return name;
}

typedef struct callee {
    Dwfl *dwfl;
    const char *name;   /* the MPI function (NULL: only addr) */
    uintptr_t addr;     /* the definition calls bind to (hprof's wrapper) */
} callee;

/* Is sym the MPI function `mpi` or one of its Fortran bindings as hprof
 * names them: MPI_SEND, mpi_send, mpi_send_, mpi_send__, mpi_send_f08_
 * (aliases of hp_f_MPI_Send, pmpi/gen_fortran.py)? */
static int names_mpi_function(const char *sym, const char *mpi)
{
    static const char *const endings[] = {"", "_", "__", "_f08_"};
    size_t n = strlen(mpi);
    if (strcmp(sym, mpi) == 0)
        return 1;
    if (strncmp(sym, "hp_f_", 5) == 0)
        return strcmp(sym + 5, mpi) == 0;
    if (strncasecmp(sym, mpi, n) != 0)
        return 0;
    for (size_t i = 0; i < sizeof endings / sizeof endings[0]; i++)
        if (strcmp(sym + n, endings[i]) == 0)
            return 1;
    return 0;
}

/* Is addr (where a call or jump ends up) the MPI function itself? */
static int is_callee(const callee *c, uintptr_t addr)
{
    GElf_Sym sym;
    const char *name;
    if (addr == c->addr)
        return 1;
    if (!c->name)
        return 0;
    name = function_at(c->dwfl, addr, &sym);
    return name && names_mpi_function(name, c->name);
}

/* Target of the jump that starts at p[0] (at address a, with `left`
 * bytes of the function from there), or 0 if there is none. */
static uintptr_t jump_target(const memory *m, const unsigned char *p, uintptr_t a, size_t left)
{
    uintptr_t to = 0;
    if (p[0] == 0xe9 && left >= 5)
        return a + 5 + (intptr_t)rel32(p + 1);
    if (p[0] == 0xeb && left >= 2)
        return a + 2 + (intptr_t)(int8_t)p[1];
    if (p[0] == 0x0f && (p[1] & 0xf0) == 0x80 && left >= 6)
        return a + 6 + (intptr_t)rel32(p + 2);
    if (p[0] == 0xff && p[1] == 0x25 && left >= 6 &&
        read_slot(m, a + 6 + (intptr_t)rel32(p + 2), &to) == 0)
        return to;
    return 0;
}

/* What to do with each jump of a function: return nonzero to stop at it. */
typedef int (*jump_visit)(const memory *m, const callee *c, uintptr_t to, void *arg);

/* The first jump inside [lo, hi), to `to`, at which visit stops; 0 if
 * none.  The bytes are searched at every offset: a false match would
 * need a displacement that happens to hit what visit looks for exactly. */
static uintptr_t find_jump(const memory *m, const callee *c, uintptr_t lo, uintptr_t hi,
                           jump_visit visit, void *arg)
{
    size_t n = hi - lo;
    unsigned char *code = n > 1 && n <= MAX_FUNC_BYTES ? malloc(n) : NULL;
    uintptr_t found = 0;
    if (!code || read_mem(m, lo, code, n, 1) != 0) {
        free(code);
        return 0;
    }
    for (size_t i = 0; i + 1 < n && !found; i++) {
        uintptr_t to = jump_target(m, code + i, lo + i, n - i);
        if (to && visit(m, c, to, arg))
            found = lo + i;
    }
    free(code);
    return found;
}

static int jumps_into_callee(const memory *m, const callee *c, uintptr_t to, void *arg)
{
    unsigned char probe;
    (void)arg;
    return read_mem(m, to, &probe, 1, 1) == 0 && is_callee(c, through_plt(m, to));
}

/* The first jump inside [lo, hi) that ends up in the callee. */
static uintptr_t tail_jump(const memory *m, const callee *c, uintptr_t lo, uintptr_t hi)
{
    return find_jump(m, c, lo, hi, jumps_into_callee, NULL);
}

#define MAX_TAIL_CHAIN 4   /* functions followed from an entry, itself included */

/* Searches function f (at entry, of sym) for a jump to c; 1 if found. */
static int jumps_to(const memory *m, const callee *c, uintptr_t entry, const GElf_Sym *sym,
                    hp_tailcall *tc)
{
    if (sym->st_size == 0 || sym->st_size > MAX_FUNC_BYTES)
        return 0;
    tc->func = entry;
    tc->jump = tail_jump(m, c, entry, entry + sym->st_size);
    return tc->jump != 0;
}

/* Does the function at entry reach c by a chain of at most `depth` tail
 * calls (its own jump to c, or a jump to the start of another function
 * that does)?  Every jump of the function to a function's start is
 * followed (a task body's `jmp cilksort` whose own last act is `jmp
 * cilkmerge`, which ends in `jmp GOMP_taskwait`), the first chain found
 * wins; *tc is the function that jumps to c and that jump. */
static int reaches(const memory *m, const callee *c, uintptr_t entry, int depth,
                   hp_tailcall *tc);

/* The chain search one function further (reaches): a jump out of the
 * function (chain->lo..hi) to another function's start. */
typedef struct chain {
    uintptr_t lo, hi;
    int depth;
    hp_tailcall *tc;
} chain;

static int jump_reaches(const memory *m, const callee *c, uintptr_t to, void *arg)
{
    chain *ch = arg;
    GElf_Sym sym;
    return (to < ch->lo || to >= ch->hi) && function_at(c->dwfl, to, &sym) &&
           reaches(m, c, to, ch->depth - 1, ch->tc);
}

static int reaches(const memory *m, const callee *c, uintptr_t entry, int depth,
                   hp_tailcall *tc)
{
    GElf_Sym sym;
    if (depth <= 0 || !function_at(c->dwfl, entry, &sym))
        return 0;
    if (jumps_to(m, c, entry, &sym, tc))
        return 1;
    chain ch = {entry, entry + sym.st_size, depth, tc};
    return find_jump(m, c, ch.lo, ch.hi, jump_reaches, &ch) != 0;
}

int hp_tailcall_find(Dwfl *dwfl, uintptr_t ra, const char *callee_name, hp_tailcall *tc)
{
    memory m = {0};
    callee c = {dwfl, callee_name, (uintptr_t)dlsym(RTLD_DEFAULT, callee_name)};
    uintptr_t target;
    GElf_Sym sym;
    int found = 0;
    memset(tc, 0, sizeof *tc);
    dl_iterate_phdr(add_module, &m);
    if (!m.failed && call_target(&m, ra, &target)) {
        uintptr_t to = through_plt(&m, target);
        hp_tailcall chain;
        if (!is_callee(&c, to) && function_at(dwfl, to, &sym)) {
            tc->func = to;
            if (reaches(&m, &c, to, MAX_TAIL_CHAIN, &chain))
                *tc = chain;
            found = 1;
        }
    }
    free(m.segs);
    return found;
}

int hp_tailcall_to(Dwfl *dwfl, uintptr_t entry, uintptr_t target, hp_tailcall *tc)
{
    memory m = {0};
    callee c = {dwfl, NULL, target};
    GElf_Sym sym;
    int found = 0;
    memset(tc, 0, sizeof *tc);
    dl_iterate_phdr(add_module, &m);
    if (!m.failed && function_at(dwfl, entry, &sym))
        found = jumps_to(&m, &c, entry, &sym, tc);
    free(m.segs);
    return found;
}

int hp_tailcall_from(Dwfl *dwfl, uintptr_t entry, const char *callee_name, hp_tailcall *tc)
{
    memory m = {0};
    callee c = {dwfl, callee_name, (uintptr_t)dlsym(RTLD_DEFAULT, callee_name)};
    int found = 0;
    memset(tc, 0, sizeof *tc);
    dl_iterate_phdr(add_module, &m);
    if (!m.failed)
        found = reaches(&m, &c, entry, MAX_TAIL_CHAIN, tc);
    if (!found)
        memset(tc, 0, sizeof *tc);
    free(m.segs);
    return found;
}

int hp_tailcall_calls(Dwfl *dwfl, uintptr_t ra, const char *callee_name)
{
    memory m = {0};
    callee c = {dwfl, callee_name, (uintptr_t)dlsym(RTLD_DEFAULT, callee_name)};
    uintptr_t target;
    dl_iterate_phdr(add_module, &m);
    int calls = !m.failed && call_target(&m, ra, &target) && is_callee(&c, through_plt(&m, target));
    free(m.segs);
    return calls;
}

#else

int hp_tailcall_to(Dwfl *dwfl, uintptr_t entry, uintptr_t target, hp_tailcall *tc)
{
    (void)dwfl;
    (void)entry;
    (void)target;
    memset(tc, 0, sizeof *tc);
    return 0;
}

int hp_tailcall_from(Dwfl *dwfl, uintptr_t entry, const char *callee, hp_tailcall *tc)
{
    (void)dwfl;
    (void)entry;
    (void)callee;
    memset(tc, 0, sizeof *tc);
    return 0;
}

int hp_tailcall_find(Dwfl *dwfl, uintptr_t ra, const char *callee, hp_tailcall *tc)
{
    (void)dwfl;
    (void)ra;
    (void)callee;
    memset(tc, 0, sizeof *tc);
    return 0;
}

int hp_tailcall_calls(Dwfl *dwfl, uintptr_t ra, const char *callee)
{
    (void)dwfl;
    (void)ra;
    (void)callee;
    return 0;
}

#endif
