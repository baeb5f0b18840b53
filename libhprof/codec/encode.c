/*
 * encode.c - turns an in-memory profile (hp_profile.h) into the section
 * bytes of the file format (hp_format.h).  Pure: no I/O, no MPI.
 */
#include <stdlib.h>
#include "hp_profile.h"

void hp_buf_free(hp_buf *b)
{
    free(b->data);
    b->data = NULL;
    b->len = b->cap = 0;
}

unsigned char *hp_buf_reserve(hp_buf *b, size_t n)
{
    if (b->failed)
        return NULL;
    if (b->len + n > b->cap) {
        size_t cap = b->cap ? b->cap : 4096;
        while (cap < b->len + n)
            cap *= 2;
        unsigned char *d = realloc(b->data, cap);
        if (!d) {
            b->failed = 1;
            return NULL;
        }
        b->data = d;
        b->cap = cap;
    }
    unsigned char *p = b->data + b->len;
    b->len += n;
    return p;
}

void hp_buf_put_u32(hp_buf *b, uint32_t v)
{
    unsigned char *p = hp_buf_reserve(b, 4);
    if (p)
        hp_put_u32(p, v);
}

void hp_buf_put_u64(hp_buf *b, uint64_t v)
{
    unsigned char *p = hp_buf_reserve(b, 8);
    if (p)
        hp_put_u64(p, v);
}

void hp_buf_put_f64(hp_buf *b, double v)
{
    unsigned char *p = hp_buf_reserve(b, 8);
    if (p)
        hp_put_f64(p, v);
}

void hp_buf_put_str(hp_buf *b, const char *s)
{
    size_t n = s ? strlen(s) : 0;
    hp_buf_put_u32(b, (uint32_t)n);
    unsigned char *p = hp_buf_reserve(b, n);
    if (p && n)
        memcpy(p, s, n);
}

/* Sections: the header is written first with a zero length and CRC, then
 * patched once the payload is known. */
static size_t section_begin(hp_buf *b, uint32_t tag)
{
    size_t at = b->len;
    hp_buf_put_u32(b, tag);
    hp_buf_put_u32(b, 0);
    hp_buf_put_u64(b, 0);
    return at;
}

static void section_end(hp_buf *b, size_t at)
{
    if (b->failed)
        return;
    size_t start = at + HP_SECTION_HEADER_LEN;
    size_t len = b->len - start;
    hp_put_u32(b->data + at + 4, hp_crc32(b->data + start, len));
    hp_put_u64(b->data + at + 8, len);
}

size_t hp_section_begin(hp_buf *b, uint32_t tag)
{
    return section_begin(b, tag);
}

void hp_section_end(hp_buf *b, size_t at)
{
    section_end(b, at);
}

void hp_encode_preamble(hp_buf *b)
{
    unsigned char *p = hp_buf_reserve(b, HP_PREAMBLE_LEN);
    if (!p)
        return;
    memcpy(p, HP_FORMAT_MAGIC, HP_FORMAT_MAGIC_LEN);
    hp_put_u32(p + 8, HP_FORMAT_VERSION);
    hp_put_u32(p + 12, 0);
}

void hp_encode_run(hp_buf *b, const hp_run_info *run)
{
    size_t at = section_begin(b, HP_SEC_RUN);
    hp_buf_put_u32(b, run->nranks);
    hp_buf_put_u32(b, run->clock);
    hp_buf_put_f64(b, run->ticks_per_sec);
    hp_buf_put_u64(b, run->start_ns);
    hp_buf_put_u64(b, run->end_ns);
    hp_buf_put_str(b, run->program);
    hp_buf_put_u32(b, run->argc);
    for (uint32_t i = 0; i < run->argc; i++)
        hp_buf_put_str(b, run->argv[i]);
    section_end(b, at);
}

static void encode_rank_info(hp_buf *b, const hp_rank_info *ri)
{
    size_t at = section_begin(b, HP_SEC_RANK);
    hp_buf_put_u32(b, ri->rank);
    hp_buf_put_u32(b, ri->threads);
    hp_buf_put_u32(b, ri->pid);
    hp_buf_put_u32(b, ri->flags);
    hp_buf_put_u32(b, ri->omp_threads);
    hp_buf_put_u64(b, ri->start_ns);
    hp_buf_put_u64(b, ri->end_ns);
    hp_buf_put_f64(b, ri->wall);
    hp_buf_put_f64(b, ri->mpi_time);
    hp_buf_put_u64(b, ri->overflow_events);
    hp_buf_put_str(b, ri->host);
    hp_buf_put_u32(b, HP_COST_KINDS);
    for (uint32_t k = 0; k < HP_COST_KINDS; k++) {
        hp_buf_put_f64(b, ri->cost[k].outside);
        hp_buf_put_f64(b, ri->cost[k].inside);
    }
    section_end(b, at);
}

static void encode_strings(hp_buf *b, const hp_rank_data *rd)
{
    size_t at = section_begin(b, HP_SEC_STRS);
    hp_buf_put_u32(b, rd->nstrings);
    for (uint32_t i = 0; i < rd->nstrings; i++)
        hp_buf_put_str(b, rd->strings[i]);
    section_end(b, at);
}

static void encode_counters(hp_buf *b, const hp_rank_data *rd);

void hp_encode_rank_head(hp_buf *b, const hp_rank_data *rd)
{
    encode_rank_info(b, &rd->info);
    encode_strings(b, rd);
    size_t at = section_begin(b, HP_SEC_SITE);
    for (uint32_t i = 0; i < rd->nsites; i++) {
        unsigned char *p = hp_buf_reserve(b, HP_SITE_REC_LEN);
        if (p)
            hp_site_rec_put(p, &rd->sites[i]);
    }
    section_end(b, at);
}

void hp_encode_rank_tail(hp_buf *b, const hp_rank_data *rd)
{
    size_t at = section_begin(b, HP_SEC_TASK);
    for (uint32_t i = 0; i < rd->ntasks; i++) {
        unsigned char *p = hp_buf_reserve(b, HP_TASK_REC_LEN);
        if (p)
            hp_task_rec_put(p, &rd->tasks[i]);
    }
    section_end(b, at);
    encode_counters(b, rd);
}

void hp_encode_rank(hp_buf *b, const hp_rank_data *rd)
{
    hp_encode_rank_head(b, rd);
    size_t at = section_begin(b, HP_SEC_NODE);
    for (uint32_t i = 0; i < rd->nnodes; i++) {
        unsigned char *p = hp_buf_reserve(b, HP_NODE_REC_LEN);
        if (p)
            hp_node_rec_put(p, &rd->nodes[i]);
    }
    section_end(b, at);

    at = section_begin(b, HP_SEC_COMM);
    for (uint32_t i = 0; i < rd->ncomms; i++) {
        unsigned char *p = hp_buf_reserve(b, HP_COMM_REC_LEN);
        if (p)
            hp_comm_rec_put(p, &rd->comms[i]);
    }
    section_end(b, at);
    hp_encode_rank_tail(b, rd);
}

static void encode_counters(hp_buf *b, const hp_rank_data *rd)
{
    size_t at = section_begin(b, HP_SEC_CNTR);
    hp_buf_put_u32(b, rd->nevents);
    for (uint32_t i = 0; i < rd->nevents; i++)
        hp_buf_put_str(b, rd->events[i]);
    for (uint32_t i = 0; i < rd->ncounters; i++) {
        unsigned char *p = hp_buf_reserve(b, HP_COUNTER_REC_LEN);
        if (p)
            hp_counter_rec_put(p, &rd->counters[i]);
    }
    section_end(b, at);
}

void hp_encode_end(hp_buf *b, uint32_t nranks, uint64_t file_len)
{
    size_t at = section_begin(b, HP_SEC_END);
    hp_buf_put_u32(b, nranks);
    hp_buf_put_u64(b, file_len + HP_END_SECTION_LEN);
    section_end(b, at);
}

void hp_rank_data_free(hp_rank_data *rd)
{
    for (uint32_t i = 0; i < rd->nstrings; i++)
        free(rd->strings[i]);
    free(rd->strings);
    free(rd->sites);
    free(rd->nodes);
    free(rd->comms);
    free(rd->tasks);
    for (uint32_t i = 0; i < rd->nevents; i++)
        free(rd->events[i]);
    free(rd->events);
    free(rd->counters);
    free(rd->info.host);
    memset(rd, 0, sizeof *rd);
}

void hp_run_info_free(hp_run_info *run)
{
    for (uint32_t i = 0; i < run->argc; i++)
        free(run->argv[i]);
    free(run->argv);
    free(run->program);
    memset(run, 0, sizeof *run);
}
