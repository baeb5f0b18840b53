/*
 * gomp_join.c - the end of a thread's part of a GOMP parallel region
 * without a barrier of hprof's own (see hp_gomp_join.h for the model).
 * Each thread's open part lives in its own thread-local slot; the master
 * writes only the release into it (the threads of its team are in
 * libgomp's barrier or dock then), and everything else is written by the
 * thread itself - or, for idle threads when the profile is taken, by the
 * thread taking it.  A state word makes sure a part is closed once.
 */
#include <assert.h>
#include <pthread.h>
#include "hp_gomp_join.h"

struct hp_gomp_part {
    _Atomic int open;          /* arrived, records not closed yet */
    int registered;            /* on the list of parts (its thread lives) */
    hp_thread *t;
    hprof_frame f;             /* the region node, open */
    hp_omp_saved saved;
    uint32_t wait_site;        /* the region's "implicit barrier" */
    uint64_t arrival, mark;
    _Atomic uint64_t busy;     /* arrival, or the end of a task run since */
    _Atomic uint64_t release;  /* published by the master, 0: not yet */
    hp_gomp_part *next;
};

static __thread hp_gomp_part own_part __attribute__((tls_model("initial-exec")));
__thread hp_gomp_part *hp_gomp_open_part __attribute__((tls_model("initial-exec")));

static pthread_mutex_t parts_lock = PTHREAD_MUTEX_INITIALIZER;
static hp_gomp_part *parts;

static void part_register(hp_gomp_part *p)
{
    if (p->registered)
        return;
    pthread_mutex_lock(&parts_lock);
    p->next = parts;
    parts = p;
    p->registered = 1;
    pthread_mutex_unlock(&parts_lock);
}

static void part_unregister(hp_gomp_part *p)
{
    if (!p->registered)
        return;
    pthread_mutex_lock(&parts_lock);
    for (hp_gomp_part **at = &parts; *at; at = &(*at)->next)
        if (*at == p) {
            *at = p->next;
            break;
        }
    p->registered = 0;
    pthread_mutex_unlock(&parts_lock);
}

/* The end of p's wait: the release the master published, or now if it
 * has not (its master is gone: a dying process). */
static uint64_t part_end(hp_gomp_part *p, uint64_t now)
{
    uint64_t r = atomic_load_explicit(&p->release, memory_order_acquire);
    return r && r < now ? r : now;
}

/* Closes p's records, once: its wait arrival -> end, less the tasks its
 * thread ran meanwhile, and the region node ending at end. */
static void part_close(hp_gomp_part *p, uint64_t now)
{
    int open = 1;
    if (!atomic_compare_exchange_strong(&p->open, &open, 0))
        return;
    if (hp_gomp_open_part == p)
        hp_gomp_open_part = NULL;
    uint64_t end = part_end(p, now);
    if (hp_collecting)   /* the last to arrive waited 0: one wait all the same */
        hp_event_wait(p->t, p->wait_site, end > p->arrival ? end - p->arrival : 0, p->mark);
    if (p->f.start && now > end)
        p->f.start += now - end;
    hp_event_team_end(p->t, &p->f, &p->saved);
}

void hp_gomp_part_close_previous(void)
{
    if (__builtin_expect(atomic_load_explicit(&own_part.open, memory_order_relaxed), 0))
        part_close(&own_part, hp_ticks());
}

int hp_gomp_part_arrive(hp_gomp_join *j, hp_thread *t, const hprof_frame *f,
                        const hp_omp_saved *saved, uint32_t wait_site, uint64_t arrival,
                        uint64_t mark)
{
    hp_gomp_part *p = &own_part;
    assert(!atomic_load(&p->open));
    unsigned i = atomic_fetch_add_explicit(&j->arrived, 1, memory_order_relaxed);
    if (i >= HP_GOMP_JOIN_SLOTS)
        return 0;
    part_register(p);
    p->t = t;
    p->f = *f;
    p->saved = *saved;
    p->wait_site = wait_site;
    p->arrival = arrival;
    p->mark = mark;
    atomic_store_explicit(&p->busy, arrival, memory_order_relaxed);
    atomic_store_explicit(&p->release, 0, memory_order_relaxed);
    atomic_store_explicit(&p->open, 1, memory_order_relaxed);
    hp_gomp_open_part = p;
    j->slot[i] = p;
    return 1;
}

void hp_gomp_part_busy_slow(hp_gomp_part *p)
{
    atomic_store_explicit(&p->busy, hp_ticks(), memory_order_relaxed);
}

uint64_t hp_gomp_join_release(hp_gomp_join *j)
{
    unsigned n = atomic_load(&j->arrived);
    if (n > HP_GOMP_JOIN_SLOTS)
        n = HP_GOMP_JOIN_SLOTS;
    /* libgomp's end barrier ordered every thread's stamps before this */
    uint64_t release = 0;
    for (unsigned i = 0; i < n; i++) {
        uint64_t b = atomic_load_explicit(&j->slot[i]->busy, memory_order_relaxed);
        if (b > release)
            release = b;
    }
    for (unsigned i = 0; i < n; i++)
        atomic_store_explicit(&j->slot[i]->release, release, memory_order_release);
    hp_gomp_part_close_previous();   /* the master's own part */
    return release;
}

void hp_gomp_part_thread_end(hp_thread *t)
{
    hp_gomp_part *p = &own_part;
    if (p->t != t)
        return;
    part_close(p, hp_ticks());
    part_unregister(p);
}

void hp_gomp_parts_close(void)
{
    uint64_t now = hp_ticks();
    pthread_mutex_lock(&parts_lock);
    for (hp_gomp_part *p = parts; p; p = p->next)
        part_close(p, now);
    pthread_mutex_unlock(&parts_lock);
}
