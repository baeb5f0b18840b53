/*
 * test_fast.c - cmocka tests of fast sites (hp_fast.h): the probes that
 * instrumented code runs inline (hprof_probe.h with HPROF_PROBE_WEAK, as
 * hprof-instrument emits them).  Ground truth is the number of calls each
 * test makes: a site is fast after its first slow exit, a throttled one is
 * only counted, every count stays exact and every record lands under the
 * right context; recursion into a fast activation folds into it; a
 * longjmp out of fast activations closes them at the next probe; turning
 * collection off stops the inline counting.  A leaf site (nothing inside
 * it records) once throttled is counted without becoming the context,
 * with the same exact counts; a non-leaf throttled site still switches
 * the context.
 */
#define HPROF_PROBE_WEAK /* the probes as hprof-instrument emits them */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <cmocka.h>
#include "hp_clock.h"
#include "hp_event.h"
#include "hp_process.h"
#include "hp_runtime.h"
#include "hprof.h"
#include "hprof_probe.h"
#include "tree_util.h"

enum { OUTER, INNER, INNER2, LEAF, TRUE_LEAF, NSITES };

static const hprof_site_info sites[NSITES] = {
    [OUTER] = {HPROF_SITE_PROCEDURE, "outer", "", 10, 20, -1},
    [INNER] = {HPROF_SITE_LOOP, "for", "outer", 12, 18, OUTER},
    [INNER2] = {HPROF_SITE_LOOP, "while", "outer", 14, 16, INNER},
    [LEAF] = {HPROF_SITE_PROCEDURE, "leaf", "", 30, 31, -1},
    [TRUE_LEAF] = {HPROF_SITE_LOOP, "for", "leaf", 40, 41, -1, HPROF_SITEINFO_LEAF},
};
static unsigned ids[NSITES];
static hprof_unit unit = {"/src/fast_test.c", NSITES, sites, ids, 0};

static hp_node *node_under(uint32_t parent, unsigned index)
{
    return tree_node_under(parent, ids[index]);
}

static uint32_t index_of(const hp_node *n)
{
    return tree_index_of(n);
}

static unsigned nodes_of(unsigned index)
{
    return tree_nodes_of_site(ids[index]);
}

static void leaf(void)
{
    hprof_frame f __attribute__((cleanup(hprof_probe_exit)));
    hprof_probe_enter(&f, &unit, LEAF);
}

static void outer(int n)
{
    hprof_frame f __attribute__((cleanup(hprof_probe_exit)));
    hprof_probe_enter(&f, &unit, OUTER);
    for (int i = 0; i < n; i++) {
        hprof_frame l __attribute__((cleanup(hprof_probe_exit)));
        hprof_probe_enter(&l, &unit, INNER);
        leaf();
    }
}

static void test_fast_after_first_exit(void **state)
{
    (void)state;
    tree_need_tsc();
    hp_thread *t = hp_thread_self();
    for (int i = 0; i < 100; i++)
        outer(7);
    assert_int_equal(t->current, HP_ROOT_NODE);
    hp_node *o = node_under(HP_ROOT_NODE, OUTER);
    hp_node *in = node_under(index_of(o), INNER);
    hp_node *l = node_under(index_of(in), LEAF);
    assert_non_null(l);
    assert_int_equal(o->count, 100);
    assert_int_equal(o->timed, 100);
    assert_int_equal(in->count, 700);
    assert_int_equal(l->count, 700);
    assert_int_equal(l->timed, 700);
    assert_true(o->flags & HP_NODEF_FAST);
    assert_true(l->flags & HP_NODEF_FAST);
    assert_int_equal(nodes_of(LEAF), 1);
    assert_true(l->ticks <= in->ticks && in->ticks <= o->ticks);
}

static void test_throttled_counted_inline(void **state)
{
    (void)state;
    tree_need_tsc();
    hp_thread *t = hp_thread_self();
    /* Throttle after 1000 timed calls with a mean below one second. */
    hp_throttle_set(1000, (uint64_t)hp_clock_ticks_per_sec());
    for (int i = 0; i < 5000; i++)
        leaf();
    hp_node *l = node_under(HP_ROOT_NODE, LEAF);
    assert_int_equal(l->count, 5000);
    assert_int_equal(l->timed, 1000);
    assert_true(l->flags & HP_NODEF_THROTTLED);
    assert_ptr_equal(t->fast[ids[LEAF]].count, &l->count);
    /* In another context the site is not fast: the runtime records it. */
    outer(3);
    hp_node *in = node_under(index_of(node_under(HP_ROOT_NODE, OUTER)), INNER);
    assert_int_equal(node_under(index_of(in), LEAF)->count, 3);
    assert_int_equal(l->count, 5000);
    assert_int_equal(t->current, HP_ROOT_NODE);
}

static void test_collect_off_stops_inline_counting(void **state)
{
    (void)state;
    hp_throttle_set(10, (uint64_t)hp_clock_ticks_per_sec());
    for (int i = 0; i < 100; i++)
        leaf();
    hprof_collect(0);
    for (int i = 0; i < 50; i++)
        leaf();
    hprof_collect(1);
    for (int i = 0; i < 20; i++)
        leaf();
    assert_int_equal(node_under(HP_ROOT_NODE, LEAF)->count, 120);
}

/* Recursion that starts inside a fast activation folds into it. */
static void recurse(int depth)
{
    hprof_frame f __attribute__((cleanup(hprof_probe_exit)));
    hprof_probe_enter(&f, &unit, LEAF);
    if (depth > 0) {
        hprof_frame l __attribute__((cleanup(hprof_probe_exit)));
        hprof_probe_enter(&l, &unit, INNER2);
        recurse(depth - 1);
    }
}

static void test_recursion_into_fast_folds(void **state)
{
    (void)state;
    tree_need_tsc();
    hp_thread *t = hp_thread_self();
    for (int i = 0; i < 10; i++)
        recurse(0); /* fast from the second call on */
    hp_node *l = node_under(HP_ROOT_NODE, LEAF);
    assert_true(l->flags & HP_NODEF_FAST);
    recurse(3); /* 4 activations of leaf: one node */
    assert_int_equal(l->count, 14);
    assert_int_equal(l->timed, 11);
    assert_int_equal(nodes_of(LEAF), 1);
    assert_int_equal(node_under(index_of(l), INNER2)->count, 3);
    assert_int_equal(t->active[ids[LEAF]].depth, 0);
    assert_int_equal(t->current, HP_ROOT_NODE);
    /* A site folded into is recursive: the runtime keeps it from then on. */
    assert_true(l->flags & HP_NODEF_FOLDED);
}

static jmp_buf env;

/* Returns when called with -1, throws with 0. */
static void thrower(int how)
{
    hprof_frame f __attribute__((cleanup(hprof_probe_exit)));
    hprof_probe_enter(&f, &unit, INNER);
    if (how == 0)
        longjmp(env, 1);
}

/* Each round: thrower returns (so its site is fast from the first round
 * on), then throws out of a fast activation; the next probe closes it. */
static void test_longjmp_closes_fast(void **state)
{
    (void)state;
    tree_need_tsc();
    hp_thread *volatile t = hp_thread_self();
    for (int i = 0; i < 5; i++) {
        hprof_frame o __attribute__((cleanup(hprof_probe_exit)));
        hprof_probe_enter(&o, &unit, OUTER);
        volatile uint32_t outer_node = t->current;
        thrower(-1);
        if (setjmp(env) == 0)
            thrower(0);
        {
            hprof_frame l __attribute__((cleanup(hprof_probe_exit)));
            hprof_probe_enter(&l, &unit, LEAF);
            assert_int_equal(hp_node_at(t, t->current)->parent, outer_node);
        }
        assert_int_equal(t->current, outer_node);
    }
    assert_int_equal(t->current, HP_ROOT_NODE);
    hp_node *o = node_under(HP_ROOT_NODE, OUTER);
    hp_node *in = node_under(index_of(o), INNER);
    assert_true(in->flags & HP_NODEF_FAST);
    assert_int_equal(in->count, 10);
    assert_int_equal(in->timed, 10);
    assert_int_equal(node_under(index_of(o), LEAF)->count, 5);
    assert_true(in->ticks <= o->ticks);
}

/* A call-free loop's probes around a body that notes the context it
 * runs in. */
static uint32_t seen_current;

static void true_leaf(void)
{
    hprof_frame f __attribute__((cleanup(hprof_probe_exit)));
    hprof_probe_enter(&f, &unit, TRUE_LEAF);
    seen_current = hp_thread_self()->current;
}

static void under_outer(int n)
{
    hprof_frame f __attribute__((cleanup(hprof_probe_exit)));
    hprof_probe_enter(&f, &unit, OUTER);
    for (int i = 0; i < n; i++)
        true_leaf();
}

static void test_leaf_counted_without_context(void **state)
{
    (void)state;
    tree_need_tsc();
    hp_thread *t = hp_thread_self();
    hp_throttle_set(1000, (uint64_t)hp_clock_ticks_per_sec());
    for (int i = 0; i < 999; i++)
        true_leaf(); /* timed: the leaf is the context inside */
    hp_node *l = node_under(HP_ROOT_NODE, TRUE_LEAF);
    assert_int_equal(seen_current, index_of(l));
    for (int i = 0; i < 4001; i++)
        true_leaf();
    assert_int_equal(l->count, 5000);
    assert_int_equal(l->timed, 1000);
    assert_true(l->flags & HP_NODEF_THROTTLED);
    hp_fast *s = &t->fast[ids[TRUE_LEAF]];
    assert_int_equal(s->leaf, HP_ROOT_NODE);
    assert_int_equal(s->parent, HP_NO_NODE);
    assert_ptr_equal(s->count, &l->count);
    assert_int_equal(seen_current, HP_ROOT_NODE); /* counted: the context stayed */
    assert_int_equal(t->current, HP_ROOT_NODE);
    /* Under another context the runtime records it, and it stays a leaf
     * counted under the root only (one context per site). */
    under_outer(2000);
    hp_node *o = node_under(HP_ROOT_NODE, OUTER);
    hp_node *l2 = node_under(index_of(o), TRUE_LEAF);
    assert_int_equal(l2->count, 2000);
    assert_int_equal(l2->timed, 1000);
    assert_int_equal(l->count, 5000);
    assert_int_equal(s->leaf, HP_ROOT_NODE);
    assert_int_equal(nodes_of(TRUE_LEAF), 2);
    /* Collection off: the inline counting stops, and starts again. */
    hprof_collect(0);
    for (int i = 0; i < 50; i++)
        true_leaf();
    hprof_collect(1);
    for (int i = 0; i < 20; i++)
        true_leaf();
    assert_int_equal(l->count, 5020);
    assert_int_equal(t->current, HP_ROOT_NODE);
}

/* The same site without the leaf flag: throttled, it is counted inline
 * but still becomes the context. */
static void test_non_leaf_counted_switches_context(void **state)
{
    (void)state;
    tree_need_tsc();
    hp_throttle_set(10, (uint64_t)hp_clock_ticks_per_sec());
    hp_thread *t = hp_thread_self();
    for (int i = 0; i < 100; i++) {
        hprof_frame f __attribute__((cleanup(hprof_probe_exit)));
        hprof_probe_enter(&f, &unit, LEAF);
        seen_current = t->current;
    }
    hp_node *l = node_under(HP_ROOT_NODE, LEAF);
    assert_int_equal(l->count, 100);
    assert_true(l->flags & HP_NODEF_THROTTLED);
    assert_int_equal(seen_current, index_of(l));
    assert_int_equal(t->fast[ids[LEAF]].leaf, HP_NO_NODE);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup(test_fast_after_first_exit, tree_fresh),
        cmocka_unit_test_setup(test_throttled_counted_inline, tree_fresh),
        cmocka_unit_test_setup(test_collect_off_stops_inline_counting, tree_fresh),
        cmocka_unit_test_setup(test_recursion_into_fast_folds, tree_fresh),
        cmocka_unit_test_setup(test_longjmp_closes_fast, tree_fresh),
        cmocka_unit_test_setup(test_leaf_counted_without_context, tree_fresh),
        cmocka_unit_test_setup(test_non_leaf_counted_switches_context, tree_fresh),
    };
    hp_process_no_exit_report();
    hp_runtime_init();
    return cmocka_run_group_tests(tests, NULL, NULL);
}
