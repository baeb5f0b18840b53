/*
 * snapshot_image.c - a rank's live snapshot kept between snapshots
 * (hp_snapshot_image.h): the node and comm payloads re-encoded record by
 * record where they changed, checksummed in blocks, and the file written
 * from the pieces.
 */
#define _GNU_SOURCE
#include <assert.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>
#include <unistd.h>
#include "hp_clock.h"
#include "hp_finish.h"
#include "hp_snapshot_image.h"

#define BLOCK_BITS 16 /* a payload's blocks of 64 KiB, checksummed one by one */
#define BLOCK ((size_t)1 << BLOCK_BITS)

static int grow_blocks(hp_image_part *p, size_t nblocks)
{
    if (nblocks <= p->blocks_cap)
        return 0;
    size_t cap = nblocks + nblocks / 4 + 16;
    uint32_t *crc = realloc(p->crc, cap * sizeof *crc);
    if (!crc)
        return -1;
    p->crc = crc;
    unsigned char *stale = realloc(p->stale, cap);
    if (!stale)
        return -1;
    p->stale = stale;
    p->blocks_cap = cap;
    return 0;
}

/* Makes p len bytes long: new bytes are 0, and the blocks from the old
 * last one on are stale. */
static int part_resize(hp_image_part *p, size_t len)
{
    size_t nblocks = (len + BLOCK - 1) >> BLOCK_BITS;
    if (len > p->cap) {
        size_t cap = len + len / 4 + BLOCK;
        unsigned char *d = realloc(p->data, cap);
        if (!d)
            return -1;
        p->data = d;
        p->cap = cap;
    }
    if (grow_blocks(p, nblocks) != 0)
        return -1;
    if (len > p->len)
        memset(p->data + p->len, 0, len - p->len);
    if (len != p->len)
        for (size_t b = (len < p->len ? len : p->len) >> BLOCK_BITS; b < nblocks; b++)
            p->stale[b] = 1;
    p->len = len;
    p->nblocks = nblocks;
    return 0;
}

/* Whether the n bytes (a multiple of 8) at a and b are the same: a
 * record's, n known where it is inlined (a third of memcmp's time). */
static inline int same_record(const unsigned char *a, const unsigned char *b, size_t n)
{
    uint64_t x, y, diff = 0;
    for (size_t i = 0; i < n; i += 8) {
        memcpy(&x, a + i, 8);
        memcpy(&y, b + i, 8);
        diff |= x ^ y;
    }
    return diff == 0;
}

/* The n bytes at `at` become rec's; their blocks are stale if they differ. */
static inline void part_put(hp_image_part *p, size_t at, const unsigned char *rec, size_t n)
{
    assert(at + n <= p->len && n % 8 == 0);
    if (same_record(p->data + at, rec, n))
        return;
    memcpy(p->data + at, rec, n);
    p->stale[at >> BLOCK_BITS] = 1;
    p->stale[(at + n - 1) >> BLOCK_BITS] = 1;
}

/* The CRC of the whole payload: the stale blocks' again, then all of
 * them combined. */
static uint32_t part_crc(hp_image_part *p)
{
    static uint32_t block_shift;
    uint32_t crc = 0;
    if (!block_shift)
        block_shift = hp_crc32_shift(BLOCK);
    for (size_t b = 0; b < p->nblocks; b++) {
        size_t start = b << BLOCK_BITS;
        size_t n = p->len - start < BLOCK ? p->len - start : BLOCK;
        if (p->stale[b]) {
            p->crc[b] = hp_crc32(p->data + start, n);
            p->stale[b] = 0;
        }
        crc = hp_crc32_combine(crc, p->crc[b], n == BLOCK ? block_shift : hp_crc32_shift(n));
    }
    return crc;
}

static void part_free(hp_image_part *p)
{
    free(p->data);
    free(p->crc);
    free(p->stale);
    memset(p, 0, sizeof *p);
}

/* The node records the snapshot wrote (bits of changed) into p. */
static int encode_nodes(hp_image_part *p, const hp_rank_data *rd, const uint64_t *changed)
{
    unsigned char rec[HP_NODE_REC_LEN];
    if (part_resize(p, (size_t)rd->nnodes * HP_NODE_REC_LEN) != 0)
        return -1;
    for (size_t w = 0; w < ((size_t)rd->nnodes + 63) / 64; w++)
        for (uint64_t bits = changed[w]; bits; bits &= bits - 1) {
            size_t i = w * 64 + (size_t)__builtin_ctzll(bits);
            hp_node_rec_put(rec, &rd->nodes[i]);
            part_put(p, i * HP_NODE_REC_LEN, rec, HP_NODE_REC_LEN);
        }
    return 0;
}

static int encode_comms(hp_image_part *p, const hp_rank_data *rd)
{
    unsigned char rec[HP_COMM_REC_LEN];
    if (part_resize(p, (size_t)rd->ncomms * HP_COMM_REC_LEN) != 0)
        return -1;
    for (uint32_t i = 0; i < rd->ncomms; i++) {
        hp_comm_rec_put(rec, &rd->comms[i]);
        part_put(p, (size_t)i * HP_COMM_REC_LEN, rec, HP_COMM_REC_LEN);
    }
    return 0;
}

int hp_snapshot_image_take(hp_snapshot_image *im, const hp_rank_info *info, uint64_t start_ticks)
{
    hp_rank_data *rd = &im->rd;
    hp_node_rec *nodes = rd->nodes;
    hp_comm_rec *comms = rd->comms;
    rd->nodes = NULL;
    rd->comms = NULL;
    hp_rank_data_free(rd); /* the last snapshot's strings, sites and host */
    rd->nodes = nodes;
    rd->comms = comms;
    rd->info = *info;
    if (hp_snapshot_live(rd, hp_ticks(), &im->room) != 0 ||
        encode_nodes(&im->nodes, rd, im->room.changed) != 0 ||
        encode_comms(&im->comms, rd) != 0) {
        im->room.nthreads = 0; /* the next snapshot writes every record again */
        return -1;
    }
    uint64_t end = hp_ticks();
    rd->info.end_ns = hp_unix_ns();
    rd->info.wall = end > start_ticks ? hp_ticks_to_sec(end - start_ticks) : 0.0;
    return 0;
}

static void section_header(hp_buf *b, uint32_t tag, uint32_t crc, uint64_t len)
{
    hp_buf_put_u32(b, tag);
    hp_buf_put_u32(b, crc);
    hp_buf_put_u64(b, len);
}

static void buf_clear(hp_buf *b)
{
    b->len = 0;
    b->failed = 0;
}

/* Everything but the two payloads: head (up to the NODE header), middle
 * (the COMM header), tail (from the TASK section to the end). */
static int encode_frame(hp_snapshot_image *im, const hp_run_info *run)
{
    const hp_rank_data *rd = &im->rd;
    hp_buf *head = &im->head, *middle = &im->middle, *tail = &im->tail;
    buf_clear(head);
    buf_clear(middle);
    buf_clear(tail);
    hp_encode_preamble(head);
    hp_encode_run(head, run);
    for (uint32_t i = 0; i < rd->info.rank; i++)
        hp_finish_encode_missing_rank(head, i);
    hp_encode_rank_head(head, rd);
    section_header(head, HP_SEC_NODE, part_crc(&im->nodes), im->nodes.len);
    section_header(middle, HP_SEC_COMM, part_crc(&im->comms), im->comms.len);
    hp_encode_rank_tail(tail, rd);
    for (uint32_t i = rd->info.rank + 1; i < run->nranks; i++)
        hp_finish_encode_missing_rank(tail, i);
    uint64_t before_end = head->len + im->nodes.len + middle->len + im->comms.len + tail->len;
    hp_encode_end(tail, run->nranks, before_end);
    return head->failed || middle->failed || tail->failed ? -1 : 0;
}

/* Writes all of v[0..n) (advanced as it goes) to fd. */
static int write_all(int fd, struct iovec *v, int n)
{
    while (n > 0) {
        ssize_t done = writev(fd, v, n);
        if (done < 0 && errno == EINTR)
            continue;
        if (done <= 0) {
            if (done == 0)
                errno = ENOSPC;
            return -1;
        }
        for (; n > 0 && (size_t)done >= v->iov_len; v++, n--)
            done -= (ssize_t)v->iov_len;
        if (n > 0) {
            v->iov_base = (char *)v->iov_base + done;
            v->iov_len -= (size_t)done;
        }
    }
    return 0;
}

/* partial renamed to path: exchanged with the last snapshot, which is
 * then removed, where the file system can (ext4 starts writing a file
 * renamed over another to disk, auto_da_alloc: 56 MB a second for a
 * 10^6-node rank, of files replaced a second later). */
static int replace_file(const char *partial, const char *path)
{
#ifdef RENAME_EXCHANGE
    if (renameat2(AT_FDCWD, partial, AT_FDCWD, path, RENAME_EXCHANGE) == 0) {
        unlink(partial); /* the last snapshot */
        return 0;
    }
#endif
    return rename(partial, path);
}

/* path.partial written whole, then renamed to path. */
static int write_renamed(const char *path, struct iovec *v, int n)
{
    char partial[4200];
    snprintf(partial, sizeof partial, "%s.partial", path);
    unlink(partial); /* left by a snapshot the process died in */
    int fd = open(partial, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
    if (fd < 0)
        return -1;
    int ok = write_all(fd, v, n) == 0;
    int saved = errno;
    if (close(fd) != 0 && ok) {
        ok = 0;
        saved = errno;
    }
    if (ok && replace_file(partial, path) != 0) {
        ok = 0;
        saved = errno;
    }
    if (!ok) {
        unlink(partial);
        errno = saved;
    }
    return ok ? 0 : -1;
}

int hp_snapshot_image_write(hp_snapshot_image *im, const hp_run_info *run, const char *path)
{
    if (im->rd.info.rank >= run->nranks) {
        errno = EINVAL;
        return -1;
    }
    if (encode_frame(im, run) != 0) {
        errno = ENOMEM;
        return -1;
    }
    struct iovec v[5] = {{im->head.data, im->head.len},
                         {im->nodes.data, im->nodes.len},
                         {im->middle.data, im->middle.len},
                         {im->comms.data, im->comms.len},
                         {im->tail.data, im->tail.len}};
    return write_renamed(path, v, 5);
}

void hp_snapshot_image_free(hp_snapshot_image *im)
{
    hp_rank_data_free(&im->rd);
    hp_snapshot_room_free(&im->room);
    part_free(&im->nodes);
    part_free(&im->comms);
    hp_buf_free(&im->head);
    hp_buf_free(&im->middle);
    hp_buf_free(&im->tail);
    memset(im, 0, sizeof *im);
}
