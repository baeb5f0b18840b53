/*
 * test_core.c - cmocka unit tests of the MPI-free runtime core: clock,
 * hash map, site registry, calling-context tree, communication records,
 * node limit, reset, snapshot, the time of throttled nodes, configuration,
 * the summary aggregate, and
 * task executions (parent-child attribution, the timeline ring).
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <string.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>
#include <cmocka.h>
#include "hp_clock.h"
#include "hp_config.h"
#include "hp_map.h"
#include "hp_process.h"
#include "hp_resolve.h"
#include "hp_site.h"
#include "hp_snapshot.h"
#include "hp_source.h"
#include "hp_summary.h"
#include "hp_event.h"
#include "hp_task.h"
#include "hp_thread.h"
#include "hp_throttle.h"

static int fresh_records(void **state)
{
    (void)state;
    hp_threads_free_all();
    hp_site_registry_reset();
    hp_records_set_max_nodes(1000000);
    hp_collecting = 1;
    return 0;
}

static void spin_ns(uint64_t ns)
{
    uint64_t end = hp_monotonic_ns() + ns;
    while (hp_monotonic_ns() < end)
        ;
}

/* Ticks measured around an interval timed by CLOCK_MONOTONIC must convert
 * to the same length: the tick bracket encloses the monotonic one, so a
 * preemption can only lengthen the tick side, by the slack allowed. */
static void check_ticks_match_monotonic(uint64_t spin)
{
    uint64_t t0 = hp_ticks();
    uint64_t m0 = hp_monotonic_ns();
    spin_ns(spin);
    uint64_t m1 = hp_monotonic_ns();
    uint64_t t1 = hp_ticks();
    double ticks_s = hp_ticks_to_sec(t1 - t0);
    double mono_s = (double)(m1 - m0) / 1e9;
    assert_true(mono_s >= spin / 1e9);
    assert_true(ticks_s >= mono_s * 0.99);
    assert_true(ticks_s <= mono_s * 1.01 + 0.002);
}

static void test_clock_calibration(void **state)
{
    (void)state;
    hp_clock_init(0, 20000);
    if (!hp_cpu_has_invariant_tsc())
        assert_int_equal(hp_clock_kind(), HP_CLOCK_MONOTONIC);
    check_ticks_match_monotonic(50000000);
}

/* The runtime's start: 250 us of calibration, then the rate over the
 * whole run at its end (here 5 ms): within 0.1% of CLOCK_MONOTONIC over
 * 50 ms (the start's rate alone is only good to about 1e-3). */
static void test_clock_short_start_refined_at_end(void **state)
{
    (void)state;
    if (!hp_cpu_has_invariant_tsc())
        skip();
    hp_clock_init(0, 250);
    spin_ns(5000000);
    hp_clock_refine();
    uint64_t t0 = hp_ticks(), m0 = hp_monotonic_ns();
    spin_ns(50000000);
    uint64_t m1 = hp_monotonic_ns(), t1 = hp_ticks();
    double ratio = hp_ticks_to_sec(t1 - t0) / ((double)(m1 - m0) / 1e9);
    assert_true(ratio > 0.999 && ratio < 1.001);
    hp_clock_init(0, 20000);
}

static void test_clock_monotonic_fallback(void **state)
{
    (void)state;
    hp_clock_init(1, 0);
    assert_int_equal(hp_clock_kind(), HP_CLOCK_MONOTONIC);
    assert_true(hp_clock_ticks_per_sec() == 1e9);
    assert_true(hp_ticks_to_sec(1500000000u) == 1.5);
    check_ticks_match_monotonic(10000000);
    hp_clock_init(0, 20000);
}

static void test_map_put_get_grow(void **state)
{
    (void)state;
    hp_map m = {0};
    assert_int_equal(hp_map_get(&m, 7), HP_MAP_MISSING);
    for (uint32_t i = 0; i < 10000; i++)
        assert_int_equal(hp_map_put(&m, (uint64_t)i * 7919u, i), 0);
    for (uint32_t i = 0; i < 10000; i++)
        assert_int_equal(hp_map_get(&m, (uint64_t)i * 7919u), i);
    assert_int_equal(hp_map_get(&m, 3), HP_MAP_MISSING);
    assert_int_equal(hp_map_put(&m, 7919u, 42), 0);
    assert_int_equal(hp_map_get(&m, 7919u), 42);
    assert_int_equal(m.used, 10000);
    hp_map_clear(&m);
    assert_int_equal(hp_map_get(&m, 7919u), HP_MAP_MISSING);
    hp_map_free(&m);
}

/* A dynamic site at address 0 (an OpenMP runtime that passed no code
 * pointer) or at the top of the address space resolves to module "?" with
 * an offset the profile format accepts (< 2^63): address 0 once wrapped
 * to 2^64 - 1 and took the offset of whatever module lay there. */
static void test_resolve_no_address(void **state)
{
    (void)state;
    uint32_t z = hp_site_dynamic(0, HP_KIND_OMP, "parallel", 0);
    uint32_t top = hp_site_dynamic(UINTPTR_MAX - 0xfff, HP_KIND_OMP, "barrier", 0);
    hp_resolve_dynamic_sites();
    const hp_site *a = hp_site_get(z), *b = hp_site_get(top);
    assert_non_null(a->module);
    assert_string_equal(a->module, "?");
    assert_int_equal(a->offset, 0);
    assert_non_null(b->module);
    assert_string_equal(b->module, "?");
    assert_true(b->offset <= (uint64_t)INT64_MAX);
}

static void test_site_registry(void **state)
{
    (void)state;
    assert_int_equal(hp_site_count(), 2); /* root and overflow */
    uint32_t a = hp_site_dynamic(0x1000, HP_KIND_COMM, "MPI_Send", 0);
    uint32_t b = hp_site_dynamic(0x2000, HP_KIND_COMM, "MPI_Recv", 0);
    assert_int_equal(hp_site_dynamic(0x1000, HP_KIND_COMM, "MPI_Send", 0), a);
    assert_int_not_equal(a, b);
    assert_string_equal(hp_site_get(a)->name, "MPI_Send");
    assert_true(hp_site_get(b)->flags & HP_SITEF_DYNAMIC);
    assert_int_equal(hp_site_get(b)->addr, 0x2000);
    uint32_t s = hp_site_add_static(HP_KIND_LOOP, "loop", "main", "x.c", 10, 20, HP_NONE, HP_NONE);
    assert_int_equal(hp_site_count(), 5);
    assert_string_equal(hp_site_get(s)->file, "x.c");
    assert_int_equal(hp_site_get(s)->end_line, 20);
    /* Enough sites to need several chunks: ids stay distinct and stable. */
    for (uintptr_t i = 0; i < 5000; i++)
        assert_int_equal(hp_site_dynamic(0x10000 + i, HP_KIND_COMM, "MPI_Isend", 0), 5 + i);
    assert_string_equal(hp_site_get(a)->name, "MPI_Send");
}

static void test_cct_insert_lookup(void **state)
{
    (void)state;
    hp_thread *t = hp_thread_self();
    assert_non_null(t);
    assert_int_equal(t->nnodes, 2);
    uint32_t s1 = hp_site_dynamic(0x10, HP_KIND_COMM, "MPI_Send", 0);
    uint32_t s2 = hp_site_dynamic(0x20, HP_KIND_COMM, "MPI_Recv", 0);
    uint32_t n1 = hp_cct_child(t, HP_ROOT_NODE, s1);
    uint32_t n2 = hp_cct_child(t, HP_ROOT_NODE, s2);
    uint32_t n3 = hp_cct_child(t, n1, s2); /* same site, other context */
    assert_int_not_equal(n1, n2);
    assert_int_not_equal(n2, n3);
    assert_int_equal(hp_cct_child(t, HP_ROOT_NODE, s1), n1);
    assert_int_equal(hp_cct_child(t, HP_ROOT_NODE, s2), n2);
    assert_int_equal(hp_cct_child(t, n1, s2), n3);
    assert_int_equal(hp_node_at(t, n3)->parent, n1);
    /* A wide node: 3000 children, each found again. */
    uint32_t ids[3000];
    for (uint32_t i = 0; i < 3000; i++)
        ids[i] = hp_cct_child(t, HP_ROOT_NODE, 100 + i);
    for (uint32_t i = 0; i < 3000; i++)
        assert_int_equal(hp_cct_child(t, HP_ROOT_NODE, 100 + i), ids[i]);
    assert_int_equal(t->nnodes, 2 + 3 + 3000);
}

static void test_node_stats(void **state)
{
    (void)state;
    hp_thread *t = hp_thread_self();
    uint32_t n = hp_event_site_node(t, 0x30, HP_KIND_COMM, "MPI_Send", 0);
    assert_int_equal(hp_event_site_node(t, 0x30, HP_KIND_COMM, "MPI_Send", 0), n);
    hp_node_add(hp_node_at(t, n), 5);
    hp_node_add(hp_node_at(t, n), 2);
    hp_node_add(hp_node_at(t, n), 9);
    hp_node *p = hp_node_at(t, n);
    assert_int_equal(p->count, 3);
    assert_int_equal(p->ticks, 16);
    assert_int_equal(p->min, 2);
    assert_int_equal(p->max, 9);
}

static void test_comm_accumulation(void **state)
{
    (void)state;
    hp_thread *t = hp_thread_self();
    uint32_t n = hp_event_site_node(t, 0x40, HP_KIND_COMM, "MPI_Sendrecv", 0);
    hp_event_comm(t, n, 3, 800, 0, 10, 0);
    hp_event_comm(t, n, 3, 800, 0, 30, 5);
    hp_event_comm(t, n, 1, 0, 64, 7, 100);
    hp_event_comm_bytes(t, n, 1, 16, 0);
    hp_comm *c3 = hp_comm_at(t, hp_comm_find(t, n, 3));
    hp_comm *c1 = hp_comm_at(t, hp_comm_find(t, n, 1));
    assert_int_equal(c3->count, 2);
    assert_int_equal(c3->sent, 1600);
    assert_int_equal(c3->tran, 40);
    assert_int_equal(c3->sync, 5);
    assert_int_equal(c3->min, 10);
    assert_int_equal(c3->max, 35);
    assert_int_equal(c1->count, 2);
    assert_int_equal(c1->sent, 16);
    assert_int_equal(c1->recv, 64);
    assert_int_equal(c1->sync, 100);
    assert_int_equal(t->ncomms, 2);
}

/* A request keeps the index of the comm record its send was counted in
 * (hp_event_comm_bytes) and times it at completion by that index
 * (hp_event_comm_time_at): the index must still name the same record after
 * the thread's record array grew by many chunks, and must not be trusted
 * on another thread (MPI_THREAD_SERIALIZED: a request completed by another
 * thread than its poster), where the same index is another record. */
static void test_comm_index_kept_by_request(void **state)
{
    (void)state;
    hp_thread *a = hp_thread_scratch_new(), *b = hp_thread_scratch_new();
    assert_non_null(a);
    assert_non_null(b);
    uint32_t na = hp_cct_child(a, HP_ROOT_NODE, 4000), nb = hp_cct_child(b, HP_ROOT_NODE, 4000);
    uint32_t i = hp_event_comm_bytes(a, na, 7, 8, 0);
    assert_int_not_equal(i, HP_NO_NODE);
    /* the array grows past several chunks before the request completes */
    for (int32_t peer = 100; peer < 100 + 5 * (int32_t)HP_CHUNK; peer++)
        hp_event_comm_bytes(a, na, peer, 1, 0);
    hp_event_comm_time_at(a, i, na, 7, 50, 0);
    const hp_comm *c = hp_comm_at(a, hp_comm_find(a, na, 7));
    uint64_t got[] = {c->count, c->sent, c->tran, c->min, c->max}, want[] = {1, 8, 50, 50, 50};
    assert_memory_equal(got, want, sizeof want);
    /* thread b: its record i is another peer's; (nb, 7) is elsewhere */
    for (int32_t peer = 200; peer < 200 + (int32_t)i + 3; peer++)
        hp_event_comm_bytes(b, nb, peer, 1, 0);
    hp_event_comm_time_at(b, i, nb, 7, 30, 0);
    uint32_t j = hp_comm_find(b, nb, 7);
    assert_int_not_equal(j, i);
    assert_int_equal(hp_comm_at(b, j)->tran, 30);
    assert_int_equal(hp_comm_at(b, i)->tran, 0);
    /* an index past the thread's records looks the record up too */
    hp_event_comm_time_at(b, b->ncomms + 10, nb, 7, 5, 0);
    assert_int_equal(hp_comm_at(b, j)->tran, 35);
    hp_thread_scratch_free(a);
    hp_thread_scratch_free(b);
}

static void test_node_limit_overflow(void **state)
{
    (void)state;
    hp_records_set_max_nodes(10);
    hp_thread *t = hp_thread_self();
    uint32_t last = 0;
    for (uint32_t i = 0; i < 50; i++)
        last = hp_cct_child(t, HP_ROOT_NODE, 1000 + i);
    assert_int_equal(last, t->overflow);
    assert_int_equal(t->nnodes, 2 + 10);
    assert_int_equal(t->overflow_events, 40);
    assert_true(hp_records_overflowed());
    /* Known sites still find their own nodes. */
    assert_int_not_equal(hp_cct_child(t, HP_ROOT_NODE, 1000), t->overflow);
}

/* Activations nested inside the overflow node: the outermost one times
 * them all, the others are counted (each timed, the node held their time
 * once per level: Lua's <overflow> 258 s in a 234 s run). */
static void test_overflow_nested_timed_once(void **state)
{
    (void)state;
    hp_records_set_max_nodes(3);
    hp_thread *t = hp_thread_self();
    enum { DEPTH = 8 };
    hprof_frame f[DEPTH];
    uint64_t t0 = hp_ticks();
    for (uint32_t i = 0; i < DEPTH; i++)
        hp_event_enter(t, &f[i], 2000 + i, 0);
    uint64_t spin = hp_ticks();     /* the innermost level's own time */
    while (hp_ticks_to_sec(hp_ticks() - spin) < 0.002)
        ;
    for (int i = DEPTH - 1; i >= 0; i--)
        hp_event_exit(t, &f[i]);
    uint64_t wall = hp_ticks() - t0;
    const hp_node *o = hp_node_at(t, t->overflow);
    assert_int_equal(o->count, DEPTH - 3);
    assert_true(o->ticks <= wall);
    assert_int_equal(t->current, HP_ROOT_NODE);
    /* the sites are closed: a second round nests the same way */
    for (uint32_t i = 0; i < DEPTH; i++)
        hp_event_enter(t, &f[i], 2000 + i, 0);
    for (int i = DEPTH - 1; i >= 0; i--)
        hp_event_exit(t, &f[i]);
    assert_int_equal(o->count, 2 * (DEPTH - 3));
    for (uint32_t i = 0; i < DEPTH; i++)
        assert_int_equal(t->active[2000 + i].depth, 0);
}

static void test_reset_keeps_tree(void **state)
{
    (void)state;
    hp_thread *t = hp_thread_self();
    uint32_t n = hp_event_site_node(t, 0x50, HP_KIND_COMM, "MPI_Send", 0);
    hp_node_add(hp_node_at(t, n), 100);
    hp_event_comm(t, n, 2, 8, 0, 100, 0);
    hp_records_reset();
    t = hp_thread_self();
    assert_int_equal(hp_node_at(t, n)->count, 0);
    assert_int_equal(hp_comm_at(t, hp_comm_find(t, n, 2))->count, 0);
    assert_int_equal(hp_event_site_node(t, 0x50, HP_KIND_COMM, "MPI_Send", 0), n);
}

static void test_snapshot(void **state)
{
    (void)state;
    hp_thread *t = hp_thread_self();
    uint32_t n = hp_event_site_node(t, 0x60, HP_KIND_COMM, "MPI_Recv", 0);
    uint64_t tps = (uint64_t)hp_clock_ticks_per_sec();
    hp_node_add(hp_node_at(t, n), tps / 2); /* 0.5 s */
    hp_event_comm(t, n, 4, 0, 1024, tps / 10, tps / 5);
    hp_rank_data rd;
    memset(&rd, 0, sizeof rd);
    assert_int_equal(hp_snapshot(&rd, 0, hp_ticks()), 0);
    assert_int_equal(rd.info.threads, 1);
    assert_int_equal(rd.nnodes, t->nnodes);
    assert_int_equal(rd.ncomms, 1);
    const hp_node_rec *r = &rd.nodes[n];
    assert_int_equal(r->count, 1);
    assert_true(r->time > 0.499 && r->time < 0.501);
    assert_string_equal(rd.strings[rd.sites[r->site].name], "MPI_Recv");
    assert_int_equal(rd.comms[0].peer, 4);
    assert_int_equal(rd.comms[0].bytes_recv, 1024);
    assert_true(rd.comms[0].sync > 0.199 && rd.comms[0].sync < 0.201);
    assert_true(hp_rank_mpi_time(&rd) > 0.499 && hp_rank_mpi_time(&rd) < 0.501);
    /* Unused min is written as 0, not as a huge number. */
    assert_true(rd.nodes[HP_ROOT_NODE].min == 0.0);
    hp_rank_data_free(&rd);
}

static uint32_t parent_site_of(hp_thread *t, uint32_t node)
{
    return hp_node_at(t, hp_node_at(t, node)->parent)->site;
}

/* The "task create" node of site c made inside the executions: its parent
 * is always the creating construct, also in a folded a-in-b-in-a run. */
static void test_task_parent_attribution(void **state)
{
    (void)state;
    hp_thread *t = hp_thread_self();
    uint32_t a = hp_site_dynamic(0xa0, HP_KIND_OMP, "task", 0);
    uint32_t b = hp_site_dynamic(0xb0, HP_KIND_OMP, "task", 0);
    uint32_t ca = hp_site_dynamic(0xa1, HP_KIND_OMP, "task create", 0);
    uint32_t cb = hp_site_dynamic(0xb1, HP_KIND_OMP, "task create", 0);
    hp_task_run ra, rb, ra2;
    hp_event_task_begin(t, &ra, a, hp_event_task_new_id(t));
    uint32_t node_a = t->current;
    hp_event_task_created(t, cb, 11, &(hp_task_clock){0, 0}); /* a creates a b task */
    hp_event_task_begin(t, &rb, b, 12);
    hp_event_task_created(t, ca, 13, &(hp_task_clock){0, 0}); /* b creates an a task */
    hp_event_task_begin(t, &ra2, a, 13);                  /* folded into the outer a */
    assert_int_equal(t->task_cur, 13);
    hp_event_task_created(t, cb, 14, &(hp_task_clock){0, 0}); /* the inner a creates a b */
    hp_event_task_end(t, &ra2);
    assert_int_equal(t->task_cur, 12);
    hp_event_task_end(t, &rb);
    hp_event_task_end(t, &ra);
    assert_int_equal(t->task_cur, 0);
    assert_int_equal(t->current, HP_ROOT_NODE);
    assert_int_equal(hp_node_at(t, node_a)->count, 2);   /* a ran twice, one node */
    uint32_t cb_in_a = hp_cct_child(t, node_a, cb);
    assert_int_equal(hp_node_at(t, cb_in_a)->count, 2);  /* both a runs created a b */
    assert_int_equal(parent_site_of(t, cb_in_a), a);
    uint32_t node_b = hp_cct_child(t, node_a, b);
    uint32_t ca_in_b = hp_cct_child(t, node_b, ca);
    assert_int_equal(hp_node_at(t, ca_in_b)->count, 1);
    assert_int_equal(parent_site_of(t, ca_in_b), b);
    assert_int_equal(hp_cct_child(t, node_b, cb) == hp_cct_child(t, node_a, cb), 0);
    assert_int_equal(hp_node_at(t, hp_cct_child(t, node_b, cb))->count, 0);
}

/* HPROF_TASK_TRACE=4: the ring keeps the last 4 events, oldest first,
 * with the creating task as parent. */
static void test_task_trace_ring(void **state)
{
    (void)state;
    hp_cfg.task_trace = 4;
    hp_thread *t = hp_thread_self();
    uint32_t s = hp_site_dynamic(0xc0, HP_KIND_OMP, "task create", 0);
    uint32_t x = hp_site_dynamic(0xc1, HP_KIND_OMP, "task", 0);
    hp_task_run run;
    hp_event_task_begin(t, &run, x, 99);
    for (uint64_t i = 1; i <= 10; i++)
        hp_event_task_created(t, s, i, &(hp_task_clock){100 * i, t->task_acc});
    hp_event_task_end(t, &run);
    assert_int_equal(hp_task_trace_count(t), 4);
    hp_task_rec out[4];
    assert_int_equal(hp_task_trace_copy(t, 0, 0, out), 4);
    for (int i = 0; i < 3; i++) {
        assert_int_equal(out[i].kind, HP_TASKEV_CREATE);
        assert_int_equal(out[i].id, 8 + i);
        assert_int_equal(out[i].parent, 99);
        assert_int_equal(out[i].site, s);
    }
    assert_int_equal(out[3].kind, HP_TASKEV_RUN);
    assert_int_equal(out[3].id, 99);
    assert_true(out[3].end >= out[3].begin);
    hp_records_reset();
    hp_thread_self();
    assert_int_equal(hp_task_trace_count(t), 0);
    hp_cfg.task_trace = 0;
}

static const char *env_table[16][2];

static const char *fake_getenv(const char *name)
{
    for (int i = 0; env_table[i][0]; i++)
        if (strcmp(env_table[i][0], name) == 0)
            return env_table[i][1];
    return NULL;
}

static int parse_with(const char *name, const char *value, hp_config *cfg, char *err)
{
    /* the parser copies the path settings: the last copies are freed here */
    static const char *last_output, *last_filter;
    free((char *)last_output);
    free((char *)last_filter);
    memset(env_table, 0, sizeof env_table);
    env_table[0][0] = name;
    env_table[0][1] = value;
    hp_config def = {NULL, HP_SUMMARY_ON, 0, 1000000, 0, 0, 10, 100000, 1000, NULL, 0, 1, 1,
                     NULL, 0, 0, 3};
    *cfg = def;
    int rc = hp_config_parse(cfg, fake_getenv, err, 256);
    last_output = cfg->output;
    last_filter = cfg->filter;
    return rc;
}

/* The core decides which OpenMP source records: the highest claim wins,
 * a lower one never takes it back (run last: the choice is process-wide). */
static void test_omp_source_choice(void **state)
{
    (void)state;
    assert_true(hp_omp_source_records(HP_OMP_SOURCE_GOMP));
    assert_true(hp_omp_source_records(HP_OMP_SOURCE_OMPT));
    hp_omp_source_claim(HP_OMP_SOURCE_OMPT);
    assert_false(hp_omp_source_records(HP_OMP_SOURCE_GOMP));
    assert_true(hp_omp_source_records(HP_OMP_SOURCE_OMPT));
    hp_omp_source_claim(HP_OMP_SOURCE_GOMP);
    assert_false(hp_omp_source_records(HP_OMP_SOURCE_GOMP));
    hp_omp_source_claim(HP_OMP_SOURCE_POMP2);
    assert_false(hp_omp_source_records(HP_OMP_SOURCE_OMPT));
    assert_true(hp_omp_source_records(HP_OMP_SOURCE_POMP2));
}

static void test_config(void **state)
{
    (void)state;
    hp_config cfg;
    char err[256];
    assert_int_equal(parse_with("HPROF_SUMMARY", "full", &cfg, err), 0);
    assert_int_equal(cfg.summary, HP_SUMMARY_FULL);
    assert_int_equal(parse_with("HPROF_MAX_NODES", "123", &cfg, err), 0);
    assert_int_equal(cfg.max_nodes, 123);
    assert_int_equal(parse_with("HPROF_COLL_SYNC", "1", &cfg, err), 0);
    assert_int_equal(cfg.coll_sync, 1);
    assert_int_equal(parse_with("HPROF_SUMMARY", "maybe", &cfg, err), -1);
    assert_string_equal(err, "HPROF_SUMMARY='maybe' is not one of off|on|full");
    assert_int_equal(parse_with("HPROF_MAX_NODES", "12x", &cfg, err), -1);
    assert_non_null(strstr(err, "HPROF_MAX_NODES='12x'"));
    assert_int_equal(parse_with("HPROF_MAX_NODES", "-5", &cfg, err), -1);
    assert_int_equal(parse_with("HPROF_MAX_NODES", "0", &cfg, err), -1);
    assert_int_equal(parse_with("HPROF_COLL_SYNC", "yes", &cfg, err), -1);
    assert_int_equal(parse_with("HPROF_TASK_TRACE", "1000", &cfg, err), 0);
    assert_int_equal(cfg.task_trace, 1000);
    assert_int_equal(parse_with("HPROF_TASK_TRACE", "lots", &cfg, err), -1);
    assert_non_null(strstr(err, "HPROF_TASK_TRACE='lots'"));
    assert_int_equal(cfg.callpath, 3);      /* the default */
    assert_int_equal(parse_with("HPROF_CALLPATH", "0", &cfg, err), 0);
    assert_int_equal(cfg.callpath, 0);
    assert_int_equal(parse_with("HPROF_CALLPATH", "16", &cfg, err), 0);
    assert_int_equal(cfg.callpath, 16);
    assert_int_equal(parse_with("HPROF_CALLPATH", "17", &cfg, err), -1);
    assert_non_null(strstr(err, "HPROF_CALLPATH='17'"));
    assert_int_equal(parse_with("HPROF_OUTPUT", "/tmp/x.hpf", &cfg, err), 0);
    assert_string_equal(cfg.output, "/tmp/x.hpf");
    assert_int_equal(parse_with("HPROF_COMPENSATE", "off", &cfg, err), 0);
    assert_int_equal(cfg.compensate, 0);
    assert_int_equal(parse_with("HPROF_COMPENSATE", "on", &cfg, err), 0);
    assert_int_equal(cfg.compensate, 1);
    assert_int_equal(parse_with("HPROF_COMPENSATE", "1", &cfg, err), -1);
    assert_string_equal(err, "HPROF_COMPENSATE='1' is not one of off|on");
}

/* Malformed numbers, a directory as filter, a device as output: each is
 * refused with one line naming the variable. */
static void test_config_edges(void **state)
{
    (void)state;
    hp_config cfg;
    char err[256];
    assert_int_equal(parse_with("HPROF_MAX_NODES", " 5", &cfg, err), -1);
    assert_string_equal(err, "HPROF_MAX_NODES=' 5' is not a whole number from 1 to 1073741824");
    assert_int_equal(parse_with("HPROF_TOP", "+5", &cfg, err), -1);
    assert_string_equal(err, "HPROF_TOP='+5' is not a whole number from 1 to 1000");
    assert_int_equal(parse_with("HPROF_VERBOSE", "\t1", &cfg, err), -1);
    assert_int_equal(parse_with("HPROF_TASK_TRACE", "99999999999999999999", &cfg, err), -1);
    assert_int_equal(parse_with("HPROF_TOP", "5", &cfg, err), 0);
    assert_int_equal(cfg.top, 5);

    assert_int_equal(parse_with("HPROF_FILTER", "/etc", &cfg, err), -1);
    assert_string_equal(err, "HPROF_FILTER='/etc' is a directory, not a rule file");
    assert_null(strchr(err, '\n'));
    assert_int_equal(parse_with("HPROF_FILTER", "/nonexistent/rules", &cfg, err), 0);
    assert_string_equal(cfg.filter, "/nonexistent/rules");

    /* a device is no error of the setting: the writer says no profile was
     * written (tests/writes/run.sh) */
    assert_int_equal(parse_with("HPROF_OUTPUT", "/dev/null", &cfg, err), 0);
    assert_string_equal(cfg.output, "/dev/null");
    assert_int_equal(parse_with("HPROF_OUTPUT", "/tmp", &cfg, err), 0);
    assert_string_equal(cfg.output, "/tmp");
    char file[] = "/tmp/test_core_out_XXXXXX"; /* an existing regular file */
    int fd = mkstemp(file);
    assert_true(fd >= 0);
    close(fd);
    assert_int_equal(parse_with("HPROF_OUTPUT", file, &cfg, err), 0);
    unlink(file);
    assert_int_equal(parse_with("HPROF_OUTPUT", "/nonexistent/x.hpf", &cfg, err), 0);
}

/* A one-rank profile with one comm site, for the aggregate tests. */
static void make_rank(hp_rank_data *rd, uint32_t rank, double time, int peer,
                      uint64_t bytes)
{
    static char *strings[] = {"", "MPI_Send", "main", "/src/app.c", "app"};
    memset(rd, 0, sizeof *rd);
    rd->info.rank = rank;
    rd->info.threads = 1;
    rd->info.wall = 2.0;
    rd->info.mpi_time = time;
    rd->nstrings = 5;
    rd->strings = strings;
    static hp_site_rec sites[3];
    memset(sites, 0, sizeof sites);
    sites[2].id = 2;
    sites[2].kind = HP_KIND_COMM;
    sites[2].name = 1;
    sites[2].func = 2;
    sites[2].file = 3;
    sites[2].line = 42;
    rd->nsites = 3;
    rd->sites = sites;
    static hp_node_rec nodes[2];
    memset(nodes, 0, sizeof nodes);
    nodes[0].parent = HP_NONE;
    nodes[1].id = 1;
    nodes[1].parent = 0;
    nodes[1].site = 2;
    nodes[1].count = 10;
    nodes[1].time = time;
    rd->nnodes = 2;
    rd->nodes = nodes;
    static hp_comm_rec comm;
    memset(&comm, 0, sizeof comm);
    comm.node = 1;
    comm.peer = peer;
    comm.count = 10;
    comm.bytes_sent = bytes;
    comm.tran = time;
    rd->ncomms = 1;
    rd->comms = &comm;
}

static void test_agg_merge_roundtrip(void **state)
{
    (void)state;
    hp_rank_data r0, r1;
    hp_agg a0, a1, back;
    make_rank(&r0, 0, 0.5, 1, 8000);
    assert_int_equal(hp_agg_from_rank(&a0, &r0), 0);
    make_rank(&r1, 1, 1.5, 0, 4000);
    assert_int_equal(hp_agg_from_rank(&a1, &r1), 0);
    hp_buf b = {0};
    hp_agg_encode(&b, &a1);
    assert_int_equal(hp_agg_decode(&back, b.data, b.len), 0);
    hp_agg_free(&a1);
    assert_int_equal(hp_agg_decode(&a1, b.data, b.len - 3), -1); /* truncated */
    hp_agg_free(&a1);
    hp_buf_free(&b);
    assert_int_equal(hp_agg_merge(&a0, &back), 0);
    assert_int_equal(a0.nranks, 2);
    assert_int_equal(a0.nrows, 1);
    hp_agg_row *r = &a0.rows[0];
    assert_string_equal(r->label, "MPI_Send@app.c:42 (main)");
    assert_int_equal(r->count, 20);
    assert_true(r->time_sum == 2.0);
    assert_true(r->time_max == 1.5);
    assert_int_equal(r->max_rank, 1);
    assert_int_equal(r->npeers, 2);
    assert_int_equal(r->peers[0].peer, 1); /* most bytes first */
    assert_int_equal(r->peers[0].sent, 8000);
    assert_int_equal(r->peers[0].recv, 0);
    assert_true(a0.mpi_pct_min == 25.0 && a0.mpi_pct_max == 75.0);
    assert_true(a0.mpi_thread_s == 2.0);
    assert_int_equal(a0.mpi_threads_min, 1);
    assert_int_equal(a0.mpi_threads_max, 1);
    hp_agg_free(&a0);
    hp_agg_free(&back);
}

/* Four threads each 1.5 s in MPI during a 2 s run, and a fifth that only
 * ran OpenMP: the share is 6 thread-s over 2 s x 4 threads = 75%, not
 * 300% of the wall. */
static void test_agg_mpi_share_threads(void **state)
{
    (void)state;
    hp_rank_data rd;
    hp_agg a;
    make_rank(&rd, 0, 1.5, 1, 800);
    static hp_site_rec sites[4];
    memcpy(sites, rd.sites, 3 * sizeof sites[0]);
    sites[3].id = 3;
    sites[3].kind = HP_KIND_OMP;
    sites[3].name = 2;
    rd.sites = sites;
    rd.nsites = 4;
    static hp_node_rec nodes[10];
    memset(nodes, 0, sizeof nodes);
    for (uint32_t t = 0; t < 5; t++) {
        nodes[2 * t] = (hp_node_rec){2 * t, HP_NONE, 0, t, 0, 0, 0, 0, 0};
        nodes[2 * t + 1] = (hp_node_rec){2 * t + 1, 2 * t, t < 4 ? 2 : 3, t, 10, 1.5, 0, 0, 10};
    }
    rd.nodes = nodes;
    rd.nnodes = 10;
    rd.info.threads = 5;
    assert_int_equal(hp_rank_mpi_threads(&rd), 4);
    rd.info.mpi_time = hp_rank_mpi_time(&rd);
    assert_true(rd.info.mpi_time == 6.0);
    assert_int_equal(hp_agg_from_rank(&a, &rd), 0);
    assert_true(a.mpi_pct_min == 75.0 && a.mpi_pct_max == 75.0);
    assert_int_equal(a.mpi_threads_min, 4);
    assert_int_equal(a.mpi_threads_max, 4);
    assert_true(a.mpi_thread_s == 6.0);
    hp_agg_free(&a);
}

/* The destinations line names the direction of each peer's bytes. */
static void test_summary_peer_directions(void **state)
{
    (void)state;
    hp_agg_row row = {0};
    row.label = "MPI_Sendrecv@app.c:7 (main)";
    row.kind = HP_KIND_COMM;
    row.count = 4;
    row.npeers = 5;
    row.peers[0] = (hp_agg_peer){3, 2, 2048, 2048};
    row.peers[1] = (hp_agg_peer){2, 1, 0, 2048};
    row.peers[2] = (hp_agg_peer){1, 1, 1024, 0};
    row.peers[3] = (hp_agg_peer){HP_PEER_ALL, 1, 8, 8};
    row.peers[4] = (hp_agg_peer){4, 3, 0, 0};
    hp_agg a = {0};
    a.nranks = 1;
    a.nrows = 1;
    a.rows = &row;
    hp_summary_info si = {"app", NULL, 0, 10, 0};
    char *text = NULL;
    size_t len = 0;
    FILE *out = open_memstream(&text, &len);
    assert_non_null(out);
    hp_summary_print(out, &a, &si);
    fclose(out);
    assert_non_null(strstr(text, "hprof:   MPI_Sendrecv@app.c:7 (main):  with 3: 2 x, 4.0 KiB"
                                 "  from 2: 1 x, 2.0 KiB  to 1: 1 x, 1.0 KiB  all: 1 x, 16 B"
                                 "  peer 4: 3 x, 0 B\n"));
    assert_null(strstr(text, "->"));
    free(text);
}

/* A throttled node b under a measured node a, with a slow child c: b's
 * exclusive ticks are taken when it is throttled (its time less what c
 * had then), its time is c's (all of it) plus that exclusive time per
 * timed call over all its calls; fitted into a, only the estimated part
 * of b shrinks. */
static void test_throttle_estimate(void **state)
{
    (void)state;
    hp_thread *t = hp_thread_self();
    assert_non_null(t);
    uint32_t a = hp_cct_child(t, HP_ROOT_NODE, hp_site_dynamic(0x10, HP_KIND_CALL, "a", 0));
    uint32_t b = hp_cct_child(t, a, hp_site_dynamic(0x20, HP_KIND_CALL, "b", 0));
    uint32_t c = hp_cct_child(t, b, hp_site_dynamic(0x30, HP_KIND_CALL, "c", 0));
    hp_node *na = hp_node_at(t, a), *nb = hp_node_at(t, b), *nc = hp_node_at(t, c);
    nb->count = nb->timed = 2; /* timed: 100 ticks, 60 of them in c */
    nb->ticks = 100;
    nc->count = nc->timed = 1;
    nc->ticks = 60;
    hp_throttle_begin(nb);
    assert_true(nb->flags & HP_NODEF_THROTTLED);
    assert_int_equal(nb->excl, 40);
    nb->count = 10; /* 8 counted calls, during which c took 200 more */
    nc->count = nc->timed = 3;
    nc->ticks = 260;
    na->count = na->timed = 1;
    na->ticks = 1000;
    hp_node_times nt;
    assert_int_equal(hp_node_times_alloc(&nt, t->nnodes), 0);
    hp_throttle_estimate(t, 0, t->nnodes, &nt);
    assert_true(nt.time[b] == 40.0 / 2 * 10 + 260 && nt.est[b] == 20.0 * 8);
    assert_true(nt.time[a] == 1000 && nt.est[a] == 0 && nt.beneath[a] == 460);
    hp_throttle_fit(t, t->nnodes, &nt);
    assert_true(nt.time[b] == 460 && nt.time[c] == 260); /* fits: unchanged */
    nt.time[a] = 400;  /* b's estimate exceeds a by 60 */
    hp_throttle_fit(t, t->nnodes, &nt);
    assert_true(nt.time[b] == 400 && nt.est[b] == 100 && nt.time[c] == 260);
    nt.time[a] = 100;  /* more than b's estimate: its measured 40 + 260 stay */
    hp_throttle_fit(t, t->nnodes, &nt);
    assert_true(nt.time[b] == 300 && nt.est[b] == 0 && nt.time[c] == 260);
    hp_node_times_free(&nt);
}

int main(void)
{
    hp_process_no_exit_report();
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_clock_calibration),
        cmocka_unit_test(test_clock_short_start_refined_at_end),
        cmocka_unit_test(test_clock_monotonic_fallback),
        cmocka_unit_test(test_map_put_get_grow),
        cmocka_unit_test_setup(test_site_registry, fresh_records),
        cmocka_unit_test_setup(test_resolve_no_address, fresh_records),
        cmocka_unit_test_setup(test_cct_insert_lookup, fresh_records),
        cmocka_unit_test_setup(test_node_stats, fresh_records),
        cmocka_unit_test_setup(test_comm_accumulation, fresh_records),
        cmocka_unit_test_setup(test_comm_index_kept_by_request, fresh_records),
        cmocka_unit_test_setup(test_node_limit_overflow, fresh_records),
        cmocka_unit_test_setup(test_overflow_nested_timed_once, fresh_records),
        cmocka_unit_test_setup(test_reset_keeps_tree, fresh_records),
        cmocka_unit_test_setup(test_snapshot, fresh_records),
        cmocka_unit_test_setup(test_throttle_estimate, fresh_records),
        cmocka_unit_test_setup(test_task_parent_attribution, fresh_records),
        cmocka_unit_test_setup(test_task_trace_ring, fresh_records),
        cmocka_unit_test(test_config),
        cmocka_unit_test(test_config_edges),
        cmocka_unit_test(test_agg_merge_roundtrip),
        cmocka_unit_test(test_agg_mpi_share_threads),
        cmocka_unit_test(test_summary_peer_directions),
        cmocka_unit_test(test_omp_source_choice),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
