/*
 * identity.c - the identity of a profile file (db.h, hpf_file_identity):
 * what a database records as run key source_id, and what hprof-query
 * compares before every query of a profile path to know whether the
 * database next to it is still its merge.
 *
 * Every section of a profile carries the CRC32 of its payload in its
 * header, so the preamble and the section headers identify the content:
 * reading them costs a few thousand small reads, where a CRC of the whole
 * file read a gigabyte at 1024 ranks, at every query.  A regular file
 * that does not have that structure (not a profile, cut short, bytes
 * after its end section) is no database's merge: its identity says so
 * without reading it (a sparse 4 GiB file would take seconds); what is
 * not a regular file (a pipe) is identified by the CRC of all its bytes.
 */
#include "config.h"
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "db.h"
#include "hp_format.h"
#include "read/hpf_read.h"

/* CRC of the preamble and every section header: 0, or -1 when the file
 * is not laid out as a profile. */
static int structure_crc(int fd, uint64_t size, uint32_t *crc)
{
    unsigned char pre[HP_PREAMBLE_LEN], h[HP_SECTION_HEADER_LEN];
    if (size < HP_PREAMBLE_LEN || hpf_pread_all(fd, pre, sizeof pre, 0) != 0 ||
        memcmp(pre, HP_FORMAT_MAGIC, HP_FORMAT_MAGIC_LEN) != 0)
        return -1;
    uint32_t c = hp_crc32_update(0, pre, sizeof pre);
    uint64_t pos = HP_PREAMBLE_LEN;
    for (;;) {
        if (size - pos < HP_SECTION_HEADER_LEN || hpf_pread_all(fd, h, sizeof h, pos) != 0)
            return -1;
        c = hp_crc32_update(c, h, sizeof h);
        uint64_t plen = hp_get_u64(h + 8);
        if (plen > size - pos - HP_SECTION_HEADER_LEN)
            return -1;
        pos += HP_SECTION_HEADER_LEN + plen;
        if (hp_get_u32(h) == HP_SEC_END)
            break;
    }
    if (pos != size)
        return -1;
    *crc = c;
    return 0;
}

/* CRC of every byte from the start. */
static int whole_crc(int fd, uint64_t *size, uint32_t *crc)
{
    unsigned char buf[1 << 16];
    uint32_t c = 0;
    uint64_t n = 0;
    ssize_t got;
    if (lseek(fd, 0, SEEK_SET) < 0 && errno != ESPIPE)
        return -1;
    while ((got = read(fd, buf, sizeof buf)) != 0) {
        if (got < 0 && errno == EINTR)
            continue;
        if (got < 0)
            return -1;
        c = hp_crc32_update(c, buf, (size_t)got);
        n += (uint64_t)got;
    }
    *size = n;
    *crc = c;
    return 0;
}

int hpf_file_identity(const char *path, char *out, size_t len)
{
    struct stat st;
    uint64_t size = 0;
    uint32_t crc = 0;
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return -1;
    int rc = fstat(fd, &st), laid_out = 1;
    if (rc == 0) {
        size = S_ISREG(st.st_mode) ? (uint64_t)st.st_size : 0;
        if (!S_ISREG(st.st_mode))
            rc = whole_crc(fd, &size, &crc);
        else
            laid_out = structure_crc(fd, size, &crc) == 0;
    }
    int saved = errno;
    close(fd);
    if (rc != 0) {
        errno = saved ? saved : EIO;
        return -1;
    }
    if (laid_out)
        snprintf(out, len, "%llu:%08x", (unsigned long long)size, crc);
    else
        snprintf(out, len, "%llu:unstructured", (unsigned long long)size);
    return 0;
}
