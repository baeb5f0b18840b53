/*
 * test_omp_pragma.c - cmocka unit tests of the placement of gcc's OpenMP
 * sites at their directive's line (libhprof/omp_pragma.c): a region or a
 * task at the first own line holding a directive of its kind, single and
 * ordered at the next directive of their kind (else the nearest), a
 * loop's end at the nearest, inside the outlined function's lines,
 * everything else left alone; each file read once until
 * hp_omp_pragma_forget.
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
#include "hp_omp_pragma.h"

/* line numbers of the source below */
static const char *const source[] = {
    "static void helper(void)",                     /* 1 */
    "{",                                            /* 2 */
    "    #  pragma   omp   task",                  /* 3: spaces allowed */
    "    x();",                                     /* 4 */
    "}",                                            /* 5 */
    "void work(void)",                              /* 6 */
    "{",                                            /* 7 */
    "#pragma omp parallel num_threads(2)",          /* 8 */
    "    {",                                        /* 9 */
    "#pragma omp for schedule(dynamic)",            /* 10 */
    "        for (int i = 0; i < n; i++) f(i);",    /* 11 */
    "#pragma omp single",                           /* 12 */
    "        {",                                    /* 13 */
    "#pragma omp taskwait",                         /* 14: not a task */
    "#pragma omp task",                             /* 15 */
    "            g();",                             /* 16 */
    "        }",                                    /* 17 */
    "#pragma omp for ordered",                      /* 18 */
    "        for (int i = 0; i < n; i++)",          /* 19 */
    "#pragma omp ordered",                          /* 20 */
    "            h(i);",                            /* 21 */
    "#pragma omp barrier",                          /* 22 */
    "#pragma omp sections",                         /* 23 */
    "    { /* } */",                                /* 24: a comment */
    "#pragma omp section",                          /* 25 */
    "        s(\"}\");",                              /* 26: a literal */
    "    }",                                        /* 27 */
    "    }",                                        /* 28 */
    "}",                                            /* 29 */
};

static char path[64];

static int write_source(void **state)
{
    (void)state;
    snprintf(path, sizeof path, "/tmp/hprof-test-pragma.%d.c", (int)getpid());
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
    return unlink(path);
}

/* The line (and name) a site of `name` at `line` is placed at. */
static int placed(const int *lines, int n, int entry, const char *name, int line,
                  const char **out)
{
    *out = name;
    hp_omp_pragma_place(path, lines, n, entry, out, &line);
    return line;
}

static void test_entry_sites(void **state)
{
    (void)state;
    const char *name;
    /* a region: its rows hold its pragma's line and the body's */
    int region[] = {8, 11, 16, 21, 22};
    assert_int_equal(placed(region, 5, 1, "parallel", 11, &name), 8);
    assert_int_equal(placed(region, 5, 1, "implicit barrier", 11, &name), 8);
    /* a task whose rows include a taskwait's line (not a task) */
    int task[] = {14, 15, 16};
    assert_int_equal(placed(task, 3, 1, "task", 16, &name), 15);
    assert_int_equal(placed(task, 3, 1, "task create", 16, &name), 15);
    assert_string_equal(name, "task create");
    /* a region whose rows include a nested region's pragma (not its own) */
    int nested[] = {8, 12, 15};
    assert_int_equal(placed(nested, 3, 1, "fork", 16, &name), 8);
    /* no directive among the rows: the first row */
    int body[] = {16, 17};
    assert_int_equal(placed(body, 2, 1, "task", 17, &name), 16);
}

static void test_call_sites(void **state)
{
    (void)state;
    const char *name;
    int rows[] = {8, 11, 16, 21, 22};
    /* gcc: GOMP_single_start at the line before the single, the next one
     * even when an earlier single is as near */
    assert_int_equal(placed(rows, 5, 0, "single", 11, &name), 12);
    assert_int_equal(placed(rows, 5, 0, "single", 13, &name), 12);
    int two[] = {8, 10, 12, 22};
    assert_int_equal(placed(two, 4, 0, "single", 11, &name), 12);
    /* GOMP_ordered_start at the loop's or the region's line */
    assert_int_equal(placed(rows, 5, 0, "ordered wait", 8, &name), 20);
    assert_int_equal(placed(rows, 5, 0, "ordered", 19, &name), 20);
    /* GOMP_loop_end: the loop whose statement holds the line (its body),
     * else the next (from the region's line) */
    assert_int_equal(placed(rows, 5, 0, "implicit barrier", 11, &name), 10);
    assert_int_equal(placed(rows, 5, 0, "implicit barrier", 8, &name), 10);
    assert_int_equal(placed(rows, 5, 0, "implicit barrier", 21, &name), 18);
    int end[] = {8, 28};
    assert_int_equal(placed(end, 2, 0, "implicit barrier", 26, &name), 23);
    /* ... else the last one before (gcc: the statement after the loop) */
    assert_int_equal(placed(end, 2, 0, "implicit barrier", 22, &name), 18);
    /* a GOMP_barrier off a barrier's line ends the construct around it,
     * else the next; on a barrier's line it is that barrier */
    assert_int_equal(placed(end, 2, 0, "barrier", 17, &name), 12);
    assert_string_equal(name, "implicit barrier");
    assert_int_equal(placed(end, 2, 0, "barrier", 11, &name), 10);
    assert_int_equal(placed(end, 2, 0, "barrier", 9, &name), 10);
    assert_int_equal(placed(end, 2, 0, "barrier", 27, &name), 23);
    assert_int_equal(placed(end, 2, 0, "barrier", 22, &name), 22);
    assert_string_equal(name, "barrier");
    /* the line of others stays */
    assert_int_equal(placed(rows, 5, 0, "critical", 13, &name), 13);
    /* a taskwait stays at its own line */
    assert_int_equal(placed(rows, 5, 0, "taskwait", 14, &name), 14);
    /* outside the outlined function's lines: nothing found, the line stays */
    int early[] = {1, 2};
    assert_int_equal(placed(early, 2, 0, "single", 2, &name), 2);
    /* a directive counts for an entry only on a line of the function's rows */
    int helper[] = {1, 3, 5}, helper2[] = {1, 5};
    assert_int_equal(placed(helper, 3, 1, "task", 4, &name), 3);
    assert_int_equal(placed(helper2, 2, 1, "task", 4, &name), 1);
}

static void test_no_source(void **state)
{
    (void)state;
    const char *name = "single";
    int rows[] = {8, 22}, line = 11;
    hp_omp_pragma_place("/nonexistent/hprof.c", rows, 2, 0, &name, &line);
    assert_int_equal(line, 11);
    name = "parallel";
    hp_omp_pragma_place(NULL, rows, 2, 1, &name, &line);
    assert_int_equal(line, 8);
}

/* A file is read once per resolution (until hp_omp_pragma_forget): a
 * site placed after the file changed still sees the text read first. */
static void test_read_once(void **state)
{
    (void)state;
    const char *name;
    int region[] = {8, 11, 16, 21, 22};
    hp_omp_pragma_forget();
    assert_int_equal(placed(region, 5, 1, "parallel", 11, &name), 8);
    FILE *f = fopen(path, "w");   /* the region's pragma moves to line 11 */
    assert_non_null(f);
    for (size_t i = 0; i < sizeof source / sizeof source[0]; i++)
        fprintf(f, "%s\n", i == 7 ? "" : i == 10 ? "#pragma omp parallel" : source[i]);
    assert_int_equal(fclose(f), 0);
    assert_int_equal(placed(region, 5, 1, "parallel", 11, &name), 8);
    hp_omp_pragma_forget();
    assert_int_equal(placed(region, 5, 1, "parallel", 11, &name), 11);
    hp_omp_pragma_forget();
    assert_int_equal(write_source(NULL), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_entry_sites),
        cmocka_unit_test(test_call_sites),
        cmocka_unit_test(test_no_source),
        cmocka_unit_test(test_read_once),
    };
    return cmocka_run_group_tests(tests, write_source, remove_source);
}
