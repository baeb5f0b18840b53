/*
 * test_omp_pragma.c - cmocka unit tests of the placement of gcc's OpenMP
 * sites at their directive's line (libhprof/omp_pragma.c): a region or a
 * task at the first own line holding a directive of its kind, single and
 * ordered at the next directive of their kind (else the nearest), a
 * loop's end at the nearest, inside the outlined function's lines,
 * everything else left alone; each file read once until
 * hp_omp_pragma_forget.  And the construct a barrier call ends, told by
 * the statement after the call (libhprof/finish/omp_follow.c): the
 * increment of a serial `for` names the construct last in its body, a
 * statement's first line the construct right before it; a construct
 * with `nowait`, a directive or other code in between, an expression
 * that is no increment, or a commented-out pragma prove nothing (0).
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

/* line numbers of the source of the barrier calls' following statements */
static const char *const sweep[] = {
    "void sweep(void)",                                 /* 1 */
    "{",                                                /* 2 */
    "#pragma omp parallel",                             /* 3 */
    "  {",                                              /* 4 */
    "    int i = 1, j, m;",                             /* 5 */
    "    for (m = 0; m < 5; m++) {",                    /* 6: m++ at col 24 */
    "#pragma omp for",                                  /* 7 */
    "      for (j = 1; j < n; j++) {",                  /* 8 */
    "        a[m][j] = f(\"}\", j);  /* } */",          /* 9 */
    "      }",                                          /* 10 */
    "    }",                                            /* 11 */
    "    /* a comment",                                 /* 12 */
    "#pragma omp for",                                  /* 13: in the comment */
    "       */",                                        /* 14 */
    "    i = 2;",                                       /* 15 */
    "    for (m = 0; m < 5; m++)",                      /* 16 */
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

static char path[64], sweep_path[64];

/* Writes n lines to file p, line `blank` (1-based; 0: none) left empty. */
static int write_lines(const char *p, const char *const *lines, size_t n, size_t blank)
{
    FILE *f = fopen(p, "w");
    if (!f)
        return -1;
    for (size_t i = 0; i < n; i++)
        fprintf(f, "%s\n", i + 1 == blank ? "" : lines[i]);
    return fclose(f);
}

static int write_source(void **state)
{
    (void)state;
    snprintf(path, sizeof path, "/tmp/hprof-test-pragma.%d.c", (int)getpid());
    snprintf(sweep_path, sizeof sweep_path, "/tmp/hprof-test-follow.%d.c", (int)getpid());
    if (write_lines(sweep_path, sweep, sizeof sweep / sizeof sweep[0], 0) != 0)
        return -1;
    return write_lines(path, source, sizeof source / sizeof source[0], 0);
}

static int remove_source(void **state)
{
    (void)state;
    hp_omp_pragma_forget();
    return unlink(path) | unlink(sweep_path);
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

static const char *const barrier_ends[] = {"for", "sections", "single", NULL};
static const char *const loop_ends[] = {"for", "sections", NULL};

/* One barrier call: the statement after it, and the construct found. */
typedef struct follow_case {
    int line, col;
    const char *const *ends;
    int construct;
    const char *why;
} follow_case;

static const follow_case follow_cases[] = {
    {6, 24, barrier_ends, 7, "m++ of the loop at 6: the loop at 7 ends its body"},
    {6, 25, barrier_ends, 7, "(its operator's column)"},
    {6, 17, barrier_ends, 0, "its condition is no increment, no construct before the loop"},
    {6, 5, barrier_ends, 0, "the loop's start, no construct before it"},
    {16, 24, barrier_ends, 0, "the body of the loop at 16 is a nowait loop"},
    {26, 24, barrier_ends, 0, "the body of the loop at 26 ends with i++"},
    {15, 5, barrier_ends, 0, "after a serial loop, not its loop; 13 is commented out"},
    {16, 5, barrier_ends, 0, "after i = 2"},
    {23, 5, barrier_ends, 0, "after an explicit barrier, not the loop at 20"},
    {22, 1, barrier_ends, 20, "the explicit barrier's call follows the loop at 20"},
    {26, 5, barrier_ends, 24, "after the single at 24"},
    {26, 5, loop_ends, 0, "a single has no GOMP_loop_end"},
    {26, 3, barrier_ends, 0, "a column before the line's first token"},
    {2, 1, barrier_ends, 0, "before the region's start"},
};

static void test_follow(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof follow_cases / sizeof follow_cases[0]; i++) {
        const follow_case *c = &follow_cases[i];
        int at = hp_omp_follow_construct(sweep_path, 3, c->line, c->col, c->ends);
        if (at != c->construct)
            fail_msg("%d:%d: %d, expected %d (%s)", c->line, c->col, at, c->construct, c->why);
    }
    assert_int_equal(hp_omp_follow_construct("/nonexistent/hprof.c", 3, 6, 24, barrier_ends), 0);
    assert_int_equal(hp_omp_follow_construct(NULL, 3, 6, 24, barrier_ends), 0);
    /* without the barrier directive at 22, i = 3 follows the loop at 20 */
    hp_omp_pragma_forget();
    assert_int_equal(write_lines(sweep_path, sweep, sizeof sweep / sizeof sweep[0], 22), 0);
    assert_int_equal(hp_omp_follow_construct(sweep_path, 3, 23, 5, barrier_ends), 20);
    assert_int_equal(hp_omp_follow_construct(sweep_path, 3, 23, 5, loop_ends), 20);
    hp_omp_pragma_forget();
    assert_int_equal(write_lines(sweep_path, sweep, sizeof sweep / sizeof sweep[0], 0), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_entry_sites),
        cmocka_unit_test(test_call_sites),
        cmocka_unit_test(test_no_source),
        cmocka_unit_test(test_read_once),
        cmocka_unit_test(test_follow),
    };
    return cmocka_run_group_tests(tests, write_source, remove_source);
}
