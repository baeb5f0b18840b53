/*
 * hpf_section.h - the profile reader's primitives (hpf_read.c decodes
 * with them; hpf_section.c defines them): the decoder's state, one
 * section's bounds and cursor, errors as one line with the byte offset,
 * section headers, and bounded reads of the payload's fields with the
 * value domains SQLite and the reports can hold.  Internal to the reader.
 */
#ifndef HPF_SECTION_H
#define HPF_SECTION_H

#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include "hp_format.h"

typedef struct hpf_reader {
    const unsigned char *data;
    size_t len;
    const char *name;
    char *err;
    size_t errlen;
    uint32_t version;     /* the file's format version */
    int mapped;           /* data is a file mapping: release_decoded(), and
                             the comm records are left in it (comm_at) */
    size_t released;      /* data[0, released) given back to the kernel */
    size_t *comm_at;      /* of a mapping: each rank's first comm record */
    int lazy_nodes;       /* of a mapping (hpf_read_lazy): the node records
                             checked, then left in it, */
    size_t *node_at;      /* each rank's first one */
} hpf_reader;

/* One section being decoded: its header position, payload bounds and a
 * cursor inside the payload. */
typedef struct hpf_section {
    uint32_t tag;
    long rank;            /* rank the section belongs to, -1 for RUN/END */
    size_t at;            /* offset of the section header */
    size_t start, end;    /* payload [start, end) */
    size_t pos;           /* read cursor */
} hpf_section;

/* Counts, bytes and unix times are stored as SQLite INTEGER, a signed 64-bit
 * value: one of 2^63 or more would turn negative, so it is rejected. */
#define HPF_MAX_COUNT INT64_MAX

/* Times in seconds: finite and not negative. */
static inline int hpf_good_time(double v)
{
    return isfinite(v) && v >= 0;
}

/* One line "NAME: offset N: ..." into the reader's err; returns -1. */
int hpf_fail(hpf_reader *r, size_t offset, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
const char *hpf_tag_name(uint32_t tag);
const char *hpf_describe(uint32_t tag, long rank, char *buf, size_t len);
const char *hpf_sec_desc(const hpf_section *s, char *buf, size_t len);
int hpf_check_header(hpf_reader *r, size_t pos, uint32_t tag, long rank, uint64_t *plen);
int hpf_open_section(hpf_reader *r, size_t pos, uint32_t tag, long rank, hpf_section *s);
int hpf_need(hpf_reader *r, hpf_section *s, size_t n, const char *field);
int hpf_get_u32(hpf_reader *r, hpf_section *s, const char *field, uint32_t *v);
int hpf_get_u64(hpf_reader *r, hpf_section *s, const char *field, uint64_t *v);
int hpf_get_f64(hpf_reader *r, hpf_section *s, const char *field, double *v);
int hpf_bad_count(hpf_reader *r, size_t at, uint64_t v, const char *field, const char *where);
int hpf_bad_time(hpf_reader *r, size_t at, double v, const char *field, const char *where);
int hpf_get_count(hpf_reader *r, hpf_section *s, const char *field, uint64_t *v);
int hpf_get_time(hpf_reader *r, hpf_section *s, const char *field, double *v);
int hpf_get_str(hpf_reader *r, hpf_section *s, const char *field, char **out);
int hpf_close_section(hpf_reader *r, hpf_section *s);
int hpf_check_count(hpf_reader *r, hpf_section *s, size_t at, uint32_t count,
                    size_t item_min, const char *items);
int hpf_record_count(hpf_reader *r, hpf_section *s, size_t reclen, uint32_t *n);

/* The RUN section at *pos into out->run (hpf_read.c); *pos moves past it. */
struct hpf_profile;
int hpf_read_run(hpf_reader *r, size_t *pos, struct hpf_profile *out);

#endif
