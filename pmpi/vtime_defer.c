/*
 * vtime_defer.c - virtual time for nonblocking wildcard receives
 * (hp_vtime.h): an MPI_Irecv with MPI_ANY_SOURCE on a controlled
 * communicator is not posted.  The program gets a generalized request
 * instead; the Wait or Test call that is given it chooses the sender as
 * MPI_Recv does (hp_vt_mprobe, hp_vt_improbe), receives the message into
 * the program's buffer and completes the request, whose status then says
 * what MPI's would.  Deferred receives are resolved in the order they
 * were posted on their communicator, as MPI matches posted receives.
 * Wildcard probes (MPI_Probe, MPI_Iprobe) choose the same way and then
 * probe the chosen source: the message they report is the one the next
 * wildcard receive will take.  Matched probes (MPI_Mprobe, MPI_Improbe)
 * choose likewise and take the message's header with it.
 */
#include <stdlib.h>
#include "hp_mpi.h"
#include "hp_vtime.h"
#include "hp_log.h"

typedef struct vt_deferred {
    MPI_Request req;       /* the generalized request the program holds */
    void *buf;
    int count, tag;
    MPI_Datatype type;
    MPI_Comm comm;
    uint64_t since;        /* hp_ticks when it was posted */
    int done, cancelled;
    MPI_Status st;         /* of the receive, once done */
    struct vt_deferred *next;
} vt_deferred;

static vt_deferred *deferred, **deferred_tail = &deferred;  /* in posting order */

static int query_status(void *extra, MPI_Status *status)
{
    vt_deferred *d = extra;
    MPI_Count n = 0;
    if (d->done)
        PMPI_Get_elements_x(&d->st, d->type, &n);
    PMPI_Status_set_elements_x(status, d->type, n == MPI_UNDEFINED ? 0 : n);
    PMPI_Status_set_cancelled(status, d->cancelled);
    status->MPI_SOURCE = d->done ? d->st.MPI_SOURCE : MPI_ANY_SOURCE;
    status->MPI_TAG = d->done ? d->st.MPI_TAG : MPI_ANY_TAG;
    status->MPI_ERROR = MPI_SUCCESS;
    return MPI_SUCCESS;
}

static int free_deferred(void *extra)
{
    vt_deferred **p = &deferred;
    while (*p && *p != extra)
        p = &(*p)->next;
    if (*p) {
        *p = (*p)->next;
        if (!*p)
            deferred_tail = p;
    }
    free(extra);
    return MPI_SUCCESS;
}

/* MPI_Cancel of a receive not resolved yet: it completes as cancelled. */
static int cancel_deferred(void *extra, int complete)
{
    vt_deferred *d = extra;
    if (!complete && !d->done) {
        d->cancelled = d->done = 1;
        PMPI_Grequest_complete(d->req);
    }
    return MPI_SUCCESS;
}

int hp_vt_irecv(void *buf, int count, MPI_Datatype type, int source, int tag,
                MPI_Comm comm, MPI_Request *request)
{
    static int warned;
    if (source != MPI_ANY_SOURCE || !hp_vt_controls(comm)) {
        if (source != MPI_ANY_SOURCE)
            hp_vt_recv_posted(comm, source, tag);
        return PMPI_Irecv(buf, count, type, source, tag, comm, request);
    }
    vt_deferred *d = calloc(1, sizeof *d);
    if (!d) {
        if (!warned++)
            hp_warn("virtual time: out of memory; a wildcard MPI_Irecv is not controlled");
        return PMPI_Irecv(buf, count, type, source, tag, comm, request);
    }
    *d = (vt_deferred){.buf = buf, .count = count, .tag = tag, .type = type, .comm = comm,
                       .since = hp_ticks()};
    int rc = PMPI_Grequest_start(query_status, free_deferred, cancel_deferred, d, &d->req);
    if (rc != MPI_SUCCESS) {
        free(d);
        return rc;
    }
    *deferred_tail = d;
    deferred_tail = &d->next;
    *request = d->req;
    return MPI_SUCCESS;
}

/* Receives d's message if its sender is decided (always when blocking). */
static void resolve_one(vt_deferred *d, int blocking)
{
    MPI_Message msg;
    int flag = 1, rc;
    if (blocking)
        rc = hp_vt_mprobe(MPI_ANY_SOURCE, d->tag, d->comm, &msg, &d->st);
    else
        rc = hp_vt_improbe(d->tag, d->comm, d->since, &flag, &msg, &d->st);
    if (rc != MPI_SUCCESS || !flag)
        return;
    PMPI_Mrecv(d->buf, d->count, d->type, &msg, &d->st);
    d->done = 1;
    PMPI_Grequest_complete(d->req);
}

/* Resolves d and, first, the receives posted before it on its communicator. */
static int resolve_in_order(vt_deferred *d, int blocking)
{
    for (vt_deferred *e = deferred; e; e = e->next) {
        if (e->done || e->comm != d->comm)
            continue;
        resolve_one(e, blocking);
        if (!e->done)
            return 0;
        if (e == d)
            break;
    }
    return 1;
}

static vt_deferred *deferred_of(MPI_Request r)
{
    for (vt_deferred *d = deferred; d; d = d->next)
        if (d->req == r)
            return d;
    return NULL;
}

/* Are all (need_all) or any of reqs complete (null ones count as such)? */
static int requests_done(MPI_Request *reqs, int n, int need_all)
{
    int any = 0, nulls = 0;
    for (int i = 0; i < n; i++) {
        int flag = 1;
        if (reqs[i] == MPI_REQUEST_NULL) {
            nulls++;
            continue;
        }
        PMPI_Request_get_status(reqs[i], &flag, MPI_STATUS_IGNORE);
        if (!flag && need_all)
            return 0;
        any |= flag;
    }
    return need_all || any || nulls == n;
}

/* blocking: 0 Test calls, 1 Waitany and Waitsome (only the first of the
 * array's deferred receives is waited for, the others are looked at),
 * 2 Wait and Waitall (every one).  A blocking call then waits here until
 * MPI's call will not block, answering clock requests meanwhile (a
 * process blocked in MPI must answer, or others wait on it). */
void hp_vt_resolve(MPI_Request *reqs, int n, int blocking)
{
    int waited = 0;
    for (int i = 0; deferred && i < n; i++) {
        vt_deferred *d = reqs[i] == MPI_REQUEST_NULL ? NULL : deferred_of(reqs[i]);
        if (!d || d->done)
            continue;
        int wait = blocking == 2 || (blocking == 1 && !waited);
        resolve_in_order(d, wait);
        waited |= wait;
    }
    uint64_t since = hp_ticks();
    if (blocking)
        while (!requests_done(reqs, n, blocking == 2))
            hp_vt_idle(since);
}

/* ---- probes ---- */

int hp_vt_probe(int source, int tag, MPI_Comm comm, MPI_Status *status)
{
    if (source == MPI_ANY_SOURCE && hp_vt_controls(comm))
        source = hp_vt_choose(tag, comm, 0);
    return PMPI_Probe(source, tag, comm, status);
}

int hp_vt_iprobe(int source, int tag, MPI_Comm comm, int *flag, MPI_Status *status)
{
    static uint64_t undecided_since;   /* a program polls with Iprobe */
    if (source == MPI_ANY_SOURCE && hp_vt_controls(comm)) {
        if (!undecided_since)
            undecided_since = hp_ticks();
        source = hp_vt_choose(tag, comm, undecided_since);
        if (source == MPI_ANY_SOURCE) {
            *flag = 0;
            return MPI_SUCCESS;
        }
        undecided_since = 0;
    }
    return PMPI_Iprobe(source, tag, comm, flag, status);
}

int hp_vt_user_mprobe(int source, int tag, MPI_Comm comm, MPI_Message *msg, MPI_Status *status)
{
    MPI_Status st_local;
    return hp_vt_mprobe(source, tag, comm, msg, status == MPI_STATUS_IGNORE ? &st_local : status);
}

int hp_vt_user_improbe(int source, int tag, MPI_Comm comm, int *flag, MPI_Message *msg,
                       MPI_Status *status)
{
    static uint64_t undecided_since;   /* a program polls with Improbe */
    MPI_Status st_local;
    MPI_Status *st = status == MPI_STATUS_IGNORE ? &st_local : status;
    if (source != MPI_ANY_SOURCE || !hp_vt_controls(comm)) {
        int rc = PMPI_Improbe(source, tag, comm, flag, msg, st);
        if (rc == MPI_SUCCESS && *flag && source != MPI_PROC_NULL)
            hp_vt_message_matched(comm, st);
        return rc;
    }
    if (!undecided_since)
        undecided_since = hp_ticks();
    int rc = hp_vt_improbe(tag, comm, undecided_since, flag, msg, st);
    if (*flag)
        undecided_since = 0;
    return rc;
}
