/*
 * thread.c - per-thread record stores: attaching a thread, growing its
 * node and comm chunks, the calling-context tree, the node limit and the
 * epoch-based reset.  A lock is taken only when a thread attaches.
 */
#include <assert.h>
#include <pthread.h>
#include <stddef.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include "hp_event.h"
#include "hp_counters.h"
#include "hp_site.h"
#include "hp_config.h"
#include "hp_log.h"
#include "hp_source.h"

volatile int hp_collecting = 1;
volatile uint32_t hp_epoch;
__thread hp_thread *hp_tls_self __attribute__((tls_model("initial-exec")));
hprof_probe_view hp_view_none = {HP_NO_NODE, 0, NULL};
__thread hprof_probe_view *hp_tls_view __attribute__((tls_model("initial-exec"), visibility("default"))) =
    &hp_view_none;

_Static_assert(offsetof(hp_thread, current) == offsetof(hprof_probe_view, current) &&
                   offsetof(hp_thread, nfast) == offsetof(hprof_probe_view, nfast) &&
                   offsetof(hp_thread, fast) == offsetof(hprof_probe_view, fast),
               "hp_thread begins with the probes' view");

static pthread_mutex_t registry_lock = PTHREAD_MUTEX_INITIALIZER;
static hp_thread **threads;
static uint32_t nthreads, threads_cap;
static uint64_t max_nodes = 1000000;
static _Atomic uint64_t total_nodes;
static atomic_int overflow_warned;
static int overflow_warn_now = 1;

/* Grows a thread's table of chunk pointers.  A live snapshot (HPROF_LIVE,
 * hp_live.h) may be reading the old table from another thread: it is
 * copied, published, and then kept, not freed (all of a thread's old
 * tables together are smaller than its last one). */
static int grow_chunk_table(void ***chunks, uint32_t *cap)
{
    uint32_t ncap = *cap ? *cap * 2 : 16;
    void **n = malloc(sizeof *n * ncap);
    if (!n)
        return -1;
    if (*cap)
        memcpy(n, *chunks, sizeof *n * *cap);
    memset(n + *cap, 0, sizeof *n * (ncap - *cap));
    void **old = *chunks;
    __atomic_store_n(chunks, n, __ATOMIC_RELEASE);
    *cap = ncap;
    if (!hp_cfg.live)
        free(old);
    return 0;
}

static int grow_chunks(void ***chunks, uint32_t *cap, uint32_t count, size_t elem)
{
    uint32_t c = count >> HP_CHUNK_BITS;
    if (c >= *cap && grow_chunk_table(chunks, cap) != 0)
        return -1;
    if (!(*chunks)[c] && !((*chunks)[c] = malloc(elem * HP_CHUNK)))
        return -1;
    return 0;
}

static void node_init(hp_node *n, uint32_t site, uint32_t parent)
{
    memset(n, 0, sizeof *n);
    n->site = site;
    n->parent = parent;
    n->last_child = HP_NO_NODE;
    n->prev_child = HP_NO_NODE;
    n->last_comm = HP_NO_NODE;
    n->min = UINT64_MAX;
}

/* Grows the per-site tables (recursion folding, fast sites) to n entries. */
static int grow_site_tables(hp_thread *t, uint32_t n)
{
    hp_fast *f = realloc(t->fast, sizeof *f * n);
    if (!f)
        return -1;
    t->fast = f;
    for (uint32_t i = t->nactive; i < n; i++)
        f[i] = (hp_fast){.parent = HP_NO_NODE, .node = HP_NO_NODE, .leaf = HP_NO_NODE};
    hp_active *a = realloc(t->active, sizeof *a * n);
    if (!a)
        return -1;
    memset(a + t->nactive, 0, sizeof *a * (n - t->nactive));
    t->active = a;
    t->nactive = n;
    if (t->nfast)
        t->nfast = n;
    return 0;
}

hp_active *hp_active_slow(hp_thread *t, uint32_t site)
{
    uint32_t n = t->nactive ? t->nactive : 64;
    while (n <= site)
        n *= 2;
    if (grow_site_tables(t, n) != 0)
        return NULL;
    return &t->active[site];
}

void hp_fast_disarm_all(void)
{
    pthread_mutex_lock(&registry_lock);
    for (uint32_t i = 0; i < nthreads; i++)
        __atomic_store_n(&threads[i]->nfast, 0, __ATOMIC_RELAXED);
    pthread_mutex_unlock(&registry_lock);
}

/* Appends a node without checking the limit; HP_NO_NODE without memory. */
static uint32_t node_append(hp_thread *t, uint32_t parent, uint32_t site)
{
    if (grow_chunks((void ***)&t->node_chunks, &t->node_chunk_cap, t->nnodes,
                    sizeof(hp_node)) != 0)
        return HP_NO_NODE;
    uint32_t i = t->nnodes;
    node_init(hp_node_at(t, i), site, parent);
    __atomic_store_n(&t->nnodes, i + 1, __ATOMIC_RELEASE); /* initialised first: hp_live.h */
    return i;
}

/* A thread that exits tells the sources, which close what it left open
 * (its records stay for the end of the run). */
static pthread_key_t exit_key;
static int exit_key_ok;
static pthread_once_t exit_key_once = PTHREAD_ONCE_INIT;

static void thread_exits(void *p)
{
    hp_sources_thread_end(p);
    hp_counters_thread_end(p);
}

static void make_exit_key(void)
{
    exit_key_ok = pthread_key_create(&exit_key, thread_exits) == 0;
}

static void thread_free(hp_thread *t);

/* A thread's records with their root and overflow nodes, not registered. */
static hp_thread *thread_new(void)
{
    hp_thread *t = calloc(1, sizeof *t);
    if (!t)
        return NULL;
    if (node_append(t, HP_NO_NODE, HP_SITE_ROOT) != HP_ROOT_NODE ||
        (t->overflow = node_append(t, HP_ROOT_NODE, HP_SITE_OVERFLOW)) == HP_NO_NODE) {
        thread_free(t);
        return NULL;
    }
    hp_site_count(); /* makes sure the reserved sites exist */
    t->current = HP_ROOT_NODE;
    t->comm_ctx = HP_NO_NODE;
    t->epoch = hp_epoch;
    return t;
}

hp_thread *hp_thread_scratch_new(void)
{
    return thread_new();
}

void hp_thread_scratch_free(hp_thread *t)
{
    if (!t)
        return;
    /* its nodes past the root and overflow counted towards the limit */
    atomic_fetch_sub(&total_nodes, t->nnodes - 2);
    thread_free(t);
}

hp_thread *hp_thread_attach(void)
{
    hp_thread *t = thread_new();
    if (!t)
        return NULL;
    pthread_mutex_lock(&registry_lock);
    if (nthreads == threads_cap) {
        uint32_t cap = threads_cap ? threads_cap * 2 : 16;
        hp_thread **n = realloc(threads, sizeof *n * cap);
        if (!n) {
            pthread_mutex_unlock(&registry_lock);
            thread_free(t);
            return NULL;
        }
        threads = n;
        threads_cap = cap;
    }
    t->id = nthreads;
    threads[nthreads++] = t;
    t->epoch = hp_epoch;
    pthread_mutex_unlock(&registry_lock);
    hp_tls_set(t);
    pthread_once(&exit_key_once, make_exit_key);
    if (exit_key_ok)
        pthread_setspecific(exit_key, t);
    return t;
}

void hp_thread_zero(hp_thread *t)
{
    for (uint32_t i = 0; i < t->nnodes; i++) {
        hp_node *n = hp_node_at(t, i);
        n->count = n->ticks = n->max = n->timed = n->excl = 0;
        n->min = UINT64_MAX;
        n->flags = 0;
    }
    t->nfast = 0;
    for (uint32_t i = 0; i < t->nactive; i++)
        t->fast[i].parent = t->fast[i].leaf = HP_NO_NODE;
    for (uint32_t i = 0; i < t->ncomms; i++) {
        hp_comm *c = hp_comm_at(t, i);
        c->count = c->sent = c->recv = c->tran = c->sync = c->max = 0;
        c->min = UINT64_MAX;
    }
    t->overflow_events = 0;
    hp_counters_zero(t);
    hp_task_trace_clear(t->trace);
    t->epoch = hp_epoch;
}

static uint32_t overflow(hp_thread *t)
{
    t->overflow_events++;
    if (atomic_exchange(&overflow_warned, 1) == 0 && overflow_warn_now)
        hp_warn("HPROF_MAX_NODES=%llu reached: further new call sites are "
                "counted in one <overflow> node",
                (unsigned long long)max_nodes);
    return t->overflow;
}

uint32_t hp_cct_child_slow(hp_thread *t, uint32_t parent, uint32_t site)
{
    uint64_t key = (uint64_t)parent << 32 | site;
    uint32_t child = hp_map_get(&t->children, key);
    if (child == HP_MAP_MISSING) {
        if (atomic_fetch_add(&total_nodes, 1) >= max_nodes) {
            atomic_fetch_sub(&total_nodes, 1);
            return overflow(t);
        }
        child = node_append(t, parent, site);
        if (child == HP_NO_NODE || hp_map_put(&t->children, key, child) != 0)
            return overflow(t);
    }
    hp_node *p = hp_node_at(t, parent);
    if (p->last_child != child) {
        p->prev_child = p->last_child;
        p->last_child = child;
    }
    return child;
}

uint32_t hp_event_site_node_slow(hp_thread *t, uint32_t ctx, uintptr_t addr, uint32_t kind,
                                 const char *name, uint32_t flags)
{
    uint32_t site = hp_event_site_keyed(t, hp_site_key(addr, kind), addr, kind, name, flags);
    if (site == HP_SITE_OVERFLOW)
        return overflow(t);
    uint32_t node = hp_cct_child(t, ctx, site);
    if (node != t->overflow) {
        hp_site_memo *m = hp_memo_slot(t, addr);
        m->addr = addr;
        m->ctx = ctx;
        m->node = node;
    }
    return node;
}

/* The comm record of (node, peer) when it is not the node's last one:
 * found in the index or created.  HP_NO_NODE without memory. */
static __attribute__((noinline)) uint32_t comm_find_slow(hp_thread *t, hp_node *n, uint32_t node,
                                                         int32_t peer)
{
    uint64_t key = (uint64_t)node << 32 | (uint32_t)peer;
    uint32_t i = hp_map_get(&t->comm_index, key);
    if (i == HP_MAP_MISSING) {
        if (grow_chunks((void ***)&t->comm_chunks, &t->comm_chunk_cap, t->ncomms,
                        sizeof(hp_comm)) != 0)
            return HP_NO_NODE;
        i = t->ncomms;
        hp_comm *c = hp_comm_at(t, i);
        memset(c, 0, sizeof *c);
        c->node = node;
        c->peer = peer;
        c->min = UINT64_MAX;
        if (hp_map_put(&t->comm_index, key, i) != 0)
            return HP_NO_NODE;
        __atomic_store_n(&t->ncomms, i + 1, __ATOMIC_RELEASE); /* after its fields */
    }
    n->last_comm = i;
    return i;
}

/* The node's last record when it is the peer's (hp_comm_last: inline in
 * the recorders below, no call; callgrind, bench/msgrate.c: about 20
 * instructions less per record), else found or created. */
static inline __attribute__((always_inline)) uint32_t comm_find(hp_thread *t, uint32_t node,
                                                                int32_t peer)
{
    uint32_t i = hp_comm_last(t, node, peer);
    if (__builtin_expect(i != HP_NO_NODE, 1))
        return i;
    return comm_find_slow(t, hp_node_at(t, node), node, peer);
}

uint32_t hp_comm_find(hp_thread *t, uint32_t node, int32_t peer)
{
    return comm_find(t, node, peer);
}


void hp_event_comm(hp_thread *t, uint32_t node, int32_t peer, uint64_t sent,
                 uint64_t recv, uint64_t tran, uint64_t sync)
{
    uint32_t i = comm_find(t, node, peer);
    if (i == HP_NO_NODE)
        return;
    hp_comm_add(hp_comm_at(t, i), sent, recv, tran, sync);
}

uint32_t hp_event_comm_bytes(hp_thread *t, uint32_t node, int32_t peer,
                           uint64_t sent, uint64_t recv)
{
    uint32_t i = comm_find(t, node, peer);
    if (i == HP_NO_NODE)
        return HP_NO_NODE;
    hp_comm *c = hp_comm_at(t, i);
    c->count++;
    c->sent += sent;
    c->recv += recv;
    return i;
}

void hp_event_comm_time(hp_thread *t, uint32_t node, int32_t peer,
                      uint64_t tran, uint64_t sync)
{
    uint32_t i = comm_find(t, node, peer);
    if (i != HP_NO_NODE)
        hp_comm_time(hp_comm_at(t, i), tran, sync);
}

void hp_event_comm_undo(hp_thread *t, uint32_t node, int32_t peer, uint64_t sent,
                  uint64_t recv)
{
    uint32_t i = comm_find(t, node, peer);
    if (i == HP_NO_NODE)
        return;
    hp_comm *c = hp_comm_at(t, i);
    if (c->count == 0 || c->sent < sent || c->recv < recv)
        return;
    c->count--;
    c->sent -= sent;
    c->recv -= recv;
}

hp_thread *hp_thread_peek(uint32_t i)
{
    pthread_mutex_lock(&registry_lock);
    hp_thread *t = i < nthreads ? threads[i] : NULL;
    pthread_mutex_unlock(&registry_lock);
    return t;
}

uint32_t hp_thread_count(void)
{
    pthread_mutex_lock(&registry_lock);
    uint32_t n = nthreads;
    pthread_mutex_unlock(&registry_lock);
    return n;
}

hp_thread *hp_thread_get(uint32_t i)
{
    pthread_mutex_lock(&registry_lock);
    hp_thread *t = i < nthreads ? threads[i] : NULL;
    pthread_mutex_unlock(&registry_lock);
    if (t && t->epoch != hp_epoch)
        hp_thread_zero(t);
    return t;
}

void hp_records_set_max_nodes(uint64_t n)
{
    max_nodes = n;
}

uint64_t hp_records_total_nodes(void)
{
    return atomic_load(&total_nodes);
}

int hp_records_overflowed(void)
{
    return atomic_load(&overflow_warned);
}

void hp_records_defer_overflow_warning(void)
{
    overflow_warn_now = 0;
}

void hp_records_reset(void)
{
    hp_epoch++;
    hp_fast_disarm_all();
}

static void thread_free(hp_thread *t)
{
    for (uint32_t c = 0; c < t->node_chunk_cap; c++)
        free(t->node_chunks[c]);
    for (uint32_t c = 0; c < t->comm_chunk_cap; c++)
        free(t->comm_chunks[c]);
    free(t->node_chunks);
    free(t->comm_chunks);
    hp_map_free(&t->children);
    hp_map_free(&t->comm_index);
    hp_map_free(&t->site_cache);
    free(t->active);
    free(t->fast);
    hp_task_trace_free(t->trace);
    hp_counters_free(t);
    free(t);
}

void hp_threads_free_all(void)
{
    pthread_mutex_lock(&registry_lock);
    for (uint32_t i = 0; i < nthreads; i++)
        thread_free(threads[i]);
    nthreads = 0;
    atomic_store(&total_nodes, 0);
    atomic_store(&overflow_warned, 0);
    pthread_mutex_unlock(&registry_lock);
    hp_tls_set(NULL);
}
