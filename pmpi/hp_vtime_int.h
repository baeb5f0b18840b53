/*
 * hp_vtime_int.h - what the files of virtual time share among themselves
 * (hp_vtime.h is what the rest of hprof sees): the per-communicator
 * shadows and their per-peer accounts (vtime_shadow.c), the clock
 * (vtime_clock.c), and the state of the process's blocked call that the
 * answers to clock requests report (vtime.c).
 */
#ifndef HP_VTIME_INT_H
#define HP_VTIME_INT_H

#include <stddef.h>
#include <stdint.h>
#include <mpi.h>

#define HP_VT_HIDDEN __attribute__((visibility("hidden")))

/* How long a wildcard receive waits for the other senders' answers once
 * it has a candidate, and a receive for a message's header, in seconds. */
#define HP_VT_DECIDE_SEC 2.0
#define HP_VT_HEADER_SEC 1.0

typedef struct hp_vt_header {
    int64_t vt;            /* virtual send time, ns */
    int32_t tag;           /* the user's tag */
    uint32_t seq;          /* headers sent to this peer on this communicator */
} hp_vt_header;

/* A header taken off the shadow whose message is not received yet. */
typedef struct hp_vt_pending {
    int src, tag;
    int64_t vt;
} hp_vt_pending;

/* A posted nonblocking receive's header, received into here. */
typedef struct hp_vt_posted {
    MPI_Request req;
    hp_vt_header h;
} hp_vt_posted;

/* The blocking collective a process waits in (vtime_coll.c): the n-th
 * collective (seq, from 0) of the communicator of shadow id, which cannot
 * complete before the members of comm ranks lo..hi have entered it. */
typedef struct hp_vt_in_coll {
    uint64_t id;           /* UINT64_MAX: in none */
    uint32_t seq;
    int lo, hi;
} hp_vt_in_coll;

typedef struct hp_vt_peer {
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
    int in_coll;           /* answered from inside this collective: */
    hp_vt_in_coll coll;
} hp_vt_peer;

typedef struct hp_vt_shadow {
    MPI_Comm user, shadow;
    uint64_t id;           /* the same on every member */
    int size, rank;
    hp_vt_peer *peer;
    hp_vt_pending *pend;
    size_t npend, pend_cap;
    hp_vt_posted **posted;
    size_t nposted, posted_cap;
    size_t reap_at;        /* posting reaps when nposted reaches this */
    uint32_t colls;        /* collectives this process started on it (the
                              mode's, blocking and nonblocking) */
    struct hp_vt_shadow *next;
} hp_vt_shadow;

/* ---- vtime_shadow.c: shadows and headers ---- */

extern hp_vt_shadow *hp_vt_shadows HP_VT_HIDDEN;
extern uint32_t *hp_vt_tot_sent HP_VT_HIDDEN;  /* headers per world rank, all communicators */
extern uint32_t *hp_vt_tot_got HP_VT_HIDDEN;

/* MPI_COMM_WORLD's shadow and the per-world-rank tables; -1 without memory. */
int hp_vt_shadows_init(void) HP_VT_HIDDEN;
/* At MPI_Finalize: every shadow's account freed (MPI frees the communicators). */
void hp_vt_shadows_end(void) HP_VT_HIDDEN;
hp_vt_shadow *hp_vt_shadow_of(MPI_Comm comm) HP_VT_HIDDEN;
hp_vt_shadow *hp_vt_shadow_by_id(uint64_t id) HP_VT_HIDDEN;
/* Every header waiting on s's shadow, into its pending list. */
void hp_vt_pull_headers(hp_vt_shadow *s) HP_VT_HIDDEN;
/* The posted receives' headers that arrived. */
void hp_vt_reap_posted(hp_vt_shadow *s) HP_VT_HIDDEN;
/* The header of the message just matched (src, tag), waited for a while;
 * its virtual send time, INT64_MIN when it never came. */
int64_t hp_vt_take_header(hp_vt_shadow *s, int src, int tag) HP_VT_HIDDEN;
int hp_vt_tag_matches(int want, int tag) HP_VT_HIDDEN;

/* ---- vtime_clock.c: the virtual clock ---- */

extern double hp_vt_ns_per_tick HP_VT_HIDDEN;

/* At MPI_Init's barrier: the clock's origin. */
void hp_vt_clock_init(void) HP_VT_HIDDEN;
/* Virtual time now, ns since MPI_Init's barrier; never decreasing. */
int64_t hp_vt_clock_ns(void) HP_VT_HIDDEN;
/* ns of the process's own work (a header, answers) out of the clock. */
void hp_vt_clock_exclude(int64_t ns) HP_VT_HIDDEN;
/* A receive that began at entry_vt took a message sent at send_vt
 * (INT64_MIN: unknown): the clock becomes the later of the two, and that
 * wait is what hp_vt_wait_ticks records next. */
void hp_vt_clock_received(int64_t entry_vt, int64_t send_vt) HP_VT_HIDDEN;
/* A receive begins: no virtual wait is known for it yet. */
void hp_vt_clock_forget_wait(void) HP_VT_HIDDEN;
double hp_vt_seconds_since(uint64_t ticks0) HP_VT_HIDDEN;

/* ---- vtime_coll.c: collectives ---- */

extern hp_vt_in_coll hp_vt_coll_now HP_VT_HIDDEN;   /* this process's */
/* Can peer p, as it answered from inside a collective, not send before
 * this process's receive completes (it needs this process there)? */
int hp_vt_coll_settles(const hp_vt_peer *p) HP_VT_HIDDEN;

/* ---- vtime.c: clock requests ---- */

/* Answers the requests that have come, takes answers and end notes. */
void hp_vt_serve_requests(void) HP_VT_HIDDEN;

#endif
