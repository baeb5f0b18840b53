/*
 * rankmap.c - translation of communicator ranks to MPI_COMM_WORLD ranks,
 * computed once per communicator (group translation) and cached.  A
 * freed communicator's map is retired, not freed, because requests still
 * in flight may point at it; retired maps are freed at the end of the run.
 */
#include <pthread.h>
#include <stdlib.h>
#include "hp_mpi.h"

typedef struct entry {
    MPI_Comm comm;
    hp_rankmap *map;
    struct entry *next;
} entry;

#define BUCKETS 256
static entry *buckets[BUCKETS];
static hp_rankmap *retired[4096];
static unsigned nretired;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

/* Per-thread direct-mapped memo of communicators looked up, valid while
 * no communicator has been forgotten since (generation). */
#define MEMO 8
typedef struct memo_entry {
    MPI_Comm comm;
    const hp_rankmap *map;
    unsigned gen;
} memo_entry;
static __thread memo_entry memo[MEMO] __attribute__((tls_model("initial-exec")));
static volatile unsigned generation = 1;

static unsigned bucket_of(MPI_Comm comm)
{
    uintptr_t v = (uintptr_t)comm;
    return (unsigned)((v >> 4) ^ (v >> 12)) & (BUCKETS - 1);
}

hp_rankmap *hp_rankmap_of_group(MPI_Group group)
{
    int n = 0;
    MPI_Group world;
    PMPI_Group_size(group, &n);
    hp_rankmap *m = malloc(sizeof *m + sizeof(int) * (size_t)n);
    int *ranks = malloc(sizeof(int) * (size_t)(n ? n : 1));
    if (m && ranks) {
        for (int i = 0; i < n; i++)
            ranks[i] = i;
        PMPI_Comm_group(MPI_COMM_WORLD, &world);
        PMPI_Group_translate_ranks(group, n, ranks, world, m->world);
        PMPI_Group_free(&world);
        for (int i = 0; i < n; i++)
            if (m->world[i] == MPI_UNDEFINED)
                m->world[i] = -1;
        m->size = n;
    } else {
        free(m);
        m = NULL;
    }
    free(ranks);
    return m;
}

static hp_rankmap *build(MPI_Comm comm)
{
    int inter = 0;
    MPI_Group group;
    PMPI_Comm_test_inter(comm, &inter);
    if (inter)
        PMPI_Comm_remote_group(comm, &group);
    else
        PMPI_Comm_group(comm, &group);
    hp_rankmap *m = hp_rankmap_of_group(group);
    PMPI_Group_free(&group);
    return m;
}

const hp_rankmap *hp_rankmap_lookup(MPI_Comm comm)
{
    if (comm == MPI_COMM_WORLD || comm == MPI_COMM_NULL)
        return NULL;
    memo_entry *me = &memo[bucket_of(comm) & (MEMO - 1)];
    if (me->comm == comm && me->gen == generation)
        return me->map;
    pthread_mutex_lock(&lock);
    entry *e = buckets[bucket_of(comm)];
    while (e && e->comm != comm)
        e = e->next;
    if (!e && (e = malloc(sizeof *e))) {
        e->comm = comm;
        e->map = build(comm);
        e->next = buckets[bucket_of(comm)];
        buckets[bucket_of(comm)] = e;
    }
    const hp_rankmap *m = e ? e->map : NULL;
    me->comm = comm;
    me->map = m;
    me->gen = generation;
    pthread_mutex_unlock(&lock);
    return m;
}

void hp_rankmap_forget(MPI_Comm comm)
{
    pthread_mutex_lock(&lock);
    entry **p = &buckets[bucket_of(comm)];
    while (*p && (*p)->comm != comm)
        p = &(*p)->next;
    if (*p) {
        entry *e = *p;
        *p = e->next;
        if (nretired < sizeof retired / sizeof retired[0])
            retired[nretired++] = e->map;
        /* else: kept alive by leaking it; requests may still use it */
        free(e);
        generation++;
    }
    pthread_mutex_unlock(&lock);
}

void hp_rankmap_free_all(void)
{
    pthread_mutex_lock(&lock);
    for (unsigned b = 0; b < BUCKETS; b++) {
        while (buckets[b]) {
            entry *e = buckets[b];
            buckets[b] = e->next;
            free(e->map);
            free(e);
        }
    }
    for (unsigned i = 0; i < nretired; i++)
        free(retired[i]);
    nretired = 0;
    generation++;
    pthread_mutex_unlock(&lock);
}
