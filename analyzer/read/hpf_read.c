/*
 * hpf_read.c - the profile reader: decodes a whole .hpf file (layout in
 * hp_format.h; hpf_file.c maps or reads it, hpf_section.c reads its
 * sections' fields) into an hpf_profile and checks every structural rule of the
 * format, so that the rest of the analyzer can trust indices and counts.
 * Every error becomes one line naming the file and the byte offset.
 */
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include "hpf_read.h"
#include "hp_aggprof.h"
#include "hpf_section.h"

/* Minimal encoded size of one rank block: five section headers plus the
 * fixed part of the RANK payload and the STRS count. */
#define MIN_RANK_BLOCK (5 * HP_SECTION_HEADER_LEN + 60 + 4)
#define END_PAYLOAD_LEN 12u

static int check_preamble(hpf_reader *r, hpf_profile *out)
{
    if (r->len < HP_PREAMBLE_LEN ||
        memcmp(r->data, HP_FORMAT_MAGIC, HP_FORMAT_MAGIC_LEN) != 0) {
        if (r->len >= HP_FORMAT_MAGIC_LEN &&
            memcmp(r->data, HP_FORMAT_MAGIC, HP_FORMAT_MAGIC_LEN) == 0)
            return hpf_fail(r, r->len, "file truncated inside the preamble");
        return hpf_fail(r, 0, "bad magic: not an hprof profile");
    }
    out->version = hp_get_u32(r->data + 8);
    if (out->version == HP_FORMAT_AGG_VERSION)
        return hpf_fail(r, 8, "an aggregated profile (HPROF_AGGREGATE): hprof-query shows its"
                        " tree, --flat, --comm and --check; per-rank views need a full"
                        " profile (HPROF_AGGREGATE=0)");
    if (out->version < HP_FORMAT_MIN_VERSION || out->version > HP_FORMAT_VERSION)
        return hpf_fail(r, 8, "unsupported format version %u (this reader supports %u to %u)",
                    out->version, HP_FORMAT_MIN_VERSION, HP_FORMAT_VERSION);
    if (hp_get_u32(r->data + 12) != 0)
        return hpf_fail(r, 12, "preamble: reserved field is 0x%08x, not 0",
                    hp_get_u32(r->data + 12));
    return 0;
}

/* The clock kind and its rate: a kind hp_format.h defines and a finite
 * rate above 0 (times were divided by it). */
static int read_clock(hpf_reader *r, hpf_section *s, hp_run_info *run)
{
    size_t at = s->pos;
    if (hpf_get_u32(r, s, "clock", &run->clock))
        return -1;
    if (run->clock != HP_CLOCK_TSC && run->clock != HP_CLOCK_MONOTONIC)
        return hpf_fail(r, at, "RUN section: clock %u is not a defined clock kind "
                    "(%u tsc, %u monotonic)", run->clock, HP_CLOCK_TSC, HP_CLOCK_MONOTONIC);
    at = s->pos;
    if (hpf_get_f64(r, s, "ticks per second", &run->ticks_per_sec))
        return -1;
    if (!(isfinite(run->ticks_per_sec) && run->ticks_per_sec > 0))
        return hpf_fail(r, at, "RUN section: ticks per second %g is not a finite number > 0",
                    run->ticks_per_sec);
    return 0;
}

int hpf_read_run(hpf_reader *r, size_t *pos, hpf_profile *out)
{
    hpf_section s;
    hp_run_info *run = &out->run;
    if (hpf_open_section(r, *pos, HP_SEC_RUN, -1, &s))
        return -1;
    size_t at = s.pos;
    if (hpf_get_u32(r, &s, "rank count", &run->nranks))
        return -1;
    if (run->nranks == 0)
        return hpf_fail(r, at, "RUN section says the run has no ranks");
    /* an aggregated profile holds a rank's totals only (hp_aggprof.h) */
    uint64_t per_rank = r->version == HP_FORMAT_AGG_VERSION ? HP_RANK_TOTAL_LEN : MIN_RANK_BLOCK;
    if ((uint64_t)run->nranks * per_rank > r->len)
        return hpf_fail(r, at, "RUN section says %u ranks, more than the file can hold",
                    run->nranks);
    if (read_clock(r, &s, run) ||
        hpf_get_count(r, &s, "start time", &run->start_ns) ||
        hpf_get_count(r, &s, "end time", &run->end_ns) ||
        hpf_get_str(r, &s, "program name", &run->program))
        return -1;
    at = s.pos;
    uint32_t argc;
    if (hpf_get_u32(r, &s, "argument count", &argc) ||
        hpf_check_count(r, &s, at, argc, 4, "argument"))
        return -1;
    run->argv = calloc(argc ? argc : 1, sizeof *run->argv);
    if (!run->argv)
        return hpf_fail(r, at, "out of memory");
    run->argc = argc;
    for (uint32_t i = 0; i < argc; i++)
        if (hpf_get_str(r, &s, "argument", &run->argv[i]))
            return -1;
    if (hpf_close_section(r, &s))
        return -1;
    *pos = s.end;
    return 0;
}

/* The calibrated event costs (version 4): kinds this reader does not
 * know (a later version's) are read and left out. */
static int read_costs(hpf_reader *r, hpf_section *s, hp_rank_info *ri)
{
    size_t at = s->pos;
    uint32_t n;
    if (hpf_get_u32(r, s, "cost kind count", &n) || hpf_check_count(r, s, at, n, 16, "cost"))
        return -1;
    for (uint32_t k = 0; k < n; k++) {
        hp_event_cost c;
        if (hpf_get_time(r, s, "cost outside", &c.outside) ||
            hpf_get_time(r, s, "cost inside", &c.inside))
            return -1;
        if (k < HP_COST_KINDS)
            ri->cost[k] = c;
    }
    return 0;
}

/* A team size no OpenMP runtime reaches (omp_get_max_threads() of the
 * largest nodes is in the thousands): above it a rank header is corrupt.
 * It multiplies the wall time in the shares of rule e and the views. */
#define HPF_MAX_OMP_THREADS (1u << 20)

static int read_rank_info(hpf_reader *r, size_t *pos, uint32_t rank, hp_rank_info *ri)
{
    hpf_section s;
    if (hpf_open_section(r, *pos, HP_SEC_RANK, rank, &s))
        return -1;
    size_t at = s.pos;
    if (hpf_get_u32(r, &s, "rank number", &ri->rank))
        return -1;
    if (ri->rank != rank)
        return hpf_fail(r, at, "RANK section has rank number %u, expected %u", ri->rank, rank);
    if (hpf_get_u32(r, &s, "thread count", &ri->threads) ||
        hpf_get_u32(r, &s, "pid", &ri->pid) ||
        hpf_get_u32(r, &s, "flags", &ri->flags))
        return -1;
    at = s.pos;
    if (hpf_get_u32(r, &s, "OpenMP thread count", &ri->omp_threads))
        return -1;
    if (ri->omp_threads > HPF_MAX_OMP_THREADS)
        return hpf_fail(r, at, "RANK section of rank %u: OpenMP thread count %u, more than %u",
                        rank, ri->omp_threads, HPF_MAX_OMP_THREADS);
    if (hpf_get_count(r, &s, "start time", &ri->start_ns) ||
        hpf_get_count(r, &s, "end time", &ri->end_ns) ||
        hpf_get_time(r, &s, "wall time", &ri->wall) ||
        hpf_get_time(r, &s, "MPI time", &ri->mpi_time) ||
        hpf_get_count(r, &s, "overflow events", &ri->overflow_events) ||
        hpf_get_str(r, &s, "host name", &ri->host) ||
        (r->version >= 4 && read_costs(r, &s, ri)) ||
        hpf_close_section(r, &s))
        return -1;
    *pos = s.end;
    return 0;
}

static int read_strings(hpf_reader *r, size_t *pos, uint32_t rank, hp_rank_data *rd)
{
    hpf_section s;
    if (hpf_open_section(r, *pos, HP_SEC_STRS, rank, &s))
        return -1;
    size_t at = s.pos;
    uint32_t count;
    if (hpf_get_u32(r, &s, "string count", &count) ||
        hpf_check_count(r, &s, at, count, 4, "string"))
        return -1;
    if (count == 0)
        return hpf_fail(r, at, "STRS section of rank %u is empty (string 0 must be \"\")", rank);
    rd->strings = calloc(count, sizeof *rd->strings);
    if (!rd->strings)
        return hpf_fail(r, at, "out of memory");
    rd->nstrings = count;
    for (uint32_t i = 0; i < count; i++) {
        at = s.pos;
        if (hpf_get_str(r, &s, "string", &rd->strings[i]))
            return -1;
        if (i == 0 && rd->strings[0][0] != '\0')
            return hpf_fail(r, at, "string 0 of rank %u is not empty", rank);
    }
    if (hpf_close_section(r, &s))
        return -1;
    *pos = s.end;
    return 0;
}

static int check_string_index(hpf_reader *r, size_t at, const hp_rank_data *rd, uint32_t rank,
                              uint32_t i, uint32_t idx, const char *field)
{
    if (idx >= rd->nstrings)
        return hpf_fail(r, at, "site %u of rank %u: %s string index %u out of range (%u strings)",
                    i, rank, field, idx, rd->nstrings);
    return 0;
}

static int check_site_ref(hpf_reader *r, size_t at, const hp_rank_data *rd, uint32_t rank,
                          uint32_t i, uint32_t ref, const char *field)
{
    if (ref != HP_NONE && ref >= rd->nsites)
        return hpf_fail(r, at, "site %u of rank %u: %s site %u out of range (%u sites)", i,
                    rank, field, ref, rd->nsites);
    return 0;
}

static int check_site(hpf_reader *r, size_t at, const hp_rank_data *rd, uint32_t rank, uint32_t i)
{
    const hp_site_rec *st = &rd->sites[i];
    if (st->id != i)
        return hpf_fail(r, at, "site %u of rank %u has id %u", i, rank, st->id);
    if (st->kind > HP_KIND_OVERFLOW)
        return hpf_fail(r, at, "site %u of rank %u has unknown kind %u", i, rank, st->kind);
    if (st->reserved != 0)
        return hpf_fail(r, at + 44, "site %u of rank %u: reserved field is 0x%08x, not 0", i,
                    rank, st->reserved);
    if (st->offset > (uint64_t)HPF_MAX_COUNT) {     /* `where` formatted only then */
        char where[64];
        snprintf(where, sizeof where, "site %u of rank %u", i, rank);
        return hpf_bad_count(r, at + 48, st->offset, "module offset", where);
    }
    if (check_string_index(r, at, rd, rank, i, st->name, "name") ||
        check_string_index(r, at, rd, rank, i, st->func, "function") ||
        check_string_index(r, at, rd, rank, i, st->file, "file") ||
        check_string_index(r, at, rd, rank, i, st->module, "module") ||
        check_site_ref(r, at, rd, rank, i, st->parent, "parent") ||
        check_site_ref(r, at, rd, rank, i, st->callee, "callee"))
        return -1;
    return 0;
}

static int read_sites(hpf_reader *r, size_t *pos, uint32_t rank, hp_rank_data *rd)
{
    hpf_section s;
    uint32_t n;
    if (hpf_open_section(r, *pos, HP_SEC_SITE, rank, &s) ||
        hpf_record_count(r, &s, HP_SITE_REC_LEN, &n))
        return -1;
    rd->sites = calloc(n ? n : 1, sizeof *rd->sites);
    if (!rd->sites)
        return hpf_fail(r, s.at, "out of memory");
    rd->nsites = n;
    for (uint32_t i = 0; i < n; i++)
        hp_site_rec_get(r->data + s.start + (size_t)i * HP_SITE_REC_LEN, &rd->sites[i]);
    for (uint32_t i = 0; i < n; i++)
        if (check_site(r, s.start + (size_t)i * HP_SITE_REC_LEN, rd, rank, i))
            return -1;
    *pos = s.end;
    return 0;
}

/* The measured values of node i: offsets are those of hp_node_rec_put. */
static int check_node_values(hpf_reader *r, size_t at, const hp_node_rec *nd, uint32_t rank,
                             uint32_t i)
{
    char where[64];
    if (nd->count <= (uint64_t)HPF_MAX_COUNT && hpf_good_time(nd->time) && hpf_good_time(nd->min) &&
        hpf_good_time(nd->max) && nd->timed <= nd->count)
        return 0;   /* the common case, without formatting `where` */
    snprintf(where, sizeof where, "node %u of rank %u", i, rank);
    if (hpf_bad_count(r, at + 16, nd->count, "count", where) ||
        hpf_bad_time(r, at + 24, nd->time, "time", where) ||
        hpf_bad_time(r, at + 32, nd->min, "min", where) ||
        hpf_bad_time(r, at + 40, nd->max, "max", where))
        return -1;
    if (nd->timed > nd->count)
        return hpf_fail(r, at + 48, "%s: %llu timed calls of %llu", where,
                    (unsigned long long)nd->timed, (unsigned long long)nd->count);
    return 0;
}

static int check_node(hpf_reader *r, size_t at, const hp_rank_data *rd, uint32_t rank, uint32_t i)
{
    const hp_node_rec *nd = &rd->nodes[i];
    if (nd->id != i)
        return hpf_fail(r, at, "node %u of rank %u has id %u", i, rank, nd->id);
    if (check_node_values(r, at, nd, rank, i))
        return -1;
    if (nd->site >= rd->nsites)
        return hpf_fail(r, at, "node %u of rank %u: site %u out of range (%u sites)", i, rank,
                    nd->site, rd->nsites);
    if (nd->thread >= rd->info.threads)
        return hpf_fail(r, at, "node %u of rank %u: thread %u out of range (%u threads)", i, rank,
                    nd->thread, rd->info.threads);
    if (nd->parent == HP_NONE) {
        if (rd->sites[nd->site].kind != HP_KIND_ROOT)
            return hpf_fail(r, at, "node %u of rank %u has no parent but is not a root site",
                        i, rank);
        return 0;
    }
    if (nd->parent >= i)
        return hpf_fail(r, at, "node %u of rank %u: parent %u out of range (must precede it)",
                    i, rank, nd->parent);
    if (rd->nodes[nd->parent].thread != nd->thread)
        return hpf_fail(r, at, "node %u of rank %u: thread %u differs from its parent's (%u)",
                    i, rank, nd->thread, rd->nodes[nd->parent].thread);
    return 0;
}

static int read_nodes(hpf_reader *r, size_t *pos, uint32_t rank, hp_rank_data *rd)
{
    hpf_section s;
    uint32_t n;
    size_t len = r->version >= 4 ? HP_NODE_REC_LEN : HP_NODE_REC_LEN_V3;
    if (hpf_open_section(r, *pos, HP_SEC_NODE, rank, &s) || hpf_record_count(r, &s, len, &n))
        return -1;
    rd->nodes = malloc((n ? n : 1) * sizeof *rd->nodes);   /* each one decoded below */
    if (!rd->nodes)
        return hpf_fail(r, s.at, "out of memory");
    rd->nnodes = n;
    if (r->node_at)
        r->node_at[rank] = s.start;
    for (uint32_t i = 0; i < n; i++) {
        size_t at = s.start + (size_t)i * len;
        if (r->version >= 4)
            hp_node_rec_get(r->data + at, &rd->nodes[i]);
        else
            hp_node_rec_get_v3(r->data + at, &rd->nodes[i]);
        if (check_node(r, at, rd, rank, i))
            return -1;
    }
    *pos = s.end;
    return 0;
}

/* The measured values of comm record i: offsets are those of
 * hp_comm_rec_put. */
static int check_comm_values(hpf_reader *r, size_t at, const hp_comm_rec *c, uint32_t rank,
                             uint32_t i)
{
    char where[64];
    if (c->count <= (uint64_t)HPF_MAX_COUNT && c->bytes_sent <= (uint64_t)HPF_MAX_COUNT &&
        c->bytes_recv <= (uint64_t)HPF_MAX_COUNT && hpf_good_time(c->tran) && hpf_good_time(c->sync) &&
        hpf_good_time(c->min) && hpf_good_time(c->max))
        return 0;   /* the common case, without formatting `where` */
    snprintf(where, sizeof where, "comm record %u of rank %u", i, rank);
    if (hpf_bad_count(r, at + 8, c->count, "count", where) ||
        hpf_bad_count(r, at + 16, c->bytes_sent, "bytes sent", where) ||
        hpf_bad_count(r, at + 24, c->bytes_recv, "bytes received", where) ||
        hpf_bad_time(r, at + 32, c->tran, "transmission time", where) ||
        hpf_bad_time(r, at + 40, c->sync, "sync time", where) ||
        hpf_bad_time(r, at + 48, c->min, "min", where) ||
        hpf_bad_time(r, at + 56, c->max, "max", where))
        return -1;
    return 0;
}

static int check_comm(hpf_reader *r, size_t at, const hp_comm_rec *c, const hp_rank_data *rd,
                      uint32_t rank, uint32_t i, uint32_t nranks)
{
    if (check_comm_values(r, at, c, rank, i))
        return -1;
    if (c->node >= rd->nnodes)
        return hpf_fail(r, at, "comm record %u of rank %u: node %u out of range (%u nodes)", i,
                    rank, c->node, rd->nnodes);
    if (c->peer != HP_PEER_ALL && c->peer != HP_PEER_FILE &&
        (c->peer < 0 || (uint32_t)c->peer >= nranks))
        return hpf_fail(r, at, "comm record %u of rank %u: peer %d out of range (%u ranks)", i,
                    rank, (int)c->peer, nranks);
    return 0;
}

/* The comm records: decoded and checked; of a mapping only checked, and
 * left where they are (hpf_load_comms decodes them when they are used):
 * they are most of a large profile. */
static int read_comms(hpf_reader *r, size_t *pos, uint32_t rank, uint32_t nranks,
                      hp_rank_data *rd)
{
    hpf_section s;
    uint32_t n;
    if (hpf_open_section(r, *pos, HP_SEC_COMM, rank, &s) ||
        hpf_record_count(r, &s, HP_COMM_REC_LEN, &n))
        return -1;
    if (!r->mapped) {
        rd->comms = calloc(n ? n : 1, sizeof *rd->comms);
        if (!rd->comms)
            return hpf_fail(r, s.at, "out of memory");
    } else {
        r->comm_at[rank] = s.start;
    }
    rd->ncomms = n;
    for (uint32_t i = 0; i < n; i++) {
        size_t at = s.start + (size_t)i * HP_COMM_REC_LEN;
        hp_comm_rec one, *c = rd->comms ? &rd->comms[i] : &one;
        hp_comm_rec_get(r->data + at, c);
        if (check_comm(r, at, c, rd, rank, i, nranks))
            return -1;
    }
    *pos = s.end;
    return 0;
}

static int check_task(hpf_reader *r, size_t at, const hp_rank_data *rd, uint32_t rank,
                      uint32_t i)
{
    const hp_task_rec *k = &rd->tasks[i];
    if (k->kind != HP_TASKEV_CREATE && k->kind != HP_TASKEV_RUN)
        return hpf_fail(r, at, "task record %u of rank %u: unknown kind %u", i, rank, k->kind);
    if (k->site >= rd->nsites)
        return hpf_fail(r, at, "task record %u of rank %u: site %u out of range (%u sites)", i,
                    rank, k->site, rd->nsites);
    if (k->thread >= rd->info.threads)
        return hpf_fail(r, at, "task record %u of rank %u: thread %u out of range (%u threads)",
                    i, rank, k->thread, rd->info.threads);
    char where[64];
    snprintf(where, sizeof where, "task record %u of rank %u", i, rank);
    if (hpf_bad_count(r, at + 16, k->id, "id", where) ||
        hpf_bad_count(r, at + 24, k->parent, "parent", where) ||
        hpf_bad_time(r, at + 32, k->begin, "begin", where) ||
        hpf_bad_time(r, at + 40, k->end, "end", where))
        return -1;
    if (!(k->begin <= k->end))
        return hpf_fail(r, at, "task record %u of rank %u: ends before it begins", i, rank);
    return 0;
}

static int read_tasks(hpf_reader *r, size_t *pos, uint32_t rank, hp_rank_data *rd)
{
    hpf_section s;
    uint32_t n;
    if (hpf_open_section(r, *pos, HP_SEC_TASK, rank, &s) ||
        hpf_record_count(r, &s, HP_TASK_REC_LEN, &n))
        return -1;
    rd->tasks = calloc(n ? n : 1, sizeof *rd->tasks);
    if (!rd->tasks)
        return hpf_fail(r, s.at, "out of memory");
    rd->ntasks = n;
    for (uint32_t i = 0; i < n; i++) {
        size_t at = s.start + (size_t)i * HP_TASK_REC_LEN;
        hp_task_rec_get(r->data + at, &rd->tasks[i]);
        if (check_task(r, at, rd, rank, i))
            return -1;
    }
    *pos = s.end;
    return 0;
}

/* The counters (version 5; none before). */
static int read_counters(hpf_reader *r, size_t *pos, uint32_t rank, hp_rank_data *rd)
{
    hpf_section s;
    size_t bad;
    char why[96];
    if (r->version < 5)
        return 0;
    if (hpf_open_section(r, *pos, HP_SEC_CNTR, rank, &s))
        return -1;
    if (hp_counters_decode(r->data + s.start, s.end - s.start, rd, &bad, why, sizeof why))
        return hpf_fail(r, s.start + bad, "CNTR section of rank %u: %s", rank, why);
    *pos = s.end;
    return 0;
}

/* Each thread that recorded has its own tree, at least its root node:
 * a thread count above the node count (the file's size bounds it) is not
 * a count of this rank's threads.  threads_at: the field's offset. */
static int check_thread_count(hpf_reader *r, size_t threads_at, uint32_t rank,
                              const hp_rank_data *rd)
{
    if (rd->info.threads <= rd->nnodes)
        return 0;
    return hpf_fail(r, threads_at, "RANK section of rank %u: thread count %u, more than its %u "
                "nodes (each thread has its own root node)", rank, rd->info.threads,
                rd->nnodes);
}

static int read_rank(hpf_reader *r, size_t *pos, uint32_t rank, uint32_t nranks,
                     hp_rank_data *rd)
{
    size_t threads_at = *pos + HP_SECTION_HEADER_LEN + 4;   /* after the rank number */
    if (read_rank_info(r, pos, rank, &rd->info) ||
        read_strings(r, pos, rank, rd) ||
        read_sites(r, pos, rank, rd) ||
        read_nodes(r, pos, rank, rd) ||
        check_thread_count(r, threads_at, rank, rd) ||
        read_comms(r, pos, rank, nranks, rd) ||
        read_tasks(r, pos, rank, rd) ||
        read_counters(r, pos, rank, rd))
        return -1;
    return 0;
}

static int read_end(hpf_reader *r, size_t *pos, uint32_t nranks)
{
    hpf_section s;
    if (hpf_open_section(r, *pos, HP_SEC_END, -1, &s))
        return -1;
    if (s.end - s.start != END_PAYLOAD_LEN)
        return hpf_fail(r, s.at, "END section payload length %zu, expected %u",
                    s.end - s.start, END_PAYLOAD_LEN);
    uint32_t count = hp_get_u32(r->data + s.start);
    uint64_t length = hp_get_u64(r->data + s.start + 4);
    if (count != nranks)
        return hpf_fail(r, s.start, "END section counts %u ranks, RUN section says %u", count,
                    nranks);
    if (length != s.end)
        return hpf_fail(r, s.start + 4, "END section gives file length %llu, actual end is %zu",
                    (unsigned long long)length, s.end);
    if (s.end != r->len)
        return hpf_fail(r, s.end, "%zu unexpected bytes after the END section", r->len - s.end);
    *pos = s.end;
    return 0;
}

/* Of a mapped file, gives the whole pages before pos back to the kernel
 * once decoded: the decoder never reads behind pos again, so the
 * resident file stays about one rank's records, not the whole file. */
static void release_decoded(hpf_reader *r, size_t pos)
{
    size_t page = (size_t)sysconf(_SC_PAGESIZE);
    size_t upto = pos / page * page;
    if (!r->mapped || upto <= r->released)
        return;
    madvise((void *)(uintptr_t)(r->data + r->released), upto - r->released, MADV_DONTNEED);
    r->released = upto;
}

/* The sections' layout, before any payload is read: every header where
 * the one before it ends, with the expected tag and a payload inside the
 * file, the END section last.  So sizes are checked against the file
 * before a checksum reads a payload: a length that a broken or sparse
 * file claims costs a few header reads, not gigabytes.  An error here is
 * the one the decoder would report at the same place; a RUN payload too
 * short to hold its rank count is left to the decoder. */
static int check_layout(hpf_reader *r)
{
    static const uint32_t rank_tags[] = {HP_SEC_RANK, HP_SEC_STRS, HP_SEC_SITE, HP_SEC_NODE,
                                         HP_SEC_COMM, HP_SEC_TASK, HP_SEC_CNTR};
    uint32_t ntags = r->version >= 5 ? 7 : 6;
    size_t pos = HP_PREAMBLE_LEN;
    uint64_t plen;
    if (hpf_check_header(r, pos, HP_SEC_RUN, -1, &plen))
        return -1;
    if (plen < 4)
        return 0;
    size_t at = pos + HP_SECTION_HEADER_LEN;
    uint32_t nranks = hp_get_u32(r->data + at);
    if (nranks == 0)
        return hpf_fail(r, at, "RUN section says the run has no ranks");
    if ((uint64_t)nranks * MIN_RANK_BLOCK > r->len)
        return hpf_fail(r, at, "RUN section says %u ranks, more than the file can hold", nranks);
    pos += HP_SECTION_HEADER_LEN + (size_t)plen;
    for (uint32_t rank = 0; rank < nranks; rank++) {
        for (uint32_t k = 0; k < ntags; k++) {
            if (hpf_check_header(r, pos, rank_tags[k], rank, &plen))
                return -1;
            pos += HP_SECTION_HEADER_LEN + (size_t)plen;
        }
        /* each header read maps the pages around it too (fault-around):
         * given back rank by rank, not held across the whole file */
        release_decoded(r, pos);
    }
    r->released = 0;        /* the decoder gives its pages back again */
    return hpf_check_header(r, pos, HP_SEC_END, -1, &plen);
}

static int decode(hpf_reader *r, hpf_profile *out)
{
    size_t pos = HP_PREAMBLE_LEN;
    memset(out, 0, sizeof *out);
    out->file_len = r->len;
    if (check_preamble(r, out))
        goto failed;
    r->version = out->version;
    if (check_layout(r) || hpf_read_run(r, &pos, out))
        goto failed;
    out->ranks = calloc(out->run.nranks, sizeof *out->ranks);
    if (!out->ranks) {
        hpf_fail(r, pos, "out of memory");
        goto failed;
    }
    out->nranks = out->run.nranks;
    if (r->mapped) {
        out->comm_at = calloc(out->nranks ? out->nranks : 1, sizeof *out->comm_at);
        if (!out->comm_at) {
            hpf_fail(r, pos, "out of memory");
            goto failed;
        }
        r->comm_at = out->comm_at;
    }
    if (r->mapped && r->lazy_nodes) {
        out->node_at = calloc(out->nranks ? out->nranks : 1, sizeof *out->node_at);
        if (!out->node_at) {
            hpf_fail(r, pos, "out of memory");
            goto failed;
        }
        r->node_at = out->node_at;
    }
    for (uint32_t i = 0; i < out->nranks; i++) {
        if (read_rank(r, &pos, i, out->nranks, &out->ranks[i]))
            goto failed;
        if (r->node_at) {       /* checked: left in the file (hpf_load_nodes) */
            free(out->ranks[i].nodes);
            out->ranks[i].nodes = NULL;
        }
        release_decoded(r, pos);
    }
    if (read_end(r, &pos, out->nranks))
        goto failed;
    return 0;
failed:
    hpf_free(out);
    return -1;
}

int hpf_decode(const unsigned char *data, size_t len, const char *name,
               hpf_profile *out, char *err, size_t errlen)
{
    hpf_reader r = {.data = data, .len = len, .name = name, .err = err, .errlen = errlen};
    return decode(&r, out);
}

int hpf_decode_mapped(const unsigned char *data, size_t len, const char *name,
                      hpf_profile *out, char *err, size_t errlen)
{
    hpf_reader r = {.data = data, .len = len, .name = name, .err = err, .errlen = errlen,
                    .mapped = 1};
    return decode(&r, out);
}

int hpf_decode_mapped_lazy(const unsigned char *data, size_t len, const char *name,
                           hpf_profile *out, char *err, size_t errlen)
{
    hpf_reader r = {.data = data, .len = len, .name = name, .err = err, .errlen = errlen,
                    .mapped = 1, .lazy_nodes = 1};
    return decode(&r, out);
}

void hpf_free(hpf_profile *p)
{
    if (p->ranks)
        for (uint32_t i = 0; i < p->run.nranks; i++)
            hp_rank_data_free(&p->ranks[i]);
    free(p->ranks);
    free(p->comm_at);
    free(p->node_at);
    free(p->map_path);
    if (p->map) {
        munmap((void *)(uintptr_t)p->map, p->map_len);
        close(p->map_fd);
    }
    hp_run_info_free(&p->run);
    memset(p, 0, sizeof *p);
}
