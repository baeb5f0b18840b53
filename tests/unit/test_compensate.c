/*
 * test_compensate.c - unit tests of intrusion compensation
 * (libhprof/codec/compensate.c) on hand-made trees with exact expected
 * values: event kinds by site, the in-window and the outside cost, a
 * throttled node (events beneath scaled by timed/count, or all of them
 * when its time is estimated), MPI and OpenMP
 * leaves, clamping at 0 and children scaled to fit their parent, min and
 * max scaled with the time, and a version 3 node record read as all timed.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>
#include "hp_compensate.h"

#define EPS 1e-12

/* got == want within eps (cmocka's float compare is single precision). */
static void near_at(double got, double want, double eps, int line)
{
    double d = got > want ? got - want : want - got;
    if (d > eps)
        fail_msg("line %d: got %.15g, want %.15g", line, got, want);
}
#define NEAR(got, want, eps) near_at((got), (want), (eps), __LINE__)

enum { S_ROOT, S_OVER, S_PROC_A, S_CALL_B, S_PROC_B, S_LOOP, S_CALL_C, S_OMP, S_MPI,
       S_HOOK_CALL, S_HOOK_PROC, NSITES };

static hp_site_rec sites[NSITES];

static void make_sites(void)
{
    static const struct { uint32_t kind, flags; } k[NSITES] = {
        {HP_KIND_ROOT, 0}, {HP_KIND_OVERFLOW, 0}, {HP_KIND_PROCEDURE, 0}, {HP_KIND_CALL, 0},
        {HP_KIND_PROCEDURE, 0}, {HP_KIND_LOOP, HP_SITEF_THROTTLED},
        {HP_KIND_CALL, HP_SITEF_THROTTLED}, {HP_KIND_OMP, HP_SITEF_DYNAMIC},
        {HP_KIND_COMM, HP_SITEF_DYNAMIC}, {HP_KIND_CALL, HP_SITEF_DYNAMIC},
        {HP_KIND_PROCEDURE, HP_SITEF_DYNAMIC | HP_SITEF_ENTRY}};
    memset(sites, 0, sizeof sites);
    for (uint32_t i = 0; i < NSITES; i++) {
        sites[i].id = i;
        sites[i].kind = k[i].kind;
        sites[i].flags = k[i].flags;
        sites[i].parent = sites[i].callee = HP_NONE;
    }
}

static hp_node_rec node(uint32_t id, uint32_t parent, uint32_t site, uint64_t count,
                        uint64_t timed, double time)
{
    hp_node_rec n = {id, parent, site, 0, count, time, time / (count ? count : 1) / 2,
                     time, timed};
    return n;
}

static void set_costs(hp_rank_data *rd)
{
    memset(rd, 0, sizeof *rd);
    make_sites();
    rd->sites = sites;
    rd->nsites = NSITES;
    rd->info.cost[HP_COST_PROBE_TIMED] = (hp_event_cost){1e-3, 4e-4};
    rd->info.cost[HP_COST_PROBE_COUNTED] = (hp_event_cost){2e-4, 0};
    rd->info.cost[HP_COST_HOOK_TIMED] = (hp_event_cost){2e-3, 1e-3};
    rd->info.cost[HP_COST_MPI] = (hp_event_cost){5e-4, 1e-4};
    rd->info.cost[HP_COST_OMP] = (hp_event_cost){3e-4, 1e-4};
    rd->info.cost[HP_COST_PROBE_FOLDED] = (hp_event_cost){1e-4, 0};
}

static void test_kinds(void **state)
{
    (void)state;
    make_sites();
    assert_int_equal(hp_cost_kind_of(&sites[S_ROOT], 1), HP_COST_KINDS);
    assert_int_equal(hp_cost_kind_of(&sites[S_PROC_A], 1), HP_COST_PROBE_TIMED);
    assert_int_equal(hp_cost_kind_of(&sites[S_LOOP], 0), HP_COST_PROBE_COUNTED);
    hp_site_rec leaf = sites[S_LOOP];
    leaf.flags |= HP_SITEF_LEAF;
    assert_int_equal(hp_cost_kind_of(&leaf, 0), HP_COST_PROBE_LEAF);
    assert_int_equal(hp_cost_kind_of(&leaf, 1), HP_COST_PROBE_TIMED);
    assert_string_equal(hp_cost_kind_name(HP_COST_PROBE_LEAF), "probe leaf");
    assert_int_equal(hp_cost_kind_of(&sites[S_OMP], 0), HP_COST_OMP);
    assert_int_equal(hp_cost_kind_of(&sites[S_MPI], 1), HP_COST_MPI);
    assert_int_equal(hp_cost_kind_of(&sites[S_HOOK_CALL], 1), HP_COST_HOOK_TIMED);
    assert_int_equal(hp_cost_kind_of(&sites[S_HOOK_CALL], 0), HP_COST_HOOK_COUNTED);
    assert_int_equal(hp_cost_kind_of(&sites[S_HOOK_PROC], 1), HP_COST_KINDS);
    /* a call path's frame (HPROF_CALLPATH): its calls are the MPI calls
     * below it, costed there; a dynamic call site it is not a hook pair */
    hp_site_rec frame = sites[S_HOOK_CALL];
    frame.flags |= HP_SITEF_FRAME;
    assert_int_equal(hp_cost_kind_of(&frame, 1), HP_COST_KINDS);
    assert_int_equal(hp_cost_kind_of(&frame, 0), HP_COST_KINDS);
    assert_string_equal(hp_cost_kind_name(HP_COST_PROBE_TIMED), "probe timed");
    assert_null(hp_cost_kind_name(HP_COST_KINDS));
}

/* root
 *  1 procedure A           1 call            raw 1.0
 *     2 call B           100 calls            raw 0.5
 *        3 procedure B   100 calls            raw 0.4
 *     4 loop (throttled)  10 calls, 4 timed   raw 0.2
 *        5 call C       1000 calls, 0 timed   raw 0
 *     6 omp barrier        2 calls            raw 0.05
 *     7 MPI call           3 calls            raw 0.03 */
static void test_tree(void **state)
{
    (void)state;
    hp_rank_data rd;
    set_costs(&rd);
    hp_node_rec nodes[] = {
        node(0, HP_NONE, S_ROOT, 0, 0, 10.0), node(1, 0, S_PROC_A, 1, 1, 1.0),
        node(2, 1, S_CALL_B, 100, 100, 0.5), node(3, 2, S_PROC_B, 100, 100, 0.4),
        node(4, 1, S_LOOP, 10, 4, 0.2),      node(5, 4, S_CALL_C, 1000, 0, 0.0),
        node(6, 1, S_OMP, 2, 2, 0.05),       node(7, 1, S_MPI, 3, 3, 0.03)};
    rd.nodes = nodes;
    rd.nnodes = sizeof nodes / sizeof nodes[0];
    double t[8], mn[8], mx[8];
    hp_comp_stats st;
    assert_int_equal(hp_compensate(&rd, t, mn, mx, &st), 0);
    NEAR(t[0], 10.0, EPS);                  /* a root keeps its time */
    NEAR(t[5], 0.0, EPS);                   /* counted only: no time */
    /* 0.2 - 4 x 4e-4 - (4/10) x (1000 x 2e-4) */
    NEAR(t[4], 0.1184, EPS);
    NEAR(t[3], 0.4 - 100 * 4e-4, EPS);      /* 0.36 */
    NEAR(t[2], 0.5 - 100 * 4e-4 - 100 * 1e-3, EPS); /* 0.36 */
    NEAR(t[6], 0.05 - 2 * 1e-4, EPS);
    NEAR(t[7], 0.03 - 3 * 1e-4, EPS);
    /* beneath A: (0.1 + 0.1) + (4e-3 + 1.2e-3 + 0.2) + 6e-4 + 1.5e-3 = 0.4073 */
    NEAR(t[1], 1.0 - 4e-4 - 0.4073, EPS);
    NEAR(st.overhead, 1e-3 + 0.4073, EPS);
    NEAR(st.overhead_total, 1e-3 + 0.4073, EPS);
    assert_int_equal(st.clamped_zero, 0);
    assert_int_equal(st.clamped_fit, 0);
    /* min and max scale with the time: procedure B 0.36 / 0.4 */
    NEAR(mx[3], 0.4 * 0.9, EPS);
    NEAR(mn[3], 0.002 * 0.9, EPS);
}

/* The same throttled loop written with its time estimated (site flag
 * HP_SITEF_ESTIMATED): its raw time holds everything beneath it over all
 * 10 calls, so all of the events beneath are taken out (f = 1), and the
 * inside cost of a timed call for each of its 10 calls (the estimate
 * extends the timed calls' mean, that cost included, to the others). */
/* The compensated time of the loop above, with or without the flag. */
static double estimated_loop(uint32_t flag)
{
    hp_rank_data rd;
    set_costs(&rd);
    sites[S_LOOP].flags |= flag;
    hp_node_rec tree[] = {node(0, HP_NONE, S_ROOT, 0, 0, 10.0), node(1, 0, S_PROC_A, 1, 1, 1.0),
                          node(2, 1, S_LOOP, 10, 4, 0.5), node(3, 2, S_CALL_C, 1000, 0, 0.0)};
    double t[4], mn[4], mx[4];
    rd.nodes = tree;
    rd.nnodes = 4;
    assert_int_equal(hp_compensate(&rd, t, mn, mx, NULL), 0);
    return t[2];
}

static void test_estimated(void **state)
{
    (void)state;
    /* 0.5 - 10 x 4e-4 - 1 x (1000 x 2e-4) */
    NEAR(estimated_loop(HP_SITEF_ESTIMATED), 0.5 - 10 * 4e-4 - 0.2, EPS);
    /* without the flag: 0.5 - 4 x 4e-4 - (4/10) x 0.2 */
    NEAR(estimated_loop(0), 0.5 - 4 * 4e-4 - 0.4 * 0.2, EPS);
}

/* Recursion: a procedure of a site never throttled, entered 50 times, 1
 * of them timed (the outermost), the 49 others folded into it; its call
 * statement inside likewise (49 calls, 1 timed). */
static void test_folded(void **state)
{
    (void)state;
    hp_rank_data rd;
    set_costs(&rd);
    hp_node_rec nodes[] = {node(0, HP_NONE, S_ROOT, 0, 0, 1.0),
                           node(1, 0, S_PROC_A, 50, 1, 0.5),
                           node(2, 1, S_CALL_B, 49, 1, 0.4)};
    rd.nodes = nodes;
    rd.nnodes = 3;
    double t[3], mn[3], mx[3];
    hp_comp_stats st;
    assert_int_equal(hp_compensate(&rd, t, mn, mx, &st), 0);
    NEAR(t[2], 0.4 - 4e-4, EPS);
    /* 0.5 - 4e-4 - (1e-3 + 48 x 1e-4): f = 1, not 1/50 (not throttled) */
    NEAR(t[1], 0.5 - 4e-4 - (1e-3 + 48 * 1e-4), EPS);
    NEAR(st.overhead, 1e-3 + 49 * 1e-4 + 1e-3 + 48 * 1e-4, EPS);
}

/* A node compensated below 0 is 0 and what it holds scales to 0; children
 * compensated to more than their parent are scaled down to fit it. */
static void test_clamps(void **state)
{
    (void)state;
    hp_rank_data rd;
    set_costs(&rd);
    hp_node_rec nodes[] = {
        node(0, HP_NONE, S_ROOT, 0, 0, 1.0),
        node(1, 0, S_PROC_A, 1, 1, 0.1),    /* 0.1 - 4e-4 - 1e-3 = 0.0986 */
        node(2, 1, S_CALL_B, 1, 1, 0.1),    /* 0.0996 > 0.0986: scaled to it */
        node(3, 0, S_PROC_B, 1, 1, 0.0003), /* 0.0003 - 4e-4 - 1e-3 < 0 */
        node(4, 3, S_CALL_B, 1, 1, 0.0002), /* held by a node of time 0 */
        node(5, 4, S_OMP, 1, 1, 0.0001)};   /* 0.0001 - 1e-4 = 0: no clamp */
    rd.nodes = nodes;
    rd.nnodes = sizeof nodes / sizeof nodes[0];
    double t[6], mn[6], mx[6];
    hp_comp_stats st;
    assert_int_equal(hp_compensate(&rd, t, mn, mx, &st), 0);
    NEAR(t[1], 0.0986, EPS);
    NEAR(t[2], 0.0986, EPS);
    NEAR(mx[2], 0.0986, EPS);
    NEAR(t[3], 0.0, EPS);
    NEAR(t[4], 0.0, EPS);
    NEAR(t[5], 0.0, EPS);
    assert_int_equal(st.clamped_zero, 2);   /* nodes 3 and 4 */
    assert_int_equal(st.clamped_fit, 1);    /* node 1 */
}

/* Without costs (a version 2-3 file) nothing changes, not even children
 * that exceed their parent as measured; a v3 node record reads as all
 * calls timed. */
static void test_no_costs(void **state)
{
    (void)state;
    hp_rank_data rd;
    set_costs(&rd);
    memset(rd.info.cost, 0, sizeof rd.info.cost);
    hp_node_rec nodes[] = {node(0, HP_NONE, S_ROOT, 0, 0, 1.0), node(1, 0, S_PROC_A, 5, 5, 0.5),
                           node(2, 1, S_CALL_B, 7, 7, 0.25)};
    rd.nodes = nodes;
    rd.nnodes = 3;
    assert_int_equal(hp_compensate_in_place(&rd, NULL), 0);
    NEAR(nodes[1].time, 0.5, 0);
    NEAR(nodes[2].time, 0.25, 0);
    /* children over their parent as measured stay so (the checker's to see) */
    nodes[2].time = 0.75;
    hp_comp_stats st;
    assert_int_equal(hp_compensate_in_place(&rd, &st), 0);
    NEAR(nodes[2].time, 0.75, 0);
    assert_int_equal(st.clamped_fit, 0);

    unsigned char rec[HP_NODE_REC_LEN];
    hp_node_rec in = node(4, 2, S_LOOP, 9, 3, 0.125), out;
    hp_node_rec_put(rec, &in);
    hp_node_rec_get(rec, &out);
    assert_int_equal(out.timed, 3);
    assert_int_equal(out.count, 9);
    hp_node_rec_get_v3(rec, &out);
    assert_int_equal(out.timed, 9);
    NEAR(out.time, 0.125, 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_kinds),
        cmocka_unit_test(test_tree),
        cmocka_unit_test(test_estimated),
        cmocka_unit_test(test_clamps),
        cmocka_unit_test(test_folded),
        cmocka_unit_test(test_no_costs),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
