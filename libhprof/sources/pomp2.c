/*
 * pomp2.c - the POMP2 interface of OPARI2 (Debian's opari2 2.0.7:
 * pomp2_lib.h, pomp2_user_lib.h), so code instrumented by `opari2` and
 * linked with the init file of `opari2-config --create-pomp2-regions` runs
 * against -lhprof and feeds the OpenMP records of the other event sources
 * (hp_omp.h) - and nothing else: every POMP2 event is a notification, only
 * the lock wrappers (POMP2_Set_lock, ...) also act, on the real omp_*_lock
 * functions of the OpenMP runtime (dlsym RTLD_NEXT, past gomp.c's own).
 *
 * Regions: a POMP2 region handle points to a p2_region made from its ctc
 * string ("84*regionType=critical*sscl=FILE:FIRST:LAST*escl=FILE:...**"),
 * by POMP2_Assign_handle, called for every region by the init file's
 * POMP2_Init_regions (run at the first POMP2 event), or lazily from the
 * ctc string an enter event carries.  Its sites are static sites
 * (hp_site_add_static), one per construct name (hp_omp_names), at the
 * pragma's file and line: no debug information is needed.
 *
 * What is recorded (per thread, under the calling context of the region):
 *  - Parallel_fork .. Parallel_join on the master, Parallel_begin ..
 *    Parallel_end on every thread of the team: the "parallel" node, opened
 *    under the forking thread's context (hp_event_team_begin); "fork" (fork
 *    until the master's begin) and "join" (master's end until join) beside
 *    it on the master.  The team's context goes from the master to the
 *    workers through the region: p2_region.team for a region forked
 *    outside any parallel region, else a small list keyed by the forking
 *    thread's position in the enclosing teams (omp_get_ancestor_thread_num
 *    at every level), so one level of nesting or more, with the same
 *    region forked by several threads at once, is kept apart.
 *  - Implicit_barrier_enter/exit: "implicit barrier" (opari2 makes every
 *    implicit barrier an explicit one after a nowait); Barrier_enter/exit:
 *    "barrier".
 *  - Critical_enter..begin: "critical wait"; begin..end: "critical".
 *  - POMP2_Set_lock/Test_lock/Unset_lock and the nest variants: "lock
 *    wait" (time in set) and "lock" (held until the unset that releases
 *    it), at the call's line (return address: opari2 gives no handle).
 *  - For_enter/exit, Sections_enter/exit, Workshare_enter/exit: "loop",
 *    the thread's time in the construct less its implicit barrier.
 *  - Single_begin/end: one "single" execution; Master_begin/end: one
 *    "master" execution on the thread that runs it.
 *  - Task_create_begin/end: "task create"; Task_begin/end: "task", the
 *    execution as an open node (hp_task.h); Untied_task_begin/end: one
 *    "task" execution too (see task_begin);
 *    Taskwait_begin/end: "taskwait".  Task handles are hprof's instance
 *    ids, so the task timeline links a task to its creator.
 *  - POMP2_Begin/End (user regions): a node of kind region named by the
 *    ctc's userRegionName.  POMP2_Off/On stop and resume POMP2 records.
 *  - Ordered_enter..begin: "ordered wait"; begin..end: "ordered";
 *    Atomic_enter..exit: "atomic"; Flush_enter..exit: "flush".
 * Not recorded: single sections' own section begin/end.
 *
 * Counted once: as soon as POMP2 is in use (an init file in the program,
 * or any POMP2 event), POMP2 claims OpenMP (hp_source.h): the GOMP
 * wrappers (gomp.c) and the OMPT tool (ompt.c) stand down, as GOMP does
 * for OMPT.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "hp_omp.h"
#include "hp_pomp2_ctc.h"
#include "hp_stack.h"
#include "hp_site.h"
#include "hp_runtime.h"
#include "hp_source.h"

#define API __attribute__((visibility("default")))
#define RET ((uintptr_t)__builtin_return_address(0))


typedef void *POMP2_Region_handle;
typedef int64_t POMP2_Task_handle;

/* ------------------------------------------------------------- regions */

struct p2_team;

typedef struct p2_region {
    char *file;
    uint32_t line, end_line;
    char *type;                      /* regionType */
    char *user_name;                 /* userRegionName (user regions) */
    uint32_t site[HP_OMP_NWHAT];     /* 0 until first used */
    uint32_t user_site;
    struct p2_team *team;            /* forked outside any parallel region */
    struct p2_team *nested;          /* forked inside one: list, under nest_lock */
    pthread_mutex_t nest_lock;
} p2_region;

typedef struct p2_team {
    hp_omp_team ctx;
    hp_thread *master;               /* NULL: not recorded */
    uint64_t fork_start, master_end, key;
    p2_region *region;
    struct p2_team *next;
} p2_team;

static pthread_mutex_t reg_lock = PTHREAD_MUTEX_INITIALIZER;

static p2_region *region_new(const char *ctc)
{
    p2_region *r = calloc(1, sizeof *r);
    if (!r)
        return NULL;
    pthread_mutex_init(&r->nest_lock, NULL);
    if (ctc) {
        hp_ctc c;
        hp_ctc_parse(ctc, &c);
        r->file = c.file;
        r->line = c.line;
        r->end_line = c.end_line;
        r->type = c.type;
        r->user_name = c.user_name;
    }
    return r;
}

/* The region's site for construct `what`. */
static uint32_t region_site(p2_region *r, int what)
{
    uint32_t s = __atomic_load_n(&r->site[what], __ATOMIC_ACQUIRE);
    if (__builtin_expect(s != 0, 1))
        return s;
    pthread_mutex_lock(&reg_lock);
    s = r->site[what];
    if (!s) {
        s = hp_site_add_static(HP_KIND_OMP, hp_omp_names[what], NULL, r->file, r->line,
                               r->end_line, HP_NONE, HP_NONE);
        if (s == HP_NONE)
            s = HP_SITE_OVERFLOW;
        __atomic_store_n(&r->site[what], s, __ATOMIC_RELEASE);
    }
    pthread_mutex_unlock(&reg_lock);
    return s;
}

static uint32_t user_site(p2_region *r)
{
    uint32_t s = __atomic_load_n(&r->user_site, __ATOMIC_ACQUIRE);
    if (__builtin_expect(s != 0, 1))
        return s;
    pthread_mutex_lock(&reg_lock);
    s = r->user_site;
    if (!s) {
        s = hp_site_add_static(HP_KIND_REGION, r->user_name ? r->user_name : "region",
                               NULL, r->file, r->line, r->end_line, HP_NONE, HP_NONE);
        if (s == HP_NONE)
            s = HP_SITE_OVERFLOW;
        __atomic_store_n(&r->user_site, s, __ATOMIC_RELEASE);
    }
    pthread_mutex_unlock(&reg_lock);
    return s;
}

API void POMP2_Assign_handle(POMP2_Region_handle *handle, const char ctc_string[])
{
    if (!handle)
        return;
    /* Instrumented code registers its regions from constructors, before
     * any OpenMP event: the other sources stand down from the start. */
    hp_omp_source_claim(HP_OMP_SOURCE_POMP2);
    if (__atomic_load_n(handle, __ATOMIC_ACQUIRE))
        return;
    pthread_mutex_lock(&reg_lock);
    if (!*handle) {
        p2_region *r = region_new(ctc_string);
        __atomic_store_n(handle, (void *)r, __ATOMIC_RELEASE);
    }
    pthread_mutex_unlock(&reg_lock);
}

API void POMP2_USER_Assign_handle(POMP2_Region_handle *handle, const char ctc_string[])
{
    POMP2_Assign_handle(handle, ctc_string);
}

/* -------------------------------------------------------- start-up */

/* The init file's definitions (in the executable) win over these: they
 * only keep a program without one linkable (handles are then made from
 * the ctc strings of the enter events). */
API size_t POMP2_Get_num_regions(void) { return 0; }
API void POMP2_Init_regions(void) {}
API size_t POMP2_USER_Get_num_regions(void) { return 0; }
API void POMP2_USER_Init_regions(void) {}
API const char *POMP2_Get_opari2_version(void) { return "2.0.7"; }

typedef void (*lock_fn)(void *);
typedef int (*test_fn)(void *);
typedef int (*int_fn)(void);
typedef int (*int_int_fn)(int);

static struct {
    lock_fn init_lock, destroy_lock, set_lock, unset_lock;
    lock_fn init_nest_lock, destroy_nest_lock, set_nest_lock, unset_nest_lock;
    test_fn test_lock, test_nest_lock;
    int_fn get_level, get_max_threads;
    int_int_fn get_ancestor;
} rt;

static pthread_once_t init_once = PTHREAD_ONCE_INIT;
static int init_done;
static volatile int p2_off;

static void init_real(void);

/* The program's definition of name (the init file's), NULL when the only
 * one is ours.  (The address of our own default-visibility function would
 * already be the program's: compare the modules instead.) */
static void *program_fn(const char *name)
{
    void *f = dlsym(RTLD_DEFAULT, name);
    Dl_info fi, oi;
    if (!f || !dladdr(f, &fi) || !dladdr((void *)init_real, &oi))
        return NULL;
    return fi.dli_fbase != oi.dli_fbase ? f : NULL;
}

#define RT(field, name) (*(void **)&rt.field = dlsym(RTLD_NEXT, name))

static void init_real(void)
{
    hp_runtime_init();
    RT(init_lock, "omp_init_lock");
    RT(destroy_lock, "omp_destroy_lock");
    RT(set_lock, "omp_set_lock");
    RT(unset_lock, "omp_unset_lock");
    RT(test_lock, "omp_test_lock");
    RT(init_nest_lock, "omp_init_nest_lock");
    RT(destroy_nest_lock, "omp_destroy_nest_lock");
    RT(set_nest_lock, "omp_set_nest_lock");
    RT(unset_nest_lock, "omp_unset_nest_lock");
    RT(test_nest_lock, "omp_test_nest_lock");
    RT(get_level, "omp_get_level");
    RT(get_max_threads, "omp_get_max_threads");
    RT(get_ancestor, "omp_get_ancestor_thread_num");
    hp_omp_source_claim(HP_OMP_SOURCE_POMP2);
    void (*init)(void) = (void (*)(void))program_fn("POMP2_Init_regions");
    if (init)
        init();
    init = (void (*)(void))program_fn("POMP2_USER_Init_regions");
    if (init)
        init();
    __atomic_store_n(&init_done, 1, __ATOMIC_RELEASE);
}

static inline void ensure_init(void)
{
    if (__builtin_expect(!__atomic_load_n(&init_done, __ATOMIC_ACQUIRE), 0))
        pthread_once(&init_once, init_real);
}

/* A program linked with an init file uses POMP2: the other sources stand
 * down from the start (the runtime's start), before any OpenMP event. */
static void pomp2_detect(void)
{
    if (program_fn("POMP2_Init_regions"))
        hp_omp_source_claim(HP_OMP_SOURCE_POMP2);
}

API void POMP2_Init(void)
{
    ensure_init();
}

API void POMP2_Finalize(void)
{
}

API void POMP2_Off(void)
{
    p2_off = 1;
}

API void POMP2_On(void)
{
    p2_off = 0;
}

/* The region of *handle (assigned from ctc when still unset), or NULL. */
static inline p2_region *region_of(POMP2_Region_handle *handle, const char *ctc)
{
    ensure_init();
    if (!handle)
        return NULL;
    p2_region *r = __atomic_load_n((p2_region **)handle, __ATOMIC_ACQUIRE);
    if (__builtin_expect(!r, 0) && ctc) {
        POMP2_Assign_handle(handle, ctc);
        r = __atomic_load_n((p2_region **)handle, __ATOMIC_ACQUIRE);
    }
    return r;
}

/* ------------------------------------------------------ per-thread state */

#define MAX_PAR 16     /* open parallel regions per thread */

typedef struct p2_par {
    hprof_frame f;
    hp_omp_saved saved;
    int opened;
    p2_team *team;
    POMP2_Task_handle old_task;
} p2_par;

typedef struct p2_scope {
    p2_region *r;
    int what;               /* HP_OMP_* or -1 (user region) */
    hp_thread *t;           /* NULL: not recorded */
    uint64_t start, sub;    /* sub: time of nested implicit barriers (loops) */
    uint64_t mark;          /* waits: hp_event_wait_mark at the start */
    POMP2_Task_handle old_task;
    hprof_frame f;          /* user regions */
    POMP2_Task_handle task; /* tasks: the instance created or run */
    hp_task_run run;        /* a task's execution */
} p2_scope;

typedef struct p2_tls {
    uint32_t npar, nfork, nscope, scope_cap;
    p2_par par[MAX_PAR];
    p2_team fork[MAX_PAR];  /* teams this thread forked */
    p2_scope *scope;        /* open constructs, as deep as tasks nest (hp_stack.h) */
    hp_omp_locks locks;
    POMP2_Task_handle task;  /* the current task's id */
} p2_tls;

static __thread p2_tls *ptls __attribute__((tls_model("initial-exec")));

static p2_tls *tls_get(void)
{
    p2_tls *g = ptls;
    if (__builtin_expect(!g, 0))
        g = ptls = calloc(1, sizeof *g);
    return g;
}

/* The thread to record into, or NULL. */
static inline hp_thread *recorder(void)
{
    if (!hp_collecting || p2_off)
        return NULL;
    return hp_thread_self();
}

static int64_t task_counter;

API POMP2_Task_handle POMP2_Get_new_task_handle(void)
{
    return __atomic_add_fetch(&task_counter, 1, __ATOMIC_RELAXED);
}

API int POMP2_Lib_get_max_threads(void)
{
    ensure_init();
    return rt.get_max_threads ? rt.get_max_threads() : 1;
}

/* Opens construct `what` of r on this thread. */
static p2_scope *scope_push(p2_region *r, int what, uint64_t now)
{
    p2_tls *g = tls_get();
    if (!g)
        return NULL;
    uint32_t i = g->nscope++;   /* past scope_cap: an overflowed entry */
    if (i > g->scope_cap || !hp_stack_room((void **)&g->scope, &g->scope_cap, i, sizeof *g->scope))
        return NULL;
    p2_scope *s = &g->scope[i];
    s->r = r;
    s->what = what;
    s->t = r ? recorder() : NULL;
    s->start = now;
    s->sub = 0;
    s->mark = hp_event_wait_mark(s->t);
    s->old_task = g->task;
    s->task = 0;            /* tasks and creations: set by the caller */
    return s;
}

/* Is s construct `what` of r in the thread's current task?  A task's own
 * scope carries its id; every other one the task that opened it (an
 * untied task's continuation on another thread matches nothing there). */
static int scope_is(const p2_scope *s, const p2_tls *g, p2_region *r, int what)
{
    return s->r == r && s->what == what &&
           (what == HP_OMP_TASK ? s->task : s->old_task) == g->task;
}

/* Closes the innermost open construct `what` of r in the current task:
 * the popped copy in *out, 0 if it is not open.  Scopes above it are
 * dropped, and the task executions among them (an untied task that went
 * on elsewhere) closed on this thread, innermost first. */
static int scope_pop(p2_region *r, int what, p2_scope *out)
{
    p2_tls *g = ptls;
    if (!g || !g->nscope)
        return 0;
    uint32_t n = g->nscope < g->scope_cap ? g->nscope : g->scope_cap;
    for (uint32_t i = n; i-- > 0;) {
        if (!scope_is(&g->scope[i], g, r, what))
            continue;
        for (uint32_t k = n; k-- > i + 1;) {
            p2_scope *x = &g->scope[k];
            if (x->what == HP_OMP_TASK && x->t && x->t == hp_tls_self)
                hp_event_task_end(x->t, &x->run);
        }
        *out = g->scope[i];
        g->nscope = i;
        return 1;
    }
    if (g->nscope > g->scope_cap)
        g->nscope--;  /* an overflowed entry */
    return 0;
}

/* Task scheduling points: the thread may run tasks while it waits there. */
static int is_wait(int what)
{
    return what == HP_OMP_BARRIER || what == HP_OMP_IMPLICIT_BARRIER ||
           what == HP_OMP_TASKWAIT;
}

/* enter .. exit of `what`, recorded at exit. */
static void timed_enter(POMP2_Region_handle *h, const char *ctc, int what)
{
    uint64_t now = hp_ticks();
    p2_region *r = region_of(h, ctc);
    if (r)
        scope_push(r, what, now);
}

static uint64_t timed_exit(POMP2_Region_handle *h, int what)
{
    uint64_t now = hp_ticks();
    p2_region *r = region_of(h, NULL);
    p2_scope s;
    if (!r || !scope_pop(r, what, &s))
        return 0;
    uint64_t d = now - s.start;
    if (s.t && hp_collecting && s.t == hp_tls_self) {
        uint32_t site = region_site(r, what);
        if (is_wait(what))
            hp_event_wait(s.t, site, d, s.mark);
        else
            hp_event_leaf(s.t, site, d > s.sub ? d - s.sub : 0);
    }
    return d;
}

/* ---------------------------------------------------------------- teams */

/* The forking thread's position in the enclosing teams, levels 1..level. */
static uint64_t team_key(int level)
{
    uint64_t k = 1469598103934665603ull ^ (uint64_t)level;
    for (int l = 1; l <= level; l++) {
        k ^= (uint64_t)(rt.get_ancestor ? rt.get_ancestor(l) : 0) + 1;
        k *= 1099511628211ull;
    }
    return k;
}

static inline int omp_level(void)
{
    return rt.get_level ? rt.get_level() : 0;
}

API void POMP2_Parallel_fork(POMP2_Region_handle *handle, int if_clause, int num_threads,
                             POMP2_Task_handle *old_task, const char ctc_string[])
{
    uint64_t now = hp_ticks();
    (void)if_clause;
    (void)num_threads;
    p2_region *r = region_of(handle, ctc_string);
    p2_tls *g = tls_get();
    if (g && old_task)
        *old_task = g->task;
    if (!r || !g)
        return;
    uint32_t i = g->nfork++;
    if (i >= MAX_PAR)
        return;
    p2_team *team = &g->fork[i];
    hp_thread *t = recorder();
    team->master = t;
    team->fork_start = now;
    team->master_end = 0;
    team->region = r;
    if (t)
        hp_event_team_fork(t, &team->ctx, region_site(r, HP_OMP_PARALLEL));
    int level = omp_level();
    if (level == 0) {
        team->next = r->team;
        __atomic_store_n(&r->team, team, __ATOMIC_RELEASE);
    } else {
        team->key = team_key(level);
        pthread_mutex_lock(&r->nest_lock);
        team->next = r->nested;
        r->nested = team;
        pthread_mutex_unlock(&r->nest_lock);
    }
}

API void POMP2_Parallel_join(POMP2_Region_handle *handle, POMP2_Task_handle old_task)
{
    uint64_t now = hp_ticks();
    p2_region *r = region_of(handle, NULL);
    p2_tls *g = ptls;
    if (g)
        g->task = old_task;
    if (!r || !g || !g->nfork)
        return;
    uint32_t i = --g->nfork;
    if (i >= MAX_PAR)
        return;
    p2_team *team = &g->fork[i];
    if (team->region != r)
        return;
    if (r->team == team) {
        __atomic_store_n(&r->team, team->next, __ATOMIC_RELEASE);
    } else {
        pthread_mutex_lock(&r->nest_lock);
        for (p2_team **p = &r->nested; *p; p = &(*p)->next)
            if (*p == team) {
                *p = team->next;
                break;
            }
        pthread_mutex_unlock(&r->nest_lock);
    }
    hp_thread *t = hp_tls_self;
    if (team->master && team->master == t && team->master_end && hp_collecting)
        hp_event_leaf(t, region_site(r, HP_OMP_JOIN), now - team->master_end);
}

/* The team of r that this thread has just joined. */
static p2_team *find_team(p2_region *r)
{
    int level = omp_level() - 1;   /* the forking thread's level */
    if (level <= 0)
        return __atomic_load_n(&r->team, __ATOMIC_ACQUIRE);
    uint64_t key = team_key(level);
    p2_team *found = NULL;
    pthread_mutex_lock(&r->nest_lock);
    for (p2_team *p = r->nested; p; p = p->next)
        if (p->key == key) {
            found = p;
            break;
        }
    pthread_mutex_unlock(&r->nest_lock);
    return found;
}

API void POMP2_Parallel_begin(POMP2_Region_handle *handle)
{
    uint64_t now = hp_ticks();
    p2_region *r = region_of(handle, NULL);
    p2_tls *g = tls_get();
    if (!g)
        return;
    uint32_t i = g->npar++;
    if (i >= MAX_PAR)
        return;
    p2_par *p = &g->par[i];
    p->opened = 0;
    p->team = r ? find_team(r) : NULL;
    p->old_task = g->task;
    g->task = POMP2_Get_new_task_handle();
    if (!p->team || !p->team->master || !hp_collecting || p2_off)
        return;
    hp_thread *t = hp_thread_self();
    if (!t)
        return;
    if (t == p->team->master)
        hp_event_leaf(t, region_site(r, HP_OMP_FORK), now - p->team->fork_start);
    hp_event_team_begin(t, &p->team->ctx, &p->f, &p->saved);
    p->opened = 1;
}

API void POMP2_Parallel_end(POMP2_Region_handle *handle)
{
    (void)handle;
    p2_tls *g = ptls;
    if (!g || !g->npar)
        return;
    uint32_t i = --g->npar;
    if (i >= MAX_PAR)
        return;
    p2_par *p = &g->par[i];
    g->task = p->old_task;
    /* constructs left open inside the region are dropped */
    if (!p->opened)
        return;
    hp_thread *t = hp_tls_self;
    hp_event_team_end(t, &p->f, &p->saved);
    if (p->team && t == p->team->master)
        p->team->master_end = hp_ticks();
}

/* ------------------------------------------------------------- barriers */

static void barrier_enter(POMP2_Region_handle *h, POMP2_Task_handle *old_task,
                          const char *ctc, int what)
{
    uint64_t now = hp_ticks();
    p2_region *r = region_of(h, ctc);
    p2_tls *g = tls_get();
    if (g && old_task)
        *old_task = g->task;
    if (r)
        scope_push(r, what, now);
}

static void barrier_exit(POMP2_Region_handle *h, POMP2_Task_handle old_task, int what)
{
    p2_tls *g = ptls;
    if (g)
        g->task = old_task;   /* first: the wait's scope is the task's */
    uint64_t d = timed_exit(h, what);
    /* an implicit barrier's wait is not the enclosing construct's work */
    if (d && what == HP_OMP_IMPLICIT_BARRIER && g && g->nscope && g->nscope <= g->scope_cap) {
        p2_scope *s = &g->scope[g->nscope - 1];
        if (s->r == region_of(h, NULL))
            s->sub += d;
    }
}

API void POMP2_Barrier_enter(POMP2_Region_handle *h, POMP2_Task_handle *old_task,
                             const char ctc_string[])
{
    barrier_enter(h, old_task, ctc_string, HP_OMP_BARRIER);
}

API void POMP2_Barrier_exit(POMP2_Region_handle *h, POMP2_Task_handle old_task)
{
    barrier_exit(h, old_task, HP_OMP_BARRIER);
}

API void POMP2_Implicit_barrier_enter(POMP2_Region_handle *h, POMP2_Task_handle *old_task)
{
    barrier_enter(h, old_task, NULL, HP_OMP_IMPLICIT_BARRIER);
}

API void POMP2_Implicit_barrier_exit(POMP2_Region_handle *h, POMP2_Task_handle old_task)
{
    barrier_exit(h, old_task, HP_OMP_IMPLICIT_BARRIER);
}

/* ------------------------------------------------------------- critical */

API void POMP2_Critical_enter(POMP2_Region_handle *h, const char ctc_string[])
{
    timed_enter(h, ctc_string, HP_OMP_CRITICAL_WAIT);
}

API void POMP2_Critical_begin(POMP2_Region_handle *h)
{
    timed_exit(h, HP_OMP_CRITICAL_WAIT);
    timed_enter(h, NULL, HP_OMP_CRITICAL);
}

API void POMP2_Critical_end(POMP2_Region_handle *h)
{
    timed_exit(h, HP_OMP_CRITICAL);
}

API void POMP2_Critical_exit(POMP2_Region_handle *h)
{
    (void)h;
}

/* ---------------------------------------------------------- worksharing */

API void POMP2_For_enter(POMP2_Region_handle *h, const char ctc_string[])
{
    timed_enter(h, ctc_string, HP_OMP_LOOP);
}

API void POMP2_For_exit(POMP2_Region_handle *h)
{
    timed_exit(h, HP_OMP_LOOP);
}

API void POMP2_Sections_enter(POMP2_Region_handle *h, const char ctc_string[])
{
    timed_enter(h, ctc_string, HP_OMP_LOOP);
}

API void POMP2_Sections_exit(POMP2_Region_handle *h)
{
    timed_exit(h, HP_OMP_LOOP);
}

API void POMP2_Section_begin(POMP2_Region_handle *h, const char ctc_string[])
{
    (void)region_of(h, ctc_string);
}

API void POMP2_Section_end(POMP2_Region_handle *h)
{
    (void)h;
}

API void POMP2_Workshare_enter(POMP2_Region_handle *h, const char ctc_string[])
{
    timed_enter(h, ctc_string, HP_OMP_LOOP);
}

API void POMP2_Workshare_exit(POMP2_Region_handle *h)
{
    timed_exit(h, HP_OMP_LOOP);
}

API void POMP2_Single_enter(POMP2_Region_handle *h, const char ctc_string[])
{
    (void)region_of(h, ctc_string);
}

API void POMP2_Single_begin(POMP2_Region_handle *h)
{
    timed_enter(h, NULL, HP_OMP_SINGLE);
}

API void POMP2_Single_end(POMP2_Region_handle *h)
{
    timed_exit(h, HP_OMP_SINGLE);
}

API void POMP2_Single_exit(POMP2_Region_handle *h)
{
    (void)h;
}

API void POMP2_Master_begin(POMP2_Region_handle *h, const char ctc_string[])
{
    timed_enter(h, ctc_string, HP_OMP_MASTER);
}

API void POMP2_Master_end(POMP2_Region_handle *h)
{
    timed_exit(h, HP_OMP_MASTER);
}

/* ------------------------------------------- atomic, flush, ordered */

API void POMP2_Atomic_enter(POMP2_Region_handle *h, const char ctc_string[])
{
    timed_enter(h, ctc_string, HP_OMP_ATOMIC);
}

API void POMP2_Atomic_exit(POMP2_Region_handle *h)
{
    timed_exit(h, HP_OMP_ATOMIC);
}

API void POMP2_Flush_enter(POMP2_Region_handle *h, const char ctc_string[])
{
    timed_enter(h, ctc_string, HP_OMP_FLUSH);
}

API void POMP2_Flush_exit(POMP2_Region_handle *h)
{
    timed_exit(h, HP_OMP_FLUSH);
}

/* Like a critical section: enter..begin waits for the iteration's turn,
 * begin..end holds the ordered block. */
API void POMP2_Ordered_enter(POMP2_Region_handle *h, const char ctc_string[])
{
    timed_enter(h, ctc_string, HP_OMP_ORDERED_WAIT);
}

API void POMP2_Ordered_exit(POMP2_Region_handle *h)
{
    (void)h;
}

API void POMP2_Ordered_begin(POMP2_Region_handle *h)
{
    timed_exit(h, HP_OMP_ORDERED_WAIT);
    timed_enter(h, NULL, HP_OMP_ORDERED);
}

API void POMP2_Ordered_end(POMP2_Region_handle *h)
{
    timed_exit(h, HP_OMP_ORDERED);
}

/* ---------------------------------------------------------------- tasks */

API void POMP2_Task_create_begin(POMP2_Region_handle *h, POMP2_Task_handle *new_task,
                                 POMP2_Task_handle *old_task, int pomp2_if,
                                 const char ctc_string[])
{
    (void)pomp2_if;
    p2_tls *g = tls_get();
    hp_thread *t = recorder();
    POMP2_Task_handle id = t ? (POMP2_Task_handle)hp_event_task_new_id(t)
                             : POMP2_Get_new_task_handle();
    if (old_task)
        *old_task = g ? g->task : 0;
    if (new_task)
        *new_task = id;
    uint64_t now = hp_ticks();
    p2_region *r = region_of(h, ctc_string);
    p2_scope *s = r ? scope_push(r, HP_OMP_TASK_CREATE, now) : NULL;
    if (s)
        s->task = id;
}

API void POMP2_Task_create_end(POMP2_Region_handle *h, POMP2_Task_handle old_task)
{
    p2_region *r = region_of(h, NULL);
    p2_tls *g = ptls;
    if (g)
        g->task = old_task;   /* first: the creation's scope is the task's */
    p2_scope s;
    if (r && scope_pop(r, HP_OMP_TASK_CREATE, &s) && s.t && hp_collecting &&
        s.t == hp_tls_self)
        hp_event_task_created(s.t, region_site(r, HP_OMP_TASK_CREATE), (uint64_t)s.task,
                        &(hp_task_clock){s.start, s.mark});
}

/* A task's execution is an open node on the thread that begins it
 * (hp_task.h), untied ones too: libgomp runs them tied.  An untied task
 * that goes on on another thread (libomp) ends nowhere: its scope matches
 * nothing there, and the thread it began on closes it when it leaves the
 * construct that ran it (scope_pop). */
static void task_begin(POMP2_Region_handle *h, POMP2_Task_handle task)
{
    uint64_t now = hp_ticks();
    p2_region *r = region_of(h, NULL);
    p2_scope *s = r ? scope_push(r, HP_OMP_TASK, now) : NULL;
    p2_tls *g = tls_get();
    if (g)
        g->task = task;
    if (!s)
        return;
    s->task = task;
    s->run.f.node = HP_FRAME_OFF;
    if (s->t)
        hp_event_task_begin(s->t, &s->run, region_site(r, HP_OMP_TASK), (uint64_t)task);
}

static void task_end(POMP2_Region_handle *h)
{
    p2_region *r = region_of(h, NULL);
    p2_scope s;
    if (!r || !scope_pop(r, HP_OMP_TASK, &s))
        return;
    ptls->task = s.old_task;
    if (s.t && s.t == hp_tls_self)
        hp_event_task_end(s.t, &s.run);
}

API void POMP2_Task_begin(POMP2_Region_handle *h, POMP2_Task_handle task)
{
    task_begin(h, task);
}

API void POMP2_Task_end(POMP2_Region_handle *h)
{
    task_end(h);
}

API void POMP2_Untied_task_create_begin(POMP2_Region_handle *h,
                                        POMP2_Task_handle *new_task,
                                        POMP2_Task_handle *old_task, int pomp2_if,
                                        const char ctc_string[])
{
    POMP2_Task_create_begin(h, new_task, old_task, pomp2_if, ctc_string);
}

API void POMP2_Untied_task_create_end(POMP2_Region_handle *h, POMP2_Task_handle old_task)
{
    POMP2_Task_create_end(h, old_task);
}

API void POMP2_Untied_task_begin(POMP2_Region_handle *h, POMP2_Task_handle task)
{
    task_begin(h, task);
}

API void POMP2_Untied_task_end(POMP2_Region_handle *h)
{
    task_end(h);
}

API void POMP2_Taskwait_begin(POMP2_Region_handle *h, POMP2_Task_handle *old_task,
                              const char ctc_string[])
{
    barrier_enter(h, old_task, ctc_string, HP_OMP_TASKWAIT);
}

API void POMP2_Taskwait_end(POMP2_Region_handle *h, POMP2_Task_handle old_task)
{
    barrier_exit(h, old_task, HP_OMP_TASKWAIT);
}

/* -------------------------------------------------------- user regions */

API void POMP2_Begin(POMP2_Region_handle *h, const char ctc_string[])
{
    p2_region *r = region_of(h, ctc_string);
    p2_scope *s = r ? scope_push(r, -1, 0) : NULL;
    if (!s)
        return;
    s->f.node = HP_FRAME_OFF;
    if (s->t)
        hp_event_enter(s->t, &s->f, user_site(r), 0);
}

API void POMP2_End(POMP2_Region_handle *h)
{
    p2_region *r = region_of(h, NULL);
    p2_scope s;
    if (!r || !scope_pop(r, -1, &s))
        return;
    if (s.t && s.t == hp_tls_self)
        hp_event_exit(s.t, &s.f);
}

/* ---------------------------------------------------------------- locks */

static void lock_acquired(void *lock, uint64_t t1, hp_thread *t, uintptr_t ret, int nest)
{
    p2_tls *g = tls_get();
    if (g)
        hp_omp_lock_acquired(&g->locks, lock, t1,
                             t ? hp_omp_site(t, ret, 0, HP_OMP_LOCK) : HP_OMP_NO_SITE, nest);
}

static void lock_released(void *lock, uint64_t now)
{
    if (ptls)
        hp_omp_lock_released(&ptls->locks, hp_tls_self, lock, now);
}

static void lock_set(lock_fn fn, void *lock, uintptr_t ret, int nest)
{
    if (!fn)
        return;
    hp_thread *t = recorder();
    uint64_t t0 = hp_ticks();
    fn(lock);
    uint64_t t1 = hp_ticks();
    if (t)
        hp_event_leaf(t, hp_omp_site(t, ret, 0, HP_OMP_LOCK_WAIT), t1 - t0);
    lock_acquired(lock, t1, t, ret, nest);
}

static int lock_test(test_fn fn, void *lock, uintptr_t ret, int nest)
{
    if (!fn)
        return 1;
    hp_thread *t = recorder();
    int r = fn(lock);
    if (r)
        lock_acquired(lock, hp_ticks(), t, ret, nest);
    return r;
}

static void lock_unset(lock_fn fn, void *lock)
{
    if (!fn)
        return;
    lock_released(lock, hp_ticks());
    fn(lock);
}

API void POMP2_Init_lock(void *s)
{
    ensure_init();
    if (rt.init_lock)
        rt.init_lock(s);
}

API void POMP2_Destroy_lock(void *s)
{
    ensure_init();
    if (rt.destroy_lock)
        rt.destroy_lock(s);
}

API void POMP2_Set_lock(void *s)
{
    ensure_init();
    lock_set(rt.set_lock, s, RET, 0);
}

API void POMP2_Unset_lock(void *s)
{
    ensure_init();
    lock_unset(rt.unset_lock, s);
}

API int POMP2_Test_lock(void *s)
{
    ensure_init();
    return lock_test(rt.test_lock, s, RET, 0);
}

API void POMP2_Init_nest_lock(void *s)
{
    ensure_init();
    if (rt.init_nest_lock)
        rt.init_nest_lock(s);
}

API void POMP2_Destroy_nest_lock(void *s)
{
    ensure_init();
    if (rt.destroy_nest_lock)
        rt.destroy_nest_lock(s);
}

API void POMP2_Set_nest_lock(void *s)
{
    ensure_init();
    lock_set(rt.set_nest_lock, s, RET, 1);
}

API void POMP2_Unset_nest_lock(void *s)
{
    ensure_init();
    lock_unset(rt.unset_nest_lock, s);
}

API int POMP2_Test_nest_lock(void *s)
{
    ensure_init();
    return lock_test(rt.test_nest_lock, s, RET, 1);
}

/* ----------------------------------------------------------- taskgroup */
/* opari2 2.0.7 has no POMP2 call for taskgroup (it leaves the construct as
 * it is).  hprof-instrument brackets the wait at a taskgroup's end with
 * this pair, in hprof's namespace so that it can never collide with a later
 * POMP2 version: wait_begin after the block's last statement, wait_end
 * once the construct is left.  The wait is recorded as "taskwait" at the
 * taskgroup's site, like a taskwait's. */

API void hprof_pomp2_taskgroup_wait_begin(POMP2_Region_handle *h, POMP2_Task_handle *old_task,
                                          const char ctc_string[])
{
    barrier_enter(h, old_task, ctc_string, HP_OMP_TASKWAIT);
}

API void hprof_pomp2_taskgroup_wait_end(POMP2_Region_handle *h, POMP2_Task_handle old_task)
{
    barrier_exit(h, old_task, HP_OMP_TASKWAIT);
}

const hp_source hp_source_pomp2 = {"POMP2 interface", HP_OMP_SOURCE_POMP2, pomp2_detect, NULL,
                                   NULL};
