/*
 * snapshot.c - builds an hp_rank_data from the site registry and the
 * per-thread records: interns strings, renumbers every thread's nodes into
 * one array, converts ticks to seconds.
 */
#include <stdlib.h>
#include <string.h>
#include "hp_snapshot.h"
#include "hp_calibrate.h"
#include "hp_clock.h"
#include "hp_fast.h"
#include "hp_map.h"
#include "hp_site.h"
#include "hp_thread.h"
#include "hp_task.h"
#include "hp_throttle.h"

typedef struct strtab {
    hp_rank_data *rd;
    uint32_t cap;
    hp_map index;   /* hash of string -> index (first string with it) */
} strtab;

static uint64_t str_hash(const char *s)
{
    uint64_t h = 1469598103934665603ull;
    while (*s)
        h = (h ^ (unsigned char)*s++) * 1099511628211ull;
    return h & ~1ull; /* never the map's empty key */
}

static uint32_t intern(strtab *st, const char *s)
{
    hp_rank_data *rd = st->rd;
    if (!s)
        s = "";
    uint64_t h = str_hash(s);
    uint32_t i = hp_map_get(&st->index, h);
    if (i != HP_MAP_MISSING && strcmp(rd->strings[i], s) == 0)
        return i;
    if (rd->nstrings == st->cap) {
        uint32_t cap = st->cap ? st->cap * 2 : 64;
        char **n = realloc(rd->strings, sizeof *n * cap);
        if (!n)
            return 0;
        rd->strings = n;
        st->cap = cap;
    }
    char *copy = strdup(s);
    if (!copy)
        return 0;
    rd->strings[rd->nstrings] = copy;
    if (i == HP_MAP_MISSING)
        hp_map_put(&st->index, h, rd->nstrings);
    return rd->nstrings++;
}

/* Dynamic procedures are named by their resolved function and have no
 * enclosing one; dynamic call sites are named by their callee. */
static void site_names(const hp_site *s, const char **name, const char **func)
{
    *name = s->name;
    *func = s->func;
    if (!(s->flags & HP_SITEF_DYNAMIC))
        return;
    if (s->kind == HP_KIND_PROCEDURE) {
        *name = s->func ? s->func : "?";
        *func = NULL;
    } else if (s->kind == HP_KIND_CALL && s->callee != HP_NONE) {
        const char *callee = hp_site_get(s->callee)->func;
        *name = callee ? callee : "?";
    }
}

/* A static call statement names its callee; link it to the procedure
 * site of that name, preferring one in the same file. */
static void link_callees(hp_rank_data *rd)
{
    hp_map by_name = {0}, by_name_file = {0};
    for (uint32_t j = 0; j < rd->nsites; j++) {
        const hp_site_rec *p = &rd->sites[j];
        if (p->kind != HP_KIND_PROCEDURE)
            continue;
        if (hp_map_get(&by_name, p->name) == HP_MAP_MISSING)
            hp_map_put(&by_name, p->name, j);
        hp_map_put(&by_name_file, (uint64_t)p->name << 32 | p->file, j);
    }
    for (uint32_t i = 0; i < rd->nsites; i++) {
        hp_site_rec *c = &rd->sites[i];
        if (c->kind != HP_KIND_CALL || c->callee != HP_NONE || (c->flags & HP_SITEF_DYNAMIC))
            continue;
        uint32_t j = hp_map_get(&by_name_file, (uint64_t)c->name << 32 | c->file);
        if (j == HP_MAP_MISSING)
            j = hp_map_get(&by_name, c->name);
        if (j != HP_MAP_MISSING)
            c->callee = j;
    }
    hp_map_free(&by_name);
    hp_map_free(&by_name_file);
}

static int snapshot_sites(hp_rank_data *rd, strtab *st)
{
    uint32_t n = hp_site_count();
    rd->sites = calloc(n ? n : 1, sizeof *rd->sites);
    if (!rd->sites)
        return -1;
    for (uint32_t id = 0; id < n; id++) {
        const hp_site *s = hp_site_get(id);
        hp_site_rec *r = &rd->sites[id];
        r->id = id;
        const char *name, *func;
        site_names(s, &name, &func);
        r->kind = s->kind;
        r->name = intern(st, name);
        r->func = intern(st, func);
        r->file = intern(st, s->file);
        r->line = s->line;
        r->end_line = s->end_line;
        r->parent = s->parent;
        r->callee = s->callee;
        r->flags = s->flags;
        r->module = intern(st, s->module);
        r->offset = s->offset;
    }
    rd->nsites = n;
    link_callees(rd);
    return 0;
}

static double min_seconds(uint64_t min)
{
    return min == UINT64_MAX ? 0.0 : hp_ticks_to_sec(min);
}

/* One more call of record r lasting `open` seconds. */
static void add_open_call(hp_node_rec *r, double open)
{
    r->count++;
    r->timed++;
    r->time += open;
    if (r->count == 1 || open < r->min)
        r->min = open;
    if (open > r->max)
        r->max = open;
}

static double open_seconds(uint64_t start, uint64_t now)
{
    return now > start ? hp_ticks_to_sec(now - start) : 0.0;
}

/* Activations still open when the run ends (main, a loop around
 * MPI_Finalize, every call under an exit() made deep inside) count as one
 * call lasting until the end of the rank's wall window (`now`), so they
 * never outlast it: the runtime's (active[]) and the timed fast ones the
 * probes opened inline (fast[]: a call site in a loop), when they are on
 * the thread's context. */
static void close_open_activations(hp_rank_data *rd, const hp_thread *t, uint32_t base,
                                   uint32_t nnodes, uint64_t now)
{
    for (uint32_t s = 0; s < t->nactive; s++) {
        const hp_active *a = &t->active[s];
        if (!a->depth || !a->start || a->node >= nnodes)
            continue; /* closed, or throttled (counted when entered) */
        add_open_call(&rd->nodes[base + a->node], open_seconds(a->start, now));
    }
    for (uint32_t s = 0; t->fast && s < t->nactive; s++) {
        const hp_fast *f = &t->fast[s];
        if (f->node >= nnodes || f->count || f->sp == 0 || f->sp == UINTPTR_MAX ||
            !hp_fast_is_open(t, s))
            continue; /* never armed, only counted, closed, or left by a longjmp */
        add_open_call(&rd->nodes[base + f->node], open_seconds(f->start, now));
    }
}

/* Adds to each throttled node's own estimated time (nt->time[i], its
 * calls' share) the records beneath it as the snapshot holds them, the
 * activations still open included (an exit() or a fatal signal inside a
 * child of a throttled node: the child's open call counts in the child,
 * so it must in the parent).  A parent comes before its children. */
static void add_beneath(const hp_rank_data *rd, const hp_thread *t, uint32_t base, uint32_t nnodes,
                        hp_node_times *nt)
{
    for (uint32_t i = 0; i < nnodes; i++)
        nt->beneath[i] = 0;
    for (uint32_t i = nnodes; i-- > 0;) {
        const hp_node *n = hp_node_at(t, i);
        if (n->flags & HP_NODEF_THROTTLED)
            nt->time[i] += nt->beneath[i];
        else
            nt->time[i] = rd->nodes[base + i].time;
        if (n->parent != HP_NO_NODE && n->parent < i)
            nt->beneath[n->parent] += nt->time[i];
    }
}

/* The time of t's throttled nodes among the records [base, base + nnodes)
 * (their raw times filled, the activations still open closed): their
 * estimate (hp_throttle.h), inclusive of the records beneath them, fitted
 * into their parents.  A throttled node's max is at least its mean. */
static void estimate_times(hp_rank_data *rd, const hp_thread *t, uint32_t base, uint32_t nnodes)
{
    hp_node_times nt;
    double tps = (double)hp_clock_ticks_per_sec();
    if (!nnodes || hp_node_times_alloc(&nt, nnodes))
        return;
    hp_throttle_estimate(t, 0, nnodes, &nt);
    for (uint32_t i = 0; i < nnodes; i++) {
        int throttled = (hp_node_at(t, i)->flags & HP_NODEF_THROTTLED) != 0;
        nt.est[i] = throttled ? nt.est[i] / tps : 0;
        /* a throttled node's own part; add_beneath adds the rest */
        nt.time[i] = throttled ? (nt.time[i] - nt.beneath[i]) / tps : 0;
    }
    add_beneath(rd, t, base, nnodes, &nt);
    hp_throttle_fit(t, nnodes, &nt);
    for (uint32_t i = 0; i < nnodes; i++) {
        hp_node_rec *r = &rd->nodes[base + i];
        if (!(hp_node_at(t, i)->flags & HP_NODEF_THROTTLED))
            continue;
        r->time = nt.time[i] > 0 ? nt.time[i] : 0;
        if (r->count && r->max < r->time / (double)r->count)
            r->max = r->time / (double)r->count;
        if (r->min > r->max)
            r->min = r->max;
    }
    hp_node_times_free(&nt);
}

/* Node i of a thread as a record's counts (its place in the tree apart). */
typedef struct node_counts {
    uint64_t count, timed;
    double time, min, max;
} node_counts;

static node_counts read_counts(const hp_node *n, double per_tick)
{
    node_counts c;
    c.count = n->count;
    c.timed = n->timed;
    c.timed = c.timed <= c.count ? c.timed : c.count;
    c.time = (double)n->ticks * per_tick;
    c.min = n->min == UINT64_MAX ? 0.0 : (double)n->min * per_tick;
    c.max = (double)n->max * per_tick;
    return c;
}

static int same_counts(const hp_node_rec *r, const node_counts *c)
{
    return r->count == c->count && r->timed == c->timed && r->time == c->time &&
           r->min == c->min && r->max == c->max;
}

static void mark_changed(hp_snapshot_room *room, uint32_t id)
{
    if (room)
        hp_room_mark(room, id);
}

/* One thread's first nnodes nodes as records base...: the first `known`
 * of them are already in rd->nodes from the last live snapshot, with the
 * same ids, and are rewritten only where their counts moved (room marks
 * which).  Whether any of the nodes is throttled. */
static int snapshot_nodes(hp_rank_data *rd, const hp_thread *t, uint32_t base, uint32_t tno,
                          uint32_t nnodes, uint32_t known, hp_snapshot_room *room)
{
    /* a product, not hp_ticks_to_sec's quotient: a 10^6-node tree's
     * snapshot is 3 ms shorter (to the last bit, or one above) */
    const double per_tick = 1.0 / hp_clock_ticks_per_sec();
    uint32_t throttled = 0;
    for (uint32_t i = 0; i < nnodes; i++) {
        const hp_node *n = hp_node_at(t, i);
        hp_node_rec *r = &rd->nodes[base + i];
        node_counts c = read_counts(n, per_tick);
        uint32_t flags = n->flags;
        /* A throttled node's time: its estimate (hp_throttle.h), fitted
         * into its parents with the activations still open (estimate_times) */
        throttled |= flags & HP_NODEF_THROTTLED;
        if ((flags & HP_NODEF_THROTTLED) && n->site < rd->nsites)
            rd->sites[n->site].flags |= HP_SITEF_THROTTLED | HP_SITEF_ESTIMATED;
        if (i < known && !(flags & HP_NODEF_THROTTLED) && same_counts(r, &c))
            continue;
        r->id = base + i;
        r->parent = n->parent == HP_NO_NODE ? HP_NONE : base + n->parent;
        r->site = n->site;
        r->thread = tno;
        r->count = c.count;
        r->timed = c.timed;
        r->time = c.time;
        r->min = c.min;
        r->max = c.max;
        mark_changed(room, base + i);
    }
    rd->nnodes = base + nnodes;
    return throttled != 0;
}

/* One thread's communication records: those that counted transfers. */
static void snapshot_comms(hp_rank_data *rd, const hp_thread *t, uint32_t base,
                           uint32_t nnodes, uint32_t ncomms)
{
    for (uint32_t i = 0; i < ncomms; i++) {
        const hp_comm *c = hp_comm_at(t, i);
        if (!c->count || c->node >= nnodes)
            continue;
        hp_comm_rec *r = &rd->comms[rd->ncomms++];
        r->node = base + c->node;
        r->peer = c->peer;
        r->count = c->count;
        r->bytes_sent = c->sent;
        r->bytes_recv = c->recv;
        r->tran = hp_ticks_to_sec(c->tran);
        r->sync = hp_ticks_to_sec(c->sync);
        r->min = min_seconds(c->min);
        r->max = hp_ticks_to_sec(c->max);
    }
}

/* Each thread's node and communication counts, read once before the
 * sites (a node's site is registered before the node): a dying process's
 * threads may still be adding records while the snapshot reads. */
static const hp_thread *thread_at(uint32_t i, int live)
{
    return live ? hp_thread_peek(i) : hp_thread_get(i);
}

static uint32_t *capture_counts(uint32_t *nt, int live)
{
    *nt = hp_thread_count();
    uint32_t *counts = calloc(2 * (size_t)(*nt ? *nt : 1), sizeof *counts);
    for (uint32_t i = 0; counts && i < *nt; i++) {
        const hp_thread *t = thread_at(i, live);
        counts[2 * i] = __atomic_load_n(&t->nnodes, __ATOMIC_ACQUIRE);
        counts[2 * i + 1] = __atomic_load_n(&t->ncomms, __ATOMIC_ACQUIRE);
    }
    return counts;
}

/* Room for n records of `size` bytes at *array: a new array, or with
 * `cap` the one kept from the last live snapshot, grown when short (no
 * fresh pages to fault in each time: half the time of a large one). */
static int records_room(void *array, size_t *cap, uint64_t n, size_t size)
{
    void **at = array;
    if (!cap) {
        *at = calloc(n ? n : 1, size);
        return *at ? 0 : -1;
    }
    if (n <= *cap && *at)
        return 0;
    size_t want = (size_t)(n + n / 4 + 64);
    void *bigger = realloc(*at, want * size);
    if (!bigger)
        return -1;
    *at = bigger;
    *cap = want;
    return 0;
}

/* live: the process runs on (hp_live.h): activations still open are left
 * out (their tables move as they grow), only finished calls count.  room:
 * rd's node and comm arrays are kept between live snapshots. */
static int snapshot_threads(hp_rank_data *rd, const uint32_t *counts, uint32_t nt, uint64_t now,
                            int live, hp_snapshot_room *room)
{
    uint64_t nodes = 0, comms = 0;
    for (uint32_t i = 0; i < nt; i++) {
        nodes += counts[2 * i];
        comms += counts[2 * i + 1];
    }
    rd->nnodes = rd->ncomms = 0;
    if (records_room(&rd->nodes, room ? &room->nodes : NULL, nodes, sizeof *rd->nodes) ||
        records_room(&rd->comms, room ? &room->comms : NULL, comms, sizeof *rd->comms) ||
        (room && hp_room_clear_changed(room, nodes))) {
        if (room)
            room->nthreads = 0;
        return -1;
    }
    uint32_t base = 0;
    for (uint32_t i = 0; i < nt; i++) {
        const hp_thread *t = thread_at(i, live);
        uint32_t n = counts[2 * i];
        uint32_t known = room ? hp_room_known(room, i, base) : 0;
        int throttled = snapshot_nodes(rd, t, base, i, n, known, room);
        snapshot_comms(rd, t, base, n, counts[2 * i + 1]);
        if (!live)
            close_open_activations(rd, t, base, n, now);
        if (throttled)
            estimate_times(rd, t, base, n);
        base += n;
        rd->info.overflow_events += t->overflow_events;
    }
    rd->info.threads = nt;
    if (room)
        hp_room_remember(room, counts, nt);
    return 0;
}

int hp_rank_outermost_mpi(const hp_rank_data *rd, uint32_t i, unsigned char *inside)
{
    const hp_node_rec *n = &rd->nodes[i];
    const hp_site_rec *s = n->site < rd->nsites ? &rd->sites[n->site] : NULL;
    int comm = s && (s->kind == HP_KIND_COMM || (s->flags & HP_SITEF_MPI));
    int nested = n->parent != HP_NONE && n->parent < i && inside[n->parent];
    inside[i] = comm || nested;
    return comm && !nested;
}

/* Time of the outermost MPI nodes (communication statements and the call
 * sites of local MPI calls, HP_SITEF_MPI): all time spent in MPI, as mpiP
 * and IPM count it.  A node inside another (a user's wrapper around MPI,
 * a local call inside a communication statement) is not counted twice. */
double hp_rank_mpi_time(const hp_rank_data *rd)
{
    double sum = 0;
    unsigned char *inside = calloc(rd->nnodes ? rd->nnodes : 1, 1);
    if (!inside)
        return 0;
    for (uint32_t i = 0; i < rd->nnodes; i++)
        if (hp_rank_outermost_mpi(rd, i, inside))
            sum += rd->nodes[i].time;
    free(inside);
    return sum;
}

/* Threads that made an MPI call (a communication node or a local MPI
 * call): what a rank's MPI time, in thread-seconds, is shared out over. */
uint32_t hp_rank_mpi_threads(const hp_rank_data *rd)
{
    uint32_t nt = 0, count = 0;
    for (uint32_t i = 0; i < rd->nnodes; i++)
        if (rd->nodes[i].thread >= nt)
            nt = rd->nodes[i].thread + 1;
    unsigned char *seen = calloc(nt ? nt : 1, 1);
    if (!seen)
        return 0;
    for (uint32_t i = 0; i < rd->nnodes; i++) {
        const hp_node_rec *n = &rd->nodes[i];
        const hp_site_rec *s = n->site < rd->nsites ? &rd->sites[n->site] : NULL;
        if (n->count && s && (s->kind == HP_KIND_COMM || (s->flags & HP_SITEF_MPI)) &&
            !seen[n->thread]) {
            seen[n->thread] = 1;
            count++;
        }
    }
    free(seen);
    return count;
}

static int snapshot_tasks(hp_rank_data *rd, uint64_t start_ticks)
{
    uint32_t nt = hp_thread_count();
    uint64_t n = 0;
    for (uint32_t i = 0; i < nt; i++)
        n += hp_task_trace_count(hp_thread_get(i));
    rd->tasks = calloc(n ? n : 1, sizeof *rd->tasks);
    if (!rd->tasks)
        return -1;
    for (uint32_t i = 0; i < nt; i++)
        rd->ntasks += hp_task_trace_copy(hp_thread_get(i), i, start_ticks,
                                         rd->tasks + rd->ntasks);
    return 0;
}

static int take_snapshot(hp_rank_data *rd, uint64_t start_ticks, uint64_t end_ticks, int live,
                         hp_snapshot_room *room)
{
    strtab st = {rd, 0, {0}};
    uint32_t nt;
    uint32_t *counts = capture_counts(&nt, live);
    if (!counts)
        return -1;
    intern(&st, "");
    int rc = snapshot_sites(rd, &st);
    if (rc == 0)
        rc = snapshot_threads(rd, counts, nt, end_ticks, live, room);
    if (rc == 0 && !live)
        rc = hp_snapshot_counters(rd, counts, nt);
    free(counts);
    if (rc == 0 && !live)
        rc = snapshot_tasks(rd, start_ticks);
    hp_map_free(&st.index);
    if (rc != 0)
        return -1;
    rd->info.mpi_time = room ? hp_room_mpi_time(room, rd) : hp_rank_mpi_time(rd);
    hp_calibrated_costs(rd->info.cost);
    if (hp_records_overflowed())
        rd->info.flags |= HP_RANKF_OVERFLOW;
    return 0;
}

int hp_snapshot(hp_rank_data *rd, uint64_t start_ticks, uint64_t end_ticks)
{
    return take_snapshot(rd, start_ticks, end_ticks, 0, NULL);
}

int hp_snapshot_live(hp_rank_data *rd, uint64_t now_ticks, hp_snapshot_room *room)
{
    return take_snapshot(rd, 0, now_ticks, 1, room);
}
