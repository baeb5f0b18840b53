/*
 * test_fortran.c - cmocka unit tests of the Fortran wrappers' argument
 * conversions that need no running MPI (pmpi/fortran.c): character
 * arguments in (blanks around dropped, as Open MPI's binding does) and out
 * (padded with blanks, cut at the Fortran length), room for results, and
 * MPI_STATUSES_IGNORE passed through.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include "hp_fortran.h"

static void test_str_in_trims_blanks(void **state)
{
    (void)state;
    char *s = hp_f_str_in("  halo comm   ", 14);
    assert_non_null(s);
    assert_string_equal(s, "halo comm");
    free(s);
    s = hp_f_str_in("abc", 3);   /* no blank, no terminating NUL read */
    assert_string_equal(s, "abc");
    free(s);
    s = hp_f_str_in("    ", 4);
    assert_string_equal(s, "");
    free(s);
    s = hp_f_str_in("", 0);
    assert_string_equal(s, "");
    free(s);
}

static void test_str_out_pads_and_cuts(void **state)
{
    (void)state;
    char f[8];
    memset(f, 'x', sizeof f);
    hp_f_str_out("abc", f, 6);
    assert_memory_equal(f, "abc   xx", 8);   /* padded to 6, nothing past it */
    hp_f_str_out("abcdefghij", f, 4);
    assert_memory_equal(f, "abcd  xx", 8);
    hp_f_str_out("", f, 2);
    assert_memory_equal(f, "  cd  xx", 8);
}

static void test_str_room(void **state)
{
    (void)state;
    char *r = hp_f_str_room(3);   /* at least HP_F_STR_ROOM, zeroed */
    assert_non_null(r);
    for (size_t i = 0; i <= HP_F_STR_ROOM; i++)
        assert_int_equal(r[i], 0);
    free(r);
    r = hp_f_str_room(HP_F_STR_ROOM * 2);
    assert_int_equal(r[HP_F_STR_ROOM * 2], 0);
    free(r);
}

static void test_statuses_ignored(void **state)
{
    (void)state;
    hp_f_statuses s;
    assert_int_equal(hp_f_statuses_in(&s, 5, MPI_F_STATUSES_IGNORE), 0);
    assert_ptr_equal(s.c, MPI_STATUSES_IGNORE);
    hp_f_statuses_out(&s, 5, MPI_F_STATUSES_IGNORE);   /* writes nothing */
    hp_f_statuses_free(&s);
    MPI_Fint f[HP_F_STACK * 6];
    assert_int_equal(hp_f_statuses_in(&s, HP_F_STACK, f), 0);
    assert_ptr_equal(s.c, s.stack);
    hp_f_statuses_free(&s);
    assert_int_equal(hp_f_statuses_in(&s, HP_F_STACK + 1, f), 0);
    assert_ptr_not_equal(s.c, s.stack);
    hp_f_statuses_free(&s);
}

static void test_index_and_logical(void **state)
{
    (void)state;
    assert_int_equal(hp_f_index(0), 1);
    assert_int_equal(hp_f_index(4), 5);
    assert_int_equal(hp_f_index(MPI_UNDEFINED), MPI_UNDEFINED);
    assert_int_equal(hp_f_logical(7), 1);
    assert_int_equal(hp_f_logical(0), 0);
    assert_null(hp_f_buf(NULL));
    int x;
    assert_ptr_equal(hp_f_buf(&x), &x);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_str_in_trims_blanks),
        cmocka_unit_test(test_str_out_pads_and_cuts),
        cmocka_unit_test(test_str_room),
        cmocka_unit_test(test_statuses_ignored),
        cmocka_unit_test(test_index_and_logical),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
