/*
 * vtime.c - virtual time (hp_vtime.h, docs/virtual-time.md, DESIGN.md
 * "Virtual time"): the choice of the sender of a wildcard receive, the
 * clock requests and answers it rests on, and the mode's start and end.
 * The clock is vtime_clock.c's; the shadows and headers vtime_shadow.c's.
 *
 * Clock requests, answers and end notes travel on one control
 * communicator (a duplicate of MPI_COMM_WORLD, world ranks).
 */
#include <stdint.h>
#include <stdlib.h>
#include <time.h>
#include "hp_mpi.h"
#include "hp_vtime.h"
#include "hp_vtime_int.h"
#include "hp_log.h"
#include "hp_calibrate.h"

int hp_vt_on;
static int ran;

enum { TAG_REQUEST = 1, TAG_ANSWER = 2, TAG_DONE = 3 };
/* Between two clock requests to the same peer (ns). */
#define VT_ASK_PACE_NS 20000

static MPI_Comm ctl = MPI_COMM_NULL;
static uint8_t *done;                   /* world ranks that reached MPI_Finalize */
static uint32_t *done_sent;             /* the headers each had sent us by then */
static int blocked_on = -2;             /* world rank a receive waits for; -1: any;
                                           -2: not blocked */
static int64_t blocked_vt;
static int64_t blocked_cand = INT64_MIN; /* while a wildcard receive decides,
                                            its candidate's send time, or
                                            INT64_MAX without one; else INT64_MIN */

void hp_vt_serve(void)
{
    hp_vt_serve_requests();
}

/* A blocked call that polls sleeps between its looks once it has polled
 * this long (ns), this long each time: its clock, which leaves out the
 * time the thread waits for a core, then goes on with real time (a
 * spinning poller on a loaded node waits for a core most of the time, so
 * its answers lagged far behind the senders' clocks: tests/vtime's
 * "blocked" case waited out the 2 s bound at load 10 on 2 cores), and it
 * leaves the core to the processes that work. */
#define VT_SPIN_NS 50000
#define VT_NAP_NS 20000

void hp_vt_idle(uint64_t since)
{
    hp_vt_serve_requests();
    if (hp_vt_seconds_since(since) * 1e9 > VT_SPIN_NS) {
        struct timespec nap = {0, VT_NAP_NS};
        nanosleep(&nap, NULL);
    }
}

/* ---- clock requests and answers (control communicator) ---- */

/* An answer: {shadow id, clock, headers sent to the asker on it, the
 * asker's headers received (all communicators), the world rank a
 * blocked receive waits for (-1: any, -2: none), a wildcard receive's
 * candidate, and the collective it waits in: shadow id (-1: none),
 * number, members needed lo..hi}. */
enum { ANSWER_LEN = 10 };

static void answer(int to, const int64_t *req)
{
    hp_vt_shadow *s = hp_vt_shadow_by_id((uint64_t)req[0]);
    int64_t now = blocked_on != -2 ? blocked_vt : hp_vt_clock_ns();
    int r = (int)req[1];
    const hp_vt_in_coll *c = &hp_vt_coll_now;
    int64_t a[ANSWER_LEN] = {req[0], now, s && r >= 0 && r < s->size ? s->peer[r].sent : 0,
                             hp_vt_tot_got[to], blocked_on, blocked_cand,
                             c->id == UINT64_MAX ? -1 : (int64_t)c->id, c->seq, c->lo, c->hi};
    PMPI_Send(a, ANSWER_LEN, MPI_INT64_T, to, TAG_ANSWER, ctl);
}

static void answered(int from, const int64_t *a)
{
    hp_vt_shadow *s = hp_vt_shadow_by_id((uint64_t)a[0]);
    if (!s)
        return;
    for (int i = 0; i < s->size; i++) {
        hp_vt_peer *p = &s->peer[i];
        if (p->world != from)
            continue;
        p->asked = 0;
        p->answered_at = hp_ticks();
        if (a[1] > p->bound)
            p->bound = a[1];
        p->need = (uint32_t)a[2];
        p->blocked_tot = a[4] == hp_world_rank ? (uint32_t)a[3] : UINT32_MAX;
        p->waiting_for = a[5];
        p->in_coll = a[6] != -1;
        p->coll = (hp_vt_in_coll){(uint64_t)a[6], (uint32_t)a[7], (int)a[8], (int)a[9]};
    }
}

/* Answers the requests that have come, and takes answers and end notes. */
void hp_vt_serve_requests(void)
{
    for (;;) {
        int flag = 0;
        MPI_Status st;
        int64_t m[ANSWER_LEN] = {0};
        PMPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, ctl, &flag, &st);
        if (!flag)
            return;
        PMPI_Recv(m, ANSWER_LEN, MPI_INT64_T, st.MPI_SOURCE, st.MPI_TAG, ctl, MPI_STATUS_IGNORE);
        if (st.MPI_TAG == TAG_REQUEST)
            answer(st.MPI_SOURCE, m);
        else if (st.MPI_TAG == TAG_ANSWER)
            answered(st.MPI_SOURCE, m);
        else if (st.MPI_TAG == TAG_DONE) {
            done[st.MPI_SOURCE] = 1;
            done_sent[st.MPI_SOURCE] = (uint32_t)m[0];
        }
    }
}

/* ---- the choice of a wildcard receive's sender ---- */

/* Is v, the earliest time peer i may still send at, after the candidate? */
static int after(int64_t v, int i, const hp_vt_pending *c)
{
    return v > c->vt || (v == c->vt && i > c->src);
}

/* Can peer i no longer send a message earlier than c (in virtual time)? */
static int peer_settled(const hp_vt_shadow *s, int i, const hp_vt_pending *c)
{
    const hp_vt_peer *p = &s->peer[i];
    if (i == s->rank || i == c->src)
        return 1;
    if (p->world >= 0 && done[p->world] && hp_vt_tot_got[p->world] >= done_sent[p->world])
        return 1;   /* ended, and its last headers are here */
    if (p->last_vt != INT64_MIN && after(p->last_vt, i, c))
        return 1;   /* its headers come in clock order */
    if (p->got < p->need)
        return 0;   /* a header sent before its answer is still on the way */
    if (p->bound != INT64_MIN && after(p->bound, i, c))
        return 1;
    /* blocked in a collective that cannot complete before this process
     * enters it (vtime_coll.c) */
    if (hp_vt_coll_settles(p))
        return 1;
    /* blocked in a receive from this process, which has sent it nothing since */
    if (p->blocked_tot != UINT32_MAX && p->world >= 0 && p->blocked_tot == hp_vt_tot_sent[p->world])
        return 1;
    /* the global wait: blocked too, in a wildcard receive whose earliest
     * message is later than this one's (the earliest goes first), or that
     * has none yet (it waits for a message not sent yet) */
    return p->waiting_for != INT64_MIN &&
           (p->waiting_for > c->vt || (p->waiting_for == c->vt && p->world > hp_world_rank));
}

static void ask(hp_vt_shadow *s, int i)
{
    hp_vt_peer *p = &s->peer[i];
    uint64_t pace = (uint64_t)(VT_ASK_PACE_NS / hp_vt_ns_per_tick);
    if (p->asked || p->world < 0 || hp_ticks() - p->answered_at < pace)
        return;
    int64_t req[2] = {(int64_t)s->id, s->rank};
    PMPI_Send(req, 2, MPI_INT64_T, p->world, TAG_REQUEST, ctl);
    p->asked = 1;
}

/* The earliest pending header of a message tag matches, NULL if none. */
static const hp_vt_pending *candidate(const hp_vt_shadow *s, int tag)
{
    const hp_vt_pending *best = NULL;
    for (size_t i = 0; i < s->npend; i++) {
        const hp_vt_pending *c = &s->pend[i];
        if (!hp_vt_tag_matches(tag, c->tag))
            continue;
        if (!best || c->vt < best->vt || (c->vt == best->vt && c->src < best->src))
            best = c;
    }
    return best;
}

static int decided(hp_vt_shadow *s, const hp_vt_pending *c)
{
    int all = 1;
    for (int i = 0; i < s->size; i++) {
        if (!peer_settled(s, i, c)) {
            all = 0;
            ask(s, i);
        }
    }
    return all;
}

/* A message on the user's communicator whose header never came (its
 * sender is not controlled): its source, or MPI_ANY_SOURCE. */
static int headerless_source(const hp_vt_shadow *s, int tag)
{
    int flag = 0;
    MPI_Status st;
    PMPI_Iprobe(MPI_ANY_SOURCE, tag, s->user, &flag, &st);
    return flag ? st.MPI_SOURCE : MPI_ANY_SOURCE;
}

/* When the wildcard wait that began at `start` first had a candidate:
 * its decision bound counts from then, not from its start (a sender
 * slowed for long, as on a loaded node, is no reason to give up on the
 * others).  The last few waits are kept: Test calls look at several. */
static uint64_t candidate_since(uint64_t start)
{
    enum { KEPT = 8 };
    static struct {
        uint64_t start, at;
    } kept[KEPT];
    static unsigned next;
    for (int i = 0; i < KEPT; i++)
        if (kept[i].at && kept[i].start == start)
            return kept[i].at;
    unsigned k = next++ % KEPT;
    kept[k].start = start;
    kept[k].at = hp_ticks();
    return kept[k].at;
}

/* One look at a wildcard receive of tag: the sender chosen, or
 * MPI_ANY_SOURCE while undecided.  start: when the receive began to
 * wait; *seen: when a message without a header was first seen, 0: none. */
static int choose_step(hp_vt_shadow *s, int tag, uint64_t start, uint64_t *seen)
{
    static int warned_timeout, warned_headerless;
    hp_vt_serve_requests();
    hp_vt_reap_posted(s);
    hp_vt_pull_headers(s);
    const hp_vt_pending *c = candidate(s, tag);
    if (blocked_on == -1)   /* a blocking wildcard receive tells its candidate */
        blocked_cand = c ? c->vt : INT64_MAX;
    if (c && decided(s, c)) {
        if (hp_log_verbose() >= 2)
            hp_info("virtual time: wildcard receive of tag %d took rank %d's message "
                    "sent at %.3f ms", tag, c->src, (double)c->vt * 1e-6);
        return c->src;
    }
    if (c && hp_vt_seconds_since(candidate_since(start)) > HP_VT_DECIDE_SEC) {
        if (!warned_timeout++)
            hp_warn("virtual time: a wildcard receive could not learn every sender's "
                    "clock in %.0f s after a message came; it took the earliest message at hand",
                    HP_VT_DECIDE_SEC);
        return c->src;
    }
    if (c)
        return MPI_ANY_SOURCE;
    int src = headerless_source(s, tag);
    if (src == MPI_ANY_SOURCE)
        *seen = 0;
    else if (!*seen)
        *seen = hp_ticks();
    else if (hp_vt_seconds_since(*seen) > HP_VT_HEADER_SEC) {
        if (!warned_headerless++)
            hp_warn("virtual time: a message came without its header; "
                    "a wildcard receive took it as it came");
        return src;
    }
    return MPI_ANY_SOURCE;
}

/* The sender a wildcard receive of tag takes its message from. */
static int choose_source(hp_vt_shadow *s, int tag)
{
    uint64_t start = hp_ticks(), seen = 0;
    int src;
    while ((src = choose_step(s, tag, start, &seen)) == MPI_ANY_SOURCE)
        ;
    return src;
}

int hp_vt_mprobe(int source, int tag, MPI_Comm comm, MPI_Message *msg, MPI_Status *st)
{
    hp_vt_shadow *s = hp_vt_shadow_of(comm);
    hp_vt_clock_forget_wait();
    if (!s || source == MPI_PROC_NULL)
        return PMPI_Mprobe(source, tag, comm, msg, st);
    int64_t entry = hp_vt_clock_ns();
    blocked_vt = entry;
    blocked_on = source == MPI_ANY_SOURCE ? -1 : s->peer[source].world;
    if (source == MPI_ANY_SOURCE)
        source = choose_source(s, tag);
    if (source >= 0 && source < s->size)
        blocked_on = s->peer[source].world;
    int rc, flag = 0;
    blocked_cand = INT64_MIN;
    while ((rc = PMPI_Improbe(source, tag, comm, &flag, msg, st)) == MPI_SUCCESS && !flag)
        hp_vt_serve_requests();
    blocked_on = -2;
    if (rc == MPI_SUCCESS)
        hp_vt_clock_received(entry, hp_vt_take_header(s, st->MPI_SOURCE, st->MPI_TAG));
    return rc;
}

int hp_vt_improbe(int tag, MPI_Comm comm, uint64_t since, int *flag, MPI_Message *msg,
                  MPI_Status *st)
{
    hp_vt_shadow *s = hp_vt_shadow_of(comm);
    uint64_t seen = since;
    *flag = 0;
    if (!s)
        return PMPI_Improbe(MPI_ANY_SOURCE, tag, comm, flag, msg, st);
    int64_t entry = hp_vt_clock_ns();
    int source = choose_step(s, tag, since, &seen);
    if (source == MPI_ANY_SOURCE)
        return MPI_SUCCESS;
    int rc;
    while ((rc = PMPI_Improbe(source, tag, comm, flag, msg, st)) == MPI_SUCCESS && !*flag)
        hp_vt_serve_requests();   /* the chosen message follows its header */
    if (rc == MPI_SUCCESS)
        hp_vt_clock_received(entry, hp_vt_take_header(s, st->MPI_SOURCE, st->MPI_TAG));
    return rc;
}

int hp_vt_choose(int tag, MPI_Comm comm, uint64_t since)
{
    hp_vt_shadow *s = hp_vt_shadow_of(comm);
    uint64_t seen = since;
    if (!s)
        return MPI_ANY_SOURCE;
    if (since)
        return choose_step(s, tag, since, &seen);
    /* a blocking MPI_Probe, or a Wait on a deferred receive: blocked in a
     * wildcard receive while it decides, as hp_vt_mprobe says (a process
     * asked answers so, and the global wait can settle it) */
    int outer = blocked_on != -2, src;
    if (!outer) {
        blocked_vt = hp_vt_clock_ns();
        blocked_on = -1;
        blocked_cand = INT64_MIN;
    }
    src = choose_source(s, tag);
    if (!outer) {
        blocked_on = -2;
        blocked_cand = INT64_MIN;
    }
    return src;
}

void hp_vt_message_matched(MPI_Comm comm, const MPI_Status *st)
{
    hp_vt_shadow *s = hp_vt_shadow_of(comm);
    if (s && st->MPI_SOURCE >= 0 && st->MPI_SOURCE < s->size)
        hp_vt_clock_received(hp_vt_clock_ns(), hp_vt_take_header(s, st->MPI_SOURCE, st->MPI_TAG));
}

int hp_vt_recv_plain(void *buf, int count, MPI_Datatype type, int source, int tag,
                     MPI_Comm comm, MPI_Status *status)
{
    MPI_Status st_local;
    MPI_Status *st = status == MPI_STATUS_IGNORE ? &st_local : status;
    MPI_Message msg;
    if (source == MPI_PROC_NULL)
        return PMPI_Recv(buf, count, type, source, tag, comm, status);
    int rc = hp_vt_mprobe(source, tag, comm, &msg, st);
    return rc == MPI_SUCCESS ? PMPI_Mrecv(buf, count, type, &msg, st) : rc;
}

/* ---- start and end ---- */

void hp_vt_init(int thread_level)
{
    if (!hp_cfg.virtual_time)
        return;
    if (thread_level == MPI_THREAD_MULTIPLE) {
        if (hp_world_rank == 0)
            hp_warn("HPROF_VIRTUAL_TIME=1 is not supported under MPI_THREAD_MULTIPLE; "
                    "the mode is off");
        return;
    }
    done = calloc((size_t)hp_world_size, 1);
    done_sent = calloc((size_t)hp_world_size, sizeof *done_sent);
    if (!done || !done_sent || hp_vt_shadows_init() != 0 ||
        PMPI_Comm_dup(MPI_COMM_WORLD, &ctl) != MPI_SUCCESS) {
        hp_warn("virtual time: out of memory; the mode is off");
        return;
    }
    hp_calibrate_hooks_early();   /* tier 1's costs, else measured at the end */
    PMPI_Barrier(MPI_COMM_WORLD);
    hp_vt_clock_init();
    hp_vt_on = ran = 1;
}

int hp_vt_ran(void)
{
    return ran;
}

void hp_vt_finalize(void)
{
    if (!hp_vt_on)
        return;
    hp_vt_serve_requests();
    for (int r = 0; r < hp_world_size; r++) {
        int64_t note = hp_vt_tot_sent[r];   /* the headers it is to wait for */
        if (r != hp_world_rank)
            PMPI_Send(&note, 1, MPI_INT64_T, r, TAG_DONE, ctl);
    }
    hp_vt_on = 0;
    hp_vt_shadows_end();
}
