/*
 * vtime_shadow.c - virtual time's shadows (hp_vtime_int.h, DESIGN.md
 * "Virtual time"): each controlled user communicator has a hidden
 * duplicate on which a 16-byte header precedes every point-to-point
 * message of the user's, with the user's tag, so that MPI matches the
 * headers in the order it matches the messages; and a per-peer account
 * of the headers sent, received and still pending.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "hp_mpi.h"
#include "hp_vtime.h"
#include "hp_vtime_int.h"
#include "hp_log.h"

hp_vt_shadow *hp_vt_shadows;
uint32_t *hp_vt_tot_sent, *hp_vt_tot_got;
static uint32_t next_comm_id;
static uint32_t sends;                  /* headers sent */

/* Headers in flight: each is sent with MPI_Isend from a slot of this ring,
 * kept until its send is done.  A blocking send of a header waited for a
 * receiver busy elsewhere once the transport's queue to it was full
 * (MPICH's pt2pt/sendrecv3: 100 eager Isends took 1 s instead of none). */
enum { HEADERS_IN_FLIGHT = 256 };
static hp_vt_header flight[HEADERS_IN_FLIGHT];
static MPI_Request flight_req[HEADERS_IN_FLIGHT];
static unsigned flight_next;

/* The ring's next slot, once the header sent from it last is done (it
 * answers clock requests while it waits for that). */
static unsigned flight_slot(void)
{
    unsigned i = flight_next++ % HEADERS_IN_FLIGHT;
    int done = flight_req[i] == MPI_REQUEST_NULL;
    while (!done) {
        PMPI_Test(&flight_req[i], &done, MPI_STATUS_IGNORE);
        if (!done)
            hp_vt_serve_requests();
    }
    return i;
}

hp_vt_shadow *hp_vt_shadow_of(MPI_Comm comm)
{
    for (hp_vt_shadow *s = hp_vt_shadows; s; s = s->next)
        if (s->user == comm)
            return s;
    return NULL;
}

hp_vt_shadow *hp_vt_shadow_by_id(uint64_t id)
{
    for (hp_vt_shadow *s = hp_vt_shadows; s; s = s->next)
        if (s->id == id)
            return s;
    return NULL;
}

int hp_vt_controls(MPI_Comm comm)
{
    return hp_vt_shadow_of(comm) != NULL;
}

static int world_ranks(MPI_Comm comm, hp_vt_shadow *s)
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
        s->peer[i] = (hp_vt_peer){.world = ranks[s->size + i], .blocked_tot = UINT32_MAX,
                                  .waiting_for = INT64_MIN,
                                  .last_vt = INT64_MIN, .bound = INT64_MIN};
    }
    PMPI_Group_free(&g);
    PMPI_Group_free(&wg);
    free(ranks);
    return 0;
}

static hp_vt_shadow *shadow_new(MPI_Comm comm)
{
    hp_vt_shadow *s = calloc(1, sizeof *s);
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

int hp_vt_shadows_init(void)
{
    for (int i = 0; i < HEADERS_IN_FLIGHT; i++)
        flight_req[i] = MPI_REQUEST_NULL;
    hp_vt_tot_sent = calloc((size_t)hp_world_size, sizeof *hp_vt_tot_sent);
    hp_vt_tot_got = calloc((size_t)hp_world_size, sizeof *hp_vt_tot_got);
    hp_vt_shadow *w = hp_vt_tot_sent && hp_vt_tot_got ? shadow_new(MPI_COMM_WORLD) : NULL;
    if (!w)
        return -1;
    w->id = 0;
    hp_vt_shadows = w;
    return 0;
}

void hp_vt_comm_created(MPI_Comm comm)
{
    int inter = 0;
    if (!hp_vt_on || comm == MPI_COMM_NULL)
        return;
    PMPI_Comm_test_inter(comm, &inter);
    if (inter)
        return;  /* not controlled (DESIGN.md: limits) */
    hp_vt_shadow *s = shadow_new(comm);
    uint64_t id = ((uint64_t)(hp_world_rank + 1) << 32) | ++next_comm_id;
    if (!s) {
        hp_warn("virtual time: out of memory; a communicator's receives are not controlled");
        return;
    }
    PMPI_Bcast(&id, 1, MPI_UINT64_T, 0, s->shadow);
    s->id = id;
    s->next = hp_vt_shadows;
    hp_vt_shadows = s;
}

/* free_comm: 0 at MPI_Finalize, which frees the shadows itself. */
static void shadow_free(hp_vt_shadow *s, int free_comm)
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
    hp_vt_shadow **p = &hp_vt_shadows;
    if (!hp_vt_on)
        return;
    while (*p && (*p)->user != comm)
        p = &(*p)->next;
    if (*p) {
        hp_vt_shadow *s = *p;
        *p = s->next;
        shadow_free(s, 1);
    }
}

void hp_vt_shadows_end(void)
{
    for (int i = 0; i < HEADERS_IN_FLIGHT; i++)   /* MPI ends them; the ring stays */
        if (flight_req[i] != MPI_REQUEST_NULL)
            PMPI_Request_free(&flight_req[i]);
    while (hp_vt_shadows) {
        hp_vt_shadow *s = hp_vt_shadows;
        hp_vt_shadows = s->next;
        shadow_free(s, 0);
    }
}

/* ---- headers ---- */

static void header_counted(hp_vt_shadow *s, int src, const hp_vt_header *h)
{
    hp_vt_peer *p = &s->peer[src];
    p->got++;
    if (h->vt > p->last_vt)
        p->last_vt = h->vt;
    if (p->world >= 0)
        hp_vt_tot_got[p->world]++;
}

static int pend_push(hp_vt_shadow *s, int src, const hp_vt_header *h)
{
    if (s->npend == s->pend_cap) {
        size_t cap = s->pend_cap ? 2 * s->pend_cap : 16;
        hp_vt_pending *n = realloc(s->pend, cap * sizeof *n);
        if (!n)
            return -1;
        s->pend = n;
        s->pend_cap = cap;
    }
    s->pend[s->npend++] = (hp_vt_pending){src, h->tag, h->vt};
    return 0;
}

void hp_vt_pull_headers(hp_vt_shadow *s)
{
    for (;;) {
        int flag = 0;
        MPI_Status st;
        hp_vt_header h;
        PMPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, s->shadow, &flag, &st);
        if (!flag)
            return;
        PMPI_Recv(&h, sizeof h, MPI_BYTE, st.MPI_SOURCE, st.MPI_TAG, s->shadow, MPI_STATUS_IGNORE);
        header_counted(s, st.MPI_SOURCE, &h);
        if (pend_push(s, st.MPI_SOURCE, &h) != 0)
            hp_warn("virtual time: out of memory; a header is lost");
    }
}

/* Posted header receives that completed, for reuse (a malloc and a free
 * a message cost 100 instructions, callgrind). */
static hp_vt_posted *spare[64];
static size_t nspare;

static void posted_release(hp_vt_posted *p)
{
    if (nspare < sizeof spare / sizeof *spare)
        spare[nspare++] = p;
    else
        free(p);
}

void hp_vt_reap_posted(hp_vt_shadow *s)
{
    size_t k = 0;
    for (size_t i = 0; i < s->nposted; i++) {
        hp_vt_posted *p = s->posted[i];
        int flag = 0;
        MPI_Status st;
        PMPI_Test(&p->req, &flag, &st);
        if (flag) {
            header_counted(s, st.MPI_SOURCE, &p->h);
            posted_release(p);
        } else
            s->posted[k++] = p;
    }
    s->nposted = k;
}

int hp_vt_tag_matches(int want, int tag)
{
    return want == MPI_ANY_TAG || want == tag;
}

/* Removes the oldest pending header of (src, tag); 1 when there was one. */
static int pend_take(hp_vt_shadow *s, int src, int tag, int64_t *vt)
{
    for (size_t i = 0; i < s->npend; i++) {
        if (s->pend[i].src == src && hp_vt_tag_matches(tag, s->pend[i].tag)) {
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
    hp_vt_shadow *s = hp_vt_shadow_of(comm);
    if (!s || dest < 0 || dest >= s->size)
        return;
    uint64_t t0 = hp_ticks();
    unsigned i = flight_slot();
    flight[i] = (hp_vt_header){hp_vt_clock_ns(), tag, s->peer[dest].sent++};
    PMPI_Isend(&flight[i], sizeof flight[i], MPI_BYTE, dest, tag, s->shadow, &flight_req[i]);
    if (s->peer[dest].world >= 0)
        hp_vt_tot_sent[s->peer[dest].world]++;
    if ((++sends & 15) == 0)
        hp_vt_serve_requests();   /* a process that sends also answers, every 16th send */
    /* the header's and the answers' cost (ticks: reading the clock's own
     * base twice cost 200 instructions a message, callgrind) */
    hp_vt_clock_exclude((int64_t)((double)(hp_ticks() - t0) * hp_vt_ns_per_tick));
}

/* A slot for one more posted header receive; NULL without memory. */
static hp_vt_posted *posted_slot(hp_vt_shadow *s)
{
    if (s->nposted == s->posted_cap) {
        size_t cap = s->posted_cap ? 2 * s->posted_cap : 16;
        hp_vt_posted **n = realloc(s->posted, cap * sizeof *n);
        if (!n)
            return NULL;
        s->posted = n;
        s->posted_cap = cap;
    }
    hp_vt_posted *p = nspare ? spare[--nspare] : malloc(sizeof *p);
    if (p)
        s->posted[s->nposted++] = p;
    return p;
}

void hp_vt_recv_posted(MPI_Comm comm, int source, int tag)
{
    hp_vt_shadow *s = hp_vt_shadow_of(comm);
    int64_t vt;
    if (!s || source == MPI_PROC_NULL)
        return;
    if (s->nposted >= s->reap_at) {   /* amortized: a window of receives costs no n^2 tests */
        hp_vt_reap_posted(s);
        s->reap_at = 2 * s->nposted + 16;
    }
    if (source != MPI_ANY_SOURCE && pend_take(s, source, tag, &vt))
        return;
    hp_vt_posted *p = posted_slot(s);
    if (!p) {
        hp_warn("virtual time: out of memory; a header is not received");
        return;
    }
    PMPI_Irecv(&p->h, sizeof p->h, MPI_BYTE, source, tag, s->shadow, &p->req);
}

int64_t hp_vt_take_header(hp_vt_shadow *s, int src, int tag)
{
    static int warned;
    int64_t vt;
    uint64_t start = hp_ticks();
    hp_vt_reap_posted(s);
    if (pend_take(s, src, tag, &vt))
        return vt;
    for (;;) {
        int flag = 0;
        hp_vt_header h;
        PMPI_Iprobe(src, tag, s->shadow, &flag, MPI_STATUS_IGNORE);
        if (flag) {
            PMPI_Recv(&h, sizeof h, MPI_BYTE, src, tag, s->shadow, MPI_STATUS_IGNORE);
            header_counted(s, src, &h);
            return h.vt;
        }
        hp_vt_serve_requests();
        if (hp_vt_seconds_since(start) > HP_VT_HEADER_SEC) {
            if (!warned++)
                hp_warn("virtual time: a message came without its header");
            return INT64_MIN;
        }
    }
}
