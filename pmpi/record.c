/*
 * record.c - the recorders behind the generated wrappers: they turn one
 * MPI call into the call site's node time and per-peer communication
 * records (bytes, transmission time, synchronization delay).  A received
 * message's record: hp_mpi_recv_done (hp_mpi.h).
 */
#include <stdlib.h>
#include <string.h>
#include "hp_mpi.h"
#include "hp_site.h"
#include "hp_vtime.h"

void hp_mpi_send_done(hp_thread *t, uint32_t node, MPI_Comm comm, int peer,
                      int count, MPI_Datatype type, uint64_t ticks)
{
    if (peer == MPI_PROC_NULL)
        return;
    hp_event_comm(t, node, hp_world_of(comm, peer), hp_mpi_bytes(count, type), 0,
                ticks, 0);
}

/* Blocking receive: the wait for a matching envelope (MPI_Mprobe) is the
 * synchronization delay, the copy of the message (MPI_Mrecv) the
 * transmission.  Exact with MPI_ANY_SOURCE and under threads, because the
 * probed message is removed from matching at once.  With virtual time
 * the probe chooses the sender of a wildcard receive (hp_vtime.h). */
int hp_mpi_recv(hp_thread *t, uintptr_t ra, void *buf, int count,
                MPI_Datatype type, int source, int tag, MPI_Comm comm,
                MPI_Status *status)
{
    MPI_Status st_local;
    MPI_Status *st = status == MPI_STATUS_IGNORE ? &st_local : status;
    MPI_Message msg;
    uint64_t t0 = hp_ticks(), t1;
    int rc;
    hp_event_call_begin(t, ra, HP_MPI_Recv, t0);
    if (source == MPI_PROC_NULL) {
        rc = PMPI_Recv(buf, count, type, source, tag, comm, status);
        t1 = hp_ticks();
    } else {
        rc = hp_vt_on ? hp_vt_mprobe(source, tag, comm, &msg, st)
                      : PMPI_Mprobe(source, tag, comm, &msg, st);
        t1 = hp_ticks();
        if (rc == MPI_SUCCESS)
            rc = PMPI_Mrecv(buf, count, type, &msg, st);
    }
    uint64_t t2 = hp_ticks();
    hp_event_call_end(t);
    uint32_t node = hp_mpi_node(t, ra, HP_MPI_Recv);
    uint64_t sync = t1 - t0;
    if (hp_vt_on && source != MPI_PROC_NULL)
        sync = hp_vt_wait_ticks(sync);   /* the wait the run without monitoring had */
    hp_mpi_node_time(t, node, (t2 - t1) + sync);
    if (rc == MPI_SUCCESS && source != MPI_PROC_NULL)
        hp_mpi_recv_done(t, node, hp_rankmap_of(comm), st, t2 - t1, sync);
    return rc;
}

/* The send half of a Sendrecv: what goes out and what it counts as. */
typedef struct send_half {
    const void *buf;
    int count;
    MPI_Datatype type;
    int dest, tag;
    uint64_t bytes;       /* recorded bytes (the user's data, even if packed) */
} send_half;

/* MPI_Sendrecv as Isend + (Mprobe, Mrecv) + Wait, which the standard
 * allows as its equivalent, so the receive half gets its sync split. */
static int sendrecv_split(hp_thread *t, uintptr_t ra, int id, const send_half *sh,
                          void *rbuf, int rcount, MPI_Datatype rtype, int source,
                          int rtag, MPI_Comm comm, MPI_Status *status)
{
    MPI_Status st_local;
    MPI_Status *st = status == MPI_STATUS_IGNORE ? &st_local : status;
    MPI_Request sreq;
    MPI_Message msg;
    uint64_t t0 = hp_ticks();
    hp_event_call_begin(t, ra, (uint32_t)id, t0);
    if (hp_vt_on)
        hp_vt_send_header(comm, sh->dest, sh->tag);
    int rc = PMPI_Isend(sh->buf, sh->count, sh->type, sh->dest, sh->tag, comm, &sreq);
    if (rc != MPI_SUCCESS) {
        hp_event_call_end(t);
        return rc;
    }
    uint64_t t1 = hp_ticks(), t2;
    if (source == MPI_PROC_NULL) {
        rc = PMPI_Recv(rbuf, rcount, rtype, source, rtag, comm, st);
        t2 = hp_ticks();
    } else {
        rc = hp_vt_on ? hp_vt_mprobe(source, rtag, comm, &msg, st)
                      : PMPI_Mprobe(source, rtag, comm, &msg, st);
        t2 = hp_ticks();
        if (rc == MPI_SUCCESS)
            rc = PMPI_Mrecv(rbuf, rcount, rtype, &msg, st);
    }
    uint64_t t3 = hp_ticks();
    int wrc = PMPI_Wait(&sreq, MPI_STATUS_IGNORE);
    uint64_t t4 = hp_ticks();
    hp_event_call_end(t);
    uint32_t node = hp_mpi_node(t, ra, id);
    uint64_t sync = t2 - t1;
    if (hp_vt_on && source != MPI_PROC_NULL)
        sync = hp_vt_wait_ticks(sync);   /* the wait the run without monitoring had */
    hp_mpi_node_time(t, node, (t4 - t0) - ((t2 - t1) - sync));
    if (wrc == MPI_SUCCESS && sh->dest != MPI_PROC_NULL)
        hp_event_comm(t, node, hp_world_of(comm, sh->dest), sh->bytes, 0,
                    (t1 - t0) + (t4 - t3), 0);
    if (rc == MPI_SUCCESS && source != MPI_PROC_NULL)
        hp_mpi_recv_done(t, node, hp_rankmap_of(comm), st, t3 - t2, sync);
    return rc != MPI_SUCCESS ? rc : wrc;
}

int hp_mpi_sendrecv(hp_thread *t, uintptr_t ra, const void *sbuf, int scount,
                    MPI_Datatype stype, int dest, int stag, void *rbuf,
                    int rcount, MPI_Datatype rtype, int source, int rtag,
                    MPI_Comm comm, MPI_Status *status)
{
    send_half sh = {sbuf, scount, stype, dest, stag, hp_mpi_bytes(scount, stype)};
    return sendrecv_split(t, ra, HP_MPI_Sendrecv, &sh, rbuf, rcount, rtype, source,
                          rtag, comm, status);
}

/* MPI_Sendrecv_replace: the outgoing data is packed first (as MPI
 * libraries do themselves), then it is a Sendrecv into the user's buffer.
 * Without memory for the copy the call is timed as a whole. */
int hp_mpi_sendrecv_replace(hp_thread *t, uintptr_t ra, void *buf, int count,
                            MPI_Datatype type, int dest, int stag, int source,
                            int rtag, MPI_Comm comm, MPI_Status *status)
{
    int size = 0, pos = 0;
    PMPI_Pack_size(count, type, comm, &size);
    void *packed = malloc(size > 0 ? (size_t)size : 1);
    if (!packed) {
        uint64_t t0 = hp_ticks();
        int rc = PMPI_Sendrecv_replace(buf, count, type, dest, stag, source, rtag,
                                       comm, status);
        hp_mpi_node_time(t, hp_mpi_node(t, ra, HP_MPI_Sendrecv_replace), hp_ticks() - t0);
        return rc;
    }
    PMPI_Pack(buf, count, type, packed, size, &pos, comm);
    send_half sh = {packed, pos, MPI_PACKED, dest, stag, hp_mpi_bytes(count, type)};
    int rc = sendrecv_split(t, ra, HP_MPI_Sendrecv_replace, &sh, buf, count, type,
                            source, rtag, comm, status);
    free(packed);
    return rc;
}

static void req_info_init(hp_thread *t, uint32_t node, hp_req_info *in, int kind,
                          uint64_t ticks)
{
    *in = (hp_req_info){
        .site = hp_event_node_site(t, node),
        .node = node,
        .thread = t->id,
        .kind = (uint8_t)kind,
        .active = 1,
        .comm = HP_NO_NODE,
        .post_ticks = ticks,
    };
}

void hp_mpi_req_p2p_slow(hp_thread *t, uint32_t node, MPI_Request req, int kind,
                         MPI_Comm comm, int peer, int count, MPI_Datatype type,
                         uint64_t ticks, int persistent)
{
    hp_req_info in;
    hp_mpi_req_fill(t, node, &in, kind, comm, peer, count, type, ticks, persistent);
    hp_reqmap_put(hp_req_key(req), &in);
}

/* Probed messages carry no communicator we could ask for, so the probe
 * remembers it for the receive that consumes the message. */
void hp_mpi_message_seen(MPI_Message msg, MPI_Comm comm)
{
    hp_req_info in;
    if (msg == MPI_MESSAGE_NULL || msg == MPI_MESSAGE_NO_PROC)
        return;
    memset(&in, 0, sizeof in);
    in.map = hp_rankmap_of(comm);
    hp_reqmap_put((uintptr_t)msg, &in);
}

static const hp_rankmap *message_map(MPI_Message msg, uint64_t seq0)
{
    hp_req_info in;
    if (msg == MPI_MESSAGE_NULL || msg == MPI_MESSAGE_NO_PROC ||
        hp_reqmap_take((uintptr_t)msg, seq0, &in) != 0)
        return NULL;
    return in.map;
}

void hp_mpi_mrecv_done(hp_thread *t, uint32_t node, MPI_Message msg,
                       const MPI_Status *st, uint64_t ticks, uint64_t seq0)
{
    const hp_rankmap *map = message_map(msg, seq0);
    if (msg != MPI_MESSAGE_NO_PROC)
        hp_mpi_recv_done(t, node, map, st, ticks, 0);
}

void hp_mpi_req_mrecv(hp_thread *t, uint32_t node, MPI_Request req,
                      MPI_Message msg, uint64_t ticks, uint64_t seq0)
{
    hp_req_info in;
    const hp_rankmap *map = message_map(msg, seq0);
    if (msg == MPI_MESSAGE_NO_PROC || req == MPI_REQUEST_NULL)
        return;
    req_info_init(t, node, &in, HP_REQ_RECV, ticks);
    in.map = map;
    hp_reqmap_put(hp_req_key(req), &in);
}

/* ---- collectives ---- */

uint64_t hp_mpi_coll_presync(MPI_Comm comm)
{
    if (!hp_cfg.coll_sync)
        return 0;
    uint64_t t0 = hp_ticks();
    if (hp_vt_on && hp_vt_controls(comm))   /* answering clock requests (vtime_coll.c) */
        hp_vt_coll_wait(PMPI_Ibarrier(comm, &hp_vt_coll_req), comm, HP_VT_NEEDS_ALL, 0);
    else
        PMPI_Barrier(comm);
    return hp_ticks() - t0;
}

typedef struct coll_shape {
    int size, me, inter, others, is_root, in_place;
} coll_shape;

static void coll_shape_of(const hp_coll_args *a, coll_shape *s)
{
    PMPI_Comm_test_inter(a->comm, &s->inter);
    PMPI_Comm_rank(a->comm, &s->me);
    if (s->inter)
        PMPI_Comm_remote_size(a->comm, &s->size);
    else
        PMPI_Comm_size(a->comm, &s->size);
    s->others = s->inter ? s->size : s->size - 1;
    s->is_root = a->root == MPI_ROOT || (!s->inter && a->root == s->me);
    s->in_place = a->sbuf == MPI_IN_PLACE;
}

static uint64_t sum_except(const int *counts, int n, int skip, MPI_Datatype type)
{
    uint64_t total = 0;
    for (int i = 0; i < n; i++)
        if (i != skip)
            total += hp_mpi_bytes(counts[i], type);
    return total;
}

/* Bytes this rank sends and receives by the collective's logical
 * decomposition into messages (docs/mpi.md: "Collectives"). */
static void coll_bytes(const hp_coll_args *a, const coll_shape *s, uint64_t *sent,
                       uint64_t *recv)
{
    int self = s->inter ? -1 : s->me;
    uint64_t unit;
    *sent = *recv = 0;
    if (a->root == MPI_PROC_NULL)
        return;
    switch (a->rule) {
    case HP_COLL_BCAST:
        unit = hp_mpi_bytes(a->scount, a->stype);
        if (s->is_root) *sent = unit * s->others; else *recv = unit;
        break;
    case HP_COLL_GATHER:
        if (s->is_root) *recv = hp_mpi_bytes(a->rcount, a->rtype) * s->others;
        else *sent = hp_mpi_bytes(a->scount, a->stype);
        break;
    case HP_COLL_GATHERV:
        if (s->is_root) *recv = sum_except(a->rcounts, s->size, self, a->rtype);
        else *sent = hp_mpi_bytes(a->scount, a->stype);
        break;
    case HP_COLL_SCATTER:
        if (s->is_root) *sent = hp_mpi_bytes(a->scount, a->stype) * s->others;
        else *recv = hp_mpi_bytes(a->rcount, a->rtype);
        break;
    case HP_COLL_SCATTERV:
        if (s->is_root) *sent = sum_except(a->scounts, s->size, self, a->stype);
        else *recv = hp_mpi_bytes(a->rcount, a->rtype);
        break;
    case HP_COLL_ALLGATHER:
        unit = s->in_place ? hp_mpi_bytes(a->rcount, a->rtype) : hp_mpi_bytes(a->scount, a->stype);
        *sent = unit * s->others;
        *recv = hp_mpi_bytes(a->rcount, a->rtype) * s->others;
        break;
    case HP_COLL_ALLGATHERV:
        unit = s->in_place ? hp_mpi_bytes(a->rcounts[s->me], a->rtype)
                           : hp_mpi_bytes(a->scount, a->stype);
        *sent = unit * s->others;
        *recv = sum_except(a->rcounts, s->size, self, a->rtype);
        break;
    case HP_COLL_REDUCE:
        unit = hp_mpi_bytes(a->scount, a->stype);
        if (s->is_root) *recv = unit * s->others; else *sent = unit;
        break;
    case HP_COLL_ALLREDUCE:
        *sent = *recv = hp_mpi_bytes(a->scount, a->stype);
        break;
    case HP_COLL_REDUCE_SCATTER:
        *sent = sum_except(a->rcounts, s->size, -1, a->stype);
        *recv = hp_mpi_bytes(a->rcounts[s->inter ? 0 : s->me], a->stype);
        break;
    case HP_COLL_REDUCE_SCATTER_BLOCK:
        *recv = hp_mpi_bytes(a->rcount, a->stype);
        *sent = *recv * (uint64_t)s->size;
        break;
    case HP_COLL_SCAN:
    case HP_COLL_EXSCAN:
        unit = hp_mpi_bytes(a->scount, a->stype);
        *sent = unit * (uint64_t)(s->size - 1 - s->me);
        *recv = unit * (uint64_t)s->me;
        break;
    default: /* barrier; the alltoall family is counted per peer */
        break;
    }
}

static void alltoall_peer_bytes(const hp_coll_args *a, const coll_shape *s, int j,
                                uint64_t *sent, uint64_t *recv)
{
    switch (a->rule) {
    case HP_COLL_ALLTOALL:
        *recv = hp_mpi_bytes(a->rcount, a->rtype);
        *sent = s->in_place ? *recv : hp_mpi_bytes(a->scount, a->stype);
        break;
    case HP_COLL_ALLTOALLV:
        *recv = hp_mpi_bytes(a->rcounts[j], a->rtype);
        *sent = s->in_place ? *recv : hp_mpi_bytes(a->scounts[j], a->stype);
        break;
    default: /* HP_COLL_ALLTOALLW */
        *recv = hp_mpi_bytes(a->rcounts[j], a->rtypes[j]);
        *sent = s->in_place ? *recv : hp_mpi_bytes(a->scounts[j], a->stypes[j]);
        break;
    }
}

static int is_alltoall(int rule)
{
    return rule == HP_COLL_ALLTOALL || rule == HP_COLL_ALLTOALLV ||
           rule == HP_COLL_ALLTOALLW;
}

/* Per-peer records of the alltoall family (count and bytes, no time);
 * returns the totals for the HP_PEER_ALL record. */
static void alltoall_peers(hp_thread *t, uint32_t node, const hp_coll_args *a,
                           const coll_shape *s, uint64_t *sent, uint64_t *recv)
{
    const hp_rankmap *map = hp_rankmap_of(a->comm);
    *sent = *recv = 0;
    for (int j = 0; j < s->size; j++) {
        uint64_t sj, rj;
        if (!s->inter && j == s->me)
            continue;
        alltoall_peer_bytes(a, s, j, &sj, &rj);
        hp_event_comm_bytes(t, node, hp_world_in(map, j), sj, rj);
        *sent += sj;
        *recv += rj;
    }
}

static void coll_account(hp_thread *t, uint32_t node, const hp_coll_args *a,
                         uint64_t *sent, uint64_t *recv)
{
    coll_shape s;
    if (hp_coll_is_neighbor(a->rule)) {
        hp_mpi_neighbor_peers(t, node, a, sent, recv);
        return;
    }
    coll_shape_of(a, &s);
    if (is_alltoall(a->rule))
        alltoall_peers(t, node, a, &s, sent, recv);
    else
        coll_bytes(a, &s, sent, recv);
}

void hp_mpi_coll_done(hp_thread *t, uint32_t node, const hp_coll_args *a,
                      uint64_t tran, uint64_t sync)
{
    uint64_t sent, recv;
    coll_account(t, node, a, &sent, &recv);
    hp_event_comm(t, node, HP_PEER_ALL, sent, recv, tran, sync);
}

void hp_mpi_req_coll(hp_thread *t, uint32_t node, MPI_Request req,
                     const hp_coll_args *a, uint64_t ticks)
{
    if (req == MPI_REQUEST_NULL)
        return;
    uint64_t sent, recv;
    coll_account(t, node, a, &sent, &recv);
    hp_mpi_req_known(t, node, req, HP_PEER_ALL, sent, recv, ticks);
}

void hp_mpi_req_known(hp_thread *t, uint32_t node, MPI_Request req, int32_t peer,
                      uint64_t sent, uint64_t recv, uint64_t ticks)
{
    hp_req_info in;
    if (req == MPI_REQUEST_NULL)
        return;
    req_info_init(t, node, &in, HP_REQ_KNOWN, ticks);
    in.peer = peer;
    in.sent = sent;
    in.recv = recv;
    in.comm = hp_event_comm_bytes(t, node, peer, sent, recv);
    hp_reqmap_put(hp_req_key(req), &in);
}

void hp_mpi_req_io(hp_thread *t, uint32_t node, MPI_Request req, int32_t peer,
                   int is_write, uint64_t ticks)
{
    hp_req_info in;
    if (req == MPI_REQUEST_NULL)
        return;
    req_info_init(t, node, &in, is_write ? HP_REQ_IO_WRITE : HP_REQ_IO_READ, ticks);
    in.peer = peer;
    hp_reqmap_put(hp_req_key(req), &in);
}
