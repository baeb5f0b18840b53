/*
 * ompt.c - tier 0 for clang/libomp: an OMPT tool inside libhprof.  libomp
 * looks up ompt_start_tool in the process at its initialization; ours
 * registers the callbacks below and records through the event boundary
 * (hp_event.h, hp_omp.h) only, so the records are those of the other
 * event sources.
 * Under gcc/libgomp nothing here ever runs.
 *
 * State: a team (parallel_data->ptr; ended from the forking thread's own
 * record, ompt_forked.c) carries the forking thread's context and a slot
 * per thread; an implicit task (task_data->ptr) carries the
 * thread's open region frame and the explicit tasks open on the thread
 * when it began; an explicit task (task_data->ptr) its site, instance id
 * and open node (tied) or execution time so far (untied).  Per thread,
 * the tasks open on it and a growing stack of open scopes (barrier and
 * taskwait waits; worksharing constructs and master, open frames around
 * their bodies: hp_ompt.h); an explicit task keeps its own
 * open wait (an untied one may end it on another thread).  Explicit tasks
 * are ompt_task.c's; critical sections, locks, ordered blocks and atomics
 * ompt_mutex.c's.  No lock on any path.
 *
 * libomp (14 and later) ends a worker's implicit task, and its wait at the
 * region's closing barrier, only when the worker is woken for the next
 * region (or at shutdown), long after the region ended and possibly after
 * the profile was written.  So the master, when its own implicit task
 * ends, publishes the region's release (the end of its wait at the closing
 * barrier) in each worker's implicit task, and the worker closes its own
 * records - the wait "arrival -> release", the region node ending at the
 * release - when the late end arrives, or when it starts its next implicit
 * task if that comes first (a nested team's worker may serve another team
 * at once).  Only a worker's own thread writes its records; implicit tasks
 * still open when the profile is taken, with their threads idle, are
 * closed then (close_pending, the source's before-snapshot entry).  A
 * state word per implicit task makes sure it is closed once.
 */
#include "config.h"

#include <stddef.h>
#include "hp_source.h"

#ifdef HAVE_OMPT
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <stddef.h>
#include "hp_ompt.h"
#include "hp_ompt_codeptr.h"
#include "hp_ompt_kinds.h"
#include "hp_ompt_task.h"
#include "hp_stack.h"

enum { T_IMPLICIT = HP_OMPT_IMPLICIT, T_EXPLICIT = HP_OMPT_EXPLICIT, T_LEAGUE = HP_OMPT_LEAGUE, T_TEAM };
enum { S_RUN, S_CLOSED };

typedef struct itask {
    int type;                 /* T_IMPLICIT */
    _Atomic int state;        /* S_*: who closes the records */
    _Atomic int refs;         /* worker + master for worker tasks */
    int opened;               /* f was opened (collecting at begin) */
    unsigned index;
    uint32_t scope_base;      /* its thread's scopes when it began */
    etask *tasks_base;        /* its thread's open explicit tasks then */
    hp_thread *t;
    const void *ra;           /* the region's code address */
    const void *fork_ra;      /* the fork call's, when ra is the outlined function's */
    struct team *team;        /* master only: alive until parallel_end */
    hprof_frame f;
    hp_omp_saved saved;
    uint64_t wait_start;      /* open implicit-barrier wait, 0 if none */
    uint64_t wait_mark;       /* its hp_event_wait_mark */
    const void *wait_ra;
    uint64_t release;         /* master: end of its last implicit-barrier wait */
    _Atomic uint64_t released; /* worker: the region's release, from the master */
} itask;

typedef struct team {
    int type;                 /* T_TEAM */
    hp_omp_team ctx;
    const void *ra, *fork_ra;
    uint64_t begin, join_start;
    uint32_t nslots;
    itask *slot[];            /* the threads' implicit tasks, 0 = master */
} team;

/* A host teams construct: libomp forks a league of initial threads, each
 * of which begins a team (a parallel region flagged ompt_parallel_team,
 * with no code address) that runs the construct's outlined function.
 * The league's parallel data and its initial tasks' task data carry it. */
typedef struct league {
    int type;                 /* T_LEAGUE */
    const void *ra, *fork_ra;
} league;

static league *league_of(const ompt_data_t *d)
{
    return d && d->ptr && *(int *)d->ptr == T_LEAGUE ? d->ptr : NULL;
}

/* Per-thread open scopes: waits (recorded as leaves when they end),
 * worksharing and masked constructs and the holds of critical sections
 * and ordered blocks (open frames), taskgroups.  A scope belongs to the
 * explicit task open on the thread when it began (owner, NULL: the
 * implicit task); only that task ends it. */
enum { C_WAIT, C_WORK, C_GROUP, C_HOLD };
typedef struct scope {
    uint64_t start;           /* C_HOLD: the mutex's wait id */
    uint64_t mark;            /* waits: hp_event_wait_mark at the start */
    const void *ra;
    int cls, what;
    const void *owner;        /* the explicit task it belongs to */
    hprof_frame f;            /* C_WORK: the construct's open frame */
} scope;

typedef struct othread {
    uint32_t nscopes, lost, scope_cap;
    scope *scopes;            /* as deep as tasks nest in waits (hp_stack.h) */
    struct itask *_Atomic pending;  /* this thread's open worker implicit task */
    struct othread *next;           /* all threads, for close_pending */
} othread;

static __thread othread *ot_self __attribute__((tls_model("initial-exec")));
static othread *all_othreads;
static pthread_mutex_t all_lock = PTHREAD_MUTEX_INITIALIZER;

static othread *ot(void)
{
    othread *o = ot_self;
    if (__builtin_expect(!o, 0)) {
        o = ot_self = calloc(1, sizeof *o);
        if (o) {
            pthread_mutex_lock(&all_lock);
            o->next = all_othreads;
            all_othreads = o;
            pthread_mutex_unlock(&all_lock);
        }
    }
    return o;
}

static hp_thread *rec_thread(void)
{
    return hp_ompt_rec_thread();
}

/* A new scope on this thread's stack, NULL if it could not be kept. */
static scope *scope_push(int cls, int what, const void *ra, uint64_t now)
{
    othread *o = ot();
    if (!o)
        return NULL;
    if (o->nscopes >= o->scope_cap &&
        !hp_stack_room((void **)&o->scopes, &o->scope_cap, o->nscopes, sizeof(scope))) {
        o->lost++;
        return NULL;
    }
    scope *s = &o->scopes[o->nscopes++];
    s->start = now;   /* field by field: f needs its node only (hp_ompt_frame_open) */
    s->mark = hp_event_wait_mark(hp_tls_self);
    s->ra = ra;
    s->cls = cls;
    s->what = what;
    s->owner = hp_ompt_open_tasks;
    s->f.node = HP_FRAME_OFF;
    return s;
}

/* The innermost open scope of class cls, popped, if the running task
 * began it (valid until the next push); NULL if none. */
static scope *scope_pop(int cls)
{
    othread *o = ot_self;
    if (!o)
        return NULL;
    if (o->lost) {
        o->lost--;
        return NULL;
    }
    if (!o->nscopes || o->scopes[o->nscopes - 1].cls != cls ||
        o->scopes[o->nscopes - 1].owner != hp_ompt_open_tasks)
        return NULL;
    return &o->scopes[--o->nscopes];
}

/* Ends the scopes above the first `base` of this thread (those a task
 * leaving the thread began, those an implicit task left open: a loop
 * ended by cancellation, a worker's wait at its region's end that libomp
 * ends late): their frames close now, in order. */
static void scopes_cut(uint32_t base)
{
    othread *o = ot_self;
    while (o && o->nscopes > base)
        hp_ompt_frame_close(&o->scopes[--o->nscopes].f);
}

void hp_ompt_scopes_cut(uint32_t base)
{
    scopes_cut(base);
}

uint32_t hp_ompt_scope_depth(void)
{
    return ot_self ? ot_self->nscopes : 0;
}

static void record(hp_thread *t, const void *ra, int what, uint64_t ticks)
{
    hp_ompt_record(t, ra, what, ticks);
}

/* ---- parallel regions and implicit tasks ---- */

static void close_previous(hp_thread *t, uint64_t now);

/* A worker whose part of a region libomp has not ended yet forks a team
 * from another task (the team of a host teams construct it starts): that
 * part is over.  (From inside it, it forks a nested region.) */
static void close_outside(hp_thread *t, const ompt_data_t *enc_data)
{
    othread *o = ot_self;
    itask *p = o ? atomic_load(&o->pending) : NULL;
    if (p && (!enc_data || enc_data->ptr != (void *)p))
        close_previous(t, hp_ticks());
}

/* The tool's state of a region this thread forks: a team, a league, or
 * NULL (none kept). */
static void *region_begin(ompt_data_t *enc_data, unsigned int requested, int flags,
                          const void *ra)
{
    const void *fork_ra = NULL, *microtask = hp_ompt_forked_microtask(ra);
    const void *user;
    uintptr_t path_ra = (uintptr_t)ra;  /* the fork's return address: its path above */
    if (microtask) {
        fork_ra = ra;
        ra = (const char *)microtask + 1;
    } else if (ra && hp_ompt_foreign(ra) && !hp_ompt_in_runtime(ra) &&
               (user = hp_ompt_user_frame())) {
        fork_ra = ra;   /* gcc's GOMP_parallel through libhprof's: its caller */
        ra = user;
        path_ra = (uintptr_t)user;
    }
    league *lg = league_of(enc_data);
    if ((flags & ompt_parallel_team) && lg && hp_ompt_foreign(ra)) {
        ra = lg->ra;   /* a team of a host teams construct */
        fork_ra = lg->fork_ra;
    }
    if (flags & ompt_parallel_league) {
        if ((lg = calloc(1, sizeof *lg)))
            *lg = (league){T_LEAGUE, ra, fork_ra};
        return lg;
    }
    hp_thread *t = hp_thread_self();
    if (!t)
        return NULL;
    close_outside(t, enc_data);
    if (requested < 1)
        requested = 1;
    team *tm = hp_ompt_alloc(sizeof *tm + requested * sizeof(itask *));
    if (!tm)
        return NULL;
    *tm = (team){.type = T_TEAM, .ra = ra, .fork_ra = fork_ra, .nslots = requested};
    memset(tm->slot, 0, requested * sizeof(itask *));
    hp_event_team_fork(t, &tm->ctx, hp_ompt_site(t, ra, HP_OMP_PARALLEL), path_ra,
                       hp_ticks());
    tm->begin = hp_ticks();
    return tm;
}

static void on_parallel_begin(ompt_data_t *enc_data, const ompt_frame_t *enc_frame,
                              ompt_data_t *pd, unsigned int requested, int flags,
                              const void *ra)
{
    (void)enc_frame;
    pd->ptr = region_begin(enc_data, requested, flags, ra);
    hp_ompt_forked_push(pd->ptr);
}

/* The region this thread forked last ends.  pd is its team's parallel
 * data, which another thread's fork may be storing its region in at this
 * moment (ompt_forked.c): cleared only if it is still this region's, in
 * one atomic step. */
static void on_parallel_end(ompt_data_t *pd, ompt_data_t *enc_data, int flags,
                            const void *ra)
{
    (void)enc_data;
    (void)flags;
    (void)ra;
    void *region = hp_ompt_forked_pop(), *expected = region;
    if (pd && region)
        __atomic_compare_exchange_n(&pd->ptr, &expected, NULL, 0, __ATOMIC_ACQ_REL,
                                    __ATOMIC_RELAXED);
    if (region && *(int *)region == T_LEAGUE) {
        free(region);
        return;
    }
    team *tm = region;
    if (!tm)
        return;
    hp_thread *t = rec_thread();
    if (t && tm->join_start)
        record(t, tm->ra, HP_OMP_JOIN, hp_ticks() - tm->join_start);
    hp_thread *self = hp_event_attached_thread();   /* recording or not: its context */
    if (self)
        hp_event_team_close(self, &tm->ctx);
    hp_ompt_free(tm, sizeof *tm + tm->nslots * sizeof(itask *));
}

static void itask_unref(itask *it)
{
    if (atomic_fetch_sub(&it->refs, 1) == 1)
        hp_ompt_free(it, sizeof *it);
}

/* When a worker's part of the region ended: the release the master
 * published, or now if the runtime ended it before the master did. */
static uint64_t worker_end(itask *it, uint64_t now)
{
    uint64_t r = atomic_load(&it->released);
    return r && r < now ? r : now;
}

/* Closes an implicit task's records, once (its state), on its own thread
 * or, at the end, on the one taking the profile; end is when it ended. */
static void itask_close(hp_thread *self, itask *it, uint64_t end)
{
    int run = S_RUN;
    if (!atomic_compare_exchange_strong(&it->state, &run, S_CLOSED) || !it->opened)
        return;
    it->opened = 0;
    if (it->wait_start && hp_collecting && end > it->wait_start)
        hp_event_wait(it->t, hp_ompt_site(self, it->wait_ra, HP_OMP_IMPLICIT_BARRIER),
                      end - it->wait_start, it->wait_mark);
    it->wait_start = 0;
    /* The region node ends at `end`, not now. */
    uint64_t now = hp_ticks();
    if (it->f.start && now > end)
        it->f.start += now - end;
    hp_event_team_end(it->t, &it->f, &it->saved);
}

/* A worker whose previous implicit task has not been ended by the runtime
 * yet closes it before it starts the next one. */
static void close_previous(hp_thread *t, uint64_t now)
{
    othread *o = ot();
    itask *prev = o ? atomic_exchange(&o->pending, NULL) : NULL;
    if (prev) {
        hp_ompt_tasks_close_above(prev->tasks_base);
        scopes_cut(prev->scope_base);
        itask_close(t, prev, worker_end(prev, now));
    }
}

static void implicit_begin(ompt_data_t *pd, ompt_data_t *td, unsigned int index)
{
    td->ptr = NULL;
    team *tm = pd ? pd->ptr : NULL;
    hp_thread *t = hp_thread_self();
    if (!tm || !t)
        return;
    uint64_t now = hp_ticks();
    if (index)
        close_previous(t, now);
    itask *it = hp_ompt_alloc(sizeof *it);
    if (!it)
        return;
    *it = (itask){.type = T_IMPLICIT, .index = index, .t = t, .ra = tm->ra,
                  .fork_ra = tm->fork_ra, .team = index == 0 ? tm : NULL,
                  .scope_base = ot_self ? ot_self->nscopes : 0,
                  .tasks_base = hp_ompt_open_tasks};
    atomic_init(&it->state, S_RUN);
    atomic_init(&it->refs, index && index < tm->nslots ? 2 : 1);
    if (index == 0 && hp_collecting)
        record(t, tm->ra, HP_OMP_FORK, now - tm->begin);
    if (index && index < tm->nslots)
        tm->slot[index] = it;
    if (hp_collecting) {
        hp_event_team_begin(t, &tm->ctx, &it->f, &it->saved);
        it->opened = 1;
    }
    othread *o = index ? ot() : NULL;
    if (o)
        atomic_store(&o->pending, it);
    td->ptr = it;
}

/* The master's part ends: it publishes the release to its workers. */
static void master_end(hp_thread *t, itask *it, uint64_t now)
{
    team *tm = it->team;
    uint64_t release = it->release ? it->release : now;
    for (uint32_t i = 1; tm && i < tm->nslots; i++) {
        itask *w = tm->slot[i];
        if (!w)
            continue;
        atomic_store(&w->released, release);
        itask_unref(w);
    }
    hp_ompt_tasks_close_above(it->tasks_base);
    scopes_cut(it->scope_base);
    if (t)
        itask_close(t, it, now);
    if (tm)
        tm->join_start = hp_ticks();
    hp_ompt_free(it, sizeof *it);
}

/* A worker's part ends (libomp 14: when it is woken for the next region). */
static void worker_end_event(hp_thread *t, itask *it, uint64_t now)
{
    othread *o = ot_self;
    itask *mine = it;
    /* still this thread's part (not closed by its next one): what it
     * left open is above its scopes */
    if (o && atomic_compare_exchange_strong(&o->pending, &mine, NULL)) {
        hp_ompt_tasks_close_above(it->tasks_base);
        scopes_cut(it->scope_base);
    }
    if (t)
        itask_close(t, it, worker_end(it, now));
    itask_unref(it);
}

static void on_implicit_task(ompt_scope_endpoint_t endpoint, ompt_data_t *pd,
                             ompt_data_t *td, unsigned int actual, unsigned int index,
                             int flags)
{
    (void)actual;
    if (flags & ompt_task_initial) {
        /* a league's initial task: its teams are the construct's */
        if (td)
            td->ptr = endpoint == ompt_scope_begin && league_of(pd) ? pd->ptr : NULL;
        return;
    }
    if (endpoint == ompt_scope_begin) {
        implicit_begin(pd, td, index);
        return;
    }
    /* end: pd is NULL in libomp; the team is found through the task. */
    itask *it = td ? td->ptr : NULL;
    if (!it || it->type != T_IMPLICIT)
        return;
    td->ptr = NULL;
    uint64_t now = hp_ticks();
    if (it->index == 0)
        master_end(hp_thread_self(), it, now);
    else
        worker_end_event(hp_thread_self(), it, now);
}

/* libomp names the task this thread runs (td): the explicit tasks open
 * above it on the thread ended unreported (ompt_task.c). */
void hp_ompt_running(ompt_data_t *td)
{
    void *p = td ? td->ptr : NULL;
    itask *it = p && *(int *)p == T_IMPLICIT ? p : NULL;
    if (p && *(int *)p == T_EXPLICIT)
        hp_ompt_task_running(p);
    else if (it && it->t == hp_tls_self && atomic_load(&it->state) == S_RUN)
        hp_ompt_tasks_close_above(it->tasks_base);
}

/* Implicit tasks of idle workers still open when the profile is taken. */
static void close_pending(void)
{
    /* A thread that records nothing (the writer of a dying process) is
     * not made a recording one: each idle worker's own thread then. */
    hp_thread *self = hp_event_attached_thread();
    uint64_t now = hp_ticks();
    pthread_mutex_lock(&all_lock);
    for (othread *o = all_othreads; o; o = o->next) {
        itask *p = atomic_exchange(&o->pending, NULL);
        if (p)
            itask_close(self ? self : p->t, p, worker_end(p, now));
    }
    pthread_mutex_unlock(&all_lock);
    hp_ompt_task_report();
}

/* ---- waits: barriers, taskwait, taskgroup ---- */

/* The code address of the construct around a wait or a worksharing
 * construct that libomp reported with no user address (NULL, or inside
 * itself): an explicit task's construct; else the innermost open scope
 * of the thread (a single, a loop); else the parallel region. */
static const void *enclosing_ra(ompt_data_t *td)
{
    void *p = td ? td->ptr : NULL;
    if (p && *(int *)p == T_EXPLICIT)
        return ((etask *)p)->ra;
    othread *o = ot_self;
    if (o && o->nscopes)
        return o->scopes[o->nscopes - 1].ra;
    if (p && *(int *)p == T_LEAGUE)
        return ((league *)p)->ra;
    return p ? ((itask *)p)->ra : NULL;
}

/* The code address of a wait libomp reported at ra, no user address.
 * An implicit barrier at an address inside the runtime, with no construct
 * open around it, was reached by a tail call: clang ends an outlined
 * function whose last act is a single's end barrier with `jmp
 * __kmpc_barrier`, whose return address is then the outlined function's
 * caller in libomp (the region's own end barrier has none, or the fork's).
 * It is the outlined function's "barrier", keyed by its entry as an
 * explicit barrier tail-called there would be, for the resolution to find
 * the jump and the construct it ends (resolve.c); *what becomes
 * HP_OMP_BARRIER. */
static const void *foreign_wait_ra(const void *ra, ompt_data_t *td, const itask *it, int *what)
{
    const void *at = !ra && it ? it->ra : enclosing_ra(td);
    if (ra && it && at == it->ra && *what == HP_OMP_IMPLICIT_BARRIER && hp_ompt_in_runtime(ra))
        *what = HP_OMP_BARRIER;
    return at;
}

static void on_sync_region_wait(ompt_sync_region_t kind, ompt_scope_endpoint_t endpoint,
                                ompt_data_t *pd, ompt_data_t *td, const void *ra)
{
    (void)pd;
    int what = hp_ompt_wait_what((int)kind);
    if (what < 0)
        return;
    hp_ompt_running(td);
    itask *it = td && td->ptr && *(int *)td->ptr == T_IMPLICIT ? td->ptr : NULL;
    etask *e = hp_ompt_etask(td);
    uint64_t now = hp_ticks();
    if (endpoint == ompt_scope_begin && e) {   /* a task has one wait at a time */
        e->wait_start = now;
        e->wait_mark = hp_event_wait_mark(hp_tls_self);
        e->wait_ra = ra;
        e->wait_what = what;
        return;
    }
    if (endpoint == ompt_scope_begin) {
        /* A worker's wait at the region's end has no code address, a
         * wait inside the runtime one there: the enclosing construct's. */
        othread *o = ot_self;
        int as = what;
        if (kind == ompt_sync_region_taskgroup && o && o->nscopes &&
            o->scopes[o->nscopes - 1].cls == C_GROUP)
            ra = o->scopes[o->nscopes - 1].ra;   /* at the taskgroup, not its end */
        else if (hp_ompt_foreign(ra))
            ra = foreign_wait_ra(ra, td, it, &as);
        else if (it && it->fork_ra && ra == it->fork_ra)
            ra = it->ra;   /* the master's, at the region's end */
        scope_push(C_WAIT, as, ra, now);
        if (it && what == HP_OMP_IMPLICIT_BARRIER) {
            it->wait_ra = ra;
            it->release = 0;
            it->wait_start = now;
            it->wait_mark = hp_event_wait_mark(hp_tls_self);
        }
        return;
    }
    scope task_wait, *s = NULL;
    if (e && e->wait_start) {
        task_wait = (scope){e->wait_start, e->wait_mark, e->wait_ra, C_WAIT, e->wait_what, e,
                            {.node = HP_FRAME_OFF}};
        s = &task_wait;
        e->wait_start = 0;
    } else if (e || !(s = scope_pop(C_WAIT))) {
        return;
    }
    if (it && what == HP_OMP_IMPLICIT_BARRIER) {
        if (atomic_load(&it->state) != S_RUN)
            return;   /* closed already, with this wait */
        /* a worker's late end of the region's barrier: the release */
        if (it->index)
            now = worker_end(it, now);
        it->wait_start = 0;
        it->release = now;
    }
    hp_thread *t = rec_thread();
    if (t)
        hp_event_wait(t, hp_ompt_site(t, s->ra, s->what), now - s->start, s->mark);
}

/* A taskgroup's wait is reported at its end: its begin is noted. */
static void on_sync_region(ompt_sync_region_t kind, ompt_scope_endpoint_t endpoint,
                           ompt_data_t *pd, ompt_data_t *td, const void *ra)
{
    (void)pd;
    if (kind != ompt_sync_region_taskgroup)
        return;
    hp_ompt_running(td);
    if (endpoint == ompt_scope_begin)
        scope_push(C_GROUP, HP_OMP_TASKWAIT, ra, 0);
    else
        scope_pop(C_GROUP);
}

/* ---- worksharing, single, master/masked ---- */

/* A worksharing or masked construct `what` begins or ends on this
 * thread: an open frame in between.  A begin reported with no user
 * address (a dynamic loop's first, through the loader) is found on the
 * stack, else it is the enclosing construct's. */
static void work_scope(ompt_scope_endpoint_t endpoint, int what, const void *ra,
                       ompt_data_t *td)
{
    hp_ompt_running(td);
    if (endpoint == ompt_scope_begin) {
        if (hp_ompt_foreign(ra) && !(ra = hp_ompt_user_frame()))
            ra = enclosing_ra(td);
        scope *s = scope_push(C_WORK, what, ra, 0);
        if (s)
            hp_ompt_frame_open(&s->f, ra, what);
        return;
    }
    scope *s = scope_pop(C_WORK);
    if (s)
        hp_ompt_frame_close(&s->f);
}

/* A hold (ompt_mutex.c) is a frame on the scope stack, so that a task
 * switched out inside it (an untied one, at a task it creates there)
 * closes it first (scopes_cut): its time then ends at the switch. */
void hp_ompt_hold_open(uint64_t key, const void *ra, int what)
{
    scope *s = scope_push(C_HOLD, what, ra, key);
    if (s)
        hp_ompt_frame_open(&s->f, ra, what);
}

int hp_ompt_hold_close(uint64_t key)
{
    othread *o = ot_self;
    scope *top = o && o->nscopes ? &o->scopes[o->nscopes - 1] : NULL;
    if (!top || top->cls != C_HOLD || top->start != key)
        return 0;
    scope *s = scope_pop(C_HOLD);
    if (!s)
        return 0;
    hp_ompt_frame_close(&s->f);
    return 1;
}

/* libomp 14 reports a taskloop, and the creation of its tasks, with a code
 * address inside itself.  The taskloop's line is then the first caller
 * outside libomp and libhprof, found once per taskloop (a backtrace) and
 * used for its tasks too. */
__thread const void *hp_ompt_taskloop_ra __attribute__((tls_model("initial-exec")));

static void on_work(ompt_work_t wstype, ompt_scope_endpoint_t endpoint, ompt_data_t *pd,
                    ompt_data_t *td, uint64_t count, const void *ra)
{
    (void)pd;
    (void)count;
    int what;
    switch ((int)wstype) {
    case ompt_work_loop:
    case ompt_work_sections:
    case ompt_work_workshare:
    case ompt_work_distribute:
    case ompt_work_taskloop:
        what = HP_OMP_LOOP;
        break;
    case ompt_work_single_executor:
        what = HP_OMP_SINGLE;
        break;
    default:
        return;   /* single_other: the thread did not execute it */
    }
    if (wstype == ompt_work_taskloop) {
        if (endpoint == ompt_scope_begin)
            ra = hp_ompt_taskloop_ra = hp_ompt_user_caller(ra);
        else
            hp_ompt_taskloop_ra = NULL;
    }
    work_scope(endpoint, what, ra, td);
}

static void on_masked(ompt_scope_endpoint_t endpoint, ompt_data_t *pd, ompt_data_t *td,
                      const void *ra)
{
    (void)pd;
    work_scope(endpoint, HP_OMP_MASTER, ra, td);
}

/* ---- the tool ---- */

static int tool_init(ompt_function_lookup_t lookup, int initial_device_num,
                     ompt_data_t *tool_data)
{
    (void)initial_device_num;
    (void)tool_data;
    ompt_set_callback_t set = lookup ? (ompt_set_callback_t)lookup("ompt_set_callback") : NULL;
    if (!set)
        return 0;   /* the tool is not used */
#define HP_SET(event, fn) set(event, (ompt_callback_t)(void (*)(void))(fn))
    hp_ompt_codeptr_init();
    HP_SET(ompt_callback_parallel_begin, on_parallel_begin);
    HP_SET(ompt_callback_parallel_end, on_parallel_end);
    HP_SET(ompt_callback_implicit_task, on_implicit_task);
    HP_SET(ompt_callback_sync_region_wait, on_sync_region_wait);
    HP_SET(ompt_callback_sync_region, on_sync_region);
    HP_SET(ompt_callback_work, on_work);
    HP_SET(ompt_callback_masked, on_masked);
    hp_ompt_mutex_callbacks(set);
    hp_ompt_task_callbacks(set);
#undef HP_SET
    /* GOMP interposition now leaves the events to OMPT (gcc objects
     * running on libomp are counted once). */
    hp_omp_source_claim(HP_OMP_SOURCE_OMPT);
    return 1;
}

static void tool_fini(ompt_data_t *tool_data)
{
    (void)tool_data;
}

__attribute__((visibility("default")))
ompt_start_tool_result_t *ompt_start_tool(unsigned int omp_version, const char *runtime_version)
{
    (void)omp_version;
    (void)runtime_version;
    if (!hp_omp_source_records(HP_OMP_SOURCE_OMPT))
        return NULL;   /* opari2-instrumented code: POMP2 records (pomp2.c) */
    static ompt_start_tool_result_t result = {tool_init, tool_fini, {0}};
    return &result;
}

const hp_source hp_source_ompt = {"OMPT tool", HP_OMP_SOURCE_OMPT, NULL, NULL, close_pending};
#else
const hp_source hp_source_ompt = {"OMPT tool (not built)", HP_OMP_SOURCE_OMPT, NULL, NULL,
                                  NULL};
#endif /* HAVE_OMPT */
