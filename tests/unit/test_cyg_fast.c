/*
 * test_cyg_fast.c - cmocka tests of the tier-1 hooks' fast path (cyg.c,
 * hp_fast_pair.h): a hook pair seen before whose call and procedure
 * nodes are fast is opened and closed without the event boundary's slow
 * path.  Ground truth is the number of hook pairs each test makes:
 *  - a pair is slow the first time and fast from the second call on (the
 *    body of each call sees whether its pair was opened fast), counts
 *    and timed counts exact, the procedure's time within its call's;
 *  - a pair in a second context (its sites fast in the first one) is
 *    recorded by the slow path there, at the same sites, exactly;
 *  - once throttled, a pair is only counted, exactly;
 *  - collection off: no pair is counted;
 *  - a recursive procedure is folded and its pairs stay slow;
 *  - hooks of an inlined copy (made from another function) are fast too,
 *    at their own inlined call site;
 *  - a longjmp out of a fast pair: the next hook closes it, whether the
 *    next frame shares the gone frame's slot or lies above it.
 * The hooks are called the way an instrumented function calls them: fn
 * is the function that makes the calls, its return address is stored in
 * its own frame (a volatile local here; the hooks look for it there).
 */
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
#include "hp_site.h"
#include "hprof.h"
#include "tree_util.h"

void __cyg_profile_func_enter(void *fn, void *call_site);
void __cyg_profile_func_exit(void *fn, void *call_site);



/* The procedure site of fn and the call site at return address ra. */
static uint32_t proc_site(void *fn)
{
    return hp_site_dynamic((uintptr_t)fn, HP_KIND_PROCEDURE, "procedure", 0);
}

static uint32_t call_site(const char *ra)
{
    return hp_site_dynamic((uintptr_t)ra, HP_KIND_CALL, "call", 0);
}

static hp_node *node_under(uint32_t parent, uint32_t site)
{
    return tree_node_under(parent, site);
}

static uint32_t index_of(const hp_node *n)
{
    return tree_index_of(n);
}

/* Pairs whose body found them opened fast: the innermost activation is
 * the fast one of the procedure site `watched`. */
static unsigned fast_seen;
static uint32_t watched;

static void note_fast(void)
{
    hp_thread *t = hp_thread_self();
    if (t->fast[watched].sp != UINTPTR_MAX && t->fast[watched].node == t->current)
        fast_seen++;
}

/* An instrumented function: its hooks around body (NULL: none). */
static __attribute__((noinline)) void hooked(char *ra, void (*body)(void))
{
    volatile uintptr_t slot = (uintptr_t)ra;
    __cyg_profile_func_enter((void *)(uintptr_t)hooked, (void *)slot);
    if (body)
        body();
    __cyg_profile_func_exit((void *)(uintptr_t)hooked, (void *)slot);
}

static void test_fast_from_second_call(void **state)
{
    (void)state;
    tree_need_tsc();
    hp_thread *t = hp_thread_self();
    char *ra = (char *)(uintptr_t)test_fast_from_second_call + 16;
    watched = proc_site((void *)(uintptr_t)hooked);
    fast_seen = 0;
    for (int i = 0; i < 100; i++)
        hooked(ra, note_fast);
    assert_int_equal(t->current, HP_ROOT_NODE);
    assert_int_equal(fast_seen, 99);
    hp_node *c = node_under(HP_ROOT_NODE, call_site(ra));
    hp_node *p = node_under(index_of(c), watched);
    assert_non_null(p);
    assert_int_equal(c->count, 100);
    assert_int_equal(c->timed, 100);
    assert_int_equal(p->count, 100);
    assert_int_equal(p->timed, 100);
    assert_true((c->flags & HP_NODEF_FAST) && (p->flags & HP_NODEF_FAST));
    assert_true(p->ticks <= c->ticks);
    assert_int_equal(tree_nodes_of_site(watched), 1);
}

/* Another instrumented function, whose body calls `hooked` 50 times. */
static char *inner_ra;

static void fifty_inner_calls(void)
{
    for (int i = 0; i < 50; i++)
        hooked(inner_ra, note_fast);
}

static __attribute__((noinline)) void outer_hooked(char *ra, void (*body)(void))
{
    volatile uintptr_t slot = (uintptr_t)ra;
    __cyg_profile_func_enter((void *)(uintptr_t)outer_hooked, (void *)slot);
    body();
    __cyg_profile_func_exit((void *)(uintptr_t)outer_hooked, (void *)slot);
}

static void test_second_context_slow(void **state)
{
    (void)state;
    tree_need_tsc();
    hp_thread *t = hp_thread_self();
    inner_ra = (char *)(uintptr_t)test_second_context_slow + 16;
    char *outer_ra = inner_ra + 8;
    watched = proc_site((void *)(uintptr_t)hooked);
    fast_seen = 0;
    for (int i = 0; i < 50; i++) /* at the root: fast from the second on */
        hooked(inner_ra, note_fast);
    outer_hooked(outer_ra, fifty_inner_calls); /* the same pair, in outer */
    assert_int_equal(fast_seen, 49);
    uint32_t call = call_site(inner_ra);
    hp_node *c0 = node_under(HP_ROOT_NODE, call);
    hp_node *oc = node_under(HP_ROOT_NODE, call_site(outer_ra));
    hp_node *o = node_under(index_of(oc), proc_site((void *)(uintptr_t)outer_hooked));
    hp_node *c1 = node_under(index_of(o), call);
    assert_non_null(c1);
    assert_int_equal(c0->count, 50);
    assert_int_equal(node_under(index_of(c0), watched)->count, 50);
    assert_int_equal(c1->count, 50);
    assert_int_equal(c1->timed, 50);
    assert_int_equal(node_under(index_of(c1), watched)->count, 50);
    assert_int_equal(tree_nodes_of_site(call), 2);
    assert_int_equal(tree_nodes_of_site(watched), 2);
    assert_int_equal(t->current, HP_ROOT_NODE);
}

static void test_throttled_pair_counted(void **state)
{
    (void)state;
    hp_thread *t = hp_thread_self();
    char *ra = (char *)(uintptr_t)test_throttled_pair_counted + 16;
    /* Throttle after 10 timed calls with a mean below one second. */
    hp_throttle_set(10, (uint64_t)hp_clock_ticks_per_sec());
    watched = proc_site((void *)(uintptr_t)hooked);
    fast_seen = 0;
    for (int i = 0; i < 1000; i++)
        hooked(ra, note_fast);
    hp_node *c = node_under(HP_ROOT_NODE, call_site(ra));
    hp_node *p = node_under(index_of(c), watched);
    assert_int_equal(c->count, 1000);
    assert_int_equal(p->count, 1000);
    assert_int_equal(c->timed, 10);
    assert_int_equal(p->timed, 10);
    assert_true((c->flags & HP_NODEF_THROTTLED) && (p->flags & HP_NODEF_THROTTLED));
    assert_ptr_equal(t->fast[watched].count, &p->count);
    if (hp_clock_use_tsc)
        assert_int_equal(fast_seen, 999);
    else
        assert_int_equal(fast_seen, 1000 - 10); /* counted ones only */
    assert_int_equal(t->current, HP_ROOT_NODE);
}

static void test_collect_off_counts_nothing(void **state)
{
    (void)state;
    char *ra = (char *)(uintptr_t)test_collect_off_counts_nothing + 16;
    hp_throttle_set(10, (uint64_t)hp_clock_ticks_per_sec());
    for (int i = 0; i < 100; i++)
        hooked(ra, NULL);
    hprof_collect(0);
    for (int i = 0; i < 50; i++)
        hooked(ra, NULL);
    hprof_collect(1);
    for (int i = 0; i < 20; i++)
        hooked(ra, NULL);
    hp_node *c = node_under(HP_ROOT_NODE, call_site(ra));
    assert_int_equal(c->count, 120);
    assert_int_equal(node_under(index_of(c), proc_site((void *)(uintptr_t)hooked))->count, 120);
    assert_int_equal(hp_thread_self()->current, HP_ROOT_NODE);
}

/* Direct recursion: one frame deeper, its return address one further. */
static __attribute__((noinline)) void recursive(char *ra, int depth)
{
    volatile uintptr_t slot = (uintptr_t)ra;
    __cyg_profile_func_enter((void *)(uintptr_t)recursive, (void *)slot);
    if (depth > 1)
        recursive(ra + 8, depth - 1);
    __cyg_profile_func_exit((void *)(uintptr_t)recursive, (void *)slot);
}

static void test_recursion_stays_slow(void **state)
{
    (void)state;
    hp_thread *t = hp_thread_self();
    char *ra = (char *)(uintptr_t)test_recursion_stays_slow + 16;
    for (int i = 0; i < 50; i++)
        recursive(ra, 2);
    uint32_t proc = proc_site((void *)(uintptr_t)recursive);
    hp_node *c = node_under(HP_ROOT_NODE, call_site(ra));
    hp_node *p = node_under(index_of(c), proc);
    assert_int_equal(c->count, 50);
    assert_int_equal(p->count, 100); /* 50 + 50 folded */
    assert_int_equal(p->timed, 50);
    assert_true(p->flags & HP_NODEF_FOLDED);
    assert_false(p->flags & HP_NODEF_FAST);
    assert_int_equal(tree_nodes_of_site(proc), 1);
    assert_int_equal(t->active[proc].depth, 0);
    assert_int_equal(t->current, HP_ROOT_NODE);
}

/* Hooks of fn made from `hooked`: those of a copy of fn inlined there. */
static __attribute__((noinline)) void inlined_fn(void)
{
    __asm__ volatile("");
}

static __attribute__((noinline)) void hooked_copy(char *ra, void (*body)(void))
{
    volatile uintptr_t slot = (uintptr_t)ra;
    __cyg_profile_func_enter((void *)(uintptr_t)inlined_fn, (void *)slot);
    if (body)
        body();
    __cyg_profile_func_exit((void *)(uintptr_t)inlined_fn, (void *)slot);
}

static void test_inlined_copy_fast(void **state)
{
    (void)state;
    tree_need_tsc();
    hp_thread *t = hp_thread_self();
    char *ra = (char *)(uintptr_t)test_inlined_copy_fast + 32;
    watched = proc_site((void *)(uintptr_t)inlined_fn);
    fast_seen = 0;
    for (int i = 0; i < 40; i++)
        hooked_copy(ra, note_fast);
    uint32_t call = HP_NONE;
    unsigned at_ra = 0;
    for (uint32_t n = 0; n < t->nnodes; n++) {
        const hp_site *s = hp_site_get(hp_node_at(t, n)->site);
        if (s->kind == HP_KIND_CALL && s->callee == watched)
            call = hp_node_at(t, n)->site;
        at_ra += s->kind == HP_KIND_CALL && s->addr == (uintptr_t)ra;
    }
    assert_int_not_equal(call, HP_NONE);
    assert_true(hp_site_get(call)->flags & HP_SITEF_INLINED);
    assert_int_equal(at_ra, 0);
    hp_node *c = node_under(HP_ROOT_NODE, call);
    assert_int_equal(c->count, 40);
    assert_int_equal(node_under(index_of(c), watched)->count, 40);
    assert_int_equal(fast_seen, 39);
    assert_int_equal(t->current, HP_ROOT_NODE);
}

/* ------------------------------------------------------------ longjmp
 * thrower and sibling are twins (the same frame layout), so that called
 * from one place they keep their return addresses in the same slot, as
 * every function's return address is where it was called from. */
static jmp_buf env;
static uintptr_t thrower_slot, sibling_slot;
static unsigned fast_throws;

/* Throws out of fn's pair, counting it if it was opened fast. */
static __attribute__((noinline, noreturn)) void throw_from(void *fn)
{
    watched = proc_site(fn);
    fast_seen = 0;
    note_fast();
    fast_throws += fast_seen;
    longjmp(env, 1);
}

static __attribute__((noinline)) void thrower(char *ra, int how)
{
    volatile uintptr_t slot = (uintptr_t)ra;
    thrower_slot = (uintptr_t)&slot;
    __cyg_profile_func_enter((void *)(uintptr_t)thrower, (void *)slot);
    if (how == 0)
        throw_from((void *)(uintptr_t)thrower);
    __cyg_profile_func_exit((void *)(uintptr_t)thrower, (void *)slot);
}

static __attribute__((noinline)) void sibling(char *ra, int how)
{
    volatile uintptr_t slot = (uintptr_t)ra;
    sibling_slot = (uintptr_t)&slot;
    __cyg_profile_func_enter((void *)(uintptr_t)sibling, (void *)slot);
    if (how == 0)
        throw_from((void *)(uintptr_t)sibling);
    __cyg_profile_func_exit((void *)(uintptr_t)sibling, (void *)slot);
}

/* thrower called one frame deeper than sibling. */
static __attribute__((noinline)) void deeper(char *ra, int how)
{
    thrower(ra, how);
    __asm__ volatile("" ::: "memory"); /* not a tail call */
}

static char *ra_t, *ra_s;
static int throw_deeper;

/* thrower returns, then throws (fast: it was armed by the return), then
 * sibling runs: its entry closes the thrower's pair that the longjmp
 * left open. */
static void round_body(void)
{
    if (throw_deeper)
        deeper(ra_t, -1);
    else
        thrower(ra_t, -1);
    if (setjmp(env) == 0) {
        if (throw_deeper)
            deeper(ra_t, 0);
        else
            thrower(ra_t, 0);
    }
    sibling(ra_s, -1);
}

static void longjmp_rounds(int rounds)
{
    tree_need_tsc();
    hp_thread *t = hp_thread_self();
    char *ra_o = (char *)(uintptr_t)longjmp_rounds + 16;
    ra_t = ra_o + 8;
    ra_s = ra_o + 16;
    fast_throws = 0;
    for (int i = 0; i < rounds; i++)
        hooked(ra_o, round_body);
    if (!throw_deeper)
        assert_int_equal(thrower_slot, sibling_slot);
    assert_int_equal(t->current, HP_ROOT_NODE);
    hp_node *oc = node_under(HP_ROOT_NODE, call_site(ra_o));
    hp_node *o = node_under(index_of(oc), proc_site((void *)(uintptr_t)hooked));
    hp_node *tc = node_under(index_of(o), call_site(ra_t));
    hp_node *tp = node_under(index_of(tc), proc_site((void *)(uintptr_t)thrower));
    hp_node *sc = node_under(index_of(o), call_site(ra_s));
    assert_non_null(tp);
    assert_non_null(sc);
    assert_int_equal(o->count, rounds);
    assert_int_equal(tc->count, 2 * rounds);
    assert_int_equal(tc->timed, 2 * rounds);
    assert_int_equal(tp->count, 2 * rounds);
    assert_int_equal(tp->timed, 2 * rounds);
    assert_int_equal(sc->count, rounds);
    assert_int_equal(fast_throws, rounds); /* armed by the first return */
    assert_true(tp->flags & HP_NODEF_FAST);
    assert_true(tp->ticks <= tc->ticks && tc->ticks + sc->ticks <= o->ticks);
    /* The sibling is never inside the thrower: one node of each. */
    assert_int_equal(tree_nodes_of_site(call_site(ra_s)), 1);
    assert_int_equal(tree_nodes_of_site(proc_site((void *)(uintptr_t)sibling)), 1);
}

static void test_longjmp_same_slot(void **state)
{
    (void)state;
    throw_deeper = 0;
    longjmp_rounds(6);
}

static void test_longjmp_deeper(void **state)
{
    (void)state;
    throw_deeper = 1;
    longjmp_rounds(6);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup(test_fast_from_second_call, tree_fresh),
        cmocka_unit_test_setup(test_second_context_slow, tree_fresh),
        cmocka_unit_test_setup(test_throttled_pair_counted, tree_fresh),
        cmocka_unit_test_setup(test_collect_off_counts_nothing, tree_fresh),
        cmocka_unit_test_setup(test_recursion_stays_slow, tree_fresh),
        cmocka_unit_test_setup(test_inlined_copy_fast, tree_fresh),
        cmocka_unit_test_setup(test_longjmp_same_slot, tree_fresh),
        cmocka_unit_test_setup(test_longjmp_deeper, tree_fresh),
    };
    hp_process_no_exit_report();
    return cmocka_run_group_tests(tests, NULL, NULL);
}
