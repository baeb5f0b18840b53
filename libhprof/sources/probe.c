/*
 * probe.c - the probe API of instrumented code (hprof_probe.h): unit
 * registration into the site registry, with the HPROF_FILTER rules, and
 * the enter/exit probes, which survive longjmp and pthread_exit
 * (hp_frames.h).
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include "hp_filter.h"
#include "hp_fast.h"
#include "hp_source.h"
#include "hp_runtime.h"
#include "hp_site.h"

static pthread_mutex_t register_lock = PTHREAD_MUTEX_INITIALIZER;

/* An earlier site of the unit that is the same statement: same kind,
 * name, line and parent (two calls of one function on one line are one
 * call statement, keyed by its line as in the paper).  Its index, or -1. */
static int same_statement(const hprof_unit *u, unsigned i)
{
    const hprof_site_info *si = &u->sites[i];
    for (unsigned j = i; j-- > 0 && i - j <= 16;) {
        const hprof_site_info *sj = &u->sites[j];
        if (sj->kind == si->kind && sj->line == si->line && sj->parent == si->parent &&
            strcmp(sj->name, si->name) == 0)
            return (int)j;
    }
    return -1;
}

/* Adds site i of u to the registry (its parent is site_of[parent]) and
 * returns its id; *probed is 0 when its probes must do nothing: the
 * instrumenter left it unprobed, or HPROF_FILTER excludes it. */
static uint32_t register_site(const hprof_unit *u, unsigned i, const uint32_t *site_of,
                              int *probed)
{
    const hprof_site_info *si = &u->sites[i];
    int same = same_statement(u, i);
    if (same >= 0) {
        *probed = u->ids[same] != HP_NONE;
        return site_of[same];
    }
    *probed = 0;
    uint32_t parent = si->parent >= 0 && (unsigned)si->parent < i ? site_of[si->parent]
                                                                   : HP_NONE;
    uint32_t id = hp_site_add_static((uint32_t)si->kind, si->name, si->func, u->file,
                                     si->line, si->end_line, parent, HP_NONE);
    if (id == HP_NONE) {
        *probed = 1; /* the registry is full: its probes record in the overflow site */
        return HP_SITE_OVERFLOW;
    }
    if (si->flags & HPROF_SITEINFO_UNPROBED) {
        hp_site_get(id)->flags |= HP_SITEF_UNPROBED;
        return id; /* no probe was emitted; any probe does nothing */
    }
    if ((si->flags & HPROF_SITEINFO_LEAF) &&
        (si->kind == HPROF_SITE_PROCEDURE || si->kind == HPROF_SITE_LOOP))
        hp_site_get(id)->flags |= HP_SITEF_LEAF; /* nothing inside records */
    if (si->kind == HPROF_SITE_CALL && strncmp(si->name, "MPI_", 4) == 0)
        hp_site_get(id)->flags |= HP_SITEF_MPI; /* a local MPI call (hp_mpi.h) */
    const hp_filter *filter = hp_runtime_filter();
    const char *proc = si->kind == HPROF_SITE_PROCEDURE ? si->name : si->func;
    int excluded = !hp_filter_allows(filter, proc, u->file) ||
                   (si->kind == HPROF_SITE_CALL && (!hp_filter_allows(filter, si->name, NULL) ||
                                                    !hp_filter_allows_call(filter, u->file, si->line))) ||
                   (si->kind == HPROF_SITE_LOOP && !hp_filter_allows_loop(filter, u->file, si->line));
    if (excluded) {
        hp_site_get(id)->flags |= HP_SITEF_EXCLUDED;
        return id; /* probes of this site do nothing */
    }
    *probed = 1;
    return id;
}

/* The registry ids of the unit's sites, for their children's parents
 * (u->ids holds HP_NONE for a site whose probes do nothing). */
static void register_sites(hprof_unit *u)
{
    uint32_t stack_ids[256];
    uint32_t *site_of = u->nsites <= 256 ? stack_ids : malloc(u->nsites * sizeof *site_of);
    for (unsigned i = 0; i < u->nsites; i++) {
        int probed;
        uint32_t id = register_site(u, i, site_of ? site_of : u->ids, &probed);
        if (site_of)
            site_of[i] = id;
        u->ids[i] = probed ? id : HP_NONE;
    }
    if (site_of != stack_ids)
        free(site_of);
}

void hprof_register_unit(hprof_unit *u)
{
    hp_runtime_init();
    pthread_mutex_lock(&register_lock);
    if (!__atomic_load_n(&u->registered, __ATOMIC_ACQUIRE)) {
        register_sites(u);
        __atomic_store_n(&u->registered, 1, __ATOMIC_RELEASE);
    }
    pthread_mutex_unlock(&register_lock);
}

/* ---------------------------------------------------------------- probes
 * The state of an open probe lives on the thread's frame stack
 * (hp_frames.h); the probe's own frame on the instrumented code's stack
 * keeps only its index there, so that a longjmp that skips the exit
 * probes leaves nothing behind that the runtime cannot find again.
 *
 * Stack addresses: a frame records the stack pointer of the function that
 * opened it (the call into hprof_enter is made at that function's own
 * stack level, constant over its body; a function inlined into its caller
 * shares the caller's).  Every open frame recorded deeper than the probe
 * now running belongs to a callee that is gone.  A procedure probe of a
 * function called where a longjmp landed cannot see a gone sibling whose
 * frame was smaller than its own; the probe of the call statement that
 * called it, at the caller's level, closed it already. */

static __thread hp_frames *probe_frames
    __attribute__((tls_model("initial-exec"))) = &hp_frames_none;
/* The stack pointer of hprof_enter's caller (its canonical frame address). */
#define CALLER_SP() ((uintptr_t)__builtin_dwarf_cfa())

/* Opens site index of u for the instrumented function whose stack
 * pointer is sp. */
static inline void enter_at(hprof_frame *pf, hprof_unit *u, unsigned index, uintptr_t sp)
{
    hp_thread *t;
    hp_frames *s;
    pf->node = HP_FRAME_OFF;
    if (!hp_collecting || index >= u->nsites || !(t = hp_thread_self()))
        return;
    if (__builtin_expect(!__atomic_load_n(&u->registered, __ATOMIC_ACQUIRE), 0))
        hprof_register_unit(u);
    uint32_t site = u->ids[index];
    if (site == HP_NONE)
        return;
    if (!(s = hp_frames_of(t, &probe_frames, sizeof(hp_frames))))
        return;
    uint32_t i = s->n;
    if (__builtin_expect(s->open[i - 1].sp < sp, 0) || hp_fast_innermost_gone(t, sp)) {
        hp_fast_unwind(s, sp);
        i = s->n;
    }
    hp_open *o = hp_frames_next(s);
    if (!o)
        return;
    o->sp = sp;
    o->f.node = HP_FRAME_OFF;
    hp_frames_publish(s, i + 1);
    hp_event_enter(t, &o->f, site, u->sites[index].kind == HPROF_SITE_COMM);
    hp_fast_opened_slow(t, &o->f);
    hp_fast_enable(t);
    pf->node = i;
}

void hprof_enter(hprof_frame *pf, hprof_unit *u, unsigned index)
{
    enter_at(pf, u, index, CALLER_SP());
}

void hprof_enter_at(hprof_frame *pf, hprof_unit *u, unsigned index, unsigned long sp)
{
    enter_at(pf, u, index, sp);
}

/* Closes the probe pf of the instrumented function whose stack pointer
 * is sp. */
static inline void exit_at(hprof_frame *pf, uintptr_t sp)
{
    uint32_t i = pf->node;
    hp_frames *s = probe_frames;
    if (i == HP_FRAME_OFF)
        return;
    if (__builtin_expect(i + 1 != s->n, 0) || hp_fast_innermost_gone(s->t, s->open[i].sp)) {
        /* Frames above this one are callees a longjmp skipped (fast ones
         * too, below this function's stack) or this function's own; a
         * frame not on the stack any more (at this stack level) was
         * closed already. */
        if (i >= s->n || i < HP_FRAMES_BASE || s->open[i].sp != sp)
            return;
        hp_fast_unwind(s, s->open[i].sp);
        hp_frames_close_above(s, i + 1);
    }
    int is_comm = hp_event_comm_statement(s->t) == s->open[i].f.node;
    hp_event_exit(s->t, &s->open[i].f);
    if (!is_comm)
        hp_fast_after_exit(s->t, &s->open[i].f);
    hp_frames_publish(s, i);
}

void hprof_exit(hprof_frame *pf)
{
    exit_at(pf, CALLER_SP());
}

void hprof_exit_at(hprof_frame *pf, unsigned long sp)
{
    exit_at(pf, sp);
}

/* Closes a fast activation that needs the runtime (hprof_probe.h). */
void hprof_exit_fast(hprof_frame *pf)
{
    hp_thread *t = hp_event_attached_thread();
    if (t)
        hp_fast_exit(probe_frames, t, pf);
}

static void probes_thread_end(hp_thread *t)
{
    hp_frames *s = probe_frames;
    if (s->t == t)
        hp_fast_unwind(s, UINTPTR_MAX); /* fast activations too */
    hp_frames_thread_end(&probe_frames, t);
}

const hp_source hp_source_probes = {"code probes and the hprof_* API", HP_OMP_SOURCE_NONE,
                                    NULL, probes_thread_end, NULL};
