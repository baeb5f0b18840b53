/*
 * test_omp_fortran.c - cmocka unit tests of the Fortran directive reader
 * (libhprof/finish/omp_fortran.c) that places gfortran's OpenMP sites:
 * sentinels of free and fixed form, `do` for C's `for`, continuation
 * lines, the end of a construct at its `!$omp end` directive or at the
 * end of its DO loop (END DO, a shared label, a nested loop).
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>
#include "hp_omp_fortran.h"

static const char *const for_dirs[] = {"for", "sections", NULL};
static const char *const single_dirs[] = {"single", NULL};
static const char *const region_dirs[] = {"parallel", NULL};

static void test_suffixes(void **state)
{
    (void)state;
    assert_int_equal(hp_omp_fortran_file("a/heat.f90"), HP_FORTRAN_FREE);
    assert_int_equal(hp_omp_fortran_file("x.F08"), HP_FORTRAN_FREE);
    assert_int_equal(hp_omp_fortran_file("cg.f"), HP_FORTRAN_FIXED);
    assert_int_equal(hp_omp_fortran_file("x.FOR"), HP_FORTRAN_FIXED);
    assert_int_equal(hp_omp_fortran_file("x.c"), 0);
    assert_int_equal(hp_omp_fortran_file(NULL), 0);
}

static void test_directives(void **state)
{
    (void)state;
    assert_true(hp_omp_fortran_is_directive("  !$omp do schedule(static)", for_dirs));
    assert_true(hp_omp_fortran_is_directive("!$OMP DO", for_dirs));
    assert_true(hp_omp_fortran_is_directive("c$omp sections", for_dirs));
    assert_true(hp_omp_fortran_is_directive("C$OMP SINGLE", single_dirs));
    assert_true(hp_omp_fortran_is_directive("*$omp parallel do private(i)", region_dirs));
    assert_false(hp_omp_fortran_is_directive("!$omp end do", for_dirs));
    assert_false(hp_omp_fortran_is_directive("!$omp& reduction(+:s)", for_dirs));
    assert_false(hp_omp_fortran_is_directive("!$omp dosomething", for_dirs));
    assert_false(hp_omp_fortran_is_directive("! $omp do", for_dirs));
    assert_false(hp_omp_fortran_is_directive("  do i = 1, n", for_dirs));
    assert_false(hp_omp_fortran_is_directive("#pragma omp for", for_dirs));
    assert_false(hp_omp_fortran_is_directive("  call c$omp(x)", for_dirs));
}

static void test_continuation(void **state)
{
    (void)state;
    char *free_form[] = {"x = 1", "!$omp parallel do &", "!$omp reduction(+:s)", "do i = 1, n"};
    char *fixed[] = {"      x = 1", "!$omp parallel do default(shared)", "!$omp& private(j)",
                     "!$omp&  shared(d)"};
    assert_int_equal(hp_omp_fortran_directive_start(free_form, 10, 13, 12), 11);
    assert_int_equal(hp_omp_fortran_directive_start(free_form, 10, 13, 11), 11);
    assert_int_equal(hp_omp_fortran_directive_start(free_form, 10, 13, 13), 13);
    assert_int_equal(hp_omp_fortran_directive_start(fixed, 1, 4, 4), 2);
    assert_int_equal(hp_omp_fortran_directive_start(fixed, 1, 4, 1), 1);
}

static void test_construct_ends(void **state)
{
    (void)state;
    char *text[] = {
        "!$omp do",                   /* 1 */
        "  do i = 1, n",              /* 2 */
        "    do j = 1, m",            /* 3 */
        "      a(i, j) = 0",          /* 4 */
        "    end do",                 /* 5 */
        "  enddo",                    /* 6 */
        "!$omp end do nowait",        /* 7 */
        "!$omp do",                   /* 8 */
        "  do i = 1, n",              /* 9 */
        "    b(i) = 0",               /* 10 */
        "  end do",                   /* 11 */
        "! a comment",                /* 12 */
        "!$omp single",               /* 13 */
        "!$omp single",               /* 14: nested, for the count */
        "!$omp end single",           /* 15 */
        "  x = 1",                    /* 16 */
        "!$omp end single",           /* 17 */
    };
    assert_int_equal(hp_omp_fortran_construct_end(text, 1, 17, 1, HP_FORTRAN_FREE), 7);
    assert_int_equal(hp_omp_fortran_construct_end(text, 1, 17, 8, HP_FORTRAN_FREE), 11);
    assert_int_equal(hp_omp_fortran_construct_end(text, 1, 17, 13, HP_FORTRAN_FREE), 17);
    char *fixed[] = {
        "C$OMP PARALLEL DO",           /* 1 */
        "      DO 10 I = 1, N",        /* 2 */
        "      DO 10 J = 1, M",        /* 3 */
        "         A(I, J) = 0",        /* 4 */
        "   10 CONTINUE",              /* 5 */
        "c     a comment",             /* 6 */
        "      call work(a)",          /* 7 */
    };
    assert_int_equal(hp_omp_fortran_construct_end(fixed, 1, 7, 1, HP_FORTRAN_FIXED), 5);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_suffixes),
        cmocka_unit_test(test_directives),
        cmocka_unit_test(test_continuation),
        cmocka_unit_test(test_construct_ends),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
