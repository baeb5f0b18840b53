/*
 * test_probe.c - cmocka tests of the tier 1/2 runtime without MPI: unit
 * registration, probes, recursion folding (direct and mutual), throttling,
 * HPROF_FILTER rules, communication-statement context, frames skipped by
 * longjmp and the -finstrument-functions hooks.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <math.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>
#include "hp_clock.h"
#include "hp_event.h"
#include "hp_filter.h"
#include "hp_process.h"
#include "hp_runtime.h"
#include "hp_site.h"
#include "hp_snapshot.h"
#include "hprof.h"
#include "hprof_probe.h"
#include "tree_util.h"

void __cyg_profile_func_enter(void *fn, void *call_site);
void __cyg_profile_func_exit(void *fn, void *call_site);

enum { FIB, FIB_CALL, EVEN, ODD, EVEN_CALL, ODD_CALL, LEAF, LOOP, COMM, SKIPPED, TINY, TINY_LOOP,
       NSITES };

static const hprof_site_info sites[NSITES] = {
    [FIB] = {HPROF_SITE_PROCEDURE, "fib", "", 10, 14, -1},
    [FIB_CALL] = {HPROF_SITE_CALL, "fib", "fib", 12, 12, FIB},
    [EVEN] = {HPROF_SITE_PROCEDURE, "even", "", 20, 22, -1},
    [ODD] = {HPROF_SITE_PROCEDURE, "odd", "", 30, 32, -1},
    [EVEN_CALL] = {HPROF_SITE_CALL, "odd", "even", 21, 21, EVEN},
    [ODD_CALL] = {HPROF_SITE_CALL, "even", "odd", 31, 31, ODD},
    [LEAF] = {HPROF_SITE_PROCEDURE, "leaf", "", 40, 41, -1},
    [LOOP] = {HPROF_SITE_LOOP, "for", "leaf", 40, 41, LEAF},
    [COMM] = {HPROF_SITE_COMM, "MPI_Send", "leaf", 41, 41, LOOP},
    [SKIPPED] = {HPROF_SITE_PROCEDURE, "helper_skip", "", 50, 51, -1},
    /* left unprobed by the instrumenter's policy */
    [TINY] = {HPROF_SITE_PROCEDURE, "tiny", "", 60, 62, -1, HPROF_SITEINFO_UNPROBED},
    [TINY_LOOP] = {HPROF_SITE_LOOP, "for", "tiny", 61, 61, TINY, HPROF_SITEINFO_UNPROBED},
};
static unsigned ids[NSITES];
/* Under AddressSanitizer (tests/sanitize.sh) the first allocations of a
 * probe, made before its clock is read, take a good part of a short run:
 * lower bounds on measured times are checked in normal builds only. */
#ifdef __SANITIZE_ADDRESS__
#define TIMING_CHECKS 0
#else
#define TIMING_CHECKS 1
#endif

static hprof_unit unit = {"/src/probe_test.c", NSITES, sites, ids, 0};

static hp_node *node_of(unsigned index)
{
    hp_thread *t = hp_thread_self();
    for (uint32_t i = 0; i < t->nnodes; i++)
        if (hp_node_at(t, i)->site == ids[index])
            return hp_node_at(t, i);
    return NULL;
}

static unsigned nodes_of(unsigned index)
{
    return tree_nodes_of_site(ids[index]);
}

static int fib(int n)
{
    hprof_frame f __attribute__((cleanup(hprof_exit)));
    hprof_enter(&f, &unit, FIB);
    if (n < 2)
        return n;
    int a, b;
    {
        hprof_frame c __attribute__((cleanup(hprof_exit)));
        hprof_enter(&c, &unit, FIB_CALL);
        a = fib(n - 1);
    }
    {
        hprof_frame c __attribute__((cleanup(hprof_exit)));
        hprof_enter(&c, &unit, FIB_CALL);
        b = fib(n - 2);
    }
    return a + b;
}

static int odd(int n);

static int even(int n)
{
    hprof_frame f __attribute__((cleanup(hprof_exit)));
    hprof_enter(&f, &unit, EVEN);
    if (n == 0)
        return 1;
    hprof_frame c __attribute__((cleanup(hprof_exit)));
    hprof_enter(&c, &unit, EVEN_CALL);
    return odd(n - 1);
}

static int odd(int n)
{
    hprof_frame f __attribute__((cleanup(hprof_exit)));
    hprof_enter(&f, &unit, ODD);
    if (n == 0)
        return 0;
    hprof_frame c __attribute__((cleanup(hprof_exit)));
    hprof_enter(&c, &unit, ODD_CALL);
    return even(n - 1);
}

static void test_registration(void **state)
{
    (void)state;
    hprof_register_unit(&unit);
    hprof_register_unit(&unit); /* idempotent */
    assert_int_equal(unit.registered, 1);
    const hp_site *loop = hp_site_get(ids[LOOP]);
    assert_int_equal(loop->kind, HP_KIND_LOOP);
    assert_int_equal(loop->parent, ids[LEAF]);
    assert_string_equal(loop->file, "/src/probe_test.c");
    assert_int_equal(hp_site_get(ids[COMM])->parent, ids[LOOP]);
    assert_int_equal(hp_site_get(ids[FIB])->parent, HP_NONE);
}

static void test_direct_recursion_folded(void **state)
{
    (void)state;
    uint64_t t0 = hp_monotonic_ns();
    assert_int_equal(fib(20), 6765);
    double wall = (double)(hp_monotonic_ns() - t0) / 1e9;
    /* fib(20) makes 21891 calls and 21890 recursive call statements. */
    assert_int_equal(nodes_of(FIB), 1);
    assert_int_equal(nodes_of(FIB_CALL), 1);
    assert_int_equal(node_of(FIB)->count, 21891);
    assert_int_equal(node_of(FIB_CALL)->count, 21890);
    /* Only the outermost activation is timed: its time is the wall time. */
    assert_int_equal(node_of(FIB)->timed, 1);
    double t = hp_ticks_to_sec(node_of(FIB)->ticks);
    assert_true(t <= wall);
    if (TIMING_CHECKS)
        assert_true(t > wall * 0.98 - 20e-6);
    assert_int_equal(hp_thread_self()->current, HP_ROOT_NODE);
}

static void test_mutual_recursion_folded(void **state)
{
    (void)state;
    assert_int_equal(even(101), 0);
    assert_int_equal(nodes_of(EVEN), 1);
    assert_int_equal(nodes_of(ODD), 1);
    assert_int_equal(node_of(EVEN)->count, 51); /* even(101), even(99), ..., even(1) */
    assert_int_equal(node_of(ODD)->count, 51);
    assert_int_equal(node_of(EVEN)->timed, 1);
    assert_int_equal(node_of(ODD)->timed, 1);
    assert_true(node_of(ODD)->ticks <= node_of(EVEN)->ticks);
}

static void leaf_once(void)
{
    hprof_frame f __attribute__((cleanup(hprof_exit)));
    hprof_enter(&f, &unit, LEAF);
}

static void test_throttling(void **state)
{
    (void)state;
    /* Throttle after 1000 calls with a mean below one second. */
    hp_throttle_set(1000, (uint64_t)hp_clock_ticks_per_sec());
    for (int i = 0; i < 5000; i++)
        leaf_once();
    hp_node *n = node_of(LEAF);
    assert_int_equal(n->count, 5000);
    assert_int_equal(n->timed, 1000);
    assert_true(n->flags & HP_NODEF_THROTTLED);
    hp_rank_data rd;
    memset(&rd, 0, sizeof rd);
    assert_int_equal(hp_snapshot(&rd, 0, hp_ticks()), 0);
    assert_true(rd.sites[ids[LEAF]].flags & HP_SITEF_THROTTLED);
    assert_true(rd.sites[ids[LEAF]].flags & HP_SITEF_ESTIMATED);
    /* a leaf: all of its timed calls' time is its own (excl), and its
     * time is that at the mean of the timed calls for every call */
    assert_int_equal(n->excl, n->ticks);
    double want = hp_ticks_to_sec(n->ticks) * 5000.0 / 1000.0;
    for (uint32_t i = 0; i < rd.nnodes; i++)
        if (rd.nodes[i].site == ids[LEAF]) { /* exact count, estimated time */
            assert_int_equal(rd.nodes[i].count, 5000);
            assert_true(fabs(rd.nodes[i].time - want) <= 1e-9 * want + 1e-12);
        }
    hp_rank_data_free(&rd);
}

static void test_no_throttling_when_slow(void **state)
{
    (void)state;
    hp_throttle_set(1000, 1); /* mean must stay below one tick: never */
    for (int i = 0; i < 3000; i++)
        leaf_once();
    assert_int_equal(node_of(LEAF)->timed, 3000);
    assert_false(node_of(LEAF)->flags & HP_NODEF_THROTTLED);
}

static void test_comm_statement_context(void **state)
{
    (void)state;
    hp_thread *t = hp_thread_self();
    hprof_frame p, l, c;
    hprof_enter(&p, &unit, LEAF);
    hprof_enter(&l, &unit, LOOP);
    assert_int_equal(t->comm_ctx, HP_NO_NODE);
    hprof_enter(&c, &unit, COMM);
    assert_int_equal(t->comm_ctx, t->current);
    assert_int_equal(hp_node_at(t, t->current)->site, ids[COMM]);
    hprof_exit(&c);
    assert_int_equal(t->comm_ctx, HP_NO_NODE);
    hprof_exit(&l);
    hprof_exit(&p);
    /* leaf -> loop -> comm nesting in the tree */
    hp_node *comm = node_of(COMM);
    assert_int_equal(hp_node_at(t, comm->parent)->site, ids[LOOP]);
    assert_int_equal(hp_node_at(t, hp_node_at(t, comm->parent)->parent)->site, ids[LEAF]);
}

static void test_filter_excludes_at_run_time(void **state)
{
    (void)state;
    hprof_frame f;
    int flagged = 0;
    /* The site is registered (the static tables stay complete) but
     * flagged, and its probes get no id. */
    for (uint32_t id = 0; id < hp_site_count(); id++) {
        const hp_site *s = hp_site_get(id);
        if (s->name && strcmp(s->name, "helper_skip") == 0)
            flagged = (s->flags & HP_SITEF_EXCLUDED) != 0;
    }
    assert_true(flagged);
    assert_int_equal(ids[SKIPPED], HP_NONE);
    assert_false(hp_site_get(ids[LEAF])->flags & HP_SITEF_EXCLUDED);
    hprof_enter(&f, &unit, SKIPPED);
    hprof_exit(&f);
    assert_int_equal(nodes_of(SKIPPED), 0);
}

/* The registered site named name of kind kind, or NULL. */
static const hp_site *site_named(const char *name, uint32_t kind, uint32_t *id)
{
    for (*id = 0; *id < hp_site_count(); ++*id) {
        const hp_site *s = hp_site_get(*id);
        if (s->name && s->kind == kind && strcmp(s->name, name) == 0)
            return s;
    }
    return NULL;
}

static void test_unprobed_sites_stay_in_table(void **state)
{
    (void)state;
    hprof_frame f;
    uint32_t tiny_id, loop_id;
    const hp_site *tiny = site_named("tiny", HP_KIND_PROCEDURE, &tiny_id);
    /* in the registry, flagged, with their static parent */
    assert_non_null(tiny);
    assert_true(tiny->flags & HP_SITEF_UNPROBED);
    assert_false(tiny->flags & HP_SITEF_EXCLUDED);
    const hp_site *loop = NULL;
    for (loop_id = 0; loop_id < hp_site_count() && !loop; loop_id++)
        if (hp_site_get(loop_id)->kind == HP_KIND_LOOP && hp_site_get(loop_id)->line == 61)
            loop = hp_site_get(loop_id);
    assert_non_null(loop);
    assert_true(loop->flags & HP_SITEF_UNPROBED);
    assert_int_equal(loop->parent, tiny_id);
    /* their probes get no id and record nothing */
    assert_int_equal(ids[TINY], HP_NONE);
    assert_int_equal(ids[TINY_LOOP], HP_NONE);
    assert_false(hp_site_get(ids[LEAF])->flags & HP_SITEF_UNPROBED);
    hprof_enter(&f, &unit, TINY);
    hprof_exit(&f);
    hp_thread *t = hp_thread_self();
    for (uint32_t i = 0; i < t->nnodes; i++)
        assert_int_not_equal(hp_node_at(t, i)->site, tiny_id);
}

/* The node of the user region `name` on this thread and how many such
 * nodes there are. */
static hp_node *region_node(const char *name, unsigned *count, uint32_t *index)
{
    hp_thread *t = hp_thread_self();
    hp_node *found = NULL;
    *count = 0;
    for (uint32_t i = 0; i < t->nnodes; i++) {
        hp_site *s = hp_site_get(hp_node_at(t, i)->site);
        if (s->kind == HP_KIND_REGION && strcmp(s->name, name) == 0) {
            found = hp_node_at(t, i);
            *index = i;
            ++*count;
        }
    }
    return found;
}

static void test_user_regions(void **state)
{
    (void)state;
    char name[16];
    unsigned n;
    uint32_t outer_i = 0, inner_i = 0;

    hprof_region_end("nothing open");          /* ignored, one warning */
    hprof_region_begin("outer");
    for (int i = 0; i < 3; i++) {
        snprintf(name, sizeof name, "inner");  /* keyed by content, not pointer */
        hprof_region_begin(name);
        hprof_region_end("outer");             /* not the innermost: ignored */
        hprof_region_end("inner");
    }
    hprof_region_end("outer");
    hprof_region_end("outer");                 /* nothing open any more: ignored */
    /* collection off at the begin: nothing recorded, still paired */
    hprof_collect(0);
    hprof_region_begin("off");
    hprof_collect(1);
    hprof_region_end("off");

    hp_node *outer = region_node("outer", &n, &outer_i);
    assert_non_null(outer);
    assert_int_equal(n, 1);
    assert_int_equal(outer->count, 1);
    assert_int_equal(outer->parent, HP_ROOT_NODE);
    hp_node *inner = region_node("inner", &n, &inner_i);
    assert_non_null(inner);
    assert_int_equal(n, 1);
    assert_int_equal(inner->count, 3);
    assert_int_equal(inner->parent, outer_i);
    assert_true(outer->ticks >= inner->ticks);
    assert_null(region_node("off", &n, &inner_i));
    assert_null(region_node("nothing open", &n, &inner_i));
    assert_int_equal(hp_thread_self()->current, HP_ROOT_NODE);
}

static char filter_path[] = "/tmp/hprof-filter-XXXXXX";

static void test_filter_rules(void **state)
{
    (void)state;
    char err[256];
    const hp_filter *f = hp_runtime_filter();
    assert_non_null(f);
    assert_false(hp_filter_allows(f, "helper_skip", "a.c"));
    assert_true(hp_filter_allows(f, "helper_keep", "a.c")); /* later include wins */
    assert_false(hp_filter_allows(f, "main", "/x/vendor/z.c"));
    assert_true(hp_filter_allows(f, "main", "/x/src/z.c"));
    assert_true(hp_filter_allows(NULL, "anything", NULL));
    /* the function rules alone: include (explicit), exclude, none */
    assert_int_equal(hp_filter_names(f, "helper_keep"), 1);
    assert_int_equal(hp_filter_names(f, "helper_skip"), 0);
    assert_int_equal(hp_filter_names(f, "main"), -1);  /* only a file rule matches it */
    assert_int_equal(hp_filter_names(NULL, "main"), -1);
    FILE *bad = fopen(filter_path, "w");
    fputs("exclude function a\nskip function b\n", bad);
    fclose(bad);
    assert_null(hp_filter_load(filter_path, err, sizeof err));
    char want[512];
    snprintf(want, sizeof want, "%s:2: expected 'include|exclude function|file GLOB'"
             " or 'include|exclude loop|call FILE:LINE'", filter_path);
    assert_string_equal(err, want);
    /* loop rules: FILE:LINE, FILE a glob on the path or the bare name */
    FILE *loops = fopen(filter_path, "w");
    fputs("exclude loop solver.c:12\nexclude loop */lib/*.c:7\ninclude loop /a/solver.c:12\n"
          "exclude function solver\n", loops);
    fclose(loops);
    hp_filter *lf = hp_filter_load(filter_path, err, sizeof err);
    assert_non_null(lf);
    assert_false(hp_filter_allows_loop(lf, "/b/solver.c", 12));
    assert_true(hp_filter_allows_loop(lf, "/a/solver.c", 12));  /* later include wins */
    assert_true(hp_filter_allows_loop(lf, "/b/solver.c", 13));
    assert_false(hp_filter_allows_loop(lf, "/x/lib/m.c", 7));
    assert_true(hp_filter_allows_loop(lf, "m.c", 7));
    assert_true(hp_filter_allows_loop(NULL, "m.c", 7));
    assert_true(hp_filter_allows(lf, "main", "solver.c"));     /* loop rules name no function */
    assert_false(hp_filter_allows(lf, "solver", "solver.c"));
    hp_filter_free(lf);
    static const char *const bad_loops[] = {"exclude loop solver.c\n", "exclude loop :3\n",
                                            "exclude loop a.c:0\n", "exclude loop a.c:3x\n"};
    for (size_t i = 0; i < sizeof bad_loops / sizeof bad_loops[0]; i++) {
        loops = fopen(filter_path, "w");
        fputs(bad_loops[i], loops);
        fclose(loops);
        assert_null(hp_filter_load(filter_path, err, sizeof err));
    }
    assert_null(hp_filter_load("/nonexistent/filter", err, sizeof err));
    assert_string_equal(err, "/nonexistent/filter: No such file or directory");
}

/* Tier 1 hooks, with the addresses of real functions of this test. */
/* longjmp out of two probed frames (tests/nonlocal/run.sh has the whole
 * programs): the next probe at the level where execution continues closes
 * both, so the context, the folding state and the counts are right. */
static jmp_buf jump_back;

static __attribute__((noinline)) void leaf_that_throws(void)
{
    hprof_frame f __attribute__((cleanup(hprof_exit)));
    hprof_enter(&f, &unit, LEAF);
    longjmp(jump_back, 1);
}

static __attribute__((noinline)) void fib_that_calls_leaf(void)
{
    hprof_frame f __attribute__((cleanup(hprof_exit)));
    hprof_enter(&f, &unit, FIB);
    leaf_that_throws();
}

static __attribute__((noinline)) void protected_call(void)
{
    if (setjmp(jump_back) == 0)
        fib_that_calls_leaf();
}

static void test_longjmp_closes_skipped(void **state)
{
    (void)state;
    hp_thread *t = hp_thread_self();
    for (int i = 0; i < 2; i++) {
        hprof_frame p, c;
        hprof_enter(&p, &unit, EVEN);
        uint32_t even = t->current;
        protected_call();
        assert_int_equal(hp_node_at(t, t->current)->site, ids[LEAF]); /* not seen yet */
        hprof_enter(&c, &unit, EVEN_CALL);
        assert_int_equal(hp_node_at(t, t->current)->parent, even);
        hprof_exit(&c);
        assert_int_equal(t->current, even);
        hprof_exit(&p);
    }
    assert_int_equal(t->current, HP_ROOT_NODE);
    assert_int_equal(t->active[ids[FIB]].depth, 0);
    assert_int_equal(t->active[ids[LEAF]].depth, 0);
    assert_int_equal(node_of(FIB)->count, 2);
    assert_int_equal(node_of(FIB)->timed, 2);
    assert_int_equal(node_of(LEAF)->count, 2);
    assert_true(node_of(LEAF)->ticks <= node_of(FIB)->ticks);
    assert_int_equal(hp_node_at(t, node_of(LEAF)->parent)->site, ids[FIB]);
}

/* Calls the hooks the way an instrumented function does: fn is the
 * function that makes the hook calls (a hook made from elsewhere is one of
 * an inlined copy), its return address is stored in its own frame (where
 * the hook looks for it), and a recursive call is one frame deeper. */
static __attribute__((noinline)) void hooked_call(void *fn, char *ra, int depth)
{
    volatile uintptr_t slot = (uintptr_t)ra;
    __cyg_profile_func_enter(fn, (void *)slot);
    if (depth > 1)
        hooked_call(fn, ra + 8, depth - 1); /* direct recursion */
    __cyg_profile_func_exit(fn, (void *)slot);
}

static void test_cyg_hooks(void **state)
{
    (void)state;
    hp_thread *t = hp_thread_self();
    char *site_a = (char *)(uintptr_t)test_cyg_hooks + 16;
    void *fn = (void *)(uintptr_t)hooked_call;
    for (int i = 0; i < 3; i++)
        hooked_call(fn, site_a, 2);
    assert_int_equal(t->current, HP_ROOT_NODE);
    uint32_t call = hp_site_dynamic((uintptr_t)site_a, HP_KIND_CALL, "call", 0);
    uint32_t proc = hp_site_dynamic((uintptr_t)fn, HP_KIND_PROCEDURE, "procedure", 0);
    assert_int_equal(hp_site_get(call)->callee, proc);
    assert_true(hp_site_get(proc)->flags & HP_SITEF_ENTRY);
    uint32_t cn = hp_cct_child(t, HP_ROOT_NODE, call);
    uint32_t pn = hp_cct_child(t, cn, proc);
    assert_int_equal(hp_node_at(t, cn)->count, 3);
    assert_int_equal(hp_node_at(t, pn)->count, 6); /* 3 + 3 folded */
    assert_int_equal(hp_node_at(t, pn)->timed, 3);
}

/* Hooks of fn made from another function (hooked_call) are those of a
 * copy of fn inlined there: counted at a call site of the hook's own
 * address, flagged inlined (resolved to the inlined call's line), never at
 * the return address of the function they were inlined into. */
static void test_cyg_hooks_of_inlined_copy(void **state)
{
    (void)state;
    hp_thread *t = hp_thread_self();
    char *site_b = (char *)(uintptr_t)test_cyg_hooks_of_inlined_copy + 32;
    void *fn = (void *)(uintptr_t)leaf_once;
    for (int i = 0; i < 2; i++)
        hooked_call(fn, site_b, 1);
    assert_int_equal(t->current, HP_ROOT_NODE);
    uint32_t proc = hp_site_dynamic((uintptr_t)fn, HP_KIND_PROCEDURE, "procedure", 0);
    uint32_t call = HP_NONE, at_ra = 0;
    for (uint32_t n = 0; n < t->nnodes; n++) {
        const hp_site *s = hp_site_get(hp_node_at(t, n)->site);
        if (s->kind == HP_KIND_CALL && s->callee == proc)
            call = hp_node_at(t, n)->site;
        if (s->kind == HP_KIND_CALL && s->addr == (uintptr_t)site_b)
            at_ra++;
    }
    assert_int_not_equal(call, HP_NONE);
    assert_true(hp_site_get(call)->flags & HP_SITEF_INLINED);
    assert_int_equal(at_ra, 0);
    uint32_t cn = hp_cct_child(t, HP_ROOT_NODE, call);
    assert_int_equal(hp_node_at(t, cn)->count, 2);
    assert_int_equal(hp_node_at(t, hp_cct_child(t, cn, proc))->count, 2);
}

/* The runtime reads HPROF_FILTER once, in the library constructor, before
 * main: so main writes the rules and runs this program again with it set. */
static int rerun_with_filter(char **argv)
{
    int fd = mkstemp(filter_path);
    const char *rules = "# test rules\n"
                        "exclude function helper_*\n"
                        "include function helper_keep\n"
                        "exclude file */vendor/*\n";
    if (fd < 0 || write(fd, rules, strlen(rules)) < 0)
        return 1;
    close(fd);
    setenv("HPROF_FILTER", filter_path, 1);
    execv("/proc/self/exe", argv);
    return 1;
}

int main(int argc, char **argv)
{
    (void)argc;
    hp_process_no_exit_report();
    const char *given = getenv("HPROF_FILTER");
    if (!given)
        return rerun_with_filter(argv);
    snprintf(filter_path, sizeof filter_path, "%s", given);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_registration),
        cmocka_unit_test_setup(test_direct_recursion_folded, tree_fresh),
        cmocka_unit_test_setup(test_mutual_recursion_folded, tree_fresh),
        cmocka_unit_test_setup(test_throttling, tree_fresh),
        cmocka_unit_test_setup(test_no_throttling_when_slow, tree_fresh),
        cmocka_unit_test_setup(test_comm_statement_context, tree_fresh),
        cmocka_unit_test_setup(test_filter_excludes_at_run_time, tree_fresh),
        cmocka_unit_test(test_filter_rules),
        cmocka_unit_test_setup(test_unprobed_sites_stay_in_table, tree_fresh),
        cmocka_unit_test_setup(test_cyg_hooks, tree_fresh),
        cmocka_unit_test_setup(test_cyg_hooks_of_inlined_copy, tree_fresh),
        cmocka_unit_test_setup(test_longjmp_closes_skipped, tree_fresh),
        cmocka_unit_test_setup(test_user_regions, tree_fresh),
    };
    int rc = cmocka_run_group_tests(tests, NULL, NULL);
    unlink(filter_path);
    return rc;
}
