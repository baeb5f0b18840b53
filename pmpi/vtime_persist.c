/*
 * vtime_persist.c - virtual time's persistent requests (hp_vtime.h,
 * DESIGN.md "Virtual time"): MPI_Send_init and its kin, and MPI_Recv_init,
 * on a controlled communicator are remembered by handle, so that each
 * MPI_Start (or MPI_Startall) of a send sends the message's header first,
 * as MPI_Isend does, and each of a receive from one source posts its
 * header's receive alongside, as MPI_Irecv does.  A persistent receive
 * from MPI_ANY_SOURCE is not controlled (its request cannot be deferred
 * as an MPI_Irecv's is): one warning says so.
 */
#include <stdint.h>
#include <stdlib.h>
#include "hp_mpi.h"
#include "hp_vtime.h"
#include "hp_log.h"

typedef struct vt_persistent {
    MPI_Request req;
    MPI_Comm comm;
    int peer, tag;
    int send;
    struct vt_persistent *next;
} vt_persistent;

enum { BUCKETS = 1024 };
static vt_persistent *bucket[BUCKETS];

static unsigned bucket_of(MPI_Request req)
{
    uintptr_t k = (uintptr_t)req;
    return (unsigned)((k >> 4) ^ (k >> 14)) % BUCKETS;
}

static vt_persistent *find(MPI_Request req)
{
    for (vt_persistent *p = bucket[bucket_of(req)]; p; p = p->next)
        if (p->req == req)
            return p;
    return NULL;
}

int hp_vt_persistent(int rc, const MPI_Request *request, MPI_Comm comm, int peer, int tag,
                     int send)
{
    static int warned_wildcard, warned_memory;
    if (rc != MPI_SUCCESS || peer == MPI_PROC_NULL || !hp_vt_controls(comm))
        return rc;
    if (!send && peer == MPI_ANY_SOURCE) {
        if (!warned_wildcard++)
            hp_warn("virtual time: a persistent receive from MPI_ANY_SOURCE "
                    "(MPI_Recv_init) is not controlled: it takes messages as they come");
        return rc;
    }
    vt_persistent *p = malloc(sizeof *p);
    if (!p) {
        if (!warned_memory++)
            hp_warn("virtual time: out of memory; a persistent request's messages go without headers");
        return rc;
    }
    *p = (vt_persistent){*request, comm, peer, tag, send, NULL};
    unsigned b = bucket_of(*request);
    p->next = bucket[b];
    bucket[b] = p;
    return rc;
}

void hp_vt_started(const MPI_Request *reqs, int n)
{
    for (int i = 0; i < n; i++) {
        const vt_persistent *p = reqs[i] == MPI_REQUEST_NULL ? NULL : find(reqs[i]);
        if (!p)
            continue;
        if (p->send)
            hp_vt_send_header(p->comm, p->peer, p->tag);
        else
            hp_vt_recv_posted(p->comm, p->peer, p->tag);
    }
}

void hp_vt_request_freed(const MPI_Request *request)
{
    if (*request == MPI_REQUEST_NULL)
        return;
    for (vt_persistent **pp = &bucket[bucket_of(*request)]; *pp; pp = &(*pp)->next) {
        if ((*pp)->req == *request) {
            vt_persistent *gone = *pp;
            *pp = gone->next;
            free(gone);
            return;
        }
    }
}
