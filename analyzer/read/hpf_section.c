/*
 * hpf_section.c - the profile reader's primitives (hpf_section.h): one-line
 * errors with the byte offset, section headers checked against the file,
 * and bounded, domain-checked reads of a payload's fields.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "hpf_section.h"

int hpf_fail(hpf_reader *r, size_t offset, const char *fmt, ...)
{
    va_list ap;
    int n = snprintf(r->err, r->errlen, "%s: offset %zu: ", r->name, offset);
    if (n >= 0 && (size_t)n < r->errlen) {
        va_start(ap, fmt);
        vsnprintf(r->err + n, r->errlen - (size_t)n, fmt, ap);
        va_end(ap);
    }
    return -1;
}

const char *hpf_tag_name(uint32_t tag)
{
    switch (tag) {
    case HP_SEC_RUN: return "RUN";
    case HP_SEC_RANK: return "RANK";
    case HP_SEC_STRS: return "STRS";
    case HP_SEC_SITE: return "SITE";
    case HP_SEC_NODE: return "NODE";
    case HP_SEC_COMM: return "COMM";
    case HP_SEC_TASK: return "TASK";
    case HP_SEC_CNTR: return "CNTR";
    case HP_SEC_END: return "END";
    default: return NULL;
    }
}

/* "NODE section of rank 2" or "RUN section" */
const char *hpf_describe(uint32_t tag, long rank, char *buf, size_t len)
{
    if (rank >= 0)
        snprintf(buf, len, "%s section of rank %ld", hpf_tag_name(tag), rank);
    else
        snprintf(buf, len, "%s section", hpf_tag_name(tag));
    return buf;
}

const char *hpf_sec_desc(const hpf_section *s, char *buf, size_t len)
{
    return hpf_describe(s->tag, s->rank, buf, len);
}

/* Reads the header at `pos` and checks its tag and that its payload
 * lies within the file; *plen is the payload's length. */
int hpf_check_header(hpf_reader *r, size_t pos, uint32_t tag, long rank, uint64_t *plen)
{
    char what[64], found[32];
    hpf_describe(tag, rank, what, sizeof what);
    if (pos == r->len)
        return hpf_fail(r, pos, "file truncated: %s missing", what);
    if (r->len - pos < HP_SECTION_HEADER_LEN)
        return hpf_fail(r, pos, "file truncated inside the header of the %s", what);

    const unsigned char *h = r->data + pos;
    uint32_t got = hp_get_u32(h);
    if (got != tag) {
        if (hpf_tag_name(got))
            snprintf(found, sizeof found, "%s section", hpf_tag_name(got));
        else
            snprintf(found, sizeof found, "unknown tag 0x%08x", got);
        return hpf_fail(r, pos, "expected %s, found %s", what, found);
    }
    *plen = hp_get_u64(h + 8);
    size_t avail = r->len - pos - HP_SECTION_HEADER_LEN;
    if (*plen > avail)
        return hpf_fail(r, pos, "file truncated: %s has %llu payload bytes, only %zu left",
                    what, (unsigned long long)*plen, avail);
    return 0;
}

static int known_files;     /* hpf_read_known: payload checksums not recomputed */

void hpf_read_known(int known)
{
    known_files = known;
}

/* Reads the header at `pos` and checks tag, length and checksum. */
int hpf_open_section(hpf_reader *r, size_t pos, uint32_t tag, long rank, hpf_section *s)
{
    char what[64];
    uint64_t plen;
    if (hpf_check_header(r, pos, tag, rank, &plen))
        return -1;
    const unsigned char *h = r->data + pos;
    if (!known_files && hp_crc32(h + HP_SECTION_HEADER_LEN, (size_t)plen) != hp_get_u32(h + 4))
        return hpf_fail(r, pos, "checksum mismatch in %s", hpf_describe(tag, rank, what, sizeof what));

    s->tag = tag;
    s->rank = rank;
    s->at = pos;
    s->start = s->pos = pos + HP_SECTION_HEADER_LEN;
    s->end = s->start + (size_t)plen;
    return 0;
}

int hpf_need(hpf_reader *r, hpf_section *s, size_t n, const char *field)
{
    char what[64];
    if (s->end - s->pos >= n)
        return 0;
    return hpf_fail(r, s->pos, "%s of the %s runs past the end of its payload", field,
                hpf_sec_desc(s, what, sizeof what));
}

int hpf_get_u32(hpf_reader *r, hpf_section *s, const char *field, uint32_t *v)
{
    if (hpf_need(r, s, 4, field))
        return -1;
    *v = hp_get_u32(r->data + s->pos);
    s->pos += 4;
    return 0;
}

int hpf_get_u64(hpf_reader *r, hpf_section *s, const char *field, uint64_t *v)
{
    if (hpf_need(r, s, 8, field))
        return -1;
    *v = hp_get_u64(r->data + s->pos);
    s->pos += 8;
    return 0;
}

int hpf_get_f64(hpf_reader *r, hpf_section *s, const char *field, double *v)
{
    if (hpf_need(r, s, 8, field))
        return -1;
    *v = hp_get_f64(r->data + s->pos);
    s->pos += 8;
    return 0;
}

/* ---- value domains: what SQLite and the reports can hold exactly ---- */


int hpf_bad_count(hpf_reader *r, size_t at, uint64_t v, const char *field, const char *where)
{
    if (v <= (uint64_t)HPF_MAX_COUNT)
        return 0;
    return hpf_fail(r, at, "%s: %s %llu is 2^63 or more", where, field, (unsigned long long)v);
}


int hpf_bad_time(hpf_reader *r, size_t at, double v, const char *field, const char *where)
{
    if (hpf_good_time(v))
        return 0;
    return hpf_fail(r, at, "%s: %s %g is not a finite time >= 0", where, field, v);
}

int hpf_get_count(hpf_reader *r, hpf_section *s, const char *field, uint64_t *v)
{
    char what[64];
    size_t at = s->pos;
    if (hpf_get_u64(r, s, field, v))
        return -1;
    return hpf_bad_count(r, at, *v, field, hpf_sec_desc(s, what, sizeof what));
}

int hpf_get_time(hpf_reader *r, hpf_section *s, const char *field, double *v)
{
    char what[64];
    size_t at = s->pos;
    if (hpf_get_f64(r, s, field, v))
        return -1;
    return hpf_bad_time(r, at, *v, field, hpf_sec_desc(s, what, sizeof what));
}

/* str = u32 length then the bytes; returned NUL-terminated and malloc'ed. */
int hpf_get_str(hpf_reader *r, hpf_section *s, const char *field, char **out)
{
    char what[64];
    size_t at = s->pos;
    uint32_t n;
    if (hpf_get_u32(r, s, field, &n) || hpf_need(r, s, n, field))
        return -1;
    const unsigned char *p = r->data + s->pos;
    if (memchr(p, 0, n))
        return hpf_fail(r, at, "%s of the %s contains a NUL byte", field,
                    hpf_sec_desc(s, what, sizeof what));
    char *str = malloc((size_t)n + 1);
    if (!str)
        return hpf_fail(r, at, "out of memory");
    memcpy(str, p, n);
    str[n] = '\0';
    s->pos += n;
    *out = str;
    return 0;
}

/* The payload must have been consumed exactly. */
int hpf_close_section(hpf_reader *r, hpf_section *s)
{
    char what[64];
    if (s->pos != s->end)
        return hpf_fail(r, s->pos, "%zu unexpected bytes at the end of the %s",
                    s->end - s->pos, hpf_sec_desc(s, what, sizeof what));
    return 0;
}

/* A count read from the payload must fit in what is left (each item takes
 * at least `item_min` bytes), which also bounds the allocation. */
int hpf_check_count(hpf_reader *r, hpf_section *s, size_t at, uint32_t count,
                    size_t item_min, const char *items)
{
    char what[64];
    if ((uint64_t)count * item_min > s->end - s->pos)
        return hpf_fail(r, at, "%s count %u of the %s is larger than its payload", items,
                    count, hpf_sec_desc(s, what, sizeof what));
    return 0;
}

/* Record arrays: n = length / record size, no remainder. */
int hpf_record_count(hpf_reader *r, hpf_section *s, size_t reclen, uint32_t *n)
{
    char what[64];
    size_t plen = s->end - s->start;
    if (plen % reclen)
        return hpf_fail(r, s->at, "%s payload length %zu is not a multiple of the record size %zu",
                    hpf_sec_desc(s, what, sizeof what), plen, reclen);
    if (plen / reclen > UINT32_MAX)
        return hpf_fail(r, s->at, "too many records in the %s", hpf_sec_desc(s, what, sizeof what));
    *n = (uint32_t)(plen / reclen);
    return 0;
}
