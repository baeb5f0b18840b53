/*
 * hpf_file.c - hpf_read (hpf_read.h): a profile file into memory for the
 * decoder.  A regular file is mapped read-only, not copied, and the
 * decoder gives its pages back as it goes (hpf_decode_mapped), so a large
 * profile is never resident whole; anything else is read whole.  A file
 * cut short by someone else while it is mapped makes its missing pages
 * raise SIGBUS: the decoder then stops with an error instead.
 */
#include <assert.h>
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include "hpf_read.h"

/* Reads the whole file into memory. */
static unsigned char *slurp(const char *path, size_t *len, char *err, size_t errlen)
{
    FILE *f = fopen(path, "rb");
    unsigned char *data = NULL;
    size_t cap = 0, n = 0;
    if (!f) {
        snprintf(err, errlen, "%s: %s", path, strerror(errno));
        return NULL;
    }
    for (;;) {
        if (n == cap) {
            size_t ncap = cap ? cap * 2 : 65536;
            unsigned char *d = realloc(data, ncap);
            if (!d) {
                snprintf(err, errlen, "%s: out of memory", path);
                goto failed;
            }
            data = d;
            cap = ncap;
        }
        size_t got = fread(data + n, 1, cap - n, f);
        n += got;
        if (got == 0)
            break;
    }
    if (ferror(f)) {
        snprintf(err, errlen, "%s: read error: %s", path, strerror(errno));
        goto failed;
    }
    fclose(f);
    *len = n;
    return data;
failed:
    free(data);
    fclose(f);
    return NULL;
}

/* Maps a regular, non-empty file read-only, *fd left open on it (the
 * records read later are read with it); NULL otherwise. */
static unsigned char *map_file(const char *path, size_t *len, int *map_fd)
{
    struct stat st;
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    void *data = MAP_FAILED;
    if (fd < 0)
        return NULL;
    if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_size > 0 &&
        (uintmax_t)st.st_size <= SIZE_MAX) {
        data = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
        if (data != MAP_FAILED) {
            *len = (size_t)st.st_size;
            madvise(data, *len, MADV_SEQUENTIAL);
        }
    }
    if (data == MAP_FAILED) {
        close(fd);
        return NULL;
    }
    *map_fd = fd;
    return data;
}

/* Where SIGBUS returns to while a mapping is decoded, per thread (the
 * merge loads comm records in a second thread, db_rows.c). */
static __thread sigjmp_buf *bus_return;

static void on_sigbus(int sig)
{
    if (!bus_return) {      /* not ours: what SIGBUS does by default */
        signal(sig, SIG_DFL);
        raise(sig);
        return;
    }
    siglongjmp(*bus_return, 1);
}

/* Runs fn(arg) with SIGBUS (a page of the mapping beyond the end of a
 * file cut short) turned into the return value 1.  The action is set and
 * restored here: one thread at a time reads a mapping (while the merge's
 * second thread loads comm records, the first reads the file with pread). */
static int guarded(int (*fn)(void *), void *arg)
{
    struct sigaction bus, old;
    sigjmp_buf here;
    memset(&bus, 0, sizeof bus);
    bus.sa_handler = on_sigbus;
    sigemptyset(&bus.sa_mask);
    if (bus_return || sigaction(SIGBUS, &bus, &old) != 0)
        return fn(arg) ? -1 : 0;
    int rc;
    bus_return = &here;
    if (sigsetjmp(here, 1) == 0)
        rc = fn(arg) ? -1 : 0;
    else
        rc = 1;
    bus_return = NULL;
    sigaction(SIGBUS, &old, NULL);
    return rc;
}

typedef struct decode_call {
    const unsigned char *data;
    size_t len;
    const char *path;
    hpf_profile *out;
    int lazy;
    char *err;
    size_t errlen;
} decode_call;

static int run_decode(void *arg)
{
    decode_call *c = arg;
    return c->lazy ? hpf_decode_mapped_lazy(c->data, c->len, c->path, c->out, c->err, c->errlen)
                   : hpf_decode_mapped(c->data, c->len, c->path, c->out, c->err, c->errlen);
}

static void cut_short(const char *path, char *err, size_t errlen)
{
    snprintf(err, errlen, "%s: the file was cut short while it was being read", path);
}

int hpf_decode_file_mapping(const unsigned char *data, size_t len, const char *path,
                            hpf_profile *out, int lazy, char *err, size_t errlen)
{
    decode_call call = {data, len, path, out, lazy, err, errlen};
    memset(out, 0, sizeof *out);
    int rc = guarded(run_decode, &call);
    if (rc == 1) {
        /* the decoder stopped mid-way: what it had built is freed (the
         * reader's own scratch, if any, is lost: this is an exit path) */
        hpf_free(out);
        cut_short(path, err, errlen);
        return -1;
    }
    return rc;
}

/* Bytes [at, at + len) of the profile's file into a new buffer, read
 * with pread, not through the mapping: touching the mapping would map the
 * pages around them too (the kernel's fault-around), which a large
 * profile's passes over its ranks would count by the gigabyte.  NULL
 * with err set (out of memory, the file cut short since). */
static unsigned char *read_range(const hpf_profile *p, size_t at, size_t len, char *err,
                                 size_t errlen)
{
    const char *path = p->map_path ? p->map_path : "the profile";
    unsigned char *buf = malloc(len ? len : 1);
    assert(p->map);
    if (!buf) {
        snprintf(err, errlen, "out of memory");
        return NULL;
    }
    if (hpf_pread_all(p->map_fd, buf, len, at)) {
        free(buf);
        cut_short(path, err, errlen);
        return NULL;
    }
    return buf;
}

int hpf_load_comms(hpf_profile *p, uint32_t r, char *err, size_t errlen)
{
    hp_rank_data *rd = &p->ranks[r];
    if (rd->comms || rd->ncomms == 0)
        return 0;
    assert(p->map && p->comm_at);
    unsigned char *buf = read_range(p, p->comm_at[r], (size_t)rd->ncomms * HP_COMM_REC_LEN,
                                    err, errlen);
    rd->comms = buf ? malloc((size_t)rd->ncomms * sizeof *rd->comms) : NULL;
    if (!rd->comms) {
        if (buf)
            snprintf(err, errlen, "out of memory");
        free(buf);
        return -1;
    }
    for (uint32_t i = 0; i < rd->ncomms; i++)
        hp_comm_rec_get(buf + (size_t)i * HP_COMM_REC_LEN, &rd->comms[i]);
    free(buf);
    return 0;
}

int hpf_load_nodes(hpf_profile *p, uint32_t r, char *err, size_t errlen)
{
    hp_rank_data *rd = &p->ranks[r];
    if (rd->nodes || !p->node_at)
        return 0;
    assert(p->map);
    size_t reclen = p->version >= 4 ? HP_NODE_REC_LEN : HP_NODE_REC_LEN_V3;
    unsigned char *buf = read_range(p, p->node_at[r], (size_t)rd->nnodes * reclen, err, errlen);
    rd->nodes = buf ? malloc((rd->nnodes ? rd->nnodes : 1) * sizeof *rd->nodes) : NULL;
    if (!rd->nodes) {
        if (buf)
            snprintf(err, errlen, "out of memory");
        free(buf);
        return -1;
    }
    for (uint32_t i = 0; i < rd->nnodes; i++) {
        const unsigned char *at = buf + (size_t)i * reclen;
        if (reclen == HP_NODE_REC_LEN)
            hp_node_rec_get(at, &rd->nodes[i]);
        else
            hp_node_rec_get_v3(at, &rd->nodes[i]);
    }
    free(buf);
    return 0;
}

void hpf_drop_nodes(hpf_profile *p, uint32_t r)
{
    if (!p->node_at)
        return;
    free(p->ranks[r].nodes);
    p->ranks[r].nodes = NULL;
}

/* A regular file is mapped and decoded rank by rank, its pages released
 * behind the decoder; anything else (a pipe, an empty file) is read whole. */
static int read_file(const char *path, int lazy, hpf_profile *out, char *err, size_t errlen)
{
    size_t len;
    int fd = -1;
    memset(out, 0, sizeof *out);
    unsigned char *data = map_file(path, &len, &fd);
    if (data) {
        int rc = hpf_decode_file_mapping(data, len, path, out, lazy, err, errlen);
        if (rc == 0 && !(out->map_path = strdup(path))) {
            hpf_free(out);
            snprintf(err, errlen, "%s: out of memory", path);
            rc = -1;
        }
        if (rc == 0) {
            out->map = data;        /* its records are read from it */
            out->map_len = len;
            out->map_fd = fd;
        } else {
            munmap(data, len);
            close(fd);
        }
        return rc;
    }
    data = slurp(path, &len, err, errlen);
    if (!data)
        return -1;
    int rc = hpf_decode(data, len, path, out, err, errlen);
    free(data);
    return rc;
}

int hpf_read(const char *path, hpf_profile *out, char *err, size_t errlen)
{
    return read_file(path, 0, out, err, errlen);
}

int hpf_read_lazy(const char *path, hpf_profile *out, char *err, size_t errlen)
{
    return read_file(path, 1, out, err, errlen);
}

int hpf_pread_all(int fd, void *buf, size_t len, uint64_t at)
{
    unsigned char *to = buf;
    while (len > 0) {
        ssize_t got = pread(fd, to, len, (off_t)at);
        if (got < 0 && errno == EINTR)
            continue;
        if (got <= 0)
            return -1;
        to += got;
        len -= (size_t)got;
        at += (uint64_t)got;
    }
    return 0;
}
