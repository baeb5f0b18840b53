/*
 * hpf_agg.c - the reader of aggregated profiles (hpf_agg.h): the preamble
 * and RUN section as in a full profile, then RTOT and the tree's sections
 * through the codec's decoder (hp_aggprof.h), then END.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "hpf_agg.h"
#include "hpf_read.h"
#include "hpf_section.h"

static unsigned char *slurp(const char *path, size_t *len, char *err, size_t errlen)
{
    FILE *f = fopen(path, "rb");
    unsigned char *data = NULL;
    long n = -1;
    if (f && fseek(f, 0, SEEK_END) == 0 && (n = ftell(f)) >= 0 && fseek(f, 0, SEEK_SET) == 0 &&
        (data = malloc(n ? (size_t)n : 1)) && fread(data, 1, (size_t)n, f) == (size_t)n) {
        fclose(f);
        *len = (size_t)n;
        return data;
    }
    snprintf(err, errlen, "%s: cannot read it", path);
    free(data);
    if (f)
        fclose(f);
    return NULL;
}

int hpf_is_aggregate(const char *path)
{
    unsigned char head[HP_PREAMBLE_LEN];
    FILE *f = fopen(path, "rb");
    int yes = f && fread(head, 1, sizeof head, f) == sizeof head &&
              memcmp(head, HP_FORMAT_MAGIC, HP_FORMAT_MAGIC_LEN) == 0 &&
              hp_get_u32(head + 8) == HP_FORMAT_AGG_VERSION;
    if (f)
        fclose(f);
    return yes;
}

/* The END section at pos: the last thing in the file, saying its length. */
static int read_end(hpf_reader *r, size_t pos, uint32_t nranks)
{
    hpf_section s;
    uint32_t n;
    uint64_t len;
    if (hpf_open_section(r, pos, HP_SEC_END, -1, &s) || hpf_get_u32(r, &s, "rank count", &n) ||
        hpf_get_u64(r, &s, "file length", &len) || hpf_close_section(r, &s))
        return -1;
    if (n != nranks || len != r->len || s.end != r->len)
        return hpf_fail(r, pos, "END section does not close the file (%u ranks, %llu bytes)", n,
                        (unsigned long long)len);
    return 0;
}

/* The tree's sections end where the END section starts: the last
 * HP_END_SECTION_LEN bytes. */
static int decode(hpf_reader *r, hpf_aggfile *out)
{
    hpf_profile run;
    size_t pos = HP_PREAMBLE_LEN, bad = 0;
    memset(&run, 0, sizeof run);
    if (r->len < HP_PREAMBLE_LEN + HP_END_SECTION_LEN ||
        memcmp(r->data, HP_FORMAT_MAGIC, HP_FORMAT_MAGIC_LEN) != 0 ||
        hp_get_u32(r->data + 8) != HP_FORMAT_AGG_VERSION)
        return hpf_fail(r, 0, "not an aggregated hprof profile");
    r->version = HP_FORMAT_AGG_VERSION;
    if (hpf_read_run(r, &pos, &run))
        return -1;
    out->run = run.run;
    int used = hp_rank_totals_decode(r->data + pos, r->len - pos, &out->ranks, &out->nranks);
    if (used < 0 || out->nranks != out->run.nranks)
        return hpf_fail(r, pos, "RTOT section: bad per-rank totals (not one per rank of %u)",
                        out->run.nranks);
    pos += (size_t)used;
    size_t end = r->len - HP_END_SECTION_LEN;
    if (pos > end || hp_aggprof_decode(&out->tree, r->data + pos, end - pos, &bad))
        return hpf_fail(r, pos + bad, "the aggregated tree's sections are damaged");
    if (out->tree.nnodes == 0)
        return hpf_fail(r, pos, "the aggregated tree has no root");
    return read_end(r, end, out->nranks);
}

int hpf_agg_read(const char *path, hpf_aggfile *out, char *err, size_t errlen)
{
    size_t len = 0;
    memset(out, 0, sizeof *out);
    unsigned char *data = slurp(path, &len, err, errlen);
    if (!data)
        return -1;
    hpf_reader r = {.data = data, .len = len, .name = path, .err = err, .errlen = errlen};
    out->file_len = len;
    int rc = decode(&r, out);
    free(data);
    if (rc)
        hpf_agg_free(out);
    return rc;
}

void hpf_agg_free(hpf_aggfile *f)
{
    hp_run_info_free(&f->run);
    free(f->ranks);
    hp_aggprof_free(&f->tree);
    memset(f, 0, sizeof *f);
}
