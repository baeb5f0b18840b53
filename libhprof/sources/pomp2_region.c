/*
 * pomp2_region.c - the POMP2 interface of OPARI2 (Debian's opari2 2.0.7:
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
#include <stdlib.h>
#include "hp_pomp2.h"
#include "hp_pomp2_ctc.h"
#include "hp_site.h"
#include "hp_runtime.h"
#include "hp_source.h"

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
uint32_t hp_p2_region_site(p2_region *r, int what)
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

uint32_t hp_p2_user_site(p2_region *r)
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

hp_p2_calls hp_p2_rt;
static pthread_once_t init_once = PTHREAD_ONCE_INIT;
int hp_p2_init_done;
volatile int hp_p2_off;

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

#define RT(field, name) (*(void **)&hp_p2_rt.field = dlsym(RTLD_NEXT, name))

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
    __atomic_store_n(&hp_p2_init_done, 1, __ATOMIC_RELEASE);
}

void hp_p2_init(void)
{
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
    hp_p2_off = 1;
}

API void POMP2_On(void)
{
    hp_p2_off = 0;
}

static int64_t task_counter;

API POMP2_Task_handle POMP2_Get_new_task_handle(void)
{
    return __atomic_add_fetch(&task_counter, 1, __ATOMIC_RELAXED);
}

API int POMP2_Lib_get_max_threads(void)
{
    ensure_init();
    return hp_p2_rt.get_max_threads ? hp_p2_rt.get_max_threads() : 1;
}

const hp_source hp_source_pomp2 = {"POMP2 interface", HP_OMP_SOURCE_POMP2, pomp2_detect, NULL,
                                   NULL};
