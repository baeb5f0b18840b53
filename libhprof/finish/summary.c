/*
 * summary.c - the per-site aggregate behind the finalize summary, its
 * wire encoding for the cross-rank reduction, and the printed report.
 */
#include <stdlib.h>
#include <string.h>
#include "hp_config.h"
#include "hp_overhead.h"
#include "hp_process.h"
#include "hp_snapshot.h"
#include "hp_summary.h"

/* ---- building ---- */

static const char *base_name(const char *path)
{
    const char *s = strrchr(path, '/');
    return s ? s + 1 : path;
}

/* "MPI_Send@app.c:42 (main)", "call p3@app.c:12 (main)",
 * "loop for@app.c:20 (main)", "procedure p3 (app.c:30)". */
static void site_label(const hp_rank_data *rd, const hp_site_rec *s, char *buf,
                       size_t len)
{
    const char *name = rd->strings[s->name];
    const char *func = rd->strings[s->func];
    const char *file = rd->strings[s->file];
    const char *kind = s->kind == HP_KIND_COMM ? "" : hp_kind_name(s->kind);
    const char *space = *kind ? " " : "";
    if (!*file)
        snprintf(buf, len, "%s%s%s@%s+0x%llx", kind, space, name, rd->strings[s->module],
                 (unsigned long long)s->offset);
    else if (s->kind == HP_KIND_PROCEDURE)
        snprintf(buf, len, "procedure %s (%s:%u)", name, base_name(file), s->line);
    else
        snprintf(buf, len, "%s%s%s@%s:%u%s%s%s", kind, space, name, base_name(file),
                 s->line, *func ? " (" : "", func, *func ? ")" : "");
}

static hp_agg_row *find_row(hp_agg *a, const char *label)
{
    for (uint32_t i = 0; i < a->nrows; i++)
        if (strcmp(a->rows[i].label, label) == 0)
            return &a->rows[i];
    return NULL;
}

static hp_agg_row *add_row(hp_agg *a, const char *label, uint32_t kind)
{
    if (a->nrows == a->cap) {
        uint32_t cap = a->cap ? a->cap * 2 : 32;
        hp_agg_row *n = realloc(a->rows, sizeof *n * cap);
        if (!n)
            return NULL;
        a->rows = n;
        a->cap = cap;
    }
    hp_agg_row *r = &a->rows[a->nrows];
    memset(r, 0, sizeof *r);
    if (!(r->label = strdup(label)))
        return NULL;
    r->kind = kind;
    a->nrows++;
    return r;
}

static int peer_cmp(const void *x, const void *y)
{
    const hp_agg_peer *a = x, *b = y;
    uint64_t abytes = a->sent + a->recv, bbytes = b->sent + b->recv;
    if (abytes != bbytes)
        return abytes < bbytes ? 1 : -1;
    if (a->count != b->count)
        return a->count < b->count ? 1 : -1;
    return a->peer - b->peer;
}

/* Adds a destination's transfers and bytes to the row's peer list,
 * keeping the ones with the most bytes. */
static void add_peer(hp_agg_row *r, const hp_agg_peer *add)
{
    for (uint32_t i = 0; i < r->npeers; i++)
        if (r->peers[i].peer == add->peer) {
            r->peers[i].count += add->count;
            r->peers[i].sent += add->sent;
            r->peers[i].recv += add->recv;
            qsort(r->peers, r->npeers, sizeof r->peers[0], peer_cmp);
            return;
        }
    hp_agg_peer p = *add;
    if (r->npeers < HP_AGG_PEERS)
        r->peers[r->npeers++] = p;
    else if (peer_cmp(&p, &r->peers[HP_AGG_PEERS - 1]) < 0)
        r->peers[HP_AGG_PEERS - 1] = p;
    qsort(r->peers, r->npeers, sizeof r->peers[0], peer_cmp);
}

/* Same statement: two sites of one source line and name (two calls on a
 * line, or the same call seen through two return addresses). */
static int same_statement(const hp_site_rec *x, const hp_site_rec *y)
{
    return x == y || (x->kind == y->kind && x->name == y->name && x->func == y->func &&
                      x->file == y->file && x->line == y->line && x->offset == y->offset);
}

/* An ancestor is the same statement: this node's time is already inside it. */
static int nested_in_itself(const hp_rank_data *rd, const hp_node_rec *n)
{
    const hp_site_rec *s = &rd->sites[n->site];
    for (uint32_t up = n->parent; up != HP_NONE && up < rd->nnodes; up = rd->nodes[up].parent)
        if (same_statement(&rd->sites[rd->nodes[up].site], s))
            return 1;
    return 0;
}

/* Folds one node (and its comm records) of a single rank into its row. */
static int add_node(hp_agg *a, const hp_rank_data *rd, uint32_t node)
{
    const hp_node_rec *n = &rd->nodes[node];
    const hp_site_rec *s = &rd->sites[n->site];
    char label[512];
    site_label(rd, s, label, sizeof label);
    hp_agg_row *r = find_row(a, label);
    if (!r && !(r = add_row(a, label, s->kind)))
        return -1;
    r->count += n->count;
    r->flags |= s->flags & HP_SITEF_THROTTLED;
    int nested = nested_in_itself(rd, n);
    double time = nested ? 0 : n->time;
    if (!nested)
        hp_agg_add_counters(r, rd, node);
    r->time_sum += time;
    r->time_max += time;  /* summed over this rank's threads; see below */
    for (uint32_t i = 0; i < rd->ncomms; i++) {
        const hp_comm_rec *c = &rd->comms[i];
        if (c->node != node)
            continue;
        r->tran += c->tran;
        r->sync += c->sync;
        r->bytes += c->bytes_sent + c->bytes_recv;
        if (c->peer != HP_PEER_ALL || s->flags & HP_SITEF_COLLECTIVE) {
            hp_agg_peer p = {c->peer, c->count, c->bytes_sent, c->bytes_recv};
            add_peer(r, &p);
        }
    }
    return 0;
}

/* Is site s one of the OpenMP records of waiting (barriers, critical,
 * lock and ordered waits, taskwait)? */
static int is_omp_wait(const hp_rank_data *rd, const hp_site_rec *s)
{
    static const char *const waits[] = {"implicit barrier", "barrier", "critical wait",
                                        "lock wait", "ordered wait", "taskwait", "reduction"};
    if (s->kind != HP_KIND_OMP)
        return 0;
    for (size_t i = 0; i < sizeof waits / sizeof waits[0]; i++)
        if (strcmp(rd->strings[s->name], waits[i]) == 0)
            return 1;
    return 0;
}

/* Time the first thread spends in parallel regions (outermost ones). */
static double master_parallel_time(const hp_rank_data *rd)
{
    double sum = 0;
    for (uint32_t i = 0; i < rd->nnodes; i++) {
        const hp_node_rec *n = &rd->nodes[i];
        const hp_site_rec *s = &rd->sites[n->site];
        if (n->thread != 0 || s->kind != HP_KIND_OMP ||
            strcmp(rd->strings[s->name], "parallel") != 0)
            continue;
        int nested = 0;
        for (uint32_t up = n->parent; up != HP_NONE && up < rd->nnodes && !nested;
             up = rd->nodes[up].parent) {
            const hp_site_rec *u = &rd->sites[rd->nodes[up].site];
            nested = u->kind == HP_KIND_OMP && strcmp(rd->strings[u->name], "parallel") == 0;
        }
        if (!nested)
            sum += n->time;
    }
    return sum;
}

/* Loss of parallelism: while the first thread runs outside any parallel
 * region, the other threads of its OpenMP team sit idle. */
static double parallelism_loss(const hp_rank_data *rd)
{
    if (rd->info.omp_threads < 2)
        return 0;
    double serial = rd->info.wall - master_parallel_time(rd);
    return serial > 0 ? serial * (rd->info.omp_threads - 1) : 0;
}

static int agg_from_records(hp_agg *a, const hp_rank_data *rd);

/* The table of a rank's records as the summary shows them: compensated
 * unless HPROF_COMPENSATE=off (hp_overhead.h). */
int hp_agg_from_rank(hp_agg *a, const hp_rank_data *rd)
{
    hp_rank_data shown;
    hp_comp_stats st;
    if (hp_overhead_view(rd, &shown, &st) != 0)
        return -1;
    int rc = agg_from_records(a, &shown);
    a->overhead_max = st.overhead;
    a->overhead_sum = st.overhead_total;
    a->compensated_ranks = shown.nodes != rd->nodes;
    a->comp_clamps = st.clamped_zero + st.clamped_fit;
    hp_overhead_view_free(rd, &shown);
    return rc;
}

static int agg_from_records(hp_agg *a, const hp_rank_data *rd)
{
    memset(a, 0, sizeof *a);
    for (uint32_t i = 0; i < rd->nnodes; i++) {
        const hp_node_rec *n = &rd->nodes[i];
        if (n->count == 0 || n->parent == HP_NONE)
            continue;
        if (add_node(a, rd, i) != 0)
            return -1;
        if (is_omp_wait(rd, &rd->sites[n->site]))
            a->omp_wait += n->time;
    }
    for (uint32_t i = 0; i < a->nrows; i++)
        a->rows[i].max_rank = rd->info.rank;
    uint32_t mpi_threads = hp_rank_mpi_threads(rd);
    double wall = rd->info.wall > 0 ? rd->info.wall : 1e-9;
    double pct = mpi_threads ? 100.0 * rd->info.mpi_time / (wall * mpi_threads) : 0.0;
    a->nranks = 1;
    a->mpi_thread_s = rd->info.mpi_time;
    a->mpi_threads_min = a->mpi_threads_max = mpi_threads;
    a->threads_max = rd->info.threads;
    a->omp_threads_max = rd->info.omp_threads;
    a->wall_max = a->wall_sum = rd->info.wall;
    a->mpi_pct_min = a->mpi_pct_max = a->mpi_pct_sum = pct;
    a->overflow_events = rd->info.overflow_events;
    a->overflow_ranks = (rd->info.flags & HP_RANKF_OVERFLOW) != 0;
    a->omp_loss = parallelism_loss(rd);
    a->omp_thread_time = rd->info.wall * (rd->info.omp_threads > rd->info.threads
                                              ? rd->info.omp_threads : rd->info.threads);
    return 0;
}

/* ---- merging ---- */

static double dmin(double x, double y) { return x < y ? x : y; }
static double dmax(double x, double y) { return x > y ? x : y; }

int hp_agg_merge(hp_agg *into, const hp_agg *from)
{
    for (uint32_t i = 0; i < from->nrows; i++) {
        const hp_agg_row *f = &from->rows[i];
        hp_agg_row *r = find_row(into, f->label);
        if (!r) {
            if (!(r = add_row(into, f->label, f->kind)))
                return -1;
            r->max_rank = f->max_rank;
        }
        r->count += f->count;
        r->flags |= f->flags;
        r->time_sum += f->time_sum;
        if (f->time_max > r->time_max) {
            r->time_max = f->time_max;
            r->max_rank = f->max_rank;
        }
        r->tran += f->tran;
        r->sync += f->sync;
        r->bytes += f->bytes;
        for (uint32_t k = 0; k < f->npeers; k++)
            add_peer(r, &f->peers[k]);
        hp_agg_merge_counters(r, f);
    }
    into->mpi_pct_min = dmin(into->mpi_pct_min, from->mpi_pct_min);
    into->mpi_pct_max = dmax(into->mpi_pct_max, from->mpi_pct_max);
    into->mpi_pct_sum += from->mpi_pct_sum;
    into->mpi_thread_s += from->mpi_thread_s;
    if (from->mpi_threads_min < into->mpi_threads_min)
        into->mpi_threads_min = from->mpi_threads_min;
    if (from->mpi_threads_max > into->mpi_threads_max)
        into->mpi_threads_max = from->mpi_threads_max;
    into->wall_max = dmax(into->wall_max, from->wall_max);
    into->wall_sum += from->wall_sum;
    if (from->threads_max > into->threads_max)
        into->threads_max = from->threads_max;
    if (from->omp_threads_max > into->omp_threads_max)
        into->omp_threads_max = from->omp_threads_max;
    into->nranks += from->nranks;
    into->overflow_events += from->overflow_events;
    into->overflow_ranks += from->overflow_ranks;
    into->omp_wait += from->omp_wait;
    into->omp_thread_time += from->omp_thread_time;
    into->omp_loss += from->omp_loss;
    into->overhead_max = dmax(into->overhead_max, from->overhead_max);
    into->overhead_sum += from->overhead_sum;
    into->compensated_ranks += from->compensated_ranks;
    into->comp_clamps += from->comp_clamps;
    return 0;
}

/* ---- wire encoding (same machine type on both ends, but kept explicit) ---- */

void hp_agg_encode(hp_buf *b, const hp_agg *a)
{
    hp_buf_put_u32(b, a->nranks);
    hp_buf_put_u32(b, a->threads_max);
    hp_buf_put_u32(b, a->omp_threads_max);
    hp_buf_put_f64(b, a->wall_max);
    hp_buf_put_f64(b, a->wall_sum);
    hp_buf_put_f64(b, a->mpi_pct_min);
    hp_buf_put_f64(b, a->mpi_pct_max);
    hp_buf_put_f64(b, a->mpi_pct_sum);
    hp_buf_put_f64(b, a->mpi_thread_s);
    hp_buf_put_u32(b, a->mpi_threads_min);
    hp_buf_put_u32(b, a->mpi_threads_max);
    hp_buf_put_u64(b, a->overflow_events);
    hp_buf_put_u32(b, a->overflow_ranks);
    hp_buf_put_f64(b, a->omp_wait);
    hp_buf_put_f64(b, a->omp_thread_time);
    hp_buf_put_f64(b, a->omp_loss);
    hp_buf_put_f64(b, a->overhead_max);
    hp_buf_put_f64(b, a->overhead_sum);
    hp_buf_put_u32(b, a->compensated_ranks);
    hp_buf_put_u64(b, a->comp_clamps);
    hp_buf_put_u32(b, a->nrows);
    for (uint32_t i = 0; i < a->nrows; i++) {
        const hp_agg_row *r = &a->rows[i];
        hp_buf_put_str(b, r->label);
        hp_buf_put_u32(b, r->kind);
        hp_buf_put_u32(b, r->flags);
        hp_buf_put_u64(b, r->count);
        hp_buf_put_f64(b, r->time_sum);
        hp_buf_put_f64(b, r->time_max);
        hp_buf_put_u32(b, r->max_rank);
        hp_buf_put_f64(b, r->tran);
        hp_buf_put_f64(b, r->sync);
        hp_buf_put_u64(b, r->bytes);
        hp_buf_put_u32(b, r->npeers);
        for (uint32_t k = 0; k < r->npeers; k++) {
            hp_buf_put_u32(b, (uint32_t)r->peers[k].peer);
            hp_buf_put_u64(b, r->peers[k].count);
            hp_buf_put_u64(b, r->peers[k].sent);
            hp_buf_put_u64(b, r->peers[k].recv);
        }
        hp_buf_put_u32(b, r->ncounters);
        for (uint32_t k = 0; k < r->ncounters; k++)
            hp_buf_put_u64(b, r->counters[k]);
    }
}

typedef struct reader {
    const unsigned char *p, *end;
    int bad;
} reader;

static const unsigned char *take(reader *r, size_t n)
{
    if (r->bad || (size_t)(r->end - r->p) < n) {
        r->bad = 1;
        return NULL;
    }
    const unsigned char *p = r->p;
    r->p += n;
    return p;
}

static uint32_t rd_u32(reader *r)
{
    const unsigned char *p = take(r, 4);
    return p ? hp_get_u32(p) : 0;
}

static uint64_t rd_u64(reader *r)
{
    const unsigned char *p = take(r, 8);
    return p ? hp_get_u64(p) : 0;
}

static double rd_f64(reader *r)
{
    const unsigned char *p = take(r, 8);
    return p ? hp_get_f64(p) : 0;
}

static int decode_row(reader *rd, hp_agg *a)
{
    uint32_t n = rd_u32(rd);
    const unsigned char *s = take(rd, n);
    if (!s)
        return -1;
    char label[1024];
    if (n >= sizeof label)
        n = sizeof label - 1;
    memcpy(label, s, n);
    label[n] = 0;
    hp_agg_row *r = add_row(a, label, 0);
    if (!r)
        return -1;
    r->kind = rd_u32(rd);
    r->flags = rd_u32(rd);
    r->count = rd_u64(rd);
    r->time_sum = rd_f64(rd);
    r->time_max = rd_f64(rd);
    r->max_rank = rd_u32(rd);
    r->tran = rd_f64(rd);
    r->sync = rd_f64(rd);
    r->bytes = rd_u64(rd);
    r->npeers = rd_u32(rd);
    if (r->npeers > HP_AGG_PEERS)
        return -1;
    for (uint32_t k = 0; k < r->npeers; k++) {
        r->peers[k].peer = (int32_t)rd_u32(rd);
        r->peers[k].count = rd_u64(rd);
        r->peers[k].sent = rd_u64(rd);
        r->peers[k].recv = rd_u64(rd);
    }
    r->ncounters = rd_u32(rd);
    if (r->ncounters > HP_COUNTERS_MAX)
        return -1;
    for (uint32_t k = 0; k < r->ncounters; k++)
        r->counters[k] = rd_u64(rd);
    return rd->bad ? -1 : 0;
}

int hp_agg_decode(hp_agg *a, const unsigned char *p, size_t len)
{
    reader rd = {p, p + len, 0};
    memset(a, 0, sizeof *a);
    a->nranks = rd_u32(&rd);
    a->threads_max = rd_u32(&rd);
    a->omp_threads_max = rd_u32(&rd);
    a->wall_max = rd_f64(&rd);
    a->wall_sum = rd_f64(&rd);
    a->mpi_pct_min = rd_f64(&rd);
    a->mpi_pct_max = rd_f64(&rd);
    a->mpi_pct_sum = rd_f64(&rd);
    a->mpi_thread_s = rd_f64(&rd);
    a->mpi_threads_min = rd_u32(&rd);
    a->mpi_threads_max = rd_u32(&rd);
    a->overflow_events = rd_u64(&rd);
    a->overflow_ranks = rd_u32(&rd);
    a->omp_wait = rd_f64(&rd);
    a->omp_thread_time = rd_f64(&rd);
    a->omp_loss = rd_f64(&rd);
    a->overhead_max = rd_f64(&rd);
    a->overhead_sum = rd_f64(&rd);
    a->compensated_ranks = rd_u32(&rd);
    a->comp_clamps = rd_u64(&rd);
    uint32_t nrows = rd_u32(&rd);
    for (uint32_t i = 0; i < nrows && !rd.bad; i++)
        if (decode_row(&rd, a) != 0)
            return -1;
    return rd.bad ? -1 : 0;
}

void hp_agg_free(hp_agg *a)
{
    for (uint32_t i = 0; i < a->nrows; i++)
        free(a->rows[i].label);
    free(a->rows);
    memset(a, 0, sizeof *a);
}

/* ---- printing ---- */

static int row_by_time(const void *x, const void *y)
{
    const hp_agg_row *a = x, *b = y;
    if (a->time_sum != b->time_sum)
        return a->time_sum < b->time_sum ? 1 : -1;
    return strcmp(a->label, b->label);
}

static void print_bytes(char *buf, size_t len, uint64_t b)
{
    if (b >= 1ull << 30)
        snprintf(buf, len, "%.1f GiB", b / 1073741824.0);
    else if (b >= 1ull << 20)
        snprintf(buf, len, "%.1f MiB", b / 1048576.0);
    else if (b >= 1ull << 10)
        snprintf(buf, len, "%.1f KiB", b / 1024.0);
    else
        snprintf(buf, len, "%llu B", (unsigned long long)b);
}

static int is_comm(const hp_agg_row *r)
{
    return r->kind == HP_KIND_COMM;
}

static int is_code(const hp_agg_row *r)
{
    return r->kind != HP_KIND_COMM && r->kind != HP_KIND_ROOT && r->kind != HP_KIND_OVERFLOW;
}

/* Prints up to `top` of the rows (sorted by time) that `pick` accepts;
 * communication rows get their transmission and sync columns.  Returns
 * how many were printed. */
static uint32_t print_sites(FILE *out, const hp_agg *a, const hp_agg_row *rows,
                            uint32_t nrows, uint32_t top, int (*pick)(const hp_agg_row *))
{
    double nr = a->nranks ? a->nranks : 1;
    int comm = pick == is_comm;
    uint32_t shown = 0;
    for (uint32_t i = 0; i < nrows && shown < top; i++) {
        const hp_agg_row *r = &rows[i];
        if (!pick(r))
            continue;
        if (!shown++)
            fprintf(out, "hprof: %10s %10s %10s %10s %6s %10s %10s  %s\n", "calls",
                    "total(s)", "mean(s)", "max(s)", "imbal", comm ? "tran(s)" : "",
                    comm ? "sync(s)" : "", "site (sum over ranks; mean and max per rank)");
        double mean = r->time_sum / nr;
        double imbal = mean > 0 ? r->time_max / mean : 0;
        char tran[16] = "", sync[16] = "";
        if (comm) {
            snprintf(tran, sizeof tran, "%10.4f", r->tran);
            snprintf(sync, sizeof sync, "%10.4f", r->sync);
        }
        fprintf(out, "hprof: %10llu %10.4f %10.4f %10.4f %6.2f %10s %10s  %s%s\n",
                (unsigned long long)r->count, r->time_sum, mean, r->time_max, imbal,
                tran, sync, r->label, (r->flags & HP_SITEF_THROTTLED) ? "  [throttled: time estimated]" : "");
    }
    return shown;
}

/* "all", "to 3" (the site only sent to rank 3), "from 3" (only received
 * from it), "with 3" (both), or "peer 3" when no bytes tell. */
static void peer_name(char *buf, size_t len, const hp_agg_peer *p)
{
    const char *dir = p->sent && p->recv ? "with" : p->sent ? "to" : p->recv ? "from" : "peer";
    if (p->peer == HP_PEER_ALL)
        snprintf(buf, len, "all");
    else if (p->peer == HP_PEER_FILE)
        snprintf(buf, len, "file");
    else
        snprintf(buf, len, "%s %d", dir, p->peer);
}

static void print_peers(FILE *out, const hp_agg_row *r)
{
    char line[512];
    int len = snprintf(line, sizeof line, "hprof:   %s:", r->label);
    for (uint32_t k = 0; k < r->npeers && len < (int)sizeof line - 48; k++) {
        char b[32], who[24];
        print_bytes(b, sizeof b, r->peers[k].sent + r->peers[k].recv);
        peer_name(who, sizeof who, &r->peers[k]);
        len += snprintf(line + len, sizeof line - len, "  %s: %llu x, %s", who,
                        (unsigned long long)r->peers[k].count, b);
    }
    fprintf(out, "%s\n", line);
}

/* The MPI share names its denominator: each rank's MPI time (summed over
 * its threads) over its wall time times the threads that called MPI. */
static void print_mpi_share(FILE *out, const hp_agg *a)
{
    double nr = a->nranks ? a->nranks : 1;
    char threads[32];
    if (a->mpi_threads_min == a->mpi_threads_max)
        snprintf(threads, sizeof threads, "%u", a->mpi_threads_max);
    else
        snprintf(threads, sizeof threads, "%u-%u", a->mpi_threads_min, a->mpi_threads_max);
    fprintf(out, "hprof: MPI time %.1f%% of wall x threads calling MPI (%s per rank; "
                 "%.4f thread-s in MPI; min %.1f%%  mean %.1f%%  max %.1f%% over ranks)\n",
            a->mpi_pct_sum / nr, threads, a->mpi_thread_s, a->mpi_pct_min, a->mpi_pct_sum / nr,
            a->mpi_pct_max);
}

/* The estimated cost of the measurement: on the busiest thread of the
 * rank that has most, against the longest rank's wall time. */
static void print_overhead(FILE *out, const hp_agg *a)
{
    if (a->overhead_max <= 0)
        return;
    double pct = a->wall_max > 0 ? 100.0 * a->overhead_max / a->wall_max : 0.0;
    if (a->compensated_ranks)
        fprintf(out, "hprof: estimated measurement overhead %.3g s (%.1f%%), subtracted "
                     "(HPROF_COMPENSATE=off to see raw times)\n", a->overhead_max, pct);
    else
        fprintf(out, "hprof: estimated measurement overhead %.3g s (%.1f%%), not subtracted "
                     "(HPROF_COMPENSATE=off)\n", a->overhead_max, pct);
}

void hp_summary_print(FILE *out, const hp_agg *a, const hp_summary_info *si)
{
    int comm = 0;
    for (uint32_t i = 0; i < a->nrows; i++)
        comm |= is_comm(&a->rows[i]);
    fprintf(out, "hprof: ==== hprof summary: %s ====\n", si->program);
    if (a->omp_threads_max)
        fprintf(out, "hprof: %u rank%s x %u OpenMP threads (%u recording), wall %.3f s (max over ranks)\n",
                a->nranks, a->nranks == 1 ? "" : "s", a->omp_threads_max, a->threads_max,
                a->wall_max);
    else
        fprintf(out, "hprof: %u rank%s x %u thread%s, wall %.3f s (max over ranks)\n", a->nranks,
                a->nranks == 1 ? "" : "s", a->threads_max, a->threads_max == 1 ? "" : "s",
                a->wall_max);
    print_overhead(out, a);
    if (a->omp_loss > 0)
        fprintf(out, "hprof: OpenMP loss of parallelism %.1f%% of thread time (serial code while "
                     "the other threads idle: %.4f thread-s)\n",
                a->omp_thread_time > 0 ? 100.0 * a->omp_loss / a->omp_thread_time : 0.0,
                a->omp_loss);
    if (a->omp_wait > 0)
        fprintf(out, "hprof: OpenMP sync %.1f%% of thread time (barriers, critical and lock "
                     "waits, taskwait: %.4f s)\n",
                a->omp_thread_time > 0 ? 100.0 * a->omp_wait / a->omp_thread_time : 0.0,
                a->omp_wait);
    if (comm) {
        print_mpi_share(out, a);
        if (!si->coll_sync)
            fprintf(out, "hprof: collectives: all time counted as transmission "
                         "(HPROF_COLL_SYNC=1 separates the wait for the last rank)\n");
    }
    hp_agg_row *rows = malloc(sizeof *rows * (a->nrows ? a->nrows : 1));
    if (!rows)
        return;
    memcpy(rows, a->rows, sizeof *rows * a->nrows);
    qsort(rows, a->nrows, sizeof *rows, row_by_time);
    uint32_t top = si->full ? a->nrows : (uint32_t)si->top;
    const char *which = si->full ? "all" : "top";
    if (comm) {
        fprintf(out, "hprof: %s communication sites by time:\n", which);
        print_sites(out, a, rows, a->nrows, top, is_comm);
    }
    uint32_t shown = 0, throttled = 0;
    for (uint32_t i = 0; i < a->nrows && shown < top; i++) {
        if (!is_comm(&rows[i]))
            continue;
        if (rows[i].npeers && !shown++)
            fprintf(out, "hprof: top destinations (transfers, bytes; summed over ranks):\n");
        if (rows[i].npeers)
            print_peers(out, &rows[i]);
    }
    int code = 0;
    for (uint32_t i = 0; i < a->nrows; i++) {
        throttled += (rows[i].flags & HP_SITEF_THROTTLED) != 0;
        code |= is_code(&rows[i]);
    }
    if (code) {
        fprintf(out, "hprof: %s procedures, loops, calls and OpenMP records by inclusive time:\n",
                which);
        print_sites(out, a, rows, a->nrows, top, is_code);
    }
    hp_summary_print_counters(out, rows, a->nrows, top);
    if (throttled)
        fprintf(out, "hprof: %u sites were throttled (entered often with a tiny mean): "
                     "counted exactly; their time is estimated: what is recorded beneath "
                     "them plus their own time at the mean of their early, timed calls\n",
                throttled);
    free(rows);
    if (si->profile_path) {
        char quoted[4 * 4096 + 8];
        hp_process_shell_quote(si->profile_path, quoted, sizeof quoted);
        fprintf(out, "hprof: profile written to %s\n", si->profile_path);
        fprintf(out, "hprof: drill down with: hprof-query %s\n", quoted);
    }
    fflush(out);
}
