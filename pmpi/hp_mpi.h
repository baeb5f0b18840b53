/*
 * hp_mpi.h - what the MPI wrappers share: the on/off state, rank
 * translation to MPI_COMM_WORLD, the table of outstanding requests, and
 * the helpers that turn one MPI call into records (record.c; one-sided
 * calls: rma.c).  The generated wrappers (wrappers.c, from mpi_spec.txt)
 * call only what is declared here.
 */
#ifndef HP_MPI_H
#define HP_MPI_H

#include <mpi.h>
#include <stdint.h>
#include <string.h>
#include "hp_clock.h"
#include "hp_config.h"
#include "hp_format.h"
#include "hp_profile.h"
#include "hp_site.h"
#include "hp_summary.h"
#include "hp_event.h"
#include "hp_mpi_ids.h"

/* The MPI functions libhprof.so interposes are its only exported symbols
 * besides the core's (pmpi/ is built with -fvisibility=hidden). */
#define HP_MPI_API __attribute__((visibility("default")))

/* The ranks of a node that write alone leave together (linger.c):
 * hp_linger_init at MPI_Init; each such rank marks itself ended, and one
 * that a signal or exit ends waits for the node's others, bounded. */
void hp_linger_init(void);
void hp_linger_mark_ended(void);
void hp_linger_until_node_ended(void);

/* 1 when the rank is ending through _exit (exit.c), with its status. */
int hp_exit_called(int *status);

/* Non-zero between our MPI_Init and MPI_Finalize. */
extern volatile int hp_mpi_active __attribute__((visibility("hidden")));
extern int hp_world_rank, hp_world_size;

/* The wrappers' hot path (hp_mpi_begin, hp_mpi_node, hp_mpi_node_time and
 * the local-call forms) is forced inline: wrappers.c holds ~350 callers,
 * more than gcc's unit-growth limit lets it inline, and a call each costs
 * about 25 instructions per wrapped call. */

/* The thread to record into, or NULL when nothing is to be recorded. */
static inline __attribute__((always_inline)) hp_thread *hp_mpi_begin(void)
{
    if (__builtin_expect(!hp_mpi_active || !hp_collecting, 0))
        return 0;
    return hp_thread_self();
}

/* Node of the call site at return address ra for MPI function id (in
 * tier 0 under the frames of its call path, HPROF_CALLPATH); inside an
 * instrumented communication statement, that statement's node. */
static inline __attribute__((always_inline)) uint32_t hp_mpi_node(hp_thread *t, uintptr_t ra, int id)
{
    uint32_t statement = hp_event_comm_statement(t);
    if (statement != HP_NO_NODE)
        return statement;
    return hp_event_site_node_under(t, hp_event_callpath(t, ra), ra, HP_KIND_COMM,
                                    hp_mpi_names[id], hp_mpi_site_flags[id]);
}

/* Time of one MPI call at its node and the frames of its call path; an
 * instrumented communication statement times itself. */
static inline __attribute__((always_inline)) void hp_mpi_node_time(hp_thread *t, uint32_t node, uint64_t ticks)
{
    if (node != hp_event_comm_statement(t))
        hp_event_time_path(t, node, ticks);
}

/* Local MPI calls (spec KIND local: queries, datatypes, groups, ...) are
 * call sites named after the function, not communication statements.
 * Inside an instrumented communication statement they belong to it; inside
 * the instrumented call statement of the same function (tier 2), to that
 * statement, whose probe counts and times it. */
static inline int hp_mpi_in_own_statement(const hp_thread *t, int id)
{
    const hp_site *s = hp_site_get(hp_event_node_site(t, hp_event_current(t)));
    return s->kind == HP_KIND_CALL && (s->flags & HP_SITEF_MPI) &&
           !(s->flags & HP_SITEF_DYNAMIC) && strcmp(s->name, hp_mpi_names[id]) == 0;
}

static inline __attribute__((always_inline)) uint32_t hp_mpi_local_node(hp_thread *t, uintptr_t ra, int id)
{
    uint32_t statement = hp_event_comm_statement(t);
    if (statement != HP_NO_NODE)
        return statement;
    if (hp_mpi_in_own_statement(t, id))
        return hp_event_current(t);
    return hp_event_site_node_under(t, hp_event_callpath(t, ra), ra, HP_KIND_CALL,
                                    hp_mpi_names[id], hp_mpi_site_flags[id]);
}

static inline __attribute__((always_inline)) void hp_mpi_local_time(hp_thread *t, uint32_t node, uint64_t ticks)
{
    if (node != hp_event_comm_statement(t) && node != hp_event_current(t))
        hp_event_time_path(t, node, ticks);
}

/* ---- rank translation (rankmap.c) ---- */

typedef struct hp_rankmap {
    int size;          /* ranks in the (remote) group */
    int world[];       /* world rank of each */
} hp_rankmap;

/* Map of comm, created and cached on first use; NULL when the
 * translation is impossible.  hp_rankmap_of: NULL also for
 * MPI_COMM_WORLD (the identity), decided inline as most messages use it. */
const hp_rankmap *hp_rankmap_lookup(MPI_Comm comm);
static inline const hp_rankmap *hp_rankmap_of(MPI_Comm comm)
{
    return comm == MPI_COMM_WORLD ? NULL : hp_rankmap_lookup(comm);
}
void hp_rankmap_forget(MPI_Comm comm);   /* before MPI_Comm_free */
/* A new map of the ranks of group (the caller frees it); NULL without memory. */
hp_rankmap *hp_rankmap_of_group(MPI_Group group);
void hp_rankmap_free_all(void);

/* World rank of `rank` in comm (remote group for an intercommunicator);
 * -1 for MPI_PROC_NULL or a rank it cannot translate. */
static inline int hp_world_of(MPI_Comm comm, int rank)
{
    if (rank < 0)
        return -1;
    if (comm == MPI_COMM_WORLD)
        return rank;
    const hp_rankmap *m = hp_rankmap_of(comm);
    if (!m)
        return rank;
    return rank < m->size ? m->world[rank] : -1;
}

static inline int hp_world_in(const hp_rankmap *m, int rank)
{
    if (rank < 0)
        return -1;
    if (!m)
        return rank;
    return rank < m->size ? m->world[rank] : -1;
}

/* ---- outstanding requests (reqmap.c) ---- */

/* SEND, RECV: point-to-point; KNOWN: peer and bytes fixed at post time
 * (collectives, one-sided R* calls); IO_READ, IO_WRITE: MPI-IO, bytes from
 * the completion's status. */
enum hp_req_kind { HP_REQ_SEND, HP_REQ_RECV, HP_REQ_KNOWN, HP_REQ_IO_READ,
                   HP_REQ_IO_WRITE };

typedef struct hp_req_info {
    uint32_t site, node, thread;
    uint8_t kind;          /* enum hp_req_kind */
    uint8_t persistent;
    uint8_t active;        /* persistent: started and not yet completed */
    int32_t peer;          /* world rank; for receives the posted source */
    uint32_t comm;         /* the poster's comm record of a transfer counted
                              at post time (hp_event_comm_time_at), else
                              HP_NO_NODE */
    uint64_t sent;         /* bytes sent (receives: taken from the status) */
    uint64_t post_ticks;   /* time spent in the posting (or Start) call */
    union {                /* 48 bytes, not 56 (callgrind, bench/msgrate.c) */
        uint64_t recv;     /* not HP_REQ_RECV: bytes received */
        const hp_rankmap *map; /* HP_REQ_RECV: translates the status source;
                                  NULL: the identity (MPI_COMM_WORLD) */
    };
} hp_req_info;

/* threaded != 0 under MPI_THREAD_MULTIPLE: the table then locks. */
void hp_reqmap_set_threaded(int threaded);
/* The post sequence number now: read it before a call that completes,
 * starts or frees requests, and pass it as `before` below, so that a
 * handle freed and reused by another thread meanwhile is not mistaken for
 * the request the call was given. */
uint64_t hp_reqmap_now(void);
/* Registers a posted request (or probed message) under its handle value;
 * several entries may share one value.  0, or -1 without memory. */
int hp_reqmap_put(uintptr_t key, const hp_req_info *info);
/* Copies the newest entry of key registered before `before` to *out and
 * removes it.  Returns 0 when found. */
int hp_reqmap_take(uintptr_t key, uint64_t before, hp_req_info *out);
/* The front of the table below MPI_THREAD_MULTIPLE (reqmap.c), which the
 * usual post and completion read inline (no call per request: callgrind,
 * bench/msgrate.c): one slot per hash of the handle, holding a key's
 * non-persistent entries, oldest first (a shared handle's newer ones in
 * more[]); `newer': the shards hold newer entries of its key.  4096
 * slots: at 1024, 64 outstanding receives collided often enough to cost
 * 17 instructions a message. */
#define HP_REQMAP_FRONT_SLOTS 4096u
typedef struct hp_reqmap_entry {
    uint64_t seq;          /* post sequence number */
    uint32_t next;         /* next older entry of the key; free list link */
    hp_req_info info;
} hp_reqmap_entry;
typedef struct hp_reqmap_front {
    uintptr_t key;         /* 0 = empty */
    uint32_t newer;        /* the shards hold newer entries of key */
    uint32_t nmore, cap;   /* entries in more[], its room */
    hp_reqmap_entry one;   /* the oldest entry here (.next unused) */
    hp_reqmap_entry *more; /* the newer ones of a shared handle, ascending seq */
} hp_reqmap_front;
extern hp_reqmap_front hp_reqmap_fronts[HP_REQMAP_FRONT_SLOTS] __attribute__((visibility("hidden")));
extern uint32_t hp_reqmap_front_used __attribute__((visibility("hidden")));  /* entries there */
extern int hp_reqmap_need_locks __attribute__((visibility("hidden")));       /* MPI_THREAD_MULTIPLE */
extern uint64_t hp_reqmap_seq __attribute__((visibility("hidden")));         /* next post number */

static inline hp_reqmap_front *hp_reqmap_front_of(uintptr_t key)
{
    return &hp_reqmap_fronts[(key * 0x9e3779b97f4a7c15ull) >> 52];
}

/* hp_reqmap_post when a shared handle's slot has no room left. */
hp_req_info *hp_reqmap_post_slow(uintptr_t key);

/* hp_reqmap_put without the copy: below MPI_THREAD_MULTIPLE, the entry of
 * a non-persistent request registered in place, whose info the caller
 * writes whole before its next call of the table; NULL when the entry
 * cannot be made so (then hp_reqmap_put). */
static inline __attribute__((always_inline)) hp_req_info *hp_reqmap_post(uintptr_t key,
                                                                         int persistent)
{
    if (hp_reqmap_need_locks || persistent || !key)
        return NULL;
    hp_reqmap_front *f = hp_reqmap_front_of(key);
    if (f->key == 0) {
        f->key = key;
        f->newer = 0;
        f->nmore = 0;
        f->one.seq = hp_reqmap_seq++;
        hp_reqmap_front_used++;
        return &f->one.info;
    }
    /* a shared handle: its newer entries stay here while they can */
    if (f->key != key || f->newer)
        return NULL;
    if (__builtin_expect(f->nmore == f->cap, 0))
        return hp_reqmap_post_slow(key);
    hp_reqmap_entry *e = &f->more[f->nmore++];
    e->seq = hp_reqmap_seq++;
    hp_reqmap_front_used++;
    return &e->info;
}

/* hp_reqmap_complete for what its inline path leaves out. */
const hp_req_info *hp_reqmap_complete_slow(uintptr_t key, uint64_t before, hp_req_info *buf);

/* A request completed: as hp_reqmap_take, except that a persistent entry
 * stays and becomes inactive.  Returns the entry when it was active, else
 * NULL: *buf holding a copy, or below MPI_THREAD_MULTIPLE the removed
 * entry where the table kept it, valid until the table's next call (no
 * copy).  Inline when key's slot holds its newest entry (the shards none
 * newer), registered before `before`: taken in place. */
static inline __attribute__((always_inline)) const hp_req_info *
hp_reqmap_complete(uintptr_t key, uint64_t before, hp_req_info *buf)
{
    hp_reqmap_front *f = hp_reqmap_front_of(key);
    if (hp_reqmap_need_locks || f->key != key || f->newer)
        return hp_reqmap_complete_slow(key, before, buf);
    uint32_t n = f->nmore;
    hp_reqmap_entry *e = n ? &f->more[n - 1] : &f->one;
    if (e->seq >= before)
        return hp_reqmap_complete_slow(key, before, buf);
    hp_reqmap_front_used--;
    if (n)
        f->nmore = n - 1;
    else
        f->key = 0;
    return e->info.active ? &e->info : NULL;
}

/* Persistent request started: marks it active with the Start call's time
 * and copies it to *out.  Returns 0 when it is a known persistent request. */
int hp_reqmap_start(uintptr_t key, uint64_t ticks, hp_req_info *out);
/* Entries registered and not yet completed, freed or taken. */
size_t hp_reqmap_outstanding(void);
void hp_reqmap_free_all(void);

static inline uintptr_t hp_req_key(MPI_Request r)
{
    return (uintptr_t)r;
}

/* ---- record helpers (record.c) ---- */

/* count elements of type in bytes (typesize.c).  The sizes of the
 * predefined types are a table filled once (then hp_type_table_ready,
 * release) and never changed after: a type found in its home slot is
 * answered inline, without a call (callgrind, bench/msgrate.c); anything
 * else asks hp_mpi_bytes_slow. */
#define HP_TYPE_SLOTS 128u   /* 2^7 (hp_type_slot), over twice the types */
typedef struct hp_type_size {
    uintptr_t handle;        /* 0: free */
    int size;
} hp_type_size;
extern hp_type_size hp_type_table[HP_TYPE_SLOTS] __attribute__((visibility("hidden")));
extern int hp_type_table_ready __attribute__((visibility("hidden")));
uint64_t hp_mpi_bytes_slow(int count, MPI_Datatype type);

static inline size_t hp_type_slot(uintptr_t h)
{
    return (size_t)((h * 0x9e3779b97f4a7c15ull) >> 57);     /* the top 7 bits */
}

static inline uint64_t hp_mpi_bytes(int count, MPI_Datatype type)
{
    const hp_type_size *e = &hp_type_table[hp_type_slot((uintptr_t)type)];
    if (__builtin_expect(count > 0 && __atomic_load_n(&hp_type_table_ready, __ATOMIC_ACQUIRE) &&
                             e->handle == (uintptr_t)type, 1))
        return (uint64_t)count * (uint64_t)e->size;
    return hp_mpi_bytes_slow(count, type);
}

/* Open MPI keeps the bytes a status describes in its public field
 * _ucount, which is what MPI_Get_count(MPI_BYTE) returns (about 50
 * instructions less per received message, callgrind; no MPI_UNDEFINED
 * above 2^31 bytes); elsewhere MPI_Get_count. */
static inline uint64_t hp_status_bytes(const MPI_Status *st)
{
#ifdef OPEN_MPI
    return (uint64_t)st->_ucount;
#else
    int n = 0;
    PMPI_Get_count(st, MPI_BYTE, &n);
    return n > 0 ? (uint64_t)n : 0;
#endif
}

void hp_mpi_send_done(hp_thread *t, uint32_t node, MPI_Comm comm, int peer,
                      int count, MPI_Datatype type, uint64_t ticks);
/* MPI_Recv through MPI_Mprobe + MPI_Mrecv: sync delay vs transmission. */
int hp_mpi_recv(hp_thread *t, uintptr_t ra, void *buf, int count,
                MPI_Datatype type, int source, int tag, MPI_Comm comm,
                MPI_Status *status);
int hp_mpi_sendrecv(hp_thread *t, uintptr_t ra, const void *sbuf, int scount,
                    MPI_Datatype stype, int dest, int stag, void *rbuf,
                    int rcount, MPI_Datatype rtype, int source, int rtag,
                    MPI_Comm comm, MPI_Status *status);
/* A received message (status st; map translates its source): one
 * transfer at node.  Inline: a completed Irecv makes no call here
 * (callgrind, bench/msgrate.c). */
static inline void hp_mpi_recv_done(hp_thread *t, uint32_t node, const hp_rankmap *map,
                                    const MPI_Status *st, uint64_t tran, uint64_t sync)
{
    int src = st->MPI_SOURCE;
    if (src == MPI_PROC_NULL || src < 0)
        return;
    hp_event_comm_inline(t, node, hp_world_in(map, src), 0, hp_status_bytes(st), tran, sync);
}
int hp_mpi_sendrecv_replace(hp_thread *t, uintptr_t ra, void *buf, int count,
                            MPI_Datatype type, int dest, int stag, int source,
                            int rtag, MPI_Comm comm, MPI_Status *status);
/* A nonblocking send is counted with its bytes when it is posted (a
 * persistent one when it is started) and timed when it completes; a
 * receive is recorded when it completes, as its source and size may be
 * known only from the status.  hp_mpi_req_fill writes a request's entry,
 * each field once. */
static inline __attribute__((always_inline)) void
hp_mpi_req_fill(hp_thread *t, uint32_t node, hp_req_info *in, int kind, MPI_Comm comm, int peer,
                int count, MPI_Datatype type, uint64_t ticks, int persistent)
{
    in->site = hp_event_node_site(t, node);
    in->node = node;
    in->thread = t->id;
    in->kind = (uint8_t)kind;
    in->persistent = (uint8_t)persistent;
    in->active = !persistent;
    in->post_ticks = persistent ? 0 : ticks;
    in->comm = HP_NO_NODE;
    if (kind == HP_REQ_RECV) {
        in->peer = 0;
        in->sent = 0;
        in->map = hp_rankmap_of(comm);
    } else {
        in->peer = hp_world_of(comm, peer);
        in->sent = hp_mpi_bytes(count, type);
        in->recv = 0;
        if (!persistent)
            in->comm = hp_event_comm_bytes_inline(t, node, in->peer, in->sent, 0);
    }
}

/* A persistent request, or one the table cannot take in place: a copy. */
void hp_mpi_req_p2p_slow(hp_thread *t, uint32_t node, MPI_Request req, int kind,
                         MPI_Comm comm, int peer, int count, MPI_Datatype type,
                         uint64_t ticks, int persistent);

/* A point-to-point request posted (Isend & co., Irecv, *_init).  Inline,
 * its entry written where the table keeps it (hp_reqmap_post): no call
 * with ten arguments per request (callgrind, bench/msgrate.c). */
static inline __attribute__((always_inline)) void
hp_mpi_req_p2p(hp_thread *t, uint32_t node, MPI_Request req, int kind, MPI_Comm comm, int peer,
               int count, MPI_Datatype type, uint64_t ticks, int persistent)
{
    if (peer == MPI_PROC_NULL || req == MPI_REQUEST_NULL)
        return;
    hp_req_info *in = persistent ? NULL : hp_reqmap_post(hp_req_key(req), 0);
    if (__builtin_expect(!in, 0)) {
        hp_mpi_req_p2p_slow(t, node, req, kind, comm, peer, count, type, ticks, persistent);
        return;
    }
    hp_mpi_req_fill(t, node, in, kind, comm, peer, count, type, ticks, 0);
}
/* Messages from MPI_Mprobe/MPI_Improbe remember their communicator. */
void hp_mpi_message_seen(MPI_Message msg, MPI_Comm comm);
void hp_mpi_mrecv_done(hp_thread *t, uint32_t node, MPI_Message msg,
                       const MPI_Status *st, uint64_t ticks, uint64_t seq0);
void hp_mpi_req_mrecv(hp_thread *t, uint32_t node, MPI_Request req,
                      MPI_Message msg, uint64_t ticks, uint64_t seq0);

/* Collectives: the arguments that decide the bytes of each rank. */
enum hp_coll_rule {
    HP_COLL_BARRIER, HP_COLL_BCAST, HP_COLL_GATHER, HP_COLL_GATHERV,
    HP_COLL_SCATTER, HP_COLL_SCATTERV, HP_COLL_ALLGATHER, HP_COLL_ALLGATHERV,
    HP_COLL_ALLTOALL, HP_COLL_ALLTOALLV, HP_COLL_ALLTOALLW, HP_COLL_REDUCE,
    HP_COLL_ALLREDUCE, HP_COLL_REDUCE_SCATTER, HP_COLL_REDUCE_SCATTER_BLOCK,
    HP_COLL_SCAN, HP_COLL_EXSCAN,
    HP_COLL_NEIGHBOR_ALLGATHER, HP_COLL_NEIGHBOR_ALLGATHERV,
    HP_COLL_NEIGHBOR_ALLTOALL, HP_COLL_NEIGHBOR_ALLTOALLV, HP_COLL_NEIGHBOR_ALLTOALLW
};

typedef struct hp_coll_args {
    int rule;                     /* enum hp_coll_rule */
    MPI_Comm comm;
    int root;
    const void *sbuf;
    int scount, rcount;
    MPI_Datatype stype, rtype;
    const int *scounts, *rcounts;
    const MPI_Datatype *stypes, *rtypes;
} hp_coll_args;

/* Time of the pre-barrier when HPROF_COLL_SYNC=1, else 0. */
uint64_t hp_mpi_coll_presync(MPI_Comm comm);
void hp_mpi_coll_done(hp_thread *t, uint32_t node, const hp_coll_args *a,
                      uint64_t tran, uint64_t sync);
void hp_mpi_req_coll(hp_thread *t, uint32_t node, MPI_Request req,
                     const hp_coll_args *a, uint64_t ticks);
/* A request whose peer (world rank or HP_PEER_ALL) and bytes are known when
 * it is posted: one transfer of `sent`/`recv` bytes at `node`, with the
 * posting call's `ticks` plus a share of the call that completes it. */
void hp_mpi_req_known(hp_thread *t, uint32_t node, MPI_Request req, int32_t peer,
                      uint64_t sent, uint64_t recv, uint64_t ticks);
/* A nonblocking MPI-IO request: one transfer with `peer`, its bytes taken
 * from the completion's status (read: received, write: sent). */
void hp_mpi_req_io(hp_thread *t, uint32_t node, MPI_Request req, int32_t peer,
                   int is_write, uint64_t ticks);

/* ---- one-sided communication (rma.c) ---- */

/* Which bytes a one-sided call moves (docs/mpi.md: "One-sided communication"). */
enum hp_rma_rule { HP_RMA_PUT, HP_RMA_GET, HP_RMA_ACC, HP_RMA_GET_ACC,
                   HP_RMA_FOP, HP_RMA_CAS };

typedef struct hp_rma_args {
    int rule;              /* enum hp_rma_rule */
    MPI_Win win;
    int target;            /* rank in the window's group, or MPI_PROC_NULL */
    int ocount;            /* origin buffer (FOP, CAS: one element) */
    MPI_Datatype otype;
    int rcount;            /* result buffer (Get_accumulate) */
    MPI_Datatype rtype;
    MPI_Op op;
} hp_rma_args;

/* A new window: its group's translation to world ranks is cached on it. */
void hp_rma_window_created(MPI_Win win);
/* One transfer to the target, all of `ticks` transmission. */
void hp_mpi_rma_done(hp_thread *t, uint32_t node, const hp_rma_args *a,
                     uint64_t ticks);
/* The same for Rput & co., recorded when the request completes. */
void hp_mpi_req_rma(hp_thread *t, uint32_t node, MPI_Request req,
                    const hp_rma_args *a, uint64_t ticks);
/* An epoch or flush call with target `rank` of win (or with all targets):
 * one record without bytes whose `ticks` are synchronization delay. */
void hp_mpi_rma_sync(hp_thread *t, uint32_t node, MPI_Win win, int rank,
                     uint64_t ticks);
void hp_mpi_rma_sync_all(hp_thread *t, uint32_t node, uint64_t ticks);

/* ---- neighbourhood collectives (neighbor.c) ---- */

static inline int hp_coll_is_neighbor(int rule)
{
    return rule >= HP_COLL_NEIGHBOR_ALLGATHER && rule <= HP_COLL_NEIGHBOR_ALLTOALLW;
}

/* Per-neighbour records (world ranks, count and bytes, no time) of a
 * neighbourhood collective on a communicator with a topology; returns the
 * totals for its HP_PEER_ALL record. */
void hp_mpi_neighbor_peers(hp_thread *t, uint32_t node, const hp_coll_args *a,
                           uint64_t *sent, uint64_t *recv);

/* ---- MPI-IO (io.c): transfers with the peer HP_PEER_FILE ---- */

/* A blocking read or write: bytes from its status. */
void hp_mpi_io_done(hp_thread *t, uint32_t node, const MPI_Status *st, int is_write,
                    uint64_t ticks);
/* Split collectives: _begin remembers its node and time per file handle;
 * _end records the transfer there (bytes from its status, time of both
 * halves).  An _end without a recorded _begin records at its own node. */
void hp_mpi_io_begin(hp_thread *t, uint32_t node, MPI_File fh, uint64_t ticks);
void hp_mpi_io_end(hp_thread *t, uint32_t node, MPI_File fh, const MPI_Status *st,
                   int is_write, uint64_t ticks);

/* Records the completion of requests by a Wait/Test call that took
 * `ticks` and began at post sequence seq0 (hp_reqmap_now): before[] holds
 * the handles as they were before the call,
 * done[k] the index of the k-th completed one (NULL: all n in order) and
 * st[k] its status.  The time is shared evenly among them. */
void hp_mpi_complete(hp_thread *t, const MPI_Request *before, int n,
                     const int *done, int ndone, const MPI_Status *st,
                     uint64_t ticks, uint64_t seq0);
/* Set by the first MPI_Cancel: only then do completions ask whether a
 * request was cancelled. */
extern volatile int hp_mpi_cancels __attribute__((visibility("hidden")));
/* A request freed by MPI_Request_free will never be completed by us. */
void hp_mpi_request_freed(hp_thread *t, MPI_Request req, uint64_t seq0);
/* MPI_Start(all): each started request gets an even share of the time;
 * a persistent send records its transfer here. */
void hp_mpi_started(hp_thread *t, const MPI_Request *reqs, int n, uint64_t ticks);

/* The request array as it was before a Wait/Test call (which nulls the
 * handles it completes), and statuses when the caller ignores them: on the
 * stack when small. */
#define HP_SCRATCH_REQS 64
typedef struct hp_scratch {
    MPI_Request req_stack[HP_SCRATCH_REQS];
    MPI_Status st_stack[HP_SCRATCH_REQS];
    MPI_Request *before;
    MPI_Status *st;
} hp_scratch;

int hp_scratch_init(hp_scratch *s, int n, const MPI_Request *reqs,
                    MPI_Status *user_st);
void hp_scratch_free(hp_scratch *s, MPI_Status *user_st);

/* ---- end of run (finalize.c, reduce.c, output.c) ---- */

int hp_reduce_summary(const hp_rank_data *rd, hp_agg *out);
/* One step of a binomial tree (reduce.c): the encoded bytes of b go to
 * `to` (an empty message when failed or b->failed: the receiver never
 * waits forever), 0 or -1; the next message of tag from `from`, any
 * length, into *data (malloc'd), 0 or -1 when empty or out of memory. */
int hp_reduce_send(const hp_buf *b, int failed, int to, int tag, MPI_Comm comm);
int hp_reduce_recv(int from, int tag, MPI_Comm comm, unsigned char **data, size_t *len);
/* Writes the profile collectively; returns 0 and the chosen path (rank 0
 * only), 1 when that failed and every rank wrote its own file instead
 * (path: the profile's name, NAME.hpf, whose NAME.rank<N>.hpf they are),
 * or -1 after printing why. */
int hp_write_profile(const hp_rank_data *rd, const hp_run_info *run,
                     char *path, size_t pathlen);
/* The aggregated run mode (reduce_tree.c): whether a run of nranks
 * writes the aggregated profile (HPROF_AGGREGATE: 1) or both profiles (2,
 * the aggregated one tagged "agg"), and that write: the reduction, then
 * rank 0 writes the file; 0 and the path (rank 0), or -1 after a
 * warning. */
int hp_aggregate_mode(int nranks);
int hp_write_aggregate(const hp_rank_data *rd, const hp_run_info *run, const char *tag,
                       char *path, size_t pathlen);

#endif
