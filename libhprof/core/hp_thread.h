/*
 * hp_thread.h - per-thread records: the calling-context tree (CCT) of
 * sites and the communication records of its nodes.  Every event source
 * funnels into the functions here; only the owning thread writes its
 * records, so the hot path takes no lock.  The hot-path helpers below are
 * forced inline: a unit with hundreds of callers (the generated MPI
 * wrappers) would otherwise get out-of-line copies of them.
 */
#ifndef HP_THREAD_H
#define HP_THREAD_H

#include <stdint.h>
#include "hp_map.h"
#include "hprof_probe.h"

typedef struct hp_node {
    uint32_t site;
    uint32_t parent;      /* node index, HP_NONE for the root */
    uint32_t last_child;  /* cache of the last child looked up (and prev_child) */
    uint32_t last_comm;   /* cache of the last comm record looked up */
    uint64_t count, ticks, min, max;
    uint64_t timed;       /* how many of count were timed (see throttling) */
    uint32_t flags;       /* HP_NODEF_* */
    uint32_t prev_child;  /* the child looked up before last_child */
    uint64_t excl;        /* once throttled: ticks of its timed calls spent
                             outside what is recorded beneath it (throttle.c) */
} hp_node;

#define HP_NODEF_THROTTLED 1u  /* entries are only counted, not timed (excl set) */
#define HP_NODEF_FAST 2u       /* entered by the probes inline under its parent (hp_fast.h) */
#define HP_NODEF_FOLDED 4u     /* a recursive activation was folded into it */
#define HP_NODEF_FRAME 8u      /* a frame of a tier-0 call path (hp_event_callpath) */

/* A site open on this thread's stack: recursion folding (DESIGN.md §3). */
typedef struct hp_active {
    uint32_t depth;       /* open activations of the site */
    uint32_t node;        /* node of the outermost one */
    uint64_t start;       /* its start, 0 if it is not timed */
} hp_active;

typedef struct hp_comm {
    uint32_t node;
    int32_t peer;         /* world rank, HP_PEER_ALL or HP_PEER_FILE */
    uint64_t count, sent, recv, tran, sync, min, max;
} hp_comm;

/* Direct-mapped memo of (call site address, context) -> node, so a call
 * site seen before costs one compare instead of two hash lookups. */
typedef struct hp_site_memo {
    uintptr_t addr;
    uint32_t ctx, node;
} hp_site_memo;
#define HP_MEMO_SIZE 256

/* The last call path walked from a return address (callpath.c): the stack
 * words the walk read (at[i] held word[i]) and the node it gave. */
#define HP_PATH_WORDS 17        /* a walk's most reads: 15 frames and 2 */
#define HP_PATH_MEMO 8
typedef struct hp_path_memo {
    uintptr_t ra, key, frame; /* ra 0: empty */
    uint64_t when;            /* the thread's epoch << 32 | the context */
    unsigned long gen;        /* callpath.c's known_gen when walked */
    uint32_t node;
    int reads;
    uintptr_t at[HP_PATH_WORDS], word[HP_PATH_WORDS];
} hp_path_memo;

#define HP_CHUNK_BITS 8
#define HP_CHUNK (1u << HP_CHUNK_BITS)

/* Fast sites (hprof_probe.h): per site id, the context under which the
 * site's node is only counted and the tier-2 probes handle it inline. */
typedef hprof_probe_fast hp_fast;

typedef struct hp_thread {
    /* What instrumented code reads inline (hprof_probe_view, same layout). */
    uint32_t current;     /* node of the current calling context */
    uint32_t nfast;       /* fast[] entries the probes may use: nactive, or 0 */
    hp_fast *fast;        /* nactive entries, indexed by site id */
    uint32_t id;          /* 0 for the first thread that recorded */
    uint32_t epoch;       /* records are zeroed when this lags hp_epoch */
    uint32_t overflow;    /* node taking events past HPROF_MAX_NODES */
    hp_node **node_chunks;
    uint32_t nnodes, node_chunk_cap;
    hp_comm **comm_chunks;
    uint32_t ncomms, comm_chunk_cap;
    hp_map children;      /* parent << 32 | site -> node */
    hp_map comm_index;    /* node << 32 | peer -> comm */
    hp_map site_cache;    /* hp_site_key(address, kind) -> site */
    uint64_t overflow_events;
    uint32_t comm_ctx;    /* node of the open static comm statement, or HP_NO_NODE */
    uint32_t nactive;     /* entries in active[] (indexed by site id) */
    hp_active *active;
    uint32_t team;        /* OpenMP team instance this thread works in, 0: none */
    uint64_t task_seq;    /* explicit tasks this thread created */
    uint64_t task_cur;    /* id of the explicit task it runs, 0: none (hp_task.h) */
    uint32_t task_fold;   /* that task's node when its activation was folded, 0: not */
    uint64_t task_acc;    /* ticks of tasks run to completion at this task level */
    struct hp_task_trace *trace;  /* task timeline ring (HPROF_TASK_TRACE) */
    uint64_t call_start;  /* a blocking call under way since then, 0: none */
    uintptr_t call_ra;    /* its return address and its source's id for it */
    uint32_t call_id;
    struct hp_counter_store *counters;  /* HPROF_COUNTERS (hp_counters.h), NULL: none */
    hp_site_memo memo[HP_MEMO_SIZE];
    int path_memo_busy;   /* a path memo is being written (a signal handler keeps off) */
    hp_path_memo path_memo[HP_PATH_MEMO];
    unsigned long path_calls; /* call paths asked for (callpath.c), memo hits included */
} hp_thread;

#define HP_ROOT_NODE 0u
#define HP_NO_NODE 0xffffffffu

/* Global collection state: hp_collecting (MPI_Pcontrol(0/1)), hp_epoch
 * (bumped by a reset).  The globals read on every event are declared
 * hidden, as they are defined (-fvisibility=hidden): read directly, not
 * through the GOT (one instruction less each; callgrind, bench/msgrate.c). */
extern volatile int hp_collecting __attribute__((visibility("hidden")));
extern volatile uint32_t hp_epoch __attribute__((visibility("hidden")));
/* The calling thread's records, NULL until it has some. */
extern __thread hp_thread *hp_tls_self __attribute__((tls_model("initial-exec")));
/* The same for instrumented code (hprof_probe.h), which reads it at the
 * thread's records' start: an empty view (no fast sites) until then, so
 * that the probes need not test for NULL. */
extern __thread hprof_probe_view *hp_tls_view __asm__("hprof_probe_thread")
    __attribute__((tls_model("initial-exec")));
extern hprof_probe_view hp_view_none;

/* Makes t (NULL: none) the calling thread's records. */
static inline void hp_tls_set(hp_thread *t)
{
    hp_tls_self = t;
    hp_tls_view = t ? (hprof_probe_view *)t : &hp_view_none;
}

hp_thread *hp_thread_attach(void);     /* slow path of hp_thread_self */
/* Records of a thread that is not in the registry, so never in a profile
 * (the start-up calibration's, hp_calibrate.h); NULL without memory. */
hp_thread *hp_thread_scratch_new(void);
void hp_thread_scratch_free(hp_thread *t);
void hp_thread_zero(hp_thread *t);     /* zero all counts, keep the tree */

static inline __attribute__((always_inline)) hp_thread *hp_thread_self(void)
{
    hp_thread *t = hp_tls_self;
    if (__builtin_expect(t == 0, 0))
        t = hp_thread_attach();
    if (t && __builtin_expect(t->epoch != hp_epoch, 0))
        hp_thread_zero(t);
    return t;
}

static inline __attribute__((always_inline)) hp_node *hp_node_at(const hp_thread *t, uint32_t i)
{
    return &t->node_chunks[i >> HP_CHUNK_BITS][i & (HP_CHUNK - 1)];
}

static inline hp_comm *hp_comm_at(const hp_thread *t, uint32_t i)
{
    return &t->comm_chunks[i >> HP_CHUNK_BITS][i & (HP_CHUNK - 1)];
}

/* Time of one transfer of c. */
static inline void hp_comm_time(hp_comm *c, uint64_t tran, uint64_t sync)
{
    uint64_t total = tran + sync;
    c->tran += tran;
    c->sync += sync;
    if (total < c->min)
        c->min = total;
    if (total > c->max)
        c->max = total;
}

/* One transfer of c: its bytes and time. */
static inline void hp_comm_add(hp_comm *c, uint64_t sent, uint64_t recv, uint64_t tran,
                               uint64_t sync)
{
    c->count++;
    c->sent += sent;
    c->recv += recv;
    hp_comm_time(c, tran, sync);
}

static inline __attribute__((always_inline)) void hp_node_add(hp_node *n, uint64_t ticks)
{
    n->count++;
    n->timed++;
    n->ticks += ticks;
    if (ticks < n->min)
        n->min = ticks;
    if (ticks > n->max)
        n->max = ticks;
}

/* The child of `parent` for `site`, created on first use.  Past the node
 * limit it returns the thread's overflow node (one warning per process). */
uint32_t hp_cct_child_slow(hp_thread *t, uint32_t parent, uint32_t site);

static inline uint32_t hp_cct_child(hp_thread *t, uint32_t parent, uint32_t site)
{
    hp_node *p = hp_node_at(t, parent);
    uint32_t last = p->last_child, prev = p->prev_child;
    if (last != HP_NO_NODE && hp_node_at(t, last)->site == site)
        return last;
    if (prev != HP_NO_NODE && hp_node_at(t, prev)->site == site) {
        p->prev_child = last; /* two children entered in turn: both hit */
        p->last_child = prev;
        return prev;
    }
    return hp_cct_child_slow(t, parent, site);
}

/* The recursion-folding entry of `site` (grown on demand); NULL without
 * memory. */
hp_active *hp_active_slow(hp_thread *t, uint32_t site);

/* Sends every thread's probes to the runtime again (collection off, a
 * reset); each thread's next slow probe lets them use their fast sites
 * again (hp_fast.h). */
void hp_fast_disarm_all(void);
/* Whether the fast node of `site` is open on t's calling context. */
int hp_fast_is_open(const hp_thread *t, uint32_t site);

static inline hp_active *hp_active_of(hp_thread *t, uint32_t site)
{
    if (__builtin_expect(site < t->nactive, 1))
        return &t->active[site];
    return hp_active_slow(t, site);
}


/* Communication record of node `node` with `peer` (created on first use). */
uint32_t hp_comm_find(hp_thread *t, uint32_t node, int32_t peer);

/* The node's last comm record when it is the peer's (a message stream to
 * one peer), else HP_NO_NODE. */
static inline __attribute__((always_inline)) uint32_t hp_comm_last(const hp_thread *t,
                                                                  uint32_t node, int32_t peer)
{
    uint32_t i = hp_node_at(t, node)->last_comm;
    if (__builtin_expect(i != HP_NO_NODE, 1) && __builtin_expect(hp_comm_at(t, i)->peer == peer, 1))
        return i;
    return HP_NO_NODE;
}

/* Registry of threads, read at the end of the run. */
uint32_t hp_thread_count(void);
hp_thread *hp_thread_get(uint32_t i);
/* The same without bringing a thread's records up to a reset (another
 * thread's, read while it runs: a live snapshot, hp_live.h). */
hp_thread *hp_thread_peek(uint32_t i);
/* Configuration and reset. */
void hp_records_set_max_nodes(uint64_t max_nodes);
uint64_t hp_records_total_nodes(void);
int hp_records_overflowed(void);
/* Under MPI one line for the whole run is printed at the end instead of
 * one per process when the limit is reached. */
void hp_records_defer_overflow_warning(void);
void hp_records_reset(void);           /* MPI_Pcontrol(2): zero everything */
void hp_threads_free_all(void);        /* unit tests only */
void hp_task_trace_clear(struct hp_task_trace *tr);
void hp_task_trace_free(struct hp_task_trace *tr);

#endif
