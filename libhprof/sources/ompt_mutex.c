/*
 * ompt_mutex.c - critical sections, locks, ordered blocks, atomics and
 * flushes for the OMPT tool (hp_ompt.h): a wait from acquire to acquired
 * (a leaf), then a hold from acquired to released.  The hold of a
 * critical section or an ordered block encloses a body, whose records
 * must lie inside it: it is an open frame.  A lock's hold is a leaf, as
 * locks need not be released in the order they were taken (and a frame
 * must be closed in order); an atomic, one leaf from acquire to release
 * (libomp takes a lock for an atomic update only without a lock-free
 * instruction sequence).  The frames of holds are on the OMPT tool's
 * per-thread scope stack (hp_ompt_hold_open), which a task switched out
 * inside one closes first.  Per thread, a small table of the mutexes
 * being waited for or held; no lock on any path.
 */
#include "config.h"

#ifdef HAVE_OMPT
#include <stdlib.h>
#include "hp_ompt.h"

#define NO_WAIT (-1)
static const struct {
    int kind, wait, hold;
    int framed;   /* the hold is a frame around the body */
} mutex_recs[] = {
    {ompt_mutex_critical, HP_OMP_CRITICAL_WAIT, HP_OMP_CRITICAL, 1},
    {ompt_mutex_lock, HP_OMP_LOCK_WAIT, HP_OMP_LOCK, 0},
    {ompt_mutex_test_lock, HP_OMP_LOCK_WAIT, HP_OMP_LOCK, 0},
    {ompt_mutex_nest_lock, HP_OMP_LOCK_WAIT, HP_OMP_LOCK, 0},
    {ompt_mutex_test_nest_lock, HP_OMP_LOCK_WAIT, HP_OMP_LOCK, 0},
    {ompt_mutex_ordered, HP_OMP_ORDERED_WAIT, HP_OMP_ORDERED, 1},
    {ompt_mutex_atomic, NO_WAIT, HP_OMP_ATOMIC, 0},
};

enum { M_FREE, M_ACQUIRING, M_HELD };

typedef struct mutex_slot {
    ompt_wait_id_t id;
    const void *ra;
    uint64_t start;
    int state;                /* M_* */
    int rec;                  /* its records: mutex_recs[rec] */
} mutex_slot;

#define MAX_MUTEX 16
typedef struct mutex_table {
    mutex_slot slot[MAX_MUTEX];
} mutex_table;

static __thread mutex_table *my_mutexes __attribute__((tls_model("initial-exec")));

static mutex_table *mutexes(void)
{
    if (__builtin_expect(!my_mutexes, 0))
        my_mutexes = calloc(1, sizeof *my_mutexes);
    return my_mutexes;
}

/* The index in mutex_recs of a mutex kind, -1 if not recorded. */
static int mutex_rec(ompt_mutex_t kind)
{
    for (int i = 0; i < (int)(sizeof mutex_recs / sizeof mutex_recs[0]); i++)
        if (mutex_recs[i].kind == (int)kind)
            return i;
    return -1;
}

static mutex_slot *mutex_find(mutex_table *mt, ompt_wait_id_t id, int state)
{
    for (int i = 0; i < MAX_MUTEX; i++)
        if (mt->slot[i].state == state && mt->slot[i].id == id)
            return &mt->slot[i];
    return NULL;
}

/* A slot for a new wait or hold: a free one, else a hold whose release
 * this thread will not see (its untied task went on elsewhere). */
static mutex_slot *mutex_new_slot(mutex_table *mt)
{
    mutex_slot *m = mutex_find(mt, 0, M_FREE);
    for (int i = 0; !m && i < MAX_MUTEX; i++)
        if (mt->slot[i].state == M_HELD)
            m = &mt->slot[i];
    return m;
}

static void on_mutex_acquire(ompt_mutex_t kind, unsigned int hint, unsigned int impl,
                             ompt_wait_id_t id, const void *ra)
{
    (void)hint;
    (void)impl;
    /* the clock first: the table's allocation on a thread's first wait
     * (calloc, a new malloc arena: system calls the thread can be
     * descheduled in) is part of the wait, not before it */
    uint64_t now = hp_ticks();
    int rec = mutex_rec(kind);
    mutex_table *mt;
    if (rec < 0 || !(mt = mutexes()))
        return;
    mutex_slot *m = mutex_find(mt, id, M_ACQUIRING);
    if (!m)
        m = mutex_new_slot(mt);
    if (!m)
        return;
    *m = (mutex_slot){id, ra, now, M_ACQUIRING, rec};
}

/* The hold of m begins at now. */
static void hold_begin(mutex_slot *m, uint64_t now)
{
    m->state = M_HELD;
    m->start = now;
    if (mutex_recs[m->rec].framed)
        hp_ompt_hold_open(m->id, m->ra, mutex_recs[m->rec].hold);
}

static void on_mutex_acquired(ompt_mutex_t kind, ompt_wait_id_t id, const void *ra)
{
    int rec = mutex_rec(kind);
    mutex_table *mt;
    if (rec < 0 || !(mt = mutexes()))
        return;
    uint64_t now = hp_ticks();
    mutex_slot *m = mutex_find(mt, id, M_ACQUIRING);
    if (m) {
        if (mutex_recs[rec].wait == NO_WAIT) {
            m->state = M_HELD;   /* the record runs on from the acquire */
            return;
        }
        hp_thread *t = hp_ompt_rec_thread();
        if (t)
            hp_ompt_record(t, m->ra, mutex_recs[rec].wait, now - m->start);
    } else if ((m = mutex_new_slot(mt))) {
        *m = (mutex_slot){id, ra, 0, M_FREE, rec};
    } else {
        return;
    }
    hold_begin(m, now);
}

static void on_mutex_released(ompt_mutex_t kind, ompt_wait_id_t id, const void *ra)
{
    (void)ra;
    int rec = mutex_rec(kind);
    mutex_table *mt = my_mutexes;
    if (rec < 0 || !mt)
        return;
    mutex_slot *m = mutex_find(mt, id, M_HELD);
    if (!m)
        return;
    if (mutex_recs[m->rec].framed) {
        hp_ompt_hold_close(m->id);
    } else {
        hp_thread *t = hp_ompt_rec_thread();
        if (t)
            hp_ompt_record(t, m->ra, mutex_recs[m->rec].hold, hp_ticks() - m->start);
    }
    *m = (mutex_slot){0};
}

/* libomp calls this after the flush: a count, no time. */
static void on_flush(ompt_data_t *thread_data, const void *ra)
{
    (void)thread_data;
    hp_thread *t = hp_ompt_rec_thread();
    if (t)
        hp_ompt_record(t, ra, HP_OMP_FLUSH, 0);
}

void hp_ompt_mutex_callbacks(ompt_set_callback_t set)
{
    set(ompt_callback_mutex_acquire, (ompt_callback_t)(void (*)(void))on_mutex_acquire);
    set(ompt_callback_mutex_acquired, (ompt_callback_t)(void (*)(void))on_mutex_acquired);
    set(ompt_callback_mutex_released, (ompt_callback_t)(void (*)(void))on_mutex_released);
    set(ompt_callback_flush, (ompt_callback_t)(void (*)(void))on_flush);
}
#endif /* HAVE_OMPT */
