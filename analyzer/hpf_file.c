/*
 * hpf_file.c - hpf_read (hpf_read.h): a profile file into memory for the
 * decoder.  A regular file is mapped read-only, not copied, and the
 * decoder gives its pages back as it goes (hpf_decode_mapped), so a large
 * profile is never resident whole; anything else is read whole.  A file
 * cut short by someone else while it is mapped makes its missing pages
 * raise SIGBUS: the decoder then stops with an error instead.
 */
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

/* Maps a regular, non-empty file read-only; NULL otherwise. */
static unsigned char *map_file(const char *path, size_t *len)
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
    close(fd);
    return data == MAP_FAILED ? NULL : data;
}

/* Where SIGBUS returns to while a mapping is decoded (one at a time: the
 * analyzer reads one file at a time, in one thread). */
static sigjmp_buf *bus_return;

static void on_sigbus(int sig)
{
    (void)sig;
    siglongjmp(*bus_return, 1);
}

int hpf_decode_file_mapping(const unsigned char *data, size_t len, const char *path,
                            hpf_profile *out, char *err, size_t errlen)
{
    struct sigaction bus, old;
    sigjmp_buf here;
    memset(&bus, 0, sizeof bus);
    bus.sa_handler = on_sigbus;
    sigemptyset(&bus.sa_mask);
    memset(out, 0, sizeof *out);
    if (bus_return || sigaction(SIGBUS, &bus, &old) != 0)
        return hpf_decode_mapped(data, len, path, out, err, errlen);
    int rc;
    bus_return = &here;
    if (sigsetjmp(here, 1) == 0) {
        rc = hpf_decode_mapped(data, len, path, out, err, errlen);
    } else {
        /* the decoder stopped mid-way: what it had built is freed (the
         * reader's own scratch, if any, is lost: this is an exit path) */
        hpf_free(out);
        snprintf(err, errlen, "%s: the file was cut short while it was being read", path);
        rc = -1;
    }
    bus_return = NULL;
    sigaction(SIGBUS, &old, NULL);
    return rc;
}

/* A regular file is mapped and decoded rank by rank, its pages released
 * behind the decoder; anything else (a pipe, an empty file) is read whole. */
int hpf_read(const char *path, hpf_profile *out, char *err, size_t errlen)
{
    size_t len;
    memset(out, 0, sizeof *out);
    unsigned char *data = map_file(path, &len);
    if (data) {
        int rc = hpf_decode_file_mapping(data, len, path, out, err, errlen);
        munmap(data, len);
        return rc;
    }
    data = slurp(path, &len, err, errlen);
    if (!data)
        return -1;
    int rc = hpf_decode(data, len, path, out, err, errlen);
    free(data);
    return rc;
}

