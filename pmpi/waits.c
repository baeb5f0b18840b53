/*
 * waits.c - what the generated Wait/Test/Start wrappers share: copies of
 * the request arrays, and the recording of completed requests.  The time a
 * Wait or Test spends completing requests goes to the call sites that
 * posted them, with their peers and bytes; the Wait/Test call site itself
 * keeps its count and time.
 */
#include <stdlib.h>
#include <string.h>
#include "hp_mpi.h"

int hp_scratch_init(hp_scratch *s, int n, const MPI_Request *reqs,
                    MPI_Status *user_st)
{
    s->before = n <= HP_SCRATCH_REQS ? s->req_stack : malloc(sizeof *s->before * (size_t)n);
    s->st = user_st;
    if (user_st == MPI_STATUSES_IGNORE)
        s->st = n <= HP_SCRATCH_REQS ? s->st_stack : malloc(sizeof *s->st * (size_t)n);
    if (!s->before || !s->st)
        return -1;
    if (n > 0)
        memcpy(s->before, reqs, sizeof *reqs * (size_t)n);
    return 0;
}

void hp_scratch_free(hp_scratch *s, MPI_Status *user_st)
{
    if (s->before && s->before != s->req_stack)
        free(s->before);
    if (s->st && s->st != user_st && s->st != s->st_stack)
        free(s->st);
}

static inline uint32_t completing_node(hp_thread *t, const hp_req_info *in)
{
    if (in->thread == t->id)
        return in->node;
    return hp_event_node(t, in->site);
}

/* Counted when posted (or started): a send, a collective, a one-sided
 * request.  Receives and I/O are counted when they complete. */
static int counted_at_post(const hp_req_info *in)
{
    return in->kind == HP_REQ_SEND || in->kind == HP_REQ_KNOWN;
}

volatile int hp_mpi_cancels;

/* Only point-to-point requests can be cancelled here (Open MPI 4.1's
 * MPI-IO leaves the cancelled field of its statuses unset), and only once
 * the program has called MPI_Cancel. */
static int was_cancelled(const hp_req_info *in, const MPI_Status *st)
{
    int cancelled = 0;
    if (hp_mpi_cancels && (in->kind == HP_REQ_SEND || in->kind == HP_REQ_RECV))
        PMPI_Test_cancelled(st, &cancelled);
    return cancelled;
}

static inline __attribute__((always_inline)) void
record_completion(hp_thread *t, const hp_req_info *in, const MPI_Status *st, uint64_t share)
{
    uint32_t node = completing_node(t, in);
    uint64_t ticks = in->post_ticks + share;
    if (was_cancelled(in, st)) {
        if (counted_at_post(in))
            hp_event_comm_undo(t, node, in->peer, in->sent, in->recv);
        return;
    }
    if (in->kind == HP_REQ_RECV)
        hp_mpi_recv_done(t, node, in->map, st, ticks, 0);
    else if (in->kind == HP_REQ_IO_READ)
        hp_event_comm(t, node, in->peer, 0, hp_status_bytes(st), ticks, 0);
    else if (in->kind == HP_REQ_IO_WRITE)
        hp_event_comm(t, node, in->peer, hp_status_bytes(st), 0, ticks, 0);
    else
        hp_event_comm_time_at(t, in->comm, node, in->peer, ticks, 0);
}

/* Request r (before the call) completed with status *st. */
static inline __attribute__((always_inline)) void complete_one(hp_thread *t, MPI_Request r,
                                                               const MPI_Status *st,
                                                               uint64_t share, uint64_t seq0)
{
    hp_req_info buf;
    const hp_req_info *in;
    if (r != MPI_REQUEST_NULL && (in = hp_reqmap_complete(hp_req_key(r), seq0, &buf)))
        record_completion(t, in, st, share);
}

/* Each loop twice, with and without done[] (a Waitall's requests are all
 * done, in order): no test of done per request (callgrind,
 * bench/msgrate.c). */
void hp_mpi_complete(hp_thread *t, const MPI_Request *before, int n,
                     const int *done, int ndone, const MPI_Status *st,
                     uint64_t ticks, uint64_t seq0)
{
    int live = 0;
    (void)n;
    if (done)
        for (int k = 0; k < ndone; k++)
            live += before[done[k]] != MPI_REQUEST_NULL;
    else
        for (int k = 0; k < ndone; k++)
            live += before[k] != MPI_REQUEST_NULL;
    if (!live)
        return;
    uint64_t share = ticks / (uint64_t)live;
    if (done)
        for (int k = 0; k < ndone; k++)
            complete_one(t, before[done[k]], &st[k], share, seq0);
    else
        for (int k = 0; k < ndone; k++)
            complete_one(t, before[k], &st[k], share, seq0);
}

/* A freed request is never completed by the program: an active send (or
 * collective) keeps the count and bytes it was given when posted, with
 * the posting time; an active receive cannot be recorded, as nobody will
 * see its status. */
void hp_mpi_request_freed(hp_thread *t, MPI_Request req, uint64_t seq0)
{
    hp_req_info in;
    if (req == MPI_REQUEST_NULL || hp_reqmap_take(hp_req_key(req), seq0, &in) != 0)
        return;
    if (in.active && counted_at_post(&in))
        hp_event_comm_time(t, completing_node(t, &in), in.peer, in.post_ticks, 0);
}

void hp_mpi_started(hp_thread *t, const MPI_Request *reqs, int n, uint64_t ticks)
{
    for (int i = 0; i < n; i++) {
        hp_req_info in;
        if (reqs[i] == MPI_REQUEST_NULL ||
            hp_reqmap_start(hp_req_key(reqs[i]), ticks / (uint64_t)n, &in) != 0)
            continue;
        if (in.kind == HP_REQ_SEND)
            hp_event_comm_bytes(t, completing_node(t, &in), in.peer, in.sent, 0);
    }
}
