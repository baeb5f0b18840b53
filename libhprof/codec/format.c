/*
 * format.c - codecs of the profile file format described in hp_format.h:
 * CRC-32 and the fixed-size record layouts.  Used by writer and reader.
 */
#include <signal.h>
#include <stdio.h>
#include "hp_format.h"

/* CRC-32 (IEEE), eight bytes a step ("slicing by 8"): crc_table[k][b] is
 * the CRC of byte b followed by k zero bytes.  The analyzer checks and
 * identifies profiles of tens of MB with it. */
static uint32_t crc_table[8][256];
static int crc_ready;

static void crc_init(void)
{
    for (uint32_t i = 0; i < 256; i++) {
        uint32_t c = i;
        for (int k = 0; k < 8; k++)
            c = (c & 1) ? 0xedb88320u ^ (c >> 1) : c >> 1;
        crc_table[0][i] = c;
    }
    for (uint32_t i = 0; i < 256; i++)
        for (int k = 1; k < 8; k++)
            crc_table[k][i] = (crc_table[k - 1][i] >> 8) ^ crc_table[0][crc_table[k - 1][i] & 0xff];
    crc_ready = 1;
}

static uint32_t le32(const unsigned char *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

uint32_t hp_crc32_update(uint32_t crc, const void *data, size_t len)
{
    const unsigned char *p = data;
    uint32_t c = crc ^ 0xffffffffu;
    if (!crc_ready)
        crc_init();
    for (; len >= 8; p += 8, len -= 8) {
        uint32_t lo = c ^ le32(p), hi = le32(p + 4);
        c = crc_table[7][lo & 0xff] ^ crc_table[6][(lo >> 8) & 0xff] ^
            crc_table[5][(lo >> 16) & 0xff] ^ crc_table[4][lo >> 24] ^
            crc_table[3][hi & 0xff] ^ crc_table[2][(hi >> 8) & 0xff] ^
            crc_table[1][(hi >> 16) & 0xff] ^ crc_table[0][hi >> 24];
    }
    while (len--)
        c = crc_table[0][(c ^ *p++) & 0xff] ^ (c >> 8);
    return c ^ 0xffffffffu;
}

uint32_t hp_crc32(const void *data, size_t len)
{
    return hp_crc32_update(0, data, len);
}

/* CRC-32 arithmetic in its reflected bit order (bit 31 is x^0): a * b
 * modulo the polynomial, and x^(8 n), the factor that moves a CRC past n
 * more bytes. */
static uint32_t crc_mulmod(uint32_t a, uint32_t b)
{
    uint32_t product = 0;
    for (uint32_t bit = 1u << 31; bit; bit >>= 1) {
        if (a & bit)
            product ^= b;
        b = (b & 1) ? (b >> 1) ^ 0xedb88320u : b >> 1;
    }
    return product;
}

uint32_t hp_crc32_shift(uint64_t n)
{
    uint32_t factor = 1u << 31, square = 1u << 23; /* x^0, x^8 */
    for (; n; n >>= 1) {
        if (n & 1)
            factor = crc_mulmod(square, factor);
        square = crc_mulmod(square, square);
    }
    return factor;
}

uint32_t hp_crc32_combine(uint32_t crc_a, uint32_t crc_b, uint32_t shift_b)
{
    return crc_mulmod(shift_b, crc_a) ^ crc_b;
}

void hp_site_rec_put(unsigned char *p, const hp_site_rec *r)
{
    const uint32_t v[12] = {r->id,     r->kind,   r->name,   r->func,
                            r->file,   r->line,   r->end_line, r->parent,
                            r->callee, r->flags,  r->module, r->reserved};
    for (int i = 0; i < 12; i++)
        hp_put_u32(p + 4 * i, v[i]);
    hp_put_u64(p + 48, r->offset);
}

void hp_site_rec_get(const unsigned char *p, hp_site_rec *r)
{
    uint32_t v[12];
    for (int i = 0; i < 12; i++)
        v[i] = hp_get_u32(p + 4 * i);
    r->id = v[0];
    r->kind = v[1];
    r->name = v[2];
    r->func = v[3];
    r->file = v[4];
    r->line = v[5];
    r->end_line = v[6];
    r->parent = v[7];
    r->callee = v[8];
    r->flags = v[9];
    r->module = v[10];
    r->reserved = v[11];
    r->offset = hp_get_u64(p + 48);
}

void hp_node_rec_put(unsigned char *p, const hp_node_rec *r)
{
    hp_put_u32(p, r->id);
    hp_put_u32(p + 4, r->parent);
    hp_put_u32(p + 8, r->site);
    hp_put_u32(p + 12, r->thread);
    hp_put_u64(p + 16, r->count);
    hp_put_f64(p + 24, r->time);
    hp_put_f64(p + 32, r->min);
    hp_put_f64(p + 40, r->max);
    hp_put_u64(p + 48, r->timed);
}

void hp_node_rec_get(const unsigned char *p, hp_node_rec *r)
{
    hp_node_rec_get_v3(p, r);
    r->timed = hp_get_u64(p + 48);
}

void hp_node_rec_get_v3(const unsigned char *p, hp_node_rec *r)
{
    r->id = hp_get_u32(p);
    r->parent = hp_get_u32(p + 4);
    r->site = hp_get_u32(p + 8);
    r->thread = hp_get_u32(p + 12);
    r->count = hp_get_u64(p + 16);
    r->time = hp_get_f64(p + 24);
    r->min = hp_get_f64(p + 32);
    r->max = hp_get_f64(p + 40);
    r->timed = r->count;
}

const char *hp_cost_kind_name(uint32_t kind)
{
    static const char *const names[HP_COST_KINDS] = {
        "probe timed", "probe counted", "hook timed", "hook counted", "mpi", "omp",
        "probe folded", "probe leaf"};
    return kind < HP_COST_KINDS ? names[kind] : NULL;
}

void hp_comm_rec_put(unsigned char *p, const hp_comm_rec *r)
{
    hp_put_u32(p, r->node);
    hp_put_u32(p + 4, (uint32_t)r->peer);
    hp_put_u64(p + 8, r->count);
    hp_put_u64(p + 16, r->bytes_sent);
    hp_put_u64(p + 24, r->bytes_recv);
    hp_put_f64(p + 32, r->tran);
    hp_put_f64(p + 40, r->sync);
    hp_put_f64(p + 48, r->min);
    hp_put_f64(p + 56, r->max);
}

void hp_comm_rec_get(const unsigned char *p, hp_comm_rec *r)
{
    r->node = hp_get_u32(p);
    r->peer = (int32_t)hp_get_u32(p + 4);
    r->count = hp_get_u64(p + 8);
    r->bytes_sent = hp_get_u64(p + 16);
    r->bytes_recv = hp_get_u64(p + 24);
    r->tran = hp_get_f64(p + 32);
    r->sync = hp_get_f64(p + 40);
    r->min = hp_get_f64(p + 48);
    r->max = hp_get_f64(p + 56);
}

void hp_task_rec_put(unsigned char *p, const hp_task_rec *r)
{
    hp_put_u32(p, r->thread);
    hp_put_u32(p + 4, r->kind);
    hp_put_u32(p + 8, r->site);
    hp_put_u32(p + 12, r->team);
    hp_put_u64(p + 16, r->id);
    hp_put_u64(p + 24, r->parent);
    hp_put_f64(p + 32, r->begin);
    hp_put_f64(p + 40, r->end);
}

void hp_task_rec_get(const unsigned char *p, hp_task_rec *r)
{
    r->thread = hp_get_u32(p);
    r->kind = hp_get_u32(p + 4);
    r->site = hp_get_u32(p + 8);
    r->team = hp_get_u32(p + 12);
    r->id = hp_get_u64(p + 16);
    r->parent = hp_get_u64(p + 24);
    r->begin = hp_get_f64(p + 32);
    r->end = hp_get_f64(p + 40);
}

void hp_counter_rec_put(unsigned char *p, const hp_counter_rec *r)
{
    hp_put_u32(p, r->node);
    hp_put_u32(p + 4, r->event);
    hp_put_u64(p + 8, r->value);
}

void hp_counter_rec_get(const unsigned char *p, hp_counter_rec *r)
{
    r->node = hp_get_u32(p);
    r->event = hp_get_u32(p + 4);
    r->value = hp_get_u64(p + 8);
}

const char *hp_kind_name(uint32_t kind)
{
    static const char *const names[] = {"root", "procedure", "loop", "call",
                                        "comm", "omp",       "region", "overflow"};
    return kind < sizeof names / sizeof names[0] ? names[kind] : "unknown";
}

const char *hp_rank_ending(uint32_t flags, char *buf, size_t len)
{
    static const struct { int sig; const char *name; } names[] = {
        {SIGTERM, "SIGTERM"}, {SIGINT, "SIGINT"},   {SIGHUP, "SIGHUP"},   {SIGXCPU, "SIGXCPU"},
        {SIGUSR1, "SIGUSR1"}, {SIGUSR2, "SIGUSR2"}, {SIGSEGV, "SIGSEGV"}, {SIGBUS, "SIGBUS"},
        {SIGILL, "SIGILL"},   {SIGFPE, "SIGFPE"},   {SIGABRT, "SIGABRT"}, {SIGKILL, "SIGKILL"}};
    if (flags & HP_RANKF_ABORTED)
        return "MPI_Abort";
    if (flags & HP_RANKF_SIGNALED) {
        int sig = (int)(flags >> HP_RANKF_SIGNAL_SHIFT);
        for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
            if (names[i].sig == sig)
                return names[i].name;
        snprintf(buf, len, "signal %d", sig);
        return buf;
    }
    if (flags & HP_RANKF_UNFINALIZED)
        return "exit without MPI_Finalize";
    return NULL;
}
