/*
 * test_names.c - cmocka unit tests of the display names of procedures
 * (libhprof/finish/names.c): DWARF languages map to hprof's; C++ linkage
 * names are demangled (a method of a class template, a lambda, a symbol
 * table's name with no language), a name that is no valid mangling keeps
 * the plain name; C and Fortran names stay as they are for now.  The test
 * is linked with libstdc++, as a C++ program is, for __cxa_demangle.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <setjmp.h>
#include <cmocka.h>
#include <dwarf.h>
#include "hp_names.h"

static void expect_name(const char *linkage, const char *name, enum hp_lang lang, const char *want)
{
    char *got = hp_name_display(linkage, name, lang);
    if (!want) {
        assert_null(got);
        return;
    }
    assert_non_null(got);
    assert_string_equal(got, want);
    free(got);
}

static void test_languages(void **state)
{
    (void)state;
    assert_int_equal(hp_lang_of_dwarf(DW_LANG_C99), HP_LANG_C);
    assert_int_equal(hp_lang_of_dwarf(DW_LANG_C11), HP_LANG_C);
    assert_int_equal(hp_lang_of_dwarf(DW_LANG_C_plus_plus), HP_LANG_CXX);
    assert_int_equal(hp_lang_of_dwarf(DW_LANG_C_plus_plus_14), HP_LANG_CXX);
    assert_int_equal(hp_lang_of_dwarf(0x2a), HP_LANG_CXX);   /* C++17 */
    assert_int_equal(hp_lang_of_dwarf(DW_LANG_Fortran90), HP_LANG_FORTRAN);
    assert_int_equal(hp_lang_of_dwarf(DW_LANG_Fortran08), HP_LANG_FORTRAN);
    assert_int_equal(hp_lang_of_dwarf(0), HP_LANG_UNKNOWN);
}

static void test_cxx(void **state)
{
    (void)state;
    expect_name("_ZNK6solver5FieldIdE3sumEv", "sum", HP_LANG_CXX, "solver::Field<double>::sum() const");
    expect_name("_ZZ4mainENKUliE_clEi", "operator()", HP_LANG_CXX,
                "main::{lambda(int)#1}::operator()(int) const");
    expect_name("_ZN6solver5FieldIdEC2Ei", "Field", HP_LANG_CXX, "solver::Field<double>::Field(int)");
    /* no linkage name (main, extern "C"): the plain name */
    expect_name(NULL, "main", HP_LANG_CXX, "main");
    /* not a valid mangling: the plain name, else the symbol as it is */
    expect_name("_Zxyz", "x", HP_LANG_CXX, "x");
    expect_name("_Zxyz", NULL, HP_LANG_CXX, "_Zxyz");
}

static void test_symbol_table(void **state)
{
    (void)state;
    /* a symbol table's name, language unknown: C++ when mangled */
    expect_name("_ZN6solver5checkEi", "_ZN6solver5checkEi", HP_LANG_UNKNOWN, "solver::check(int)");
    expect_name("MPI_Send", "MPI_Send", HP_LANG_UNKNOWN, "MPI_Send");
    expect_name(NULL, NULL, HP_LANG_UNKNOWN, NULL);
}

static void test_c_and_fortran(void **state)
{
    (void)state;
    expect_name(NULL, "main", HP_LANG_C, "main");
    expect_name("p3", "p3", HP_LANG_C, "p3");
    expect_name("__solver_MOD_step", "step", HP_LANG_FORTRAN, "step");
}

static void test_cxx_demangler(void **state)
{
    (void)state;
    char *d = hp_name_cxx("_ZN6solver4deepEi");
    assert_non_null(d);
    assert_string_equal(d, "solver::deep(int)");
    free(d);
    assert_null(hp_name_cxx("deep"));
    assert_null(hp_name_cxx(NULL));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_languages),
        cmocka_unit_test(test_cxx),
        cmocka_unit_test(test_symbol_table),
        cmocka_unit_test(test_c_and_fortran),
        cmocka_unit_test(test_cxx_demangler),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
