/*
 * calibrate.c - what each kind of event costs on this machine
 * (hp_calibrate.h).  One function per kind runs one event through the
 * kind's real code path; measure() runs it in batches on a scratch thread
 * record and keeps the cheapest batch:
 *   outside = the batch's clock span / events (what an enclosing node's
 *             time grows by per event),
 *   inside  = the ticks the event's own node gained / events (its timing
 *             window holds nothing of the program's here, so all of it is
 *             the measurement's own).
 * The scratch record is not in the thread registry and its sites are ids
 * seen only by it (its site cache answers for the dynamic ones, so the
 * site registry never hears of them): nothing reaches a profile.
 *
 * When a path changes (the tier-2 fast path, an OpenMP source), change
 * its function here; the enum hp_cost_kind names what each one stands for.
 */
#define HPROF_PROBE_WEAK /* the tier-2 probes as instrumented code runs them */
#include <assert.h>
#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include "hp_calibrate.h"
#include "hp_compensate.h"
#include "hp_event.h"
#include "hp_fast.h"
#include "hp_log.h"
#include "hp_site.h"
#include "hp_source.h"

#define BATCHES 5
#define PER_BATCH 200u   /* below any throttling threshold of calls */

hp_cost_ticks hp_event_cost_ticks[HP_COST_KINDS];

/* Site ids of the scratch record.  The tier-1 call site must be
 * HP_SITE_OVERFLOW: the hook links a call site to its callee in the
 * site registry, and skips exactly that id. */
enum {
    SITE_HOOK_PROC = HP_SITE_ROOT,
    SITE_HOOK_CALL = HP_SITE_OVERFLOW,
    SITE_PROBE = 2,
    SITE_MPI = 3,
    SITE_OMP = 4,
    SITE_PROBE_INNER = 5,
    SITE_PROBE_LEAF = 6
};

void __cyg_profile_func_enter(void *fn, void *call_site);
void __cyg_profile_func_exit(void *fn, void *call_site);

/* ------------------------------------------------- one event per kind */

/* Tier 2: a call of an instrumented function with an empty body: two
 * nested probe pairs, the call statement's and the procedure's (probes
 * come nested: a pair costs more between the clock reads of another), as
 * instrumented code runs them: inline once the sites are fast (hp_fast.h),
 * which a hot site is from its second call on. */
static const hprof_site_info probe_sites[3] = {
    {HPROF_SITE_CALL, "hprof calibration", "hprof calibration", 1, 1, -1, 0},
    {HPROF_SITE_PROCEDURE, "hprof calibration", "", 1, 1, -1, 0},
    {HPROF_SITE_LOOP, "for", "hprof calibration", 1, 1, -1, HPROF_SITEINFO_LEAF}};
static unsigned probe_ids[3] = {SITE_PROBE, SITE_PROBE_INNER, SITE_PROBE_LEAF};
static hprof_unit probe_unit = {"hprof calibration", 3, probe_sites, probe_ids, 1};

static __attribute__((noinline)) void one_probed_call(void)
{
    hprof_frame call, proc;
    hprof_probe_enter_in(&call, &probe_unit, probe_ids, 0);
    hprof_probe_enter_in(&proc, &probe_unit, probe_ids, 1);
    __asm__ volatile("" ::: "memory");
    hprof_probe_exit(&proc);
    hprof_probe_exit(&call);
}

/* The probes' own work is a short chain of loads and stores through the
 * thread's context (each probe reads what the one before it wrote), which
 * back to back is all latency but beside a body of real work overlaps with
 * it.  The tier-2 kinds' cost seen from outside is therefore measured as
 * what the pairs add to a short body of independent integer steps
 * (work_body; one_probed_work against one_work). */
#define STEP(x) ((x) = ((x) ^ ((x) >> 7)) + 0x9e3779b97f4a7c15ull)
static unsigned long long lanes[4] = {1, 2, 3, 4};

static inline __attribute__((always_inline)) void work_body(void)
{
    unsigned long long a = lanes[0], b = lanes[1], c = lanes[2], d = lanes[3];
    for (int r = 0; r < 8; r++) {
        STEP(a);
        STEP(b);
        STEP(c);
        STEP(d);
    }
    lanes[0] = a, lanes[1] = b, lanes[2] = c, lanes[3] = d;
}

static __attribute__((noinline)) void one_probed_work(void)
{
    hprof_frame call, proc;
    hprof_probe_enter_in(&call, &probe_unit, probe_ids, 0);
    hprof_probe_enter_in(&proc, &probe_unit, probe_ids, 1);
    work_body();
    hprof_probe_exit(&proc);
    hprof_probe_exit(&call);
}

/* A leaf site (a call-free loop, say) counted inline: one pair that
 * leaves the context alone. */
static __attribute__((noinline)) void one_leaf_pair(void)
{
    hprof_frame f;
    hprof_probe_enter_in(&f, &probe_unit, probe_ids, 2);
    __asm__ volatile("" ::: "memory");
    hprof_probe_exit(&f);
}

static __attribute__((noinline)) void one_leaf_work(void)
{
    hprof_frame f;
    hprof_probe_enter_in(&f, &probe_unit, probe_ids, 2);
    work_body();
    hprof_probe_exit(&f);
}

static __attribute__((noinline)) void one_work(void)
{
    work_body();
}

/* A recursive activation: the same site again while its outermost
 * activation (opened by the first call, closed by close_folding) is open,
 * folded into it (counted only). */
static hprof_frame folding_outer;
static int folding_open;

static __attribute__((noinline)) void one_folded_pair(void)
{
    hprof_frame f;
    if (__builtin_expect(!folding_open, 0)) {
        hprof_enter(&folding_outer, &probe_unit, 0);
        folding_open = 1;
    }
    hprof_enter(&f, &probe_unit, 0);
    __asm__ volatile("" ::: "memory");
    hprof_exit(&f);
}

static void close_folding(void)
{
    if (folding_open)
        hprof_exit(&folding_outer);
    folding_open = 0;
}

/* The first event of a dynamic kind from a call site on a scratch record
 * (scratch_serial counts them) puts its site in the record's site cache
 * (its key is the caller's return address): the site registry never sees
 * it.  The one_* functions below are not inlined, so each kind has one
 * call site. */
static unsigned scratch_serial;

static void seed_site(uint64_t key, uint32_t site)
{
    hp_thread *t = hp_tls_self;
    if (hp_event_site_cached(t, key) == HP_MAP_MISSING)
        hp_map_put(&t->site_cache, key, site);
}

/* Tier 1: what gcc's -finstrument-functions makes of an empty function. */
static __attribute__((noinline, no_instrument_function)) void hooked_function(void)
{
    uintptr_t ra = (uintptr_t)__builtin_return_address(0);
    static uintptr_t seeded;
    static unsigned seeded_in;
    if (__builtin_expect(ra != seeded || seeded_in != scratch_serial, 0)) {
        seed_site(hp_site_key(ra, HP_KIND_CALL), SITE_HOOK_CALL);
        seed_site(hp_site_key((uintptr_t)hooked_function, HP_KIND_PROCEDURE), SITE_HOOK_PROC);
        seeded = ra;
        seeded_in = scratch_serial;
    }
    __cyg_profile_func_enter((void *)hooked_function, (void *)ra);
    __asm__ volatile("" ::: "memory");
    __cyg_profile_func_exit((void *)hooked_function, (void *)ra);
}

static __attribute__((noinline)) void one_hook_pair(void)
{
    hooked_function();
}

/* An MPI wrapper's bookkeeping around its PMPI call (pmpi/wrappers.c: a
 * point-to-point call), the PMPI call left out. */
static __attribute__((noinline)) void mpi_wrapper(void)
{
    hp_thread *t = hp_thread_self();
    uintptr_t ra = (uintptr_t)__builtin_return_address(0);
    static uintptr_t seeded;
    static unsigned seeded_in;
    if (__builtin_expect(ra != seeded || seeded_in != scratch_serial, 0)) {
        seed_site(hp_site_key(ra, HP_KIND_COMM), SITE_MPI);
        seeded = ra;
        seeded_in = scratch_serial;
    }
    uint64_t t0 = hp_ticks();
    hp_event_call_begin(t, ra, 0, t0);
    __asm__ volatile("" ::: "memory");
    uint64_t dt = hp_ticks() - t0;
    hp_event_call_end(t);
    uint32_t node = hp_event_comm_statement(t);
    if (node == HP_NO_NODE)
        node = hp_event_site_node(t, ra, HP_KIND_COMM, "MPI_Send", 0);
    hp_event_time(t, node, dt);
    hp_event_comm(t, node, 0, 8, 0, dt, 0);
}

static __attribute__((noinline)) void one_mpi_call(void)
{
    mpi_wrapper();
}

/* An OpenMP hook's bookkeeping per construct event (the GOMP wrappers'
 * TIMED_VOID, hp_gomp.h: a barrier), the runtime's call left out. */
static __attribute__((noinline)) void omp_hook(void)
{
    hp_thread *t = hp_thread_self();
    uintptr_t ra = (uintptr_t)__builtin_return_address(0);
    uint64_t key = hp_site_key(ra, HP_KIND_OMP);
    static uintptr_t seeded;
    static unsigned seeded_in;
    if (__builtin_expect(ra != seeded || seeded_in != scratch_serial, 0)) {
        seed_site(key, SITE_OMP);
        seeded = ra;
        seeded_in = scratch_serial;
    }
    uint64_t mark = hp_event_wait_mark(t), t0 = hp_ticks();
    __asm__ volatile("" ::: "memory");
    uint64_t t1 = hp_ticks();
    hp_event_wait(t, hp_event_site_keyed(t, key, ra, HP_KIND_OMP, "barrier", 0), t1 - t0, mark);
}

static __attribute__((noinline)) void one_omp_event(void)
{
    omp_hook();
}

/* ---------------------------------------------------------- measuring */

typedef struct kind_path {
    uint32_t kind;
    void (*one)(void);
    unsigned events;     /* events of the kind in one run of `one` */
    uint32_t site;       /* the site of the node under the root it opens */
    uint32_t inner;      /* the site of the node it opens inside that one,
                            HP_NONE: none */
    int inside_inner;    /* 1: the inner node's window is an event's, 0:
                            the outer node's */
    int counted;         /* run with the nodes throttled (counted only): */
    int leaf;            /* as a leaf (hprof_probe_fast.leaf) */
    void (*with_work)(void); /* `one` around a body of work (NULL: none): */
    void (*work)(void);      /* the outside cost is what it adds to `work` */
} kind_path;

static const kind_path paths[] = {
    {HP_COST_PROBE_TIMED, one_probed_call, 2, SITE_PROBE, SITE_PROBE_INNER, 1, 0, 0,
     one_probed_work, one_work},
    {HP_COST_PROBE_COUNTED, one_probed_call, 2, SITE_PROBE, SITE_PROBE_INNER, 1, 1, 0,
     one_probed_work, one_work},
    {HP_COST_HOOK_TIMED, one_hook_pair, 1, SITE_HOOK_CALL, SITE_HOOK_PROC, 0, 0, 0, NULL, NULL},
    {HP_COST_HOOK_COUNTED, one_hook_pair, 1, SITE_HOOK_CALL, SITE_HOOK_PROC, 0, 1, 0, NULL,
     NULL},
    {HP_COST_MPI, one_mpi_call, 1, SITE_MPI, HP_NONE, 0, 0, 0, NULL, NULL},
    {HP_COST_OMP, one_omp_event, 1, SITE_OMP, HP_NONE, 0, 0, 0, NULL, NULL},
    {HP_COST_PROBE_FOLDED, one_folded_pair, 1, SITE_PROBE, HP_NONE, 0, 0, 0, NULL, NULL},
    {HP_COST_PROBE_LEAF, one_leaf_pair, 1, SITE_PROBE_LEAF, HP_NONE, 0, 1, 1, one_leaf_work,
     one_work},
};
#define NPATHS (sizeof paths / sizeof paths[0])
#define FIRST_HOOK 2   /* the two tier-1 kinds: measured at the end of the run */

/* A node's numbers start afresh; throttled when `counted` (a fast node
 * is then counted by the probes inline, as a leaf when `leaf`, else timed
 * by them).  The scratch sites are in no registry: their slots are set
 * here, not by hp_fast_counted. */
static void reset_node(hp_thread *t, hp_node *n, int counted, int leaf)
{
    n->count = n->timed = n->ticks = n->max = n->excl = 0;
    n->min = UINT64_MAX;
    n->flags = (n->flags & HP_NODEF_FAST) | (counted ? HP_NODEF_THROTTLED : 0);
    if (!(n->flags & HP_NODEF_FAST))
        return;
    hp_fast *f = &t->fast[n->site];
    f->count = counted ? &n->count : NULL;
    if (counted && leaf && f->parent != HP_NO_NODE) {
        f->leaf = f->parent;
        f->parent = HP_NO_NODE;
    }
}

/* The measuring loop's own cost per run of `one` (an indirect call of an
 * empty function), left out of every kind's outside cost. */
static __attribute__((noinline)) void one_nothing(void)
{
    __asm__ volatile("" ::: "memory");
}

static double loop_ticks(void (*one)(void))
{
    double best = HUGE_VAL;
    void (*volatile call)(void) = one;
    for (int b = 0; b < BATCHES; b++) {
        uint64_t t0 = hp_ticks();
        for (unsigned i = 0; i < PER_BATCH; i++)
            call();
        double per = (double)(hp_ticks() - t0) / PER_BATCH;
        best = per < best ? per : best;
    }
    return best;
}

static double baseline;

static hp_cost_ticks measure(hp_thread *t, const kind_path *p)
{
    hp_cost_ticks best = {HUGE_VAL, HUGE_VAL};
    p->one(); /* makes the nodes (and seeds the sites) */
    uint32_t node = hp_cct_child(t, HP_ROOT_NODE, p->site);
    hp_node *n = hp_node_at(t, node);
    hp_node *inner = p->inner == HP_NONE ? NULL : hp_node_at(t, hp_cct_child(t, node, p->inner));
    const hp_node *window = p->inside_inner ? inner : n;
    assert(window);
    for (int b = 0; b < BATCHES; b++) {
        reset_node(t, n, p->counted, p->leaf);
        if (inner)
            reset_node(t, inner, p->counted, p->leaf);
        void (*volatile one)(void) = p->one;
        uint64_t t0 = hp_ticks();
        for (unsigned i = 0; i < PER_BATCH; i++)
            one();
        uint64_t t1 = hp_ticks();
        double span = (double)(t1 - t0) / PER_BATCH - baseline;
        double outside = (span > 0 ? span : 0) / p->events;
        double inside = (double)window->ticks / PER_BATCH;
        if (n->count != PER_BATCH)
            return (hp_cost_ticks){0, 0}; /* the path did not record: no estimate */
        best.outside = outside < best.outside ? outside : best.outside;
        best.inside = inside < best.inside ? inside : best.inside;
    }
    if (p->with_work) {
        double added = (loop_ticks(p->with_work) - loop_ticks(p->work)) / p->events;
        if (added > 0 && added < best.outside) /* <= 0: noise, keep the back-to-back cost */
            best.outside = added;
    }
    if (best.inside > best.outside)
        best.inside = best.outside;
    return best;
}

/* Measures paths[from..to) on the calling thread, which must have no
 * records of its own (hp_tls_self NULL): its probe and hook frame stacks
 * are the scratch record's meanwhile, and freed after. */
static void measure_here(size_t from, size_t to)
{
    hp_thread *t = hp_thread_scratch_new();
    assert(hp_tls_self == NULL);
    if (!t)
        return;
    hp_tls_set(t);
    scratch_serial++;
    baseline = loop_ticks(one_nothing);
    for (size_t i = from; i < to; i++)
        hp_event_cost_ticks[paths[i].kind] = measure(t, &paths[i]);
    close_folding();
    hp_sources_thread_end(t); /* the probes' and hooks' frame stacks */
    hp_tls_set(NULL);
    hp_thread_scratch_free(t);
}

static void *measure_all_thread(void *unused)
{
    (void)unused;
    measure_here(0, FIRST_HOOK);
    measure_here(FIRST_HOOK + 2, NPATHS);
    return NULL;
}

static void log_costs(uint64_t took)
{
    hp_event_cost c[HP_COST_KINDS];
    if (hp_log_verbose() < 1)
        return;
    hp_info("calibration of event costs took %.0f us", hp_ticks_to_sec(took) * 1e6);
    hp_calibrated_costs(c);
    for (uint32_t k = 0; k < HP_COST_KINDS; k++)
        hp_info("calibrated cost of %s: %.1f ns per event, %.1f ns of it inside its node",
                hp_cost_kind_name(k), c[k].outside * 1e9, c[k].inside * 1e9);
}

void hp_calibrate(void)
{
    pthread_t th;
    uint64_t t0 = hp_ticks();
    if (hp_tls_self == NULL) {
        measure_here(0, FIRST_HOOK);
        measure_here(FIRST_HOOK + 2, NPATHS);
    } else if (pthread_create(&th, NULL, measure_all_thread, NULL) == 0) {
        pthread_join(th, NULL);
    }
    log_costs(hp_ticks() - t0);
}

/* Did the tier-1 hooks record (a procedure keyed by its entry)? */
static int hooks_used(void)
{
    uint32_t n = hp_site_count();
    for (uint32_t i = 0; i < n; i++) {
        const hp_site *s = hp_site_get(i);
        if (s->kind == HP_KIND_PROCEDURE && (s->flags & HP_SITEF_ENTRY))
            return 1;
    }
    return 0;
}

void hp_calibrate_hooks(hp_event_cost costs[HP_COST_KINDS])
{
    uint64_t t0 = hp_ticks();
    if (hp_event_cost_ticks[HP_COST_HOOK_TIMED].outside > 0 || !hooks_used())
        return;
    hp_thread *self = hp_tls_self;
    hp_tls_set(NULL);
    measure_here(FIRST_HOOK, FIRST_HOOK + 2);
    hp_tls_set(self);
    log_costs(hp_ticks() - t0);
    hp_calibrated_costs(costs);
}

static void *measure_hooks_thread(void *unused)
{
    (void)unused;
    measure_here(FIRST_HOOK, FIRST_HOOK + 2);
    return NULL;
}

void hp_calibrate_hooks_early(void)
{
    pthread_t th;
    uint64_t t0 = hp_ticks();
    if (hp_event_cost_ticks[HP_COST_HOOK_TIMED].outside > 0 || !hooks_used())
        return;
    if (pthread_create(&th, NULL, measure_hooks_thread, NULL) == 0)
        pthread_join(th, NULL);
    log_costs(hp_ticks() - t0);
}

void hp_calibrated_costs(hp_event_cost out[HP_COST_KINDS])
{
    double rate = hp_clock_ticks_per_sec();
    for (uint32_t k = 0; k < HP_COST_KINDS; k++) {
        out[k].outside = rate > 0 ? hp_event_cost_ticks[k].outside / rate : 0;
        out[k].inside = rate > 0 ? hp_event_cost_ticks[k].inside / rate : 0;
    }
}

/* ---- what a thread's events cost so far (hp_calibrated_charge) ---- */

static int charge_cover(hp_charge_cache *c, const hp_thread *t)
{
    if (c->thread != t)
        c->n = 0;
    c->thread = t;
    if (t->nnodes > c->cap) {
        uint32_t cap = t->nnodes * 2;
        unsigned char (*k)[2] = realloc(c->kinds, cap * sizeof *k);
        if (!k)
            return -1;
        c->kinds = k;
        c->cap = cap;
    }
    for (; c->n < t->nnodes; c->n++) {
        const hp_site *s = hp_site_get(hp_node_at(t, c->n)->site);
        hp_site_rec rec = {.kind = s->kind, .flags = s->flags};
        c->kinds[c->n][0] = (unsigned char)hp_cost_kind_of(&rec, 1);
        c->kinds[c->n][1] = (unsigned char)hp_cost_kind_of(&rec, 0);
    }
    return 0;
}

static double node_charge(const hp_node *n, const unsigned char k[2])
{
    uint32_t timed_kind = k[0], counted_kind = k[1];
    if (counted_kind == HP_COST_PROBE_COUNTED && !(n->flags & HP_NODEF_THROTTLED))
        counted_kind = HP_COST_PROBE_FOLDED;
    uint64_t timed = n->timed <= n->count ? n->timed : n->count;
    double c = 0;
    if (timed_kind < HP_COST_KINDS)
        c += (double)timed * hp_event_cost_ticks[timed_kind].outside;
    if (counted_kind < HP_COST_KINDS)
        c += (double)(n->count - timed) * hp_event_cost_ticks[counted_kind].outside;
    return c;
}

uint64_t hp_calibrated_charge(hp_charge_cache *c)
{
    const hp_thread *t = hp_tls_self;
    double sum = 0;
    if (!t || charge_cover(c, t) != 0)
        return 0;
    for (uint32_t i = 1; i < t->nnodes; i++)
        sum += node_charge(hp_node_at(t, i), c->kinds[i]);
    return (uint64_t)sum;
}
