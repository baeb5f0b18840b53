/*
 * test_names_fortran.c - cmocka unit tests of the Fortran display names
 * (libhprof/finish/names_fortran.c): scopes joined with "::", gfortran's
 * module procedure symbols shown as MODULE::PROCEDURE, every other symbol
 * (MAIN__, an internal procedure's name.N, C and C++ names) left alone.
 * The names from debug information are checked on real programs by
 * tests/fortran/run.sh.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include "hp_names_fortran.h"

static void expect_symbol(const char *sym, const char *want)
{
    char *got = hp_fortran_symbol_name(sym);
    if (want) {
        assert_non_null(got);
        assert_string_equal(got, want);
    } else {
        assert_null(got);
    }
    free(got);
}

static void test_join(void **state)
{
    (void)state;
    const char *one[] = {"heat"}, *three[] = {"halo_mod", "exchange", "pack"};
    char *a = hp_fortran_join(one, 1), *b = hp_fortran_join(three, 3);
    assert_string_equal(a, "heat");
    assert_string_equal(b, "halo_mod::exchange::pack");
    free(a);
    free(b);
}

static void test_module_symbols(void **state)
{
    (void)state;
    expect_symbol("__halo_mod_MOD_exchange", "halo_mod::exchange");
    expect_symbol("__m_MOD_p", "m::p");
    expect_symbol("__a_b_c_MOD_d_e", "a_b_c::d_e");
}

static void test_other_symbols(void **state)
{
    (void)state;
    expect_symbol("MAIN__", NULL);
    expect_symbol("inner.0", NULL);
    expect_symbol("main", NULL);
    expect_symbol("_ZN3foo3barEv", NULL);
    expect_symbol("__libc_start_main", NULL);
    expect_symbol("___MOD_x", NULL);        /* no module name */
    expect_symbol("__m_MOD_", NULL);        /* no procedure name */
    expect_symbol(NULL, NULL);
}

static void test_name_at_without_module(void **state)
{
    (void)state;
    char *got = hp_fortran_name_at(NULL, 0, "__halo_mod_MOD_exchange");
    assert_string_equal(got, "halo_mod::exchange");
    free(got);
    assert_null(hp_fortran_name_at(NULL, 0, "MAIN__"));
    assert_null(hp_fortran_name_at(NULL, 0, "__m_MOD_p._omp_fn.0"));
    assert_null(hp_fortran_name_at(NULL, 0, NULL));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_join),
        cmocka_unit_test(test_module_symbols),
        cmocka_unit_test(test_other_symbols),
        cmocka_unit_test(test_name_at_without_module),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
