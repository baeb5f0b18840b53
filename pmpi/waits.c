/*
 * waits.c - the hand-written request family: Wait*, Test*, Start*,
 * Request_free.  The time a Wait or Test spends completing requests goes
 * to the call sites that posted them (with their peers and bytes); the
 * Wait/Test call site itself keeps its count and time.
 */
#include <stdlib.h>
#include <string.h>
#include "hp_mpi.h"

#define STACK_REQS 64

/* Scratch arrays for the handles before the call and for statuses the
 * user did not ask for: on the stack when small. */
typedef struct scratch {
    MPI_Request req_stack[STACK_REQS];
    MPI_Status st_stack[STACK_REQS];
    MPI_Request *before;
    MPI_Status *st;
} scratch;

static int scratch_init(scratch *s, int n, const MPI_Request *reqs,
                        MPI_Status *user_st)
{
    s->before = n <= STACK_REQS ? s->req_stack : malloc(sizeof *s->before * (size_t)n);
    s->st = user_st;
    if (user_st == MPI_STATUSES_IGNORE)
        s->st = n <= STACK_REQS ? s->st_stack : malloc(sizeof *s->st * (size_t)n);
    if (!s->before || !s->st)
        return -1;
    if (n > 0)
        memcpy(s->before, reqs, sizeof *reqs * (size_t)n);
    return 0;
}

static void scratch_free(scratch *s, MPI_Status *user_st)
{
    if (s->before && s->before != s->req_stack)
        free(s->before);
    if (s->st && s->st != user_st && s->st != s->st_stack)
        free(s->st);
}

static uint32_t completing_node(hp_thread *t, const hp_req_info *in)
{
    if (in->thread == t->id)
        return in->node;
    return hp_cct_child(t, t->current, in->site);
}

static void record_completion(hp_thread *t, const hp_req_info *in,
                              const MPI_Status *st, uint64_t share)
{
    int cancelled = 0;
    uint32_t node = completing_node(t, in);
    uint64_t ticks = in->post_ticks + share;
    if (in->kind != HP_REQ_COLL) {
        PMPI_Test_cancelled(st, &cancelled);
        if (cancelled)
            return;
    }
    if (in->kind == HP_REQ_RECV)
        hp_mpi_recv_done(t, node, in->map, st, ticks, 0);
    else
        hp_comm_add(t, node, in->peer, in->sent, in->recv, ticks, 0);
}

void hp_mpi_complete(hp_thread *t, const MPI_Request *before, int n,
                     const int *done, int ndone, const MPI_Status *st,
                     uint64_t ticks)
{
    int live = 0;
    (void)n;
    for (int k = 0; k < ndone; k++)
        live += before[done ? done[k] : k] != MPI_REQUEST_NULL;
    if (!live)
        return;
    uint64_t share = ticks / (uint64_t)live;
    for (int k = 0; k < ndone; k++) {
        MPI_Request r = before[done ? done[k] : k];
        hp_req_info in;
        if (r != MPI_REQUEST_NULL && hp_reqmap_complete(hp_req_key(r), &in) == 0)
            record_completion(t, &in, &st[k], share);
    }
}

void hp_mpi_request_freed(hp_thread *t, MPI_Request req)
{
    hp_req_info in;
    if (req == MPI_REQUEST_NULL || hp_reqmap_take(hp_req_key(req), &in) != 0)
        return;
    /* An active send still happens: its bytes count, without a wait. */
    if (in.active && in.kind == HP_REQ_SEND)
        hp_comm_add(t, completing_node(t, &in), in.peer, in.sent, 0, in.post_ticks, 0);
}

/* Node time of the Wait/Test call site itself. */
static void call_site_time(hp_thread *t, uintptr_t ra, int id, uint64_t ticks)
{
    hp_node_add(hp_node_at(t, hp_mpi_node(t, ra, id)), ticks);
}

int MPI_Wait(MPI_Request *request, MPI_Status *status)
{
    hp_thread *t = hp_mpi_begin();
    if (!t)
        return PMPI_Wait(request, status);
    uintptr_t ra = (uintptr_t)__builtin_return_address(0);
    MPI_Request before = *request;
    MPI_Status st_local, *st = status == MPI_STATUS_IGNORE ? &st_local : status;
    uint64_t t0 = hp_ticks();
    int rc = PMPI_Wait(request, st);
    uint64_t dt = hp_ticks() - t0;
    call_site_time(t, ra, HP_MPI_Wait, dt);
    if (rc == MPI_SUCCESS)
        hp_mpi_complete(t, &before, 1, NULL, 1, st, dt);
    return rc;
}

int MPI_Test(MPI_Request *request, int *flag, MPI_Status *status)
{
    hp_thread *t = hp_mpi_begin();
    if (!t)
        return PMPI_Test(request, flag, status);
    uintptr_t ra = (uintptr_t)__builtin_return_address(0);
    MPI_Request before = *request;
    MPI_Status st_local, *st = status == MPI_STATUS_IGNORE ? &st_local : status;
    uint64_t t0 = hp_ticks();
    int rc = PMPI_Test(request, flag, st);
    uint64_t dt = hp_ticks() - t0;
    call_site_time(t, ra, HP_MPI_Test, dt);
    if (rc == MPI_SUCCESS && *flag)
        hp_mpi_complete(t, &before, 1, NULL, 1, st, dt);
    return rc;
}

int MPI_Waitany(int count, MPI_Request array_of_requests[], int *index,
                MPI_Status *status)
{
    hp_thread *t = hp_mpi_begin();
    scratch s;
    if (!t || scratch_init(&s, count, array_of_requests, MPI_STATUSES_IGNORE) != 0) {
        if (t)
            scratch_free(&s, MPI_STATUSES_IGNORE);
        return PMPI_Waitany(count, array_of_requests, index, status);
    }
    uintptr_t ra = (uintptr_t)__builtin_return_address(0);
    MPI_Status st_local, *st = status == MPI_STATUS_IGNORE ? &st_local : status;
    uint64_t t0 = hp_ticks();
    int rc = PMPI_Waitany(count, array_of_requests, index, st);
    uint64_t dt = hp_ticks() - t0;
    call_site_time(t, ra, HP_MPI_Waitany, dt);
    if (rc == MPI_SUCCESS && *index != MPI_UNDEFINED)
        hp_mpi_complete(t, s.before, count, index, 1, st, dt);
    scratch_free(&s, MPI_STATUSES_IGNORE);
    return rc;
}

int MPI_Testany(int count, MPI_Request array_of_requests[], int *index, int *flag,
                MPI_Status *status)
{
    hp_thread *t = hp_mpi_begin();
    scratch s;
    if (!t || scratch_init(&s, count, array_of_requests, MPI_STATUSES_IGNORE) != 0) {
        if (t)
            scratch_free(&s, MPI_STATUSES_IGNORE);
        return PMPI_Testany(count, array_of_requests, index, flag, status);
    }
    uintptr_t ra = (uintptr_t)__builtin_return_address(0);
    MPI_Status st_local, *st = status == MPI_STATUS_IGNORE ? &st_local : status;
    uint64_t t0 = hp_ticks();
    int rc = PMPI_Testany(count, array_of_requests, index, flag, st);
    uint64_t dt = hp_ticks() - t0;
    call_site_time(t, ra, HP_MPI_Testany, dt);
    if (rc == MPI_SUCCESS && *flag && *index != MPI_UNDEFINED)
        hp_mpi_complete(t, s.before, count, index, 1, st, dt);
    scratch_free(&s, MPI_STATUSES_IGNORE);
    return rc;
}

int MPI_Waitall(int count, MPI_Request array_of_requests[],
                MPI_Status *array_of_statuses)
{
    hp_thread *t = hp_mpi_begin();
    scratch s;
    if (!t || scratch_init(&s, count, array_of_requests, array_of_statuses) != 0) {
        if (t)
            scratch_free(&s, array_of_statuses);
        return PMPI_Waitall(count, array_of_requests, array_of_statuses);
    }
    uintptr_t ra = (uintptr_t)__builtin_return_address(0);
    uint64_t t0 = hp_ticks();
    int rc = PMPI_Waitall(count, array_of_requests, s.st);
    uint64_t dt = hp_ticks() - t0;
    call_site_time(t, ra, HP_MPI_Waitall, dt);
    if (rc == MPI_SUCCESS)
        hp_mpi_complete(t, s.before, count, NULL, count, s.st, dt);
    scratch_free(&s, array_of_statuses);
    return rc;
}

int MPI_Testall(int count, MPI_Request array_of_requests[], int *flag,
                MPI_Status array_of_statuses[])
{
    hp_thread *t = hp_mpi_begin();
    scratch s;
    if (!t || scratch_init(&s, count, array_of_requests, array_of_statuses) != 0) {
        if (t)
            scratch_free(&s, array_of_statuses);
        return PMPI_Testall(count, array_of_requests, flag, array_of_statuses);
    }
    uintptr_t ra = (uintptr_t)__builtin_return_address(0);
    uint64_t t0 = hp_ticks();
    int rc = PMPI_Testall(count, array_of_requests, flag, s.st);
    uint64_t dt = hp_ticks() - t0;
    call_site_time(t, ra, HP_MPI_Testall, dt);
    if (rc == MPI_SUCCESS && *flag)
        hp_mpi_complete(t, s.before, count, NULL, count, s.st, dt);
    scratch_free(&s, array_of_statuses);
    return rc;
}

int MPI_Waitsome(int incount, MPI_Request array_of_requests[], int *outcount,
                 int array_of_indices[], MPI_Status array_of_statuses[])
{
    hp_thread *t = hp_mpi_begin();
    scratch s;
    if (!t || scratch_init(&s, incount, array_of_requests, array_of_statuses) != 0) {
        if (t)
            scratch_free(&s, array_of_statuses);
        return PMPI_Waitsome(incount, array_of_requests, outcount, array_of_indices,
                             array_of_statuses);
    }
    uintptr_t ra = (uintptr_t)__builtin_return_address(0);
    uint64_t t0 = hp_ticks();
    int rc = PMPI_Waitsome(incount, array_of_requests, outcount, array_of_indices, s.st);
    uint64_t dt = hp_ticks() - t0;
    call_site_time(t, ra, HP_MPI_Waitsome, dt);
    if (rc == MPI_SUCCESS && *outcount != MPI_UNDEFINED)
        hp_mpi_complete(t, s.before, incount, array_of_indices, *outcount, s.st, dt);
    scratch_free(&s, array_of_statuses);
    return rc;
}

int MPI_Testsome(int incount, MPI_Request array_of_requests[], int *outcount,
                 int array_of_indices[], MPI_Status array_of_statuses[])
{
    hp_thread *t = hp_mpi_begin();
    scratch s;
    if (!t || scratch_init(&s, incount, array_of_requests, array_of_statuses) != 0) {
        if (t)
            scratch_free(&s, array_of_statuses);
        return PMPI_Testsome(incount, array_of_requests, outcount, array_of_indices,
                             array_of_statuses);
    }
    uintptr_t ra = (uintptr_t)__builtin_return_address(0);
    uint64_t t0 = hp_ticks();
    int rc = PMPI_Testsome(incount, array_of_requests, outcount, array_of_indices, s.st);
    uint64_t dt = hp_ticks() - t0;
    call_site_time(t, ra, HP_MPI_Testsome, dt);
    if (rc == MPI_SUCCESS && *outcount != MPI_UNDEFINED)
        hp_mpi_complete(t, s.before, incount, array_of_indices, *outcount, s.st, dt);
    scratch_free(&s, array_of_statuses);
    return rc;
}

int MPI_Start(MPI_Request *request)
{
    hp_thread *t = hp_mpi_begin();
    if (!t)
        return PMPI_Start(request);
    uintptr_t ra = (uintptr_t)__builtin_return_address(0);
    uint64_t t0 = hp_ticks();
    int rc = PMPI_Start(request);
    uint64_t dt = hp_ticks() - t0;
    call_site_time(t, ra, HP_MPI_Start, dt);
    if (rc == MPI_SUCCESS)
        hp_reqmap_start(hp_req_key(*request), dt);
    return rc;
}

int MPI_Startall(int count, MPI_Request array_of_requests[])
{
    hp_thread *t = hp_mpi_begin();
    if (!t)
        return PMPI_Startall(count, array_of_requests);
    uintptr_t ra = (uintptr_t)__builtin_return_address(0);
    uint64_t t0 = hp_ticks();
    int rc = PMPI_Startall(count, array_of_requests);
    uint64_t dt = hp_ticks() - t0;
    call_site_time(t, ra, HP_MPI_Startall, dt);
    if (rc == MPI_SUCCESS && count > 0)
        for (int i = 0; i < count; i++)
            hp_reqmap_start(hp_req_key(array_of_requests[i]), dt / (uint64_t)count);
    return rc;
}

int MPI_Request_free(MPI_Request *request)
{
    hp_thread *t = hp_mpi_begin();
    if (!t)
        return PMPI_Request_free(request);
    MPI_Request before = *request;
    int rc = PMPI_Request_free(request);
    if (rc == MPI_SUCCESS)
        hp_mpi_request_freed(t, before);
    return rc;
}
