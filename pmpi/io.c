/*
 * io.c - MPI-IO transfers: every read or write is one communication record
 * with the peer HP_PEER_FILE at the call site that asked for it, reads
 * counted as bytes received and writes as bytes sent, the bytes being what
 * the status reports (a read past the end of the file counts what it got).
 *   blocking          the call's own status, its time as transmission;
 *   nonblocking       hp_mpi_req_io: the completing Wait/Test's status;
 *   split collective  the _begin line gets the transfer: bytes from the
 *                     _end's status, time of _begin plus _end (like a
 *                     nonblocking call and its Wait); the _end line keeps
 *                     its own count and time.  The standard allows one
 *                     split collective at a time per file handle, so the
 *                     pending _begin is kept per handle.
 * hprof's own profile writer (output.c) calls PMPI_File_* and is never
 * recorded.
 */
#include <pthread.h>
#include <stdlib.h>
#include "hp_mpi.h"

void hp_mpi_io_done(hp_thread *t, uint32_t node, const MPI_Status *st, int is_write,
                    uint64_t ticks)
{
    uint64_t bytes = hp_status_bytes(st);
    hp_event_comm(t, node, HP_PEER_FILE, is_write ? bytes : 0, is_write ? 0 : bytes, ticks, 0);
}

/* A _begin waiting for its _end. */
typedef struct pending {
    MPI_File fh;
    uint32_t site, node, thread;
    uint64_t ticks;
} pending;

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pending *table;
static size_t npending, cap;

static pending *find_locked(MPI_File fh)
{
    for (size_t i = 0; i < npending; i++)
        if (table[i].fh == fh)
            return &table[i];
    return NULL;
}

void hp_mpi_io_begin(hp_thread *t, uint32_t node, MPI_File fh, uint64_t ticks)
{
    pending p = {fh, hp_event_node_site(t, node), node, t->id, ticks};
    pthread_mutex_lock(&lock);
    pending *slot = find_locked(fh);  /* a _begin whose _end never came */
    if (!slot && npending == cap) {
        size_t n = cap ? 2 * cap : 8;
        pending *grown = realloc(table, sizeof *grown * n);
        if (grown) {
            table = grown;
            cap = n;
        }
    }
    if (!slot && npending < cap)
        slot = &table[npending++];
    if (slot)
        *slot = p;
    pthread_mutex_unlock(&lock);
}

/* Removes and returns the pending _begin of fh; 0 when there is one. */
static int take_begin(MPI_File fh, pending *out)
{
    int found = -1;
    pthread_mutex_lock(&lock);
    pending *p = find_locked(fh);
    if (p) {
        *out = *p;
        *p = table[--npending];
        found = 0;
    }
    pthread_mutex_unlock(&lock);
    return found;
}

void hp_mpi_io_end(hp_thread *t, uint32_t node, MPI_File fh, const MPI_Status *st,
                   int is_write, uint64_t ticks)
{
    pending p;
    if (take_begin(fh, &p) != 0) {
        hp_mpi_io_done(t, node, st, is_write, ticks);
        return;
    }
    /* Another thread's _begin: its site, under this thread's context. */
    uint32_t at = p.thread == t->id ? p.node : hp_event_node(t, p.site);
    hp_mpi_io_done(t, at, st, is_write, p.ticks + ticks);
}
