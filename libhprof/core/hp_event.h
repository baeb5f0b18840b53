/*
 * hp_event.h - the event boundary: the one set of functions through which
 * every event source records (tier-2 probes and the user API, tier-1
 * -finstrument-functions hooks, the PMPI wrappers, GOMP, OMPT and POMP2).
 * A source calls these and nothing below them; only these functions and
 * the store (thread.c, site.c) write thread records, so the invariants
 * hold whatever the source:
 *  - a frame is opened under the thread's current context and closed in
 *    LIFO order; a site already open on the stack is folded (counted, not
 *    timed twice); tiny hot sites are throttled (counted only);
 *  - a leaf (a wait, a hold, an MPI call) is recorded under the current
 *    context, so it lies inside every open frame that contains it;
 *  - a wait leaves out the tasks the thread ran meanwhile, a task's
 *    creation the tasks run inside it, so no time is counted twice;
 *  - a team's threads rebuild the forking thread's context before they
 *    open the region, so one region is one node with a row per thread;
 *  - with HPROF_COUNTERS (hp_counters.h) the counters are read where a
 *    frame's time is taken (enter and exit of a timed activation), at an
 *    MPI call's begin and end and at a wait's mark and record, and
 *    accumulate in the same nodes.
 * Source-private state (lock tables, request tables, hook frame stacks)
 * lives with the source, not in hp_thread.
 */
#ifndef HP_EVENT_H
#define HP_EVENT_H

#include "hprof_probe.h"
#include "hp_clock.h"
#include "hp_thread.h"
#include "hp_counters.h"

/* ------------------------------------------------------------ frames */
#define HP_FRAME_OFF 0xffffffffu     /* nothing was opened */
#define HP_FRAME_FOLDED 0xfffffffeu  /* a recursive activation, counted only */

/* Throttling: a node timed `calls` times whose mean stays below `ticks`
 * is from then on only counted.  calls == 0 turns throttling off.  What
 * is recorded beneath it stays measured; the end of the run estimates
 * its own (exclusive) time of its counted calls from its timed ones
 * (hp_throttle.h), so its time stays inclusive of everything beneath. */
extern uint64_t hp_throttle_calls __attribute__((visibility("hidden"))), hp_throttle_ticks __attribute__((visibility("hidden")));
void hp_throttle_set(uint64_t calls, uint64_t ticks);
/* n, a node of the calling thread, is throttled from now on: keeps the
 * exclusive ticks of its timed calls (throttle.c). */
void hp_throttle_begin(hp_node *n);

/* After a timed activation of n (closed: nothing beneath it is open): from
 * now on only counted if it is hot and tiny; 1 when that starts now. */
static inline int hp_event_throttle(hp_node *n)
{
    if (hp_throttle_calls && n->timed >= hp_throttle_calls &&
        n->ticks < n->timed * hp_throttle_ticks && !(n->flags & HP_NODEF_THROTTLED)) {
        hp_throttle_begin(n);
        return 1;
    }
    return 0;
}

/* Opens site (a communication statement when is_comm) under the current
 * context of t, filling f for hp_event_exit. */
static inline void hp_event_enter(hp_thread *t, hprof_frame *f, uint32_t site, int is_comm)
{
    hp_active *a = hp_active_of(t, site);
    f->site = site;
    if (__builtin_expect(!a, 0)) {
        f->node = HP_FRAME_OFF;
        return;
    }
    if (a->depth || (__builtin_expect(site < t->nfast && t->fast[site].parent != HP_NO_NODE, 0) &&
                     t->fast[site].sp != UINTPTR_MAX && hp_fast_is_open(t, site))) {
        /* recursion: a slow activation of the site is open, or its fast
         * node is (the probes opened it inline; a fast slot whose sp is
         * UINTPTR_MAX has none open, hp_fast.h) */
        if (!a->depth)
            a->node = t->fast[site].node;
        a->depth++;
        hp_node *outer = hp_node_at(t, a->node);
        outer->count++;
        outer->flags |= HP_NODEF_FOLDED; /* recursive: never made fast */
        f->node = HP_FRAME_FOLDED;
        return;
    }
    uint32_t node = hp_cct_child(t, t->current, site);
    hp_node *n = hp_node_at(t, node);
    if (__builtin_expect(node == t->current, 0)) {
        /* only the overflow node is its own child: an activation opened
         * inside it is counted, and the outermost one times them all (each
         * timed, nested ones would count their time twice or more) */
        n->count++;
        a->depth = 1;
        a->node = node;
        f->node = HP_FRAME_FOLDED;
        return;
    }
    f->rec = n;     /* nodes never move (chunked); the active table may */
    a->depth = 1;
    a->node = node;
    f->node = node;
    f->saved = t->current;
    f->saved_comm = t->comm_ctx;
    t->current = node;
    if (is_comm)
        t->comm_ctx = node;
    if (n->flags & HP_NODEF_THROTTLED) {
        n->count++;
        f->start = a->start = 0;
        if (__builtin_expect(hp_counters_on, 0))
            hp_counters_untimed(t);
        return;
    }
    /* counters read outside the timing window: the time leaves them out */
    if (__builtin_expect(hp_counters_on, 0))
        hp_counters_enter(t, site);
    f->start = a->start = hp_ticks();
}

/* Closes f at `now`, a clock read the caller shares (0: reads the clock
 * itself, only when f is timed). */
static inline void hp_event_exit_at(hp_thread *t, hprof_frame *f, uint64_t now)
{
    if (f->node == HP_FRAME_OFF)
        return;
    t->active[f->site].depth--;
    if (f->node == HP_FRAME_FOLDED)
        return;
    hp_node *n = f->rec;
    if (f->start) {
        hp_node_add(n, (now ? now : hp_ticks()) - f->start);
        if (__builtin_expect(hp_counters_on, 0))
            hp_counters_exit(t, f->site, f->node);
        hp_event_throttle(n);
    }
    t->current = f->saved;
    t->comm_ctx = f->saved_comm;
}

static inline void hp_event_exit(hp_thread *t, hprof_frame *f)
{
    hp_event_exit_at(t, f, 0);
}

/* Closes f like hp_event_exit when f may not be the innermost open frame
 * any more (a hold released out of the order it began: an omp lock unset
 * in another function than the one that set it).  Its time is recorded
 * the same; the current context goes back to f's parent only when f is
 * the innermost frame, else it stays where the thread is now. */
static inline void hp_event_exit_unordered(hp_thread *t, hprof_frame *f)
{
    if (f->node < HP_FRAME_FOLDED && t->current != f->node) {
        hprof_frame late = *f;
        late.saved = t->current;
        late.saved_comm = t->comm_ctx;
        hp_event_exit(t, &late);
        return;
    }
    hp_event_exit(t, f);
}

/* ------------------------------------------------- leaves and call sites */

/* The node of `site` under the current context (created on first use). */
/* The calling thread's records if it has any, NULL otherwise (never makes
 * it a recording thread). */
static inline hp_thread *hp_event_attached_thread(void)
{
    return hp_tls_self;
}

static inline uint32_t hp_event_node(hp_thread *t, uint32_t site)
{
    return hp_cct_child(t, t->current, site);
}

/* The site a node stands for. */
static inline uint32_t hp_event_node_site(const hp_thread *t, uint32_t node)
{
    return hp_node_at(t, node)->site;
}

/* One completed occurrence of `ticks` at node. */
static inline __attribute__((always_inline)) void hp_event_time(hp_thread *t, uint32_t node,
                                                                uint64_t ticks)
{
    hp_node_add(hp_node_at(t, node), ticks);
    if (__builtin_expect(hp_counters_on, 0))
        hp_counters_leaf(t, node);
}

/* A blocking call (an MPI call) under way since start, made at return
 * address ra (id: the source's own number for it): if the process dies
 * in it, the end of the run still records it (hp_event_calls_under_way).
 * Three stores; hp_event_call_end clears it. */
static inline __attribute__((always_inline)) void hp_event_call_begin(hp_thread *t, uintptr_t ra,
                                                                      uint32_t id, uint64_t start)
{
    t->call_ra = ra;
    t->call_id = id;
    __atomic_store_n(&t->call_start, start, __ATOMIC_RELEASE);
    if (__builtin_expect(hp_counters_on, 0))
        hp_counters_call_begin(t);
}

static inline __attribute__((always_inline)) void hp_event_call_end(hp_thread *t)
{
    __atomic_store_n(&t->call_start, 0, __ATOMIC_RELAXED);
    if (__builtin_expect(hp_counters_on, 0))
        hp_counters_call_end(t);
}

/* At the end of a dying process: each thread's call under way counts as
 * one call of its time so far at node_of(t, ra, id) (the source's node
 * for it, under the thread's context), and is no longer under way. */
void hp_event_calls_under_way(uint64_t now, uint32_t (*node_of)(hp_thread *t, uintptr_t ra,
                                                               uint32_t id));

/* One completed wait, hold or execution of `ticks` at site, under the
 * thread's current context (no counters: its start was not a boundary
 * point; a wait's are, hp_event_wait). */
static inline void hp_event_leaf(hp_thread *t, uint32_t site, uint64_t ticks)
{
    hp_node_add(hp_node_at(t, hp_event_node(t, site)), ticks);
}

/* Waits leave out the tasks the thread ran meanwhile (at a barrier or a
 * taskwait it was working, not waiting): a wait takes a mark at its start
 * and records through hp_event_wait.  With counters the mark reads them
 * and the wait gets the deltas up to its record, unless a frame opened
 * or closed meanwhile (a task run in the wait: then none). */
static inline uint64_t hp_event_wait_mark(hp_thread *t)
{
    if (__builtin_expect(hp_counters_on, 0) && t)
        hp_counters_wait_begin(t);
    return t ? t->task_acc : 0;
}

static inline void hp_event_wait(hp_thread *t, uint32_t site, uint64_t ticks, uint64_t mark)
{
    uint64_t ran = t->task_acc - mark;
    uint32_t node = hp_event_node(t, site);
    hp_node_add(hp_node_at(t, node), ticks > ran ? ticks - ran : 0);
    if (__builtin_expect(hp_counters_on, 0))
        hp_counters_wait_end(t, node);
}

/* The node of the open instrumented communication statement, HP_NO_NODE
 * when none is open (the MPI calls inside it are its records). */
static inline __attribute__((always_inline)) uint32_t hp_event_comm_statement(const hp_thread *t)
{
    return t->comm_ctx;
}

/* The team t works in (hp_event_team_begin), 0: outside every region. */
static inline uint32_t hp_event_team(const hp_thread *t)
{
    return t->team;
}

/* The node of the current context. */
static inline __attribute__((always_inline)) uint32_t hp_event_current(const hp_thread *t)
{
    return t->current;
}

/* The node for dynamic site `addr` under context node ctx. */
uint32_t hp_event_site_node_slow(hp_thread *t, uint32_t ctx, uintptr_t addr, uint32_t kind,
                                 const char *name, uint32_t flags);

static inline __attribute__((always_inline)) hp_site_memo *hp_memo_slot(hp_thread *t, uintptr_t addr)
{
    return &t->memo[(addr ^ (addr >> 8)) & (HP_MEMO_SIZE - 1)];
}

/* The node of dynamic site `addr` under context node ctx (the current
 * one, or a frame of a call path). */
static inline __attribute__((always_inline)) uint32_t
hp_event_site_node_under(hp_thread *t, uint32_t ctx, uintptr_t addr, uint32_t kind,
                         const char *name, uint32_t flags)
{
    hp_site_memo *m = hp_memo_slot(t, addr);
    if (__builtin_expect(m->addr == addr && m->ctx == ctx, 1))
        return m->node;
    return hp_event_site_node_slow(t, ctx, addr, kind, name, flags);
}

static inline __attribute__((always_inline)) uint32_t
hp_event_site_node(hp_thread *t, uintptr_t addr, uint32_t kind, const char *name, uint32_t flags)
{
    return hp_event_site_node_under(t, t->current, addr, kind, name, flags);
}

/* ---------------------------------------------- tier-0 call paths */

/* HPROF_CALLPATH: how many return addresses key a call site reached with
 * no instrumented frame open (the call's own included; 0 and 1: only its
 * own, as without call paths). */
extern uint32_t hp_callpath_depth __attribute__((visibility("hidden")));

/* The context a call site at return address ra (the caller of the
 * wrapper that calls this) goes under: with no frame open (the thread at
 * its root) and call paths on, the frame nodes of the return addresses
 * above ra, outermost first, created on first use (callpath.c; frames in
 * the C library's start code are left out); else the current context. */
uint32_t hp_event_callpath_slow(hp_thread *t, uintptr_t ra);
/* The same for a caller that is not an MPI wrapper: key names the place
 * the walk starts from (the caller's own return address). */
uint32_t hp_event_callpath_from(hp_thread *t, uintptr_t ra, uintptr_t key);
/* Turns call paths on with `depth` return addresses (at start-up). */
void hp_callpath_init(uint32_t depth);
/* With HPROF_VERBOSE: how many call paths were walked, and how many of
 * them by libunwind (the first from each place in our code, and those
 * through frames without a simple rule). */
void hp_callpath_report(void);

static inline __attribute__((always_inline)) uint32_t hp_event_callpath(hp_thread *t,
                                                                       uintptr_t ra)
{
    if (__builtin_expect(hp_callpath_depth > 1 && t->current == HP_ROOT_NODE, 0))
        return hp_event_callpath_slow(t, ra);
    return t->current;
}

/* One completed occurrence of `ticks` at node and at the frames of the
 * call path above it (they count and time the calls made through them). */
static inline __attribute__((always_inline)) void hp_event_time_path(hp_thread *t, uint32_t node,
                                                                     uint64_t ticks)
{
    uint32_t up = hp_node_at(t, node)->parent;
    while (__builtin_expect(up != HP_NO_NODE, 1) &&
           __builtin_expect(hp_node_at(t, up)->flags & HP_NODEF_FRAME, 0)) {
        hp_node *frame = hp_node_at(t, up);
        hp_node_add(frame, ticks);
        if (__builtin_expect(hp_counters_on, 0))
            hp_counters_leaf_also(t, up);
        up = frame->parent;
    }
    hp_event_time(t, node, ticks);
}

/* The site registered under `key` for code address addr (a construct of
 * a dynamic site: several may share one address), cached per thread. */
uint32_t hp_event_site_keyed(hp_thread *t, uint64_t key, uintptr_t addr, uint32_t kind,
                             const char *name, uint32_t flags);
/* The site this thread has cached under key, HP_MAP_MISSING if none. */
static inline uint32_t hp_event_site_cached(const hp_thread *t, uint64_t key)
{
    return hp_map_get(&t->site_cache, key);
}

/* ------------------------------------------------- communication records */

/* Communication of node `node` with `peer`. */
void hp_event_comm(hp_thread *t, uint32_t node, int32_t peer, uint64_t sent,
                 uint64_t recv, uint64_t tran, uint64_t sync);
/* hp_event_comm inline when the record is the node's last one (a
 * completed receive: no call; callgrind, bench/msgrate.c). */
static inline __attribute__((always_inline)) void hp_event_comm_inline(hp_thread *t, uint32_t node,
                                                                     int32_t peer, uint64_t sent,
                                                                     uint64_t recv, uint64_t tran,
                                                                     uint64_t sync)
{
    uint32_t i = hp_comm_last(t, node, peer);
    if (__builtin_expect(i != HP_NO_NODE, 1))
        hp_comm_add(hp_comm_at(t, i), sent, recv, tran, sync);
    else
        hp_event_comm(t, node, peer, sent, recv, tran, sync);
}
/* Bytes and a transfer count without time (the per-peer part of a
 * collective whose time is kept under HP_PEER_ALL).  Returns the record's
 * index (HP_NO_NODE without memory), which a request keeps for its
 * completion (hp_event_comm_time_at). */
uint32_t hp_event_comm_bytes(hp_thread *t, uint32_t node, int32_t peer,
                           uint64_t sent, uint64_t recv);
/* hp_event_comm_bytes inline when the record is the node's last one (a
 * stream of Isends to one peer: no call; callgrind, bench/msgrate.c). */
static inline __attribute__((always_inline)) uint32_t hp_event_comm_bytes_inline(hp_thread *t,
                                                                                uint32_t node,
                                                                                int32_t peer,
                                                                                uint64_t sent,
                                                                                uint64_t recv)
{
    uint32_t i = hp_comm_last(t, node, peer);
    if (__builtin_expect(i == HP_NO_NODE, 0))
        return hp_event_comm_bytes(t, node, peer, sent, recv);
    hp_comm *c = hp_comm_at(t, i);
    c->count++;
    c->sent += sent;
    c->recv += recv;
    return i;
}
/* The time of a transfer counted earlier by hp_event_comm_bytes (a request
 * counted when it was posted, timed when it completes): adds the time and
 * updates min and max, not the count. */
void hp_event_comm_time(hp_thread *t, uint32_t node, int32_t peer,
                      uint64_t tran, uint64_t sync);
/* hp_event_comm_time with the record index `i` that hp_event_comm_bytes
 * returned when the transfer was counted: used when this thread's record i
 * is still (node, peer)'s, which holds whatever thread counted it, as a
 * record is named by its node and peer alone; any other index (another
 * thread's numbering, HP_NO_NODE, past this thread's records) looks the
 * record up.  Inline: no call for a request completed where it was posted
 * (callgrind, bench/msgrate.c). */
static inline __attribute__((always_inline)) void hp_event_comm_time_at(hp_thread *t, uint32_t i,
                                                                      uint32_t node, int32_t peer,
                                                                      uint64_t tran, uint64_t sync)
{
    if (__builtin_expect(i < t->ncomms, 1)) {
        hp_comm *c = hp_comm_at(t, i);
        if (__builtin_expect(c->node == node && c->peer == peer, 1)) {
            hp_comm_time(c, tran, sync);
            return;
        }
    }
    hp_event_comm_time(t, node, peer, tran, sync);
}
/* Takes back one transfer counted by hp_event_comm_bytes at this thread's
 * node (a send cancelled after all); nothing if it was not counted here. */
void hp_event_comm_undo(hp_thread *t, uint32_t node, int32_t peer, uint64_t sent,
                  uint64_t recv);

/* ------------------------------------------------------ OpenMP teams */

#define HP_OMP_MAX_DEPTH 64

/* The calling context of a team, as the forking thread sees it. */
typedef struct hp_omp_team {
    uint32_t id;                          /* team instance within the process, from 1 */
    uint32_t depth;                       /* sites in path */
    uint32_t path[HP_OMP_MAX_DEPTH];      /* site ids below the root */
    uint32_t region;                      /* the region's site */
    /* A region forked at the root under a call path (HPROF_CALLPATH):
     * the innermost frame (HP_NO_NODE: none), the context the forking
     * thread goes back to, when it forked, and which thread it is. */
    uint32_t frames, outer;
    uint64_t fork_ticks;
    const hp_thread *forker;
} hp_omp_team;

/* The forking thread records its current context and the region site;
 * ra is the return address of the call that forks, in the program (0:
 * not known; the region's own place, as an MPI call site's is, even when
 * the region is keyed by its outlined function), start when the fork
 * began (what the fork record times from).  In tier 0 at the root the
 * region goes under the frames of the return addresses above ra, which
 * stay the thread's context until hp_event_team_close. */
void hp_event_team_fork(hp_thread *t, hp_omp_team *team, uint32_t region, uintptr_t ra,
                        uint64_t start);
/* The forking thread after the region and its join: back to the context
 * it forked in; the frames of the call path count the region once and
 * its time from fork to now, which is work at the thread's task level:
 * a wait the region ran inside leaves it out (hp_event_wait). */
void hp_event_team_close(hp_thread *t, const hp_omp_team *team);

/* What a thread restores when its part of a region ends. */
typedef struct hp_omp_saved {
    uint32_t node;                        /* its calling context */
    uint32_t team;                        /* the team it worked in */
    uint64_t task;                        /* the explicit task it ran */
    uint32_t task_fold;
    uint64_t task_acc;
    int frame_time;                       /* the region's time goes to the frames
                                             of its call path (not the forker) */
} hp_omp_saved;

/* A thread of the team starts its part of the region (implicit task):
 * the team's context is rebuilt in the thread's own tree and the region
 * node opened in f; *saved keeps the thread's state to restore. */
void hp_event_team_begin(hp_thread *t, const hp_omp_team *team, hprof_frame *f,
                       hp_omp_saved *saved);
void hp_event_team_end(hp_thread *t, hprof_frame *f, const hp_omp_saved *saved);

/* ------------------------------------------------------ explicit tasks */

/* One execution in progress, on the executing thread's stack. */
typedef struct hp_task_run {
    hprof_frame f;
    uint64_t id;        /* the task */
    uint64_t outer;     /* the task this one interrupts on its thread, 0: none */
    uint32_t site;
    uint32_t outer_fold;  /* the thread's task_fold to restore */
    uint64_t outer_acc;   /* the thread's task_acc to restore, plus this run */
    uint64_t start;
    uint64_t first;       /* the task's first start (its RUN event's begin) */
    uint64_t acc;         /* suspended: the task's task_acc then */
    uint64_t suspended;   /* suspended at, 0: never (zeroed, for hp_event_task_resume) */
    uint64_t before;      /* ticks of its earlier fragments at before_node of before_on */
    const hp_thread *before_on;
    uint32_t before_node;
} hp_task_run;

/* A new task instance id for a task t creates (never 0). */
static inline uint64_t hp_event_task_new_id(hp_thread *t)
{
    return (uint64_t)(t->id + 1) << 40 | (++t->task_seq & ((1ull << 40) - 1));
}

/* The start of a task creation by t: its clock and the thread's ticks of
 * tasks run so far (hp_event_wait_mark).  A creation may run the task, or
 * others, at once (an undeferred or included task, a full queue, a
 * taskloop's group): the "task create" time leaves out those executions,
 * recorded as "task" nodes, so nested creations are never counted twice. */
typedef struct hp_task_clock {
    uint64_t t0, mark;
} hp_task_clock;

static inline hp_task_clock hp_event_task_create_start(const hp_thread *t)
{
    return (hp_task_clock){hp_ticks(), t ? t->task_acc : 0};
}

/* t created task `id` at create_site since c: its "task create" record,
 * and a CREATE event whose parent is the task t runs. */
void hp_event_task_created(hp_thread *t, uint32_t create_site, uint64_t id, const hp_task_clock *c);
/* The same for `tasks` tasks made in one call since c (a taskloop): one
 * timed creation counting `tasks`, one CREATE event. */
void hp_event_task_created_n(hp_thread *t, uint32_t create_site, uint64_t id,
                       const hp_task_clock *c, uint64_t tasks);
/* t created task `id` at create_site, a creation the source cannot time
 * (an OMPT callback inside the runtime's creation: its only duration
 * would be the tool's own): counted, untimed; no clock read unless the
 * task timeline is on (its CREATE event at the time of the report). */
void hp_event_task_created_untimed(hp_thread *t, uint32_t create_site, uint64_t id);

/* t starts executing task `id` of construct `site` (the "task" site); r
 * stays on the caller's stack until hp_event_task_end.  Not collecting: only
 * the current task id is kept. */
void hp_event_task_begin(hp_thread *t, hp_task_run *r, uint32_t site, uint64_t id);
void hp_event_task_end(hp_thread *t, hp_task_run *r);

/* Closes r like hp_event_task_end for a task that will resume later, maybe on
 * another thread (an untied task switched out): its time so far is
 * recorded, its execution is counted by the run that completes it. */
void hp_event_task_suspend(hp_thread *t, hp_task_run *r);
/* hp_event_task_begin for a task that may have been suspended: its waits go on
 * leaving out what ran meanwhile, the time it was switched out included
 * (a taskwait it was suspended in: the thread ran other tasks). */
void hp_event_task_resume(hp_thread *t, hp_task_run *r, uint32_t site, uint64_t id);

#endif
