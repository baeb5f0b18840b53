/*
 * test_symindex.c - cmocka unit tests of the symbol index the end of a run
 * resolves through (libhprof/finish/symindex.c): on this process's own
 * modules, hp_sym_at gives the symbol libdwfl's dwfl_module_addrinfo
 * gives (the same start and size) at the start, the middle and the last
 * byte of every sized symbol of the test program and of a sample of
 * libc's; a function of the test is found by name with its offset; the
 * index is built once per module, not per lookup.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>
#include "hp_symindex.h"

static const Dwfl_Callbacks callbacks = {
    .find_elf = dwfl_linux_proc_find_elf,
    .find_debuginfo = dwfl_standard_find_debuginfo,
};

static Dwfl *dwfl;

static int setup(void **state)
{
    (void)state;
    dwfl = dwfl_begin(&callbacks);
    if (!dwfl || dwfl_linux_proc_report(dwfl, getpid()) != 0 ||
        dwfl_report_end(dwfl, NULL, NULL) != 0)
        return -1;
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    hp_sym_forget();
    dwfl_end(dwfl);
    return 0;
}

__attribute__((noinline)) int symindex_target(int x);
__attribute__((noinline)) int symindex_target(int x)
{
    return x * 3 + 1;
}

/* How many lookups of the sized symbols of mod (every `step`-th) agree
 * with dwfl_module_addrinfo; fails at the first that does not. */
static unsigned compare_module(Dwfl_Module *mod, int step)
{
    unsigned agreed = 0;
    int n = dwfl_module_getsymtab(mod);
    for (int i = 1; i < n; i += step) {
        GElf_Sym sym;
        GElf_Addr start;
        GElf_Word shndx;
        const char *name = dwfl_module_getsym_info(mod, i, &sym, &start, &shndx, NULL, NULL);
        if (!name || shndx == SHN_UNDEF || sym.st_size == 0 ||
            GELF_ST_TYPE(sym.st_info) != STT_FUNC)
            continue;
        GElf_Addr at[3] = {start, start + sym.st_size / 2, start + sym.st_size - 1};
        for (int k = 0; k < 3; k++) {
            GElf_Off off1 = 0, off2 = 0;
            GElf_Sym s1, s2;
            const char *n1 = dwfl_module_addrinfo(mod, at[k], &off1, &s1, NULL, NULL, NULL);
            const char *n2 = hp_sym_at(mod, at[k], &off2, &s2);
            if (!n1 || !n2 || at[k] - off1 != at[k] - off2 || s1.st_size != s2.st_size)
                fail_msg("%s+%#lx: libdwfl %s+%#lx (size %lu), index %s+%#lx (size %lu)", name,
                         (unsigned long)(at[k] - start), n1 ? n1 : "-", (unsigned long)off1,
                         (unsigned long)s1.st_size, n2 ? n2 : "-", (unsigned long)off2,
                         (unsigned long)s2.st_size);
            agreed++;
        }
    }
    return agreed;
}

typedef struct counts {
    unsigned program, libc;
} counts;

static int each_module(Dwfl_Module *mod, void **user, const char *name, Dwarf_Addr start,
                       void *arg)
{
    counts *c = arg;
    (void)user;
    (void)start;
    if (strstr(name, "test_symindex"))
        c->program += compare_module(mod, 1);
    else if (strstr(name, "libc.so"))
        c->libc += compare_module(mod, 7);
    return DWARF_CB_OK;
}

static void test_same_as_libdwfl(void **state)
{
    (void)state;
    counts c = {0, 0};
    assert_int_equal(dwfl_getmodules(dwfl, each_module, &c, 0), 0);
    assert_true(c.program >= 3 * 3);   /* main, the target, the tests at least */
    assert_true(c.libc >= 3 * 100);
}

static void test_function_by_name(void **state)
{
    (void)state;
    GElf_Addr pc = (GElf_Addr)(uintptr_t)symindex_target + 1;
    Dwfl_Module *mod = dwfl_addrmodule(dwfl, pc);
    GElf_Off off = 0;
    GElf_Sym sym;
    assert_non_null(mod);
    const char *name = hp_sym_at(mod, pc, &off, &sym);
    assert_non_null(name);
    assert_string_equal(name, "symindex_target");
    assert_int_equal(off, 1);
    assert_int_equal(GELF_ST_TYPE(sym.st_info), STT_FUNC);
    assert_int_equal(symindex_target(2), 7);
    assert_null(hp_sym_at(NULL, pc, &off, &sym));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_same_as_libdwfl),
        cmocka_unit_test(test_function_by_name),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
