/*
 * test_counters.c - unit tests of the counter layer (libhprof/core/
 * counters.c) through the event boundary, with the fake back end: event k
 * of a thread adds exactly k + 1 per interval between two of its reads
 * (counters_fake.c), so every expected value below is exact:
 *   - a frame gets the intervals between its enter and exit (inclusive of
 *     what it encloses), an MPI call's leaf those between begin and end,
 *     a wait those between its mark and its record;
 *   - per thread: another thread's reads never count in this one's;
 *   - a folded (recursive) or throttled activation reads nothing;
 *   - unavailable names and names past the 4th are left out;
 *   - a reset zeroes the values, and HPROF_COUNTERS unset reads nothing;
 *   - the snapshot's CNTR records and their decoding (hp_counters_decode).
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <pthread.h>
#include <stdlib.h>
#include <cmocka.h>
#include "hp_counters.h"
#include "hp_event.h"
#include "hp_process.h"
#include "hp_profile.h"
#include "hp_site.h"
#include "hp_snapshot.h"
#include "hp_thread.h"

static int fresh(void **state)
{
    (void)state;
    hp_threads_free_all();
    hp_counters_reset_config();
    hp_site_registry_reset();
    hp_records_set_max_nodes(1000000);
    hp_throttle_set(0, 0);
    hp_collecting = 1;
    return 0;
}

static int fresh_fake_ab(void **state)
{
    fresh(state);
    hp_counters_setup("A,B", 1, 0, 0);
    return 0;
}

static uint32_t region(uintptr_t addr, const char *name)
{
    return hp_site_dynamic(addr, HP_KIND_REGION, name, 0);
}

static void enter_exit(hp_thread *t, uint32_t site)
{
    hprof_frame f;
    hp_event_enter(t, &f, site, 0);
    hp_event_exit(t, &f);
}

static uint64_t value(hp_thread *t, uint32_t parent, uint32_t site, uint32_t k)
{
    return hp_counters_value(t, hp_cct_child(t, parent, site), k);
}

/* outer { inner; inner; one MPI call } : inner 2 x 1 interval, the call 1,
 * outer 1 + 2 x 2 + 2 = 7; event B twice event A. */
static void test_exact_per_node(void **state)
{
    (void)state;
    hp_thread *t = hp_thread_self();
    uint32_t outer = region(0x100, "outer"), inner = region(0x101, "inner");
    uint32_t call = region(0x102, "MPI_Barrier");
    hprof_frame f;
    hp_event_enter(t, &f, outer, 0);
    enter_exit(t, inner);
    enter_exit(t, inner);
    hp_event_call_begin(t, 0x1234, 1, 1);
    hp_event_call_end(t);
    hp_event_time(t, hp_event_node(t, call), 5);
    hp_event_exit(t, &f);
    uint32_t on = hp_cct_child(t, HP_ROOT_NODE, outer);
    assert_int_equal(hp_counters_count(), 2);
    assert_int_equal(value(t, HP_ROOT_NODE, outer, 0), 7);
    assert_int_equal(value(t, HP_ROOT_NODE, outer, 1), 14);
    assert_int_equal(value(t, on, inner, 0), 2);
    assert_int_equal(value(t, on, inner, 1), 4);
    assert_int_equal(value(t, on, call, 0), 1);
    assert_int_equal(value(t, on, call, 1), 2);
    assert_int_equal(hp_counters_value(t, HP_ROOT_NODE, 0), 0);
}

/* A leaf recorded without an MPI call before it gets nothing, and an MPI
 * call's deltas are not left for a later leaf once a frame closed. */
static void test_leaf_without_call(void **state)
{
    (void)state;
    hp_thread *t = hp_thread_self();
    uint32_t outer = region(0x110, "outer"), leaf = region(0x111, "wait");
    hprof_frame f;
    hp_event_call_begin(t, 0x1, 1, 1);
    hp_event_call_end(t);
    hp_event_enter(t, &f, outer, 0);
    hp_event_exit(t, &f);
    hp_event_time(t, hp_event_node(t, leaf), 5);
    assert_int_equal(value(t, HP_ROOT_NODE, leaf, 0), 0);
    assert_int_equal(value(t, HP_ROOT_NODE, outer, 0), 1);
}

/* A wait gets the intervals between its mark and its record, none when a
 * frame opened or closed meanwhile (a task run in it) or when an earlier
 * wait's record took them; an OpenMP leaf timed by its source gets none,
 * nor an MPI call's deltas. */
static void test_waits(void **state)
{
    (void)state;
    hp_thread *t = hp_thread_self();
    uint32_t w = region(0x180, "barrier"), task = region(0x181, "task");
    uint32_t leaf = region(0x182, "single"), mpi = region(0x183, "MPI_Send");
    uint64_t m = hp_event_wait_mark(t);
    hp_event_wait(t, w, 5, m);                 /* 1 interval */
    m = hp_event_wait_mark(t);
    enter_exit(t, task);                       /* a task ran in the wait */
    hp_event_wait(t, w, 5, m);                 /* none */
    uint64_t outer = hp_event_wait_mark(t);
    m = hp_event_wait_mark(t);
    hp_event_wait(t, w, 5, m);                 /* 1 */
    hp_event_wait(t, w, 5, outer);             /* none: taken */
    assert_int_equal(value(t, HP_ROOT_NODE, w, 0), 2);
    assert_int_equal(hp_node_at(t, hp_cct_child(t, HP_ROOT_NODE, w))->count, 4);
    assert_int_equal(value(t, HP_ROOT_NODE, task, 0), 1);
    hp_event_call_begin(t, 0x1, 1, 1);
    hp_event_call_end(t);
    hp_event_leaf(t, leaf, 5);                 /* not the MPI call's */
    hp_event_time(t, hp_event_node(t, mpi), 5); /* the MPI call's: 1 */
    assert_int_equal(value(t, HP_ROOT_NODE, leaf, 0), 0);
    assert_int_equal(value(t, HP_ROOT_NODE, mpi, 0), 1);
}

static void *three_inner(void *arg)
{
    uint32_t site = *(uint32_t *)arg;
    hp_thread *t = hp_thread_self();
    for (int i = 0; i < 3; i++)
        enter_exit(t, site);
    return t;
}

/* Each thread its own reads: main 1 inner, the other thread 3 (its event
 * set closed when it exited: its values stay). */
static void test_per_thread(void **state)
{
    (void)state;
    hp_thread *t = hp_thread_self();
    uint32_t inner = region(0x120, "inner");
    pthread_t th;
    void *other;
    enter_exit(t, inner);
    assert_int_equal(pthread_create(&th, NULL, three_inner, &inner), 0);
    pthread_join(th, &other);
    enter_exit(t, inner);
    assert_int_equal(value(t, HP_ROOT_NODE, inner, 0), 2);
    assert_int_equal(value(other, HP_ROOT_NODE, inner, 0), 3);
    assert_int_equal(value(other, HP_ROOT_NODE, inner, 1), 6);
}

/* s { s { } }: the inner activation folds, reads nothing: 1 interval. */
static void test_folded_reads_nothing(void **state)
{
    (void)state;
    hp_thread *t = hp_thread_self();
    uint32_t s = region(0x130, "rec");
    hprof_frame a, b;
    hp_event_enter(t, &a, s, 0);
    hp_event_enter(t, &b, s, 0);
    assert_int_equal(b.node, HP_FRAME_FOLDED);
    hp_event_exit(t, &b);
    hp_event_exit(t, &a);
    assert_int_equal(value(t, HP_ROOT_NODE, s, 0), 1);
}

/* Throttled after 2 timed calls: the later calls read nothing. */
static void test_throttled_reads_nothing(void **state)
{
    (void)state;
    hp_throttle_set(2, UINT64_MAX / 4);
    hp_thread *t = hp_thread_self();
    uint32_t s = region(0x140, "hot");
    for (int i = 0; i < 5; i++)
        enter_exit(t, s);
    hp_node *n = hp_node_at(t, hp_cct_child(t, HP_ROOT_NODE, s));
    assert_int_equal(n->count, 5);
    assert_int_equal(n->timed, 2);
    assert_int_equal(value(t, HP_ROOT_NODE, s, 0), 2);
}

static void test_unavailable_and_past_max(void **state)
{
    fresh(state);
    hp_counters_setup("A,UNAVAILABLE_B,, C ,D,E,F", 1, 0, 0);
    assert_int_equal(hp_counters_on, 1);
    assert_int_equal(hp_counters_count(), HP_COUNTERS_MAX);
    assert_string_equal(hp_counters_name(0), "A");
    assert_string_equal(hp_counters_name(1), "C");
    assert_string_equal(hp_counters_name(3), "E");
    assert_null(hp_counters_name(4));
}

static void test_none_available(void **state)
{
    fresh(state);
    hp_counters_setup("UNAVAILABLE_A", 1, 0, 0);
    assert_int_equal(hp_counters_on, 0);
    assert_int_equal(hp_counters_count(), 0);
}

/* HPROF_COUNTERS unset: nothing is read, no store is made. */
static void test_unset_reads_nothing(void **state)
{
    fresh(state);
    hp_counters_setup(NULL, 1, 0, 0);
    hp_thread *t = hp_thread_self();
    enter_exit(t, region(0x150, "r"));
    assert_int_equal(hp_counters_on, 0);
    assert_null(t->counters);
}

static void test_reset_zeroes(void **state)
{
    (void)state;
    hp_thread *t = hp_thread_self();
    uint32_t s = region(0x160, "r");
    enter_exit(t, s);
    hp_records_reset();
    t = hp_thread_self();
    assert_int_equal(value(t, HP_ROOT_NODE, s, 0), 0);
    enter_exit(t, s);
    assert_int_equal(value(t, HP_ROOT_NODE, s, 1), 2);
}

/* The snapshot's records: node ids as the snapshot numbers them, only
 * values that are not 0, an open activation of the calling thread up to
 * now; then decoded back from a CNTR payload. */
static void test_snapshot_and_decode(void **state)
{
    (void)state;
    hp_thread *t = hp_thread_self();
    uint32_t s = region(0x170, "done"), o = region(0x171, "open");
    enter_exit(t, s);
    hprof_frame f;
    hp_event_enter(t, &f, o, 0); /* read 3, still open at the snapshot (read 4) */
    uint32_t counts[2] = {t->nnodes, 0};
    hp_rank_data rd = {0};
    assert_int_equal(hp_snapshot_counters(&rd, counts, 1), 0);
    assert_int_equal(rd.nevents, 2);
    assert_string_equal(rd.events[1], "B");
    assert_int_equal(rd.ncounters, 4);
    uint32_t sn = hp_cct_child(t, HP_ROOT_NODE, s), on = hp_cct_child(t, HP_ROOT_NODE, o);
    assert_int_equal(rd.counters[0].node, sn);
    assert_int_equal(rd.counters[0].value, 1);
    assert_int_equal(rd.counters[3].node, on);
    assert_int_equal(rd.counters[3].event, 1);
    assert_int_equal(rd.counters[3].value, 2);
    hp_event_exit(t, &f);

    /* the payload: 2 names, then the records */
    hp_buf b = {0};
    hp_buf_put_u32(&b, rd.nevents);
    hp_buf_put_str(&b, "A");
    hp_buf_put_str(&b, "B");
    for (uint32_t i = 0; i < rd.ncounters; i++)
        hp_counter_rec_put(hp_buf_reserve(&b, HP_COUNTER_REC_LEN), &rd.counters[i]);
    hp_rank_data back = {0};
    back.nnodes = t->nnodes;
    size_t bad;
    char why[96];
    assert_int_equal(hp_counters_decode(b.data, b.len, &back, &bad, why, sizeof why), 0);
    assert_int_equal(back.ncounters, 4);
    assert_int_equal(back.counters[3].value, 2);
    assert_string_equal(back.events[0], "A");
    hp_rank_data_free(&back);
    /* a node past the rank's nodes is refused at its record */
    back = (hp_rank_data){0};
    back.nnodes = on;
    assert_int_equal(hp_counters_decode(b.data, b.len, &back, &bad, why, sizeof why), -1);
    assert_int_equal(bad, 4 + 2 * 5 + 2 * HP_COUNTER_REC_LEN);
    assert_string_equal(why, "counter record: node out of range");
    hp_rank_data_free(&back);
    /* a cut record */
    back = (hp_rank_data){0};
    back.nnodes = t->nnodes;
    assert_int_equal(hp_counters_decode(b.data, b.len - 1, &back, &bad, why, sizeof why), -1);
    hp_rank_data_free(&back);
    hp_buf_free(&b);
    hp_rank_data_free(&rd);
}

int main(void)
{
    hp_process_no_exit_report(); /* no profile of the test itself in the current directory */
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup(test_exact_per_node, fresh_fake_ab),
        cmocka_unit_test_setup(test_leaf_without_call, fresh_fake_ab),
        cmocka_unit_test_setup(test_per_thread, fresh_fake_ab),
        cmocka_unit_test_setup(test_waits, fresh_fake_ab),
        cmocka_unit_test_setup(test_folded_reads_nothing, fresh_fake_ab),
        cmocka_unit_test_setup(test_throttled_reads_nothing, fresh_fake_ab),
        cmocka_unit_test_setup(test_unavailable_and_past_max, fresh),
        cmocka_unit_test_setup(test_none_available, fresh),
        cmocka_unit_test_setup(test_unset_reads_nothing, fresh),
        cmocka_unit_test_setup(test_reset_zeroes, fresh_fake_ab),
        cmocka_unit_test_setup(test_snapshot_and_decode, fresh_fake_ab),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
