/*
 * format.c - codecs of the profile file format described in hp_format.h:
 * CRC-32 and the fixed-size record layouts.  Used by writer and reader.
 */
#include <signal.h>
#include <stdio.h>
#include "hp_format.h"

/* CRC-32 (IEEE), eight bytes a step ("slicing by 8"): crc_table[k][b] is
 * the CRC of byte b followed by k zero bytes.  The analyzer checks and
 * identifies profiles of up to gigabytes with it. */
static uint32_t crc_table[8][256];
static int crc_ready;

static uint32_t le32(const unsigned char *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

/* The register c (inverted, as the algorithm keeps it) after len bytes. */
static uint32_t crc_slices(uint32_t c, const unsigned char *p, size_t len)
{
    for (; len >= 8; p += 8, len -= 8) {
        uint32_t lo = c ^ le32(p), hi = le32(p + 4);
        c = crc_table[7][lo & 0xff] ^ crc_table[6][(lo >> 8) & 0xff] ^
            crc_table[5][(lo >> 16) & 0xff] ^ crc_table[4][lo >> 24] ^
            crc_table[3][hi & 0xff] ^ crc_table[2][(hi >> 8) & 0xff] ^
            crc_table[1][(hi >> 16) & 0xff] ^ crc_table[0][hi >> 24];
    }
    while (len--)
        c = crc_table[0][(c ^ *p++) & 0xff] ^ (c >> 8);
    return c;
}

#if defined(__x86_64__) && defined(__GNUC__)
#define HP_CRC_FOLD 1
#include <immintrin.h>

/* With the carry-less multiply of x86-64 (PCLMULQDQ), 64 bytes a step by
 * folding: the message is a polynomial over GF(2) and only its remainder
 * modulo the CRC's polynomial P matters, so a 128-bit block B followed by
 * F more bits may be replaced by B x^F mod P, which two multiplications by
 * constants give (one per 64-bit half).  Four blocks are carried 512 bits
 * ahead at a time, then folded into one, whose CRC the table finishes:
 * the same polynomial and result, about 5x faster.  Bit order: the CRC is
 * reflected (a byte's lowest bit first), so a 16-byte load holds the
 * coefficient of x^(127 - i) in bit i; the product of two reflected 64-bit
 * halves comes out reflected in 128 bits one degree short, which the
 * constants' exponents (F + 63 and F - 1 instead of F + 64 and F) make up. */
static int crc_fold_ok;
static __m128i fold_512, fold_128;     /* the constants for F = 512 and F = 128 */

/* x^n mod P, bit k the coefficient of x^k (P = 0x104c11db7). */
static uint32_t x_pow_mod(uint32_t n)
{
    uint32_t r = 1;
    while (n--)
        r = (r << 1) ^ (r & 0x80000000u ? 0x04c11db7u : 0);
    return r;
}

/* x^n mod P as the reflected 64-bit operand of a multiplication. */
static uint64_t reflected(uint32_t n)
{
    uint32_t r = x_pow_mod(n), rev = 0;
    for (int k = 0; k < 32; k++)
        rev |= ((r >> k) & 1u) << (31 - k);
    return (uint64_t)rev << 32;
}

static void crc_fold_init(void)
{
    fold_512 = _mm_set_epi64x((long long)reflected(512 - 1), (long long)reflected(512 + 63));
    fold_128 = _mm_set_epi64x((long long)reflected(128 - 1), (long long)reflected(128 + 63));
    __builtin_cpu_init();       /* may run before the constructors */
    crc_fold_ok = __builtin_cpu_supports("pclmul") && __builtin_cpu_supports("sse2");
}

/* a x^F mod P (k: F's constants), plus b. */
__attribute__((target("pclmul,sse2"))) static __m128i fold(__m128i a, __m128i k, __m128i b)
{
    return _mm_xor_si128(_mm_xor_si128(_mm_clmulepi64_si128(a, k, 0x00),
                                       _mm_clmulepi64_si128(a, k, 0x11)), b);
}

/* As crc_slices, for len >= 64. */
__attribute__((target("pclmul,sse2"))) static uint32_t crc_folded(uint32_t c,
                                                                  const unsigned char *p,
                                                                  size_t len)
{
    __m128i a0 = _mm_xor_si128(_mm_loadu_si128((const __m128i *)p), _mm_cvtsi32_si128((int)c));
    __m128i a1 = _mm_loadu_si128((const __m128i *)(p + 16));
    __m128i a2 = _mm_loadu_si128((const __m128i *)(p + 32));
    __m128i a3 = _mm_loadu_si128((const __m128i *)(p + 48));
    unsigned char last[16];
    for (p += 64, len -= 64; len >= 64; p += 64, len -= 64) {
        a0 = fold(a0, fold_512, _mm_loadu_si128((const __m128i *)p));
        a1 = fold(a1, fold_512, _mm_loadu_si128((const __m128i *)(p + 16)));
        a2 = fold(a2, fold_512, _mm_loadu_si128((const __m128i *)(p + 32)));
        a3 = fold(a3, fold_512, _mm_loadu_si128((const __m128i *)(p + 48)));
    }
    a0 = fold(fold(fold(a0, fold_128, a1), fold_128, a2), fold_128, a3);
    for (; len >= 16; p += 16, len -= 16)
        a0 = fold(a0, fold_128, _mm_loadu_si128((const __m128i *)p));
    _mm_storeu_si128((__m128i *)last, a0);
    return crc_slices(crc_slices(0, last, sizeof last), p, len);
}
#endif

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
#ifdef HP_CRC_FOLD
    crc_fold_init();
#endif
    __atomic_store_n(&crc_ready, 1, __ATOMIC_RELEASE);  /* after the tables */
}

uint32_t hp_crc32_update(uint32_t crc, const void *data, size_t len)
{
    uint32_t c = crc ^ 0xffffffffu;
    if (!__atomic_load_n(&crc_ready, __ATOMIC_ACQUIRE))
        crc_init();     /* idempotent: two threads may both run it */
#ifdef HP_CRC_FOLD
    if (crc_fold_ok && len >= 64)
        return crc_folded(c, data, len) ^ 0xffffffffu;
#endif
    return crc_slices(c, data, len) ^ 0xffffffffu;
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
