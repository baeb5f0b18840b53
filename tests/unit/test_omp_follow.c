/*
 * test_omp_follow.c - cmocka unit tests of the construct a barrier call
 * ends, told by the statement after the call (libhprof/finish/omp_follow.c):
 * the increment of a serial `for` names the construct last in its body,
 * a statement's first line names the construct right before it; a
 * construct with `nowait`, a directive or other code in between, an
 * expression that is no increment, or a commented-out pragma prove
 * nothing (0).
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>
#include "hp_omp_follow.h"
#include "hp_omp_pragma.h"

/* line numbers of the source below */
static const char *const source[] = {
    "void sweep(void)",                                 /* 1 */
    "{",                                                /* 2 */
    "#pragma omp parallel",                             /* 3 */
    "  {",                                              /* 4 */
    "    int i = 1, j, m;",                             /* 5 */
    "    for (m = 0; m < 5; m++) {",                    /* 6: m++ at col 23 */
    "#pragma omp for",                                  /* 7 */
    "      for (j = 1; j < n; j++) {",                  /* 8 */
    "        a[m][j] = f(\"}\", j);  /* } */",          /* 9 */
    "      }",                                          /* 10 */
    "    }",                                            /* 11 */
    "    /* a comment",                                 /* 12 */
    "#pragma omp for",                                  /* 13: in the comment */
    "       */",                                        /* 14 */
    "    i = 2;",                                       /* 15 */
    "    for (m = 0; m < 5; m++)",                      /* 16: m++ at col 23 */
    "#pragma omp for nowait",                           /* 17 */
    "      for (j = 1; j < n; j++)",                    /* 18 */
    "        b[m][j] = j;",                             /* 19 */
    "#pragma omp for",                                  /* 20 */
    "    for (j = 1; j < n; j++) c[j] = j;",            /* 21 */
    "#pragma omp barrier",                              /* 22 */
    "    i = 3;",                                       /* 23 */
    "#pragma omp single",                               /* 24 */
    "    { g(i); }",                                    /* 25 */
    "    for (m = 0; m < 5; m++) {",                    /* 26 */
    "#pragma omp for",                                  /* 27 */
    "      for (j = 1; j < n; j++)",                    /* 28 */
    "        d[m][j] = j;",                             /* 29 */
    "      i++;",                                       /* 30 */
    "    }",                                            /* 31 */
    "  }",                                              /* 32 */
    "}",                                                /* 33 */
};

static const char *const barrier_ends[] = {"for", "sections", "single", NULL};
static const char *const loop_ends[] = {"for", "sections", NULL};
static char path[64];

static int write_source(void **state)
{
    (void)state;
    snprintf(path, sizeof path, "/tmp/hprof-test-follow.%d.c", (int)getpid());
    FILE *f = fopen(path, "w");
    if (!f)
        return -1;
    for (size_t i = 0; i < sizeof source / sizeof source[0]; i++)
        fprintf(f, "%s\n", source[i]);
    return fclose(f);
}

static int remove_source(void **state)
{
    (void)state;
    hp_omp_pragma_forget();
    return unlink(path);
}

static int follow(int line, int col)
{
    return hp_omp_follow_construct(path, 3, line, col, barrier_ends);
}

static void test_increment(void **state)
{
    (void)state;
    /* m++ of the loop at 6: the loop at 7 is its body's last statement */
    assert_int_equal(follow(6, 23), 7);
    assert_int_equal(follow(6, 24), 7);
    /* its condition or its start is no increment: what comes before the
     * loop at 6 is no construct */
    assert_int_equal(follow(6, 17), 0);
    assert_int_equal(follow(6, 5), 0);
    /* the body of the loop at 16 is a nowait loop: no barrier of its */
    assert_int_equal(follow(16, 23), 0);
    /* the last statement of the body at 26 is no construct */
    assert_int_equal(follow(26, 23), 0);
}

static void test_statement_after(void **state)
{
    (void)state;
    /* i = 2 comes right after the loop at 7's serial loop, not the loop
     * (and the commented-out pragma at 13 is none) */
    assert_int_equal(follow(15, 5), 0);
    /* the loop at 16 follows `i = 2;` */
    assert_int_equal(follow(16, 5), 0);
    /* i = 3 follows an explicit barrier, not the loop at 20 */
    assert_int_equal(follow(23, 5), 0);
    /* the explicit barrier's call (at its directive's line) follows the
     * loop at 20: the call before it is that loop's */
    assert_int_equal(follow(22, 1), 20);
    /* the loop at 26 follows the single at 24 */
    assert_int_equal(follow(26, 5), 24);
    assert_int_equal(hp_omp_follow_construct(path, 3, 26, 5, loop_ends), 0);
    /* a column before the line's first token proves nothing */
    assert_int_equal(follow(26, 3), 0);
}

/* The loop at 20 ends right before its barrier directive at 22: with the
 * directive gone, i = 3 follows the loop. */
static void test_after_loop(void **state)
{
    (void)state;
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    for (size_t i = 0; i < sizeof source / sizeof source[0]; i++)
        fprintf(f, "%s\n", i == 21 ? "" : source[i]);
    assert_int_equal(fclose(f), 0);
    hp_omp_pragma_forget();
    assert_int_equal(follow(23, 5), 20);
    assert_int_equal(hp_omp_follow_construct(path, 3, 23, 5, loop_ends), 20);
    hp_omp_pragma_forget();
    assert_int_equal(write_source(NULL), 0);
}

static void test_no_source(void **state)
{
    (void)state;
    assert_int_equal(hp_omp_follow_construct("/nonexistent/hprof.c", 3, 6, 23, barrier_ends), 0);
    assert_int_equal(hp_omp_follow_construct(NULL, 3, 6, 23, barrier_ends), 0);
    assert_int_equal(hp_omp_follow_construct(path, 3, 2, 1, barrier_ends), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_increment),
        cmocka_unit_test(test_statement_after),
        cmocka_unit_test(test_after_loop),
        cmocka_unit_test(test_no_source),
    };
    return cmocka_run_group_tests(tests, write_source, remove_source);
}
