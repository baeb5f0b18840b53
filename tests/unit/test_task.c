/*
 * test_task.c - unit tests of the task records (libhprof/task.c): a
 * creation's time leaves out the tasks run inside it, a folded run's
 * creations are counted untimed, and an untied task suspended and resumed
 * is counted once, timed whole, with its waits leaving out the time it was
 * switched out.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>
#include "hp_clock.h"
#include "hp_omp.h"
#include "hp_process.h"
#include "hp_site.h"
#include "hp_task.h"
#include "hp_thread.h"

static int fresh_records(void **state)
{
    (void)state;
    hp_threads_free_all();
    hp_site_registry_reset();
    hp_records_set_max_nodes(1000000);
    hp_throttle_set(0, 0);
    hp_collecting = 1;
    return 0;
}

static void spin_ns(uint64_t ns)
{
    uint64_t end = hp_monotonic_ns() + ns;
    while (hp_monotonic_ns() < end)
        ;
}

static uint32_t site(uintptr_t addr, const char *name)
{
    return hp_site_dynamic(addr, HP_KIND_OMP, name, 0);
}

/* An undeferred task run inside its creation: the creation's time leaves
 * the run out (it was the whole call: 1006 s of "task create" in a 1 s
 * run with nested undeferred tasks). */
static void test_create_excludes_included_run(void **state)
{
    (void)state;
    hp_thread *t = hp_thread_self();
    uint32_t c = site(0x10, "task create"), x = site(0x11, "task");
    hp_task_clock clock = hp_event_task_create_start(t);
    hp_task_run r;
    hp_event_task_begin(t, &r, x, 7);
    spin_ns(3000000);
    hp_event_task_end(t, &r);
    hp_event_task_created(t, c, 7, &clock);
    hp_node *run = hp_node_at(t, hp_cct_child(t, HP_ROOT_NODE, x));
    hp_node *create = hp_node_at(t, hp_cct_child(t, HP_ROOT_NODE, c));
    assert_int_equal(run->count, 1);
    assert_int_equal(create->count, 1);
    assert_true(run->ticks > 0);
    assert_true(create->ticks < run->ticks / 10);
}

/* a (outer) runs b, b runs a again (folded into the outer a): the inner
 * a's creations count under the outer a, untimed - their time is in b. */
static void test_folded_creations_untimed(void **state)
{
    (void)state;
    hp_thread *t = hp_thread_self();
    uint32_t a = site(0x20, "task"), b = site(0x21, "task"), ca = site(0x22, "task create");
    hp_task_run ra, rb, ra2;
    hp_event_task_begin(t, &ra, a, 1);
    uint32_t node_a = t->current;
    hp_event_task_begin(t, &rb, b, 2);
    hp_event_task_begin(t, &ra2, a, 3);
    hp_task_clock clock = hp_event_task_create_start(t);
    spin_ns(1000000);
    hp_event_task_created(t, ca, 4, &clock);
    hp_event_task_end(t, &ra2);
    hp_event_task_end(t, &rb);
    clock = hp_event_task_create_start(t);
    spin_ns(1000000);
    hp_event_task_created(t, ca, 5, &clock);   /* the outer a's own creation: timed */
    hp_event_task_end(t, &ra);
    hp_node *n = hp_node_at(t, hp_cct_child(t, node_a, ca));
    assert_int_equal(n->count, 2);
    assert_int_equal(n->timed, 1);
    /* a's children add up to at most a */
    hp_node *nb = hp_node_at(t, hp_cct_child(t, node_a, b));
    assert_true(n->ticks + nb->ticks <= hp_node_at(t, node_a)->ticks);
}

/* An untied task in three fragments: one execution, the fragments' time,
 * the whole task as the longest (time <= calls x max); a wait begun in the
 * first fragment and ended in the last leaves out the time the task was
 * switched out, and lies within the task's time.  The bounds are the
 * test's own clock readings around the events (on a loaded machine a spin
 * of 1 ms may take 5): the task's time is at most the time from before its
 * first resume to after its end less the time it was switched out as seen
 * from outside (after the suspend to before the resume). */
static void test_untied_fragments(void **state)
{
    (void)state;
    hp_thread *t = hp_thread_self();
    uint32_t x = site(0x30, "task");
    hp_task_run r = {0};
    uint64_t before = hp_ticks();
    hp_event_task_resume(t, &r, x, 9);
    uint64_t w0 = hp_ticks(), mark = hp_event_wait_mark(t);
    spin_ns(1000000);
    hp_event_task_suspend(t, &r);
    uint64_t out0 = hp_ticks();
    spin_ns(4000000);                    /* switched out: other tasks run */
    uint64_t out1 = hp_ticks();
    hp_event_task_resume(t, &r, x, 9);
    spin_ns(1000000);
    hp_event_task_suspend(t, &r);
    hp_event_task_resume(t, &r, x, 9);
    uint64_t w1 = hp_ticks();
    uint64_t ran = hp_event_wait_mark(t) - mark;
    hp_event_task_end(t, &r);
    uint64_t after = hp_ticks();
    hp_node *n = hp_node_at(t, hp_cct_child(t, HP_ROOT_NODE, x));
    assert_int_equal(n->count, 1);
    assert_int_equal(n->timed, 1);
    uint64_t ms = (uint64_t)(hp_clock_ticks_per_sec() / 1000);
    assert_true(n->ticks >= 2 * ms);
    assert_true(n->ticks <= (after - before) - (out1 - out0));
    assert_true(ran >= out1 - out0 && ran >= 4 * ms && ran < w1 - w0);
    assert_true(w1 - w0 - ran <= n->ticks);
    assert_true(n->max == n->ticks);
    assert_int_equal(t->current, HP_ROOT_NODE);
    assert_int_equal(t->task_cur, 0);
}

int main(void)
{
    hp_process_no_exit_report(); /* no profile of the test itself in the current directory */
    hp_clock_init(0, 20000);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup(test_create_excludes_included_run, fresh_records),
        cmocka_unit_test_setup(test_folded_creations_untimed, fresh_records),
        cmocka_unit_test_setup(test_untied_fragments, fresh_records),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
