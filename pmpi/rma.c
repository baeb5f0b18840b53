/*
 * rma.c - the recorders of one-sided communication (MPI-3 RMA).  A Put,
 * Get, Accumulate or atomic is one transfer to its target, as a world
 * rank, with the bytes of the table of docs/mpi.md and its time as
 * transmission; Rput & co. are recorded when a Wait/Test completes them.
 * The calls that may wait for another process (fence, start, complete,
 * wait, lock*, unlock*, flush*) make one record without bytes whose time
 * is synchronization delay.
 *
 * Each window carries the translation of its group to world ranks as an
 * attribute: built when the window is created (or, for a window created
 * while collection was off, at its first use), and freed by MPI itself
 * when MPI_Win_free deletes the window's attributes.  The identity (a
 * window over MPI_COMM_WORLD in order) is stored as NULL.
 */
#include <assert.h>
#include <pthread.h>
#include <stdlib.h>
#include "hp_mpi.h"

static int keyval = MPI_KEYVAL_INVALID;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

/* Bumped whenever a window's map is freed: the per-thread memo of the
 * last window used is valid only within one generation. */
static unsigned generation = 1;

typedef struct window_memo {
    MPI_Win win;
    const hp_rankmap *map;
    unsigned gen;
} window_memo;
static __thread window_memo memo __attribute__((tls_model("initial-exec")));

/* MPI_Win_free (or MPI_Finalize) deletes the window's attribute. */
static int drop_map(MPI_Win win, int key, void *value, void *extra)
{
    (void)win;
    (void)key;
    (void)extra;
    __atomic_add_fetch(&generation, 1, __ATOMIC_RELEASE);
    free(value);
    return MPI_SUCCESS;
}

static int is_identity(const hp_rankmap *m)
{
    if (m->size != hp_world_size)
        return 0;
    for (int i = 0; i < m->size; i++)
        if (m->world[i] != i)
            return 0;
    return 1;
}

/* The window's map, NULL for the identity (or without memory, which
 * then leaves ranks untranslated, as for communicators). */
static hp_rankmap *map_of_window(MPI_Win win)
{
    MPI_Group group;
    if (PMPI_Win_get_group(win, &group) != MPI_SUCCESS)
        return NULL;
    hp_rankmap *m = hp_rankmap_of_group(group);
    PMPI_Group_free(&group);
    if (m && is_identity(m)) {
        free(m);
        m = NULL;
    }
    return m;
}

/* The map attached to win, attached now if it has none.  Caller holds
 * the lock, so a window gets one map however many threads ask. */
static const hp_rankmap *attach_map(MPI_Win win)
{
    void *value = NULL;
    int found = 0, key = keyval;
    if (key == MPI_KEYVAL_INVALID) {
        if (PMPI_Win_create_keyval(MPI_WIN_NULL_COPY_FN, drop_map, &key, NULL) != MPI_SUCCESS)
            return NULL;
        __atomic_store_n(&keyval, key, __ATOMIC_RELEASE);
    }
    PMPI_Win_get_attr(win, key, &value, &found);
    if (found)
        return value;
    hp_rankmap *m = map_of_window(win);
    if (PMPI_Win_set_attr(win, key, m) != MPI_SUCCESS) {
        free(m);
        return NULL;
    }
    return m;
}

void hp_rma_window_created(MPI_Win win)
{
    pthread_mutex_lock(&lock);
    attach_map(win);
    pthread_mutex_unlock(&lock);
}

static const hp_rankmap *window_map(MPI_Win win)
{
    unsigned gen = __atomic_load_n(&generation, __ATOMIC_ACQUIRE);
    if (memo.win == win && memo.gen == gen)
        return memo.map;
    void *value = NULL;
    int found = 0;
    int key = __atomic_load_n(&keyval, __ATOMIC_ACQUIRE);
    if (key != MPI_KEYVAL_INVALID)
        PMPI_Win_get_attr(win, key, &value, &found);
    if (!found) {
        pthread_mutex_lock(&lock);
        value = (void *)attach_map(win);
        pthread_mutex_unlock(&lock);
    }
    memo.win = win;
    memo.map = value;
    memo.gen = gen;
    return value;
}

/* World rank of target `rank` of win (-1 if it has none). */
static int32_t target_world(MPI_Win win, int rank)
{
    return hp_world_in(window_map(win), rank);
}

static void rma_bytes(const hp_rma_args *a, uint64_t *sent, uint64_t *recv)
{
    uint64_t origin = hp_mpi_bytes(a->ocount, a->otype);
    *sent = *recv = 0;
    switch (a->rule) {
    case HP_RMA_PUT:
    case HP_RMA_ACC:
        *sent = origin;
        break;
    case HP_RMA_GET:
        *recv = origin;
        break;
    case HP_RMA_GET_ACC:
        *sent = a->op == MPI_NO_OP ? 0 : origin;
        *recv = hp_mpi_bytes(a->rcount, a->rtype);
        break;
    case HP_RMA_FOP:
        *sent = a->op == MPI_NO_OP ? 0 : origin;
        *recv = origin;
        break;
    case HP_RMA_CAS:
        *sent = 2 * origin;    /* the new value and the one to compare */
        *recv = origin;
        break;
    default:
        assert(!"unknown hp_rma_rule");
    }
}

void hp_mpi_rma_done(hp_thread *t, uint32_t node, const hp_rma_args *a,
                     uint64_t ticks)
{
    uint64_t sent, recv;
    if (a->target == MPI_PROC_NULL)
        return;
    rma_bytes(a, &sent, &recv);
    hp_event_comm(t, node, target_world(a->win, a->target), sent, recv, ticks, 0);
}

void hp_mpi_req_rma(hp_thread *t, uint32_t node, MPI_Request req,
                    const hp_rma_args *a, uint64_t ticks)
{
    uint64_t sent, recv;
    if (a->target == MPI_PROC_NULL)
        return;
    rma_bytes(a, &sent, &recv);
    hp_mpi_req_known(t, node, req, target_world(a->win, a->target), sent, recv, ticks);
}

void hp_mpi_rma_sync(hp_thread *t, uint32_t node, MPI_Win win, int rank,
                     uint64_t ticks)
{
    if (rank == MPI_PROC_NULL)
        return;
    hp_event_comm(t, node, target_world(win, rank), 0, 0, 0, ticks);
}

void hp_mpi_rma_sync_all(hp_thread *t, uint32_t node, uint64_t ticks)
{
    hp_event_comm(t, node, HP_PEER_ALL, 0, 0, 0, ticks);
}
