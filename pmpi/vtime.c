/*
 * vtime.c - virtual time (hp_vtime.h, docs/virtual-time.md, DESIGN.md
 * "Virtual time"): the virtual clock, the headers that carry it beside
 * every point-to-point message, and the choice of the sender of a
 * wildcard receive.
 *
 * Each user communicator with a shadow (MPI_COMM_WORLD's made at
 * MPI_Init, others when they are created) has a per-peer account: headers
 * sent and received, the last virtual send time received, and what the
 * peer answered about its clock.  Headers travel on the shadow with the
 * user's tag, so MPI matches them in the order it matches the messages.
 * Clock requests, answers and end notes travel on one control
 * communicator (a duplicate of MPI_COMM_WORLD, world ranks).
 */
#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <fcntl.h>
#include <stdio.h>
#include <unistd.h>
#include "hp_mpi.h"
#include "hp_vtime.h"
#include "hp_calibrate.h"
#include "hp_log.h"

int hp_vt_on;
static int ran;

enum { TAG_REQUEST = 1, TAG_ANSWER = 2, TAG_DONE = 3 };
/* How long a wildcard receive waits for the other senders' answers once
 * it has a candidate, and a receive for a message's header, in seconds. */
#define VT_DECIDE_SEC 2.0
#define VT_HEADER_SEC 1.0
/* Between two clock requests to the same peer (ns). */
#define VT_ASK_PACE_NS 20000

typedef struct vt_header {
    int64_t vt;            /* virtual send time, ns */
    int32_t tag;           /* the user's tag */
    uint32_t seq;          /* headers sent to this peer on this communicator */
} vt_header;

/* A header taken off the shadow whose message is not received yet. */
typedef struct vt_pending {
    int src, tag;
    int64_t vt;
} vt_pending;

/* A posted nonblocking receive's header, received into here. */
typedef struct vt_posted {
    MPI_Request req;
    vt_header h;
} vt_posted;

typedef struct vt_peer {
    int world;             /* its world rank */
    uint32_t sent, got;    /* headers to it, from it */
    uint32_t need;         /* headers from it that `bound` was given after */
    uint32_t blocked_tot;  /* blocked in a receive from this process when it
                              had received this many of its headers (all
                              communicators); UINT32_MAX: not known so */
    int asked;             /* a clock request is unanswered */
    int64_t waiting_for;   /* answered while blocked in a wildcard receive
                              whose earliest message was sent at this;
                              INT64_MAX: blocked without one; INT64_MIN:
                              not blocked */
    int64_t last_vt;       /* virtual time of its last header, INT64_MIN: none */
    int64_t bound;         /* its clock as last answered, INT64_MIN: none */
    uint64_t answered_at;  /* ticks of that answer */
} vt_peer;

typedef struct vt_shadow {
    MPI_Comm user, shadow;
    uint64_t id;           /* the same on every member */
    int size, rank;
    vt_peer *peer;
    vt_pending *pend;
    size_t npend, pend_cap;
    vt_posted **posted;
    size_t nposted, posted_cap;
    size_t reap_at;        /* posting reaps when nposted reaches this */
    struct vt_shadow *next;
} vt_shadow;

static MPI_Comm ctl = MPI_COMM_NULL;
static vt_shadow *shadows;
static uint32_t *tot_sent, *tot_got;   /* headers per world rank, all communicators */
static uint8_t *done;                   /* world ranks that reached MPI_Finalize */
static uint32_t *done_sent;             /* the headers each had sent us by then */
static int64_t origin;                  /* base_ns() at MPI_Init's barrier */
static uint64_t charged0;
static int64_t adjust;                  /* ns added to the clock by receives */
static double ns_per_tick;
static int blocked_on = -2;             /* world rank a receive waits for; -1: any;
                                           -2: not blocked */
static int64_t blocked_vt;
static int64_t blocked_cand = INT64_MIN; /* while a wildcard receive decides,
                                            its candidate's send time, or
                                            INT64_MAX without one; else INT64_MIN */
static uint32_t next_comm_id;
static uint32_t sends;                  /* headers sent */

/* ---- the virtual clock ---- */

/* The calling thread's charged monitoring cost, ticks. */
static hp_charge_cache charge_cache;

static uint64_t charged_ticks(void)
{
    return hp_calibrated_charge(&charge_cache);
}

/* CPU time of the calling thread, ns. */
static int64_t cpu_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/* The base of the virtual clock, ns: real time less the time the MPI
 * thread waited for a core (runnable, not running: the second field of
 * Linux's /proc/thread-self/schedstat), so that a loaded or
 * oversubscribed node does not count, while sleeps, I/O and waits do;
 * the thread's CPU time where that file cannot be read (DESIGN.md). */
static int schedstat_fd = -1;

/* The thread's time waiting for a core so far, ns; 0 when read. */
static int read_waited(unsigned long long *waited)
{
    char b[128];
    unsigned long long run;
    ssize_t n = pread(schedstat_fd, b, sizeof b - 1, 0);
    if (n <= 0)
        return -1;
    b[n] = 0;
    return sscanf(b, "%llu %llu", &run, waited) == 2 ? 0 : -1;
}

/* The file is read at most every VT_WAITED_NS of real time (a system
 * call, 1-2 us: three a message made the mode cost 5.6 us a message);
 * the clock may then lag by that much of a wait for a core. */
#define VT_WAITED_NS 200000

static int64_t base_ns(void)
{
    static unsigned long long waited;
    static uint64_t read_at;
    uint64_t now = hp_monotonic_ns();
    if (schedstat_fd < 0)
        return cpu_ns();
    if (now - read_at >= VT_WAITED_NS && read_waited(&waited) == 0)
        read_at = now;
    return (int64_t)now - (int64_t)waited;
}

/* Virtual time now, ns since MPI_Init's barrier, as computed. */
static int64_t raw_clock_ns(void)
{
    int64_t charged = (int64_t)((double)(charged_ticks() - charged0) * ns_per_tick);
    return base_ns() - origin - charged + adjust;
}

/* The same as given out (headers, answers): never decreasing. */
static int64_t clock_ns(void)
{
    static int64_t last = INT64_MIN;
    int64_t v = raw_clock_ns();
    if (v < last)
        v = last;
    last = v;
    return v;
}

/* A receive completed: the clock is set to when it would have completed
 * without monitoring (the later of its start and the message's send), but
 * never below what this process promised others. */
static int64_t last_wait_ns = -1;       /* the last receive's virtual wait */

static void clock_received(int64_t entry_vt, int64_t send_vt)
{
    int64_t target = entry_vt > send_vt ? entry_vt : send_vt;
    last_wait_ns = send_vt == INT64_MIN ? -1 : target - entry_vt;
    adjust += target - raw_clock_ns();   /* clock_ns keeps it from going back */
}

/* The real waits recorded as virtual ones have been this much longer
 * (ticks): a later virtual wait longer than its real one may use it, so
 * that the times recorded never sum to more than the real ones. */
static double wait_bank;

uint64_t hp_vt_wait_ticks(uint64_t real)
{
    if (last_wait_ns < 0)
        return real;
    double ticks = (double)last_wait_ns / ns_per_tick;
    last_wait_ns = -1;
    if (ticks > (double)real + wait_bank)
        ticks = (double)real + wait_bank;
    wait_bank += (double)real - ticks;
    return (uint64_t)ticks;
}

/* ---- shadows ---- */

static vt_shadow *shadow_of(MPI_Comm comm)
{
    for (vt_shadow *s = shadows; s; s = s->next)
        if (s->user == comm)
            return s;
    return NULL;
}

static vt_shadow *shadow_by_id(uint64_t id)
{
    for (vt_shadow *s = shadows; s; s = s->next)
        if (s->id == id)
            return s;
    return NULL;
}

static int world_ranks(MPI_Comm comm, vt_shadow *s)
{
    MPI_Group g, wg;
    int *ranks = malloc(sizeof *ranks * (size_t)s->size * 2);
    if (!ranks)
        return -1;
    PMPI_Comm_group(comm, &g);
    PMPI_Comm_group(MPI_COMM_WORLD, &wg);
    for (int i = 0; i < s->size; i++)
        ranks[i] = i;
    PMPI_Group_translate_ranks(g, s->size, ranks, wg, ranks + s->size);
    for (int i = 0; i < s->size; i++) {
        s->peer[i] = (vt_peer){.world = ranks[s->size + i], .blocked_tot = UINT32_MAX,
                               .waiting_for = INT64_MIN,
                               .last_vt = INT64_MIN, .bound = INT64_MIN};
    }
    PMPI_Group_free(&g);
    PMPI_Group_free(&wg);
    free(ranks);
    return 0;
}

static vt_shadow *shadow_new(MPI_Comm comm)
{
    vt_shadow *s = calloc(1, sizeof *s);
    if (!s)
        return NULL;
    s->user = comm;
    PMPI_Comm_size(comm, &s->size);
    PMPI_Comm_rank(comm, &s->rank);
    s->peer = calloc((size_t)s->size, sizeof *s->peer);
    if (!s->peer || world_ranks(comm, s) != 0 || PMPI_Comm_dup(comm, &s->shadow) != MPI_SUCCESS) {
        free(s->peer);
        free(s);
        return NULL;
    }
    return s;
}

void hp_vt_comm_created(MPI_Comm comm)
{
    int inter = 0;
    if (!hp_vt_on || comm == MPI_COMM_NULL)
        return;
    PMPI_Comm_test_inter(comm, &inter);
    if (inter)
        return;  /* not controlled (DESIGN.md: limits) */
    vt_shadow *s = shadow_new(comm);
    uint64_t id = ((uint64_t)(hp_world_rank + 1) << 32) | ++next_comm_id;
    if (!s) {
        hp_warn("virtual time: out of memory; a communicator's receives are not controlled");
        return;
    }
    PMPI_Bcast(&id, 1, MPI_UINT64_T, 0, s->shadow);
    s->id = id;
    s->next = shadows;
    shadows = s;
}

/* free_comm: 0 at MPI_Finalize, which frees the shadows itself. */
static void shadow_free(vt_shadow *s, int free_comm)
{
    for (size_t i = 0; i < s->nposted; i++) {
        PMPI_Cancel(&s->posted[i]->req);
        PMPI_Request_free(&s->posted[i]->req);
        free(s->posted[i]);
    }
    if (free_comm)
        PMPI_Comm_free(&s->shadow);
    free(s->posted);
    free(s->pend);
    free(s->peer);
    free(s);
}

void hp_vt_comm_freed(MPI_Comm comm)
{
    vt_shadow **p = &shadows;
    if (!hp_vt_on)
        return;
    while (*p && (*p)->user != comm)
        p = &(*p)->next;
    if (*p) {
        vt_shadow *s = *p;
        *p = s->next;
        shadow_free(s, 1);
    }
}

static void serve(void);

void hp_vt_serve(void)
{
    serve();
}

/* ---- headers ---- */

static void header_counted(vt_shadow *s, int src, const vt_header *h)
{
    vt_peer *p = &s->peer[src];
    p->got++;
    if (h->vt > p->last_vt)
        p->last_vt = h->vt;
    if (p->world >= 0)
        tot_got[p->world]++;
}

static int pend_push(vt_shadow *s, int src, const vt_header *h)
{
    if (s->npend == s->pend_cap) {
        size_t cap = s->pend_cap ? 2 * s->pend_cap : 16;
        vt_pending *n = realloc(s->pend, cap * sizeof *n);
        if (!n)
            return -1;
        s->pend = n;
        s->pend_cap = cap;
    }
    s->pend[s->npend++] = (vt_pending){src, h->tag, h->vt};
    return 0;
}

/* Takes every header waiting on the shadow into the pending list. */
static void pull_headers(vt_shadow *s)
{
    for (;;) {
        int flag = 0;
        MPI_Status st;
        vt_header h;
        PMPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, s->shadow, &flag, &st);
        if (!flag)
            return;
        PMPI_Recv(&h, sizeof h, MPI_BYTE, st.MPI_SOURCE, st.MPI_TAG, s->shadow, MPI_STATUS_IGNORE);
        header_counted(s, st.MPI_SOURCE, &h);
        if (pend_push(s, st.MPI_SOURCE, &h) != 0)
            hp_warn("virtual time: out of memory; a header is lost");
    }
}

/* The posted receives' headers that arrived. */
static void reap_posted(vt_shadow *s)
{
    size_t k = 0;
    for (size_t i = 0; i < s->nposted; i++) {
        vt_posted *p = s->posted[i];
        int flag = 0;
        MPI_Status st;
        PMPI_Test(&p->req, &flag, &st);
        if (flag) {
            header_counted(s, st.MPI_SOURCE, &p->h);
            free(p);
        } else
            s->posted[k++] = p;
    }
    s->nposted = k;
}

static int tag_matches(int want, int tag)
{
    return want == MPI_ANY_TAG || want == tag;
}

/* Removes the oldest pending header of (src, tag); 1 when there was one. */
static int pend_take(vt_shadow *s, int src, int tag, int64_t *vt)
{
    for (size_t i = 0; i < s->npend; i++) {
        if (s->pend[i].src == src && tag_matches(tag, s->pend[i].tag)) {
            *vt = s->pend[i].vt;
            memmove(&s->pend[i], &s->pend[i + 1], (s->npend - i - 1) * sizeof *s->pend);
            s->npend--;
            return 1;
        }
    }
    return 0;
}

void hp_vt_send_header(MPI_Comm comm, int dest, int tag)
{
    vt_shadow *s = shadow_of(comm);
    if (!s || dest < 0 || dest >= s->size)
        return;
    int64_t t0 = base_ns();
    vt_header h = {clock_ns(), tag, s->peer[dest].sent++};
    PMPI_Send(&h, sizeof h, MPI_BYTE, dest, tag, s->shadow);
    if (s->peer[dest].world >= 0)
        tot_sent[s->peer[dest].world]++;
    if ((++sends & 15) == 0)
        serve();   /* a process that sends also answers, every 16th send */
    adjust -= base_ns() - t0; /* the header's and the answers' cost */
}

void hp_vt_recv_posted(MPI_Comm comm, int source, int tag)
{
    vt_shadow *s = shadow_of(comm);
    int64_t vt;
    if (!s || source == MPI_PROC_NULL)
        return;
    if (s->nposted >= s->reap_at) {   /* amortized: a window of receives costs no n^2 tests */
        reap_posted(s);
        s->reap_at = 2 * s->nposted + 16;
    }
    if (source != MPI_ANY_SOURCE && pend_take(s, source, tag, &vt))
        return;
    vt_posted *p = malloc(sizeof *p);
    if (s->nposted == s->posted_cap) {
        size_t cap = s->posted_cap ? 2 * s->posted_cap : 16;
        vt_posted **n = realloc(s->posted, cap * sizeof *n);
        if (n) {
            s->posted = n;
            s->posted_cap = cap;
        }
    }
    if (!p || s->nposted == s->posted_cap) {
        free(p);
        hp_warn("virtual time: out of memory; a header is not received");
        return;
    }
    PMPI_Irecv(&p->h, sizeof p->h, MPI_BYTE, source, tag, s->shadow, &p->req);
    s->posted[s->nposted++] = p;
}

/* ---- clock requests and answers (control communicator) ---- */

static void answer(int to, const int64_t *req)
{
    vt_shadow *s = shadow_by_id((uint64_t)req[0]);
    int64_t now = blocked_on != -2 ? blocked_vt : clock_ns();
    int r = (int)req[1];
    int64_t a[6] = {req[0], now, s && r >= 0 && r < s->size ? s->peer[r].sent : 0,
                    tot_got[to], blocked_on, blocked_cand};
    PMPI_Send(a, 6, MPI_INT64_T, to, TAG_ANSWER, ctl);
}

static void answered(int from, const int64_t *a)
{
    vt_shadow *s = shadow_by_id((uint64_t)a[0]);
    if (!s)
        return;
    for (int i = 0; i < s->size; i++) {
        vt_peer *p = &s->peer[i];
        if (p->world != from)
            continue;
        p->asked = 0;
        p->answered_at = hp_ticks();
        if (a[1] > p->bound)
            p->bound = a[1];
        p->need = (uint32_t)a[2];
        p->blocked_tot = a[4] == hp_world_rank ? (uint32_t)a[3] : UINT32_MAX;
        p->waiting_for = a[5];
    }
}

/* Answers the requests that have come, and takes answers and end notes. */
static void serve(void)
{
    for (;;) {
        int flag = 0;
        MPI_Status st;
        int64_t m[6] = {0};
        PMPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, ctl, &flag, &st);
        if (!flag)
            return;
        PMPI_Recv(m, 6, MPI_INT64_T, st.MPI_SOURCE, st.MPI_TAG, ctl, MPI_STATUS_IGNORE);
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
static int after(int64_t v, int i, const vt_pending *c)
{
    return v > c->vt || (v == c->vt && i > c->src);
}

/* Can peer i no longer send a message earlier than c (in virtual time)? */
static int peer_settled(const vt_shadow *s, int i, const vt_pending *c)
{
    const vt_peer *p = &s->peer[i];
    if (i == s->rank || i == c->src)
        return 1;
    if (p->world >= 0 && done[p->world] && tot_got[p->world] >= done_sent[p->world])
        return 1;   /* ended, and its last headers are here */
    if (p->last_vt != INT64_MIN && after(p->last_vt, i, c))
        return 1;   /* its headers come in clock order */
    if (p->got < p->need)
        return 0;   /* a header sent before its answer is still on the way */
    if (p->bound != INT64_MIN && after(p->bound, i, c))
        return 1;
    /* blocked in a receive from this process, which has sent it nothing since */
    if (p->blocked_tot != UINT32_MAX && p->world >= 0 && p->blocked_tot == tot_sent[p->world])
        return 1;
    /* the global wait: blocked too, in a wildcard receive whose earliest
     * message is later than this one's (the earliest goes first), or that
     * has none yet (it waits for a message not sent yet) */
    return p->waiting_for != INT64_MIN &&
           (p->waiting_for > c->vt || (p->waiting_for == c->vt && p->world > hp_world_rank));
}

static void ask(vt_shadow *s, int i)
{
    vt_peer *p = &s->peer[i];
    uint64_t pace = (uint64_t)(VT_ASK_PACE_NS / ns_per_tick);
    if (p->asked || p->world < 0 || hp_ticks() - p->answered_at < pace)
        return;
    int64_t req[2] = {(int64_t)s->id, s->rank};
    PMPI_Send(req, 2, MPI_INT64_T, p->world, TAG_REQUEST, ctl);
    p->asked = 1;
}

/* The earliest pending header of a message tag matches, NULL if none. */
static const vt_pending *candidate(const vt_shadow *s, int tag)
{
    const vt_pending *best = NULL;
    for (size_t i = 0; i < s->npend; i++) {
        const vt_pending *c = &s->pend[i];
        if (!tag_matches(tag, c->tag))
            continue;
        if (!best || c->vt < best->vt || (c->vt == best->vt && c->src < best->src))
            best = c;
    }
    return best;
}

static int decided(vt_shadow *s, const vt_pending *c)
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

static double seconds_since(uint64_t t0)
{
    return (double)(hp_ticks() - t0) * ns_per_tick * 1e-9;
}

/* A message on the user's communicator whose header never came (its
 * sender is not controlled): its source, or MPI_ANY_SOURCE. */
static int headerless_source(const vt_shadow *s, int tag)
{
    int flag = 0;
    MPI_Status st;
    PMPI_Iprobe(MPI_ANY_SOURCE, tag, s->user, &flag, &st);
    return flag ? st.MPI_SOURCE : MPI_ANY_SOURCE;
}

/* One look at a wildcard receive of tag: the sender chosen, or
 * MPI_ANY_SOURCE while undecided.  start: when the receive began to
 * wait; *seen: when a message without a header was first seen, 0: none. */
static int choose_step(vt_shadow *s, int tag, uint64_t start, uint64_t *seen)
{
    static int warned_timeout, warned_headerless;
    serve();
    reap_posted(s);
    pull_headers(s);
    const vt_pending *c = candidate(s, tag);
    if (blocked_on == -1)   /* a blocking wildcard receive tells its candidate */
        blocked_cand = c ? c->vt : INT64_MAX;
    if (c && decided(s, c)) {
        if (hp_log_verbose() >= 2)
            hp_info("virtual time: wildcard receive of tag %d took rank %d's message "
                    "sent at %.3f ms", tag, c->src, (double)c->vt * 1e-6);
        return c->src;
    }
    if (c && seconds_since(start) > VT_DECIDE_SEC) {
        if (!warned_timeout++)
            hp_warn("virtual time: a wildcard receive could not learn every sender's "
                    "clock in %.0f s; it took the earliest message at hand", VT_DECIDE_SEC);
        return c->src;
    }
    if (c)
        return MPI_ANY_SOURCE;
    int src = headerless_source(s, tag);
    if (src == MPI_ANY_SOURCE)
        *seen = 0;
    else if (!*seen)
        *seen = hp_ticks();
    else if (seconds_since(*seen) > VT_HEADER_SEC) {
        if (!warned_headerless++)
            hp_warn("virtual time: a message came without its header; "
                    "a wildcard receive took it as it came");
        return src;
    }
    return MPI_ANY_SOURCE;
}

/* The sender a wildcard receive of tag takes its message from. */
static int choose_source(vt_shadow *s, int tag)
{
    uint64_t start = hp_ticks(), seen = 0;
    int src;
    while ((src = choose_step(s, tag, start, &seen)) == MPI_ANY_SOURCE)
        ;
    return src;
}

/* The header of the message just matched (src, tag), waited for a while. */
static int64_t take_header(vt_shadow *s, int src, int tag)
{
    static int warned;
    int64_t vt;
    uint64_t start = hp_ticks();
    reap_posted(s);
    if (pend_take(s, src, tag, &vt))
        return vt;
    for (;;) {
        int flag = 0;
        vt_header h;
        PMPI_Iprobe(src, tag, s->shadow, &flag, MPI_STATUS_IGNORE);
        if (flag) {
            PMPI_Recv(&h, sizeof h, MPI_BYTE, src, tag, s->shadow, MPI_STATUS_IGNORE);
            header_counted(s, src, &h);
            return h.vt;
        }
        serve();
        if (seconds_since(start) > VT_HEADER_SEC) {
            if (!warned++)
                hp_warn("virtual time: a message came without its header");
            return INT64_MIN;
        }
    }
}

int hp_vt_mprobe(int source, int tag, MPI_Comm comm, MPI_Message *msg, MPI_Status *st)
{
    vt_shadow *s = shadow_of(comm);
    last_wait_ns = -1;
    if (!s || source == MPI_PROC_NULL)
        return PMPI_Mprobe(source, tag, comm, msg, st);
    int64_t entry = clock_ns();
    blocked_vt = entry;
    blocked_on = source == MPI_ANY_SOURCE ? -1 : s->peer[source].world;
    if (source == MPI_ANY_SOURCE)
        source = choose_source(s, tag);
    if (source >= 0 && source < s->size)
        blocked_on = s->peer[source].world;
    int rc, flag = 0;
    blocked_cand = INT64_MIN;
    while ((rc = PMPI_Improbe(source, tag, comm, &flag, msg, st)) == MPI_SUCCESS && !flag)
        serve();
    blocked_on = -2;
    if (rc == MPI_SUCCESS)
        clock_received(entry, take_header(s, st->MPI_SOURCE, st->MPI_TAG));
    return rc;
}

int hp_vt_improbe(int tag, MPI_Comm comm, uint64_t since, int *flag, MPI_Message *msg,
                  MPI_Status *st)
{
    vt_shadow *s = shadow_of(comm);
    uint64_t seen = since;
    *flag = 0;
    if (!s)
        return PMPI_Improbe(MPI_ANY_SOURCE, tag, comm, flag, msg, st);
    int64_t entry = clock_ns();
    int source = choose_step(s, tag, since, &seen);
    if (source == MPI_ANY_SOURCE)
        return MPI_SUCCESS;
    int rc;
    while ((rc = PMPI_Improbe(source, tag, comm, flag, msg, st)) == MPI_SUCCESS && !*flag)
        serve();   /* the chosen message follows its header */
    if (rc == MPI_SUCCESS)
        clock_received(entry, take_header(s, st->MPI_SOURCE, st->MPI_TAG));
    return rc;
}

int hp_vt_choose(int tag, MPI_Comm comm, uint64_t since)
{
    vt_shadow *s = shadow_of(comm);
    uint64_t seen = since;
    if (!s)
        return MPI_ANY_SOURCE;
    if (!since)
        return choose_source(s, tag);
    return choose_step(s, tag, since, &seen);
}

void hp_vt_message_matched(MPI_Comm comm, const MPI_Status *st)
{
    vt_shadow *s = shadow_of(comm);
    if (s && st->MPI_SOURCE >= 0 && st->MPI_SOURCE < s->size)
        clock_received(clock_ns(), take_header(s, st->MPI_SOURCE, st->MPI_TAG));
}

int hp_vt_controls(MPI_Comm comm)
{
    return shadow_of(comm) != NULL;
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

static int alloc_world_tables(void)
{
    tot_sent = calloc((size_t)hp_world_size, sizeof *tot_sent);
    tot_got = calloc((size_t)hp_world_size, sizeof *tot_got);
    done = calloc((size_t)hp_world_size, 1);
    done_sent = calloc((size_t)hp_world_size, sizeof *done_sent);
    return tot_sent && tot_got && done && done_sent ? 0 : -1;
}

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
    vt_shadow *w = alloc_world_tables() == 0 ? shadow_new(MPI_COMM_WORLD) : NULL;
    if (!w || PMPI_Comm_dup(MPI_COMM_WORLD, &ctl) != MPI_SUCCESS) {
        hp_warn("virtual time: out of memory; the mode is off");
        return;
    }
    w->id = 0;
    shadows = w;
    ns_per_tick = 1e9 / hp_clock_ticks_per_sec();
    PMPI_Barrier(MPI_COMM_WORLD);
    schedstat_fd = open("/proc/thread-self/schedstat", O_RDONLY | O_CLOEXEC);
    unsigned long long waited;
    if (schedstat_fd >= 0 && read_waited(&waited) != 0) {   /* unreadable: CPU time throughout */
        close(schedstat_fd);
        schedstat_fd = -1;
    }
    origin = base_ns();
    charged0 = charged_ticks();
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
    serve();
    for (int r = 0; r < hp_world_size; r++) {
        int64_t note = tot_sent[r];   /* the headers it is to wait for */
        if (r != hp_world_rank)
            PMPI_Send(&note, 1, MPI_INT64_T, r, TAG_DONE, ctl);
    }
    hp_vt_on = 0;
    while (shadows) {
        vt_shadow *s = shadows;
        shadows = s->next;
        shadow_free(s, 0);
    }
}
