/*
 * test_format.c - cmocka tests of the profile reader (analyzer/read/hpf_read.c):
 * an encode/decode round trip comparing every field, and one test per
 * class of corruption checking that it is caught with the right message.
 */
#include <setjmp.h>
#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <sys/mman.h>
#include <unistd.h>
#include <cmocka.h>
#include "hp_profile.h"
#include "read/hpf_read.h"

#define COUNT(a) (uint32_t)(sizeof(a) / sizeof(a)[0])

/* ---- the fixture: two ranks, a few sites, nodes and comms ---- */

static char *strings0[] = {"", "main", "a.c", "MPI_Send", "MPI_Bcast"};
static hp_site_rec sites0[] = {
    {0, HP_KIND_ROOT, 0, 0, 0, 0, 0, HP_NONE, HP_NONE, 0, 0, 0, 0},
    {1, HP_KIND_PROCEDURE, 1, 1, 2, 3, 30, HP_NONE, HP_NONE, HP_SITEF_RESOLVED, 0, 0, 0},
    {2, HP_KIND_COMM, 3, 1, 2, 7, 7, 1, HP_NONE, 0, 0, 0, 0},
    {3, HP_KIND_COMM, 4, 1, 2, 9, 9, 1, HP_NONE, HP_SITEF_COLLECTIVE, 0, 0, 0},
};
static hp_node_rec nodes0[] = {
    {0, HP_NONE, 0, 0, 1, 5.0, 5.0, 5.0, 1},
    {1, 0, 1, 0, 1, 4.5, 4.5, 4.5, 1},
    {2, 1, 2, 0, 10, 1.25, 0.0625, 0.25, 7}, /* 3 calls counted only */
    {3, 1, 3, 0, 3, 0.75, 0.125, 0.5, 3},
};
static hp_comm_rec comms0[] = {
    {2, 1, 10, 800, 0, 1.0, 0.25, 0.0625, 0.25},
    {3, HP_PEER_ALL, 3, 24, 24, 0.5, 0.25, 0.125, 0.5},
};

static char *strings1[] = {"", "MPI_Recv", "libx.so", "main", "a.c"};
static hp_site_rec sites1[] = {
    {0, HP_KIND_ROOT, 0, 0, 0, 0, 0, HP_NONE, HP_NONE, 0, 0, 0, 0},
    {1, HP_KIND_COMM, 1, 0, 0, 0, 0, HP_NONE, HP_NONE, HP_SITEF_DYNAMIC, 2, 0, 0x1234abcdull},
    {2, HP_KIND_PROCEDURE, 3, 3, 4, 3, 30, HP_NONE, HP_NONE, 0, 0, 0, 0},
};
static hp_node_rec nodes1[] = {
    {0, HP_NONE, 0, 0, 1, 5.5, 5.5, 5.5, 1},
    {1, 0, 2, 0, 1, 5.0, 5.0, 5.0, 1},
    {2, 1, 1, 0, 10, 2.5, 0.125, 0.5, 10},
    {3, HP_NONE, 0, 1, 1, 3.0, 3.0, 3.0, 1},
};
static hp_comm_rec comms1[] = {
    {2, 0, 10, 0, 800, 2.0, 0.5, 0.125, 0.5},
    {2, HP_PEER_FILE, 2, 64, 16, 0.25, 0.0, 0.0625, 0.1875},
};

static hp_task_rec tasks1[] = {
    {1, HP_TASKEV_CREATE, 1, 3, (2ull << 40) | 1, 0, 0.5, 0.5},
    {0, HP_TASKEV_RUN, 1, 3, (2ull << 40) | 1, 0, 0.75, 1.25},
};

/* Counters (format 5): two events, values of rank 1's nodes 0 and 2. */
static char *events1[] = {"PAPI_TOT_CYC", "perf::PAGE-FAULTS"};
static hp_counter_rec counters1[] = {
    {0, 0, 123456789012ull},
    {2, 1, 7},
};

static char *argv_run[] = {"./prog", "--size", "big arg"};
static hp_run_info fixture_run = {2, HP_CLOCK_MONOTONIC, 1e9, 123456789ull, 987654321ull,
                                  "./prog", 3, argv_run};
static hp_rank_data fixture_ranks[2] = {
    {{0, 1, 4242, 0, 4, 100, 200, 5.0, 1.75, 0, "host-a", {{2.5e-8, 1.25e-8}, {1.5e-8, 0}}},
     COUNT(strings0), strings0,
     COUNT(sites0), sites0, COUNT(nodes0), nodes0, COUNT(comms0), comms0, 0, NULL, 0, NULL, 0, NULL},
    {{1, 2, 4343, HP_RANKF_OVERFLOW, 0, 110, 210, 5.5, 2.5, 17, "host-b", {{0, 0}}},
     COUNT(strings1),
     strings1, COUNT(sites1), sites1, COUNT(nodes1), nodes1, COUNT(comms1), comms1,
     COUNT(tasks1), tasks1, COUNT(events1), events1, COUNT(counters1), counters1},
};

/* The encoded fixture, rebuilt for every test. */
static hp_buf encoded;

static int setup(void **state)
{
    (void)state;
    memset(&encoded, 0, sizeof encoded);
    hp_encode_preamble(&encoded);
    hp_encode_run(&encoded, &fixture_run);
    for (int r = 0; r < 2; r++)
        hp_encode_rank(&encoded, &fixture_ranks[r]);
    hp_encode_end(&encoded, 2, encoded.len);
    return encoded.failed ? -1 : 0;
}

static int teardown(void **state)
{
    (void)state;
    hp_buf_free(&encoded);
    return 0;
}

/* ---- helpers ---- */

static char tmp_path[] = "/tmp/test_format_XXXXXX";

/* Writes the bytes to a temporary file and reads them back with hpf_read. */
static int read_bytes(const unsigned char *data, size_t len, hpf_profile *p, char *err,
                      size_t errlen)
{
    strcpy(tmp_path, "/tmp/test_format_XXXXXX");
    int fd = mkstemp(tmp_path);
    assert_true(fd >= 0);
    assert_int_equal(write(fd, data, len), (ssize_t)len);
    close(fd);
    int rc = hpf_read(tmp_path, p, err, errlen);
    unlink(tmp_path);
    return rc;
}

/* Offset of the n-th (0-based) section with `tag`. */
static size_t find_section(uint32_t tag, int nth)
{
    size_t pos = HP_PREAMBLE_LEN;
    while (pos + HP_SECTION_HEADER_LEN <= encoded.len) {
        if (hp_get_u32(encoded.data + pos) == tag && nth-- == 0)
            return pos;
        pos += HP_SECTION_HEADER_LEN + hp_get_u64(encoded.data + pos + 8);
    }
    fail_msg("section not found");
    return 0;
}

static void fix_crc(size_t sec)
{
    uint64_t len = hp_get_u64(encoded.data + sec + 8);
    hp_put_u32(encoded.data + sec + 4,
               hp_crc32(encoded.data + sec + HP_SECTION_HEADER_LEN, (size_t)len));
}

/* Expects decoding `len` bytes of `encoded` to fail with a message that
 * contains "offset OFFSET: " followed by `what`. */
static void expect_error_len(size_t len, size_t offset, const char *what)
{
    hpf_profile p;
    char err[512], want[512];
    assert_int_equal(read_bytes(encoded.data, len, &p, err, sizeof err), -1);
    snprintf(want, sizeof want, "%s: offset %zu: %s", tmp_path, offset, what);
    if (strncmp(err, want, strlen(want)) != 0)
        fail_msg("expected \"%s...\", got \"%s\"", want, err);
    assert_null(strchr(err, '\n'));
    assert_null(p.ranks);
}

static void expect_error(size_t offset, const char *what)
{
    expect_error_len(encoded.len, offset, what);
}

/* ---- round trip ---- */

static void compare_rank(const hp_rank_data *a, const hp_rank_data *b)
{
    assert_int_equal(a->info.rank, b->info.rank);
    assert_int_equal(a->info.threads, b->info.threads);
    assert_int_equal(a->info.pid, b->info.pid);
    assert_int_equal(a->info.flags, b->info.flags);
    assert_int_equal(a->info.omp_threads, b->info.omp_threads);
    assert_int_equal(a->info.start_ns, b->info.start_ns);
    assert_int_equal(a->info.end_ns, b->info.end_ns);
    assert_true(a->info.wall == b->info.wall);
    assert_true(a->info.mpi_time == b->info.mpi_time);
    assert_int_equal(a->info.overflow_events, b->info.overflow_events);
    assert_string_equal(a->info.host, b->info.host);
    assert_memory_equal(a->info.cost, b->info.cost, sizeof a->info.cost);
    assert_int_equal(a->nstrings, b->nstrings);
    for (uint32_t i = 0; i < a->nstrings; i++)
        assert_string_equal(a->strings[i], b->strings[i]);
    assert_int_equal(a->nsites, b->nsites);
    assert_memory_equal(a->sites, b->sites, a->nsites * sizeof *a->sites);
    assert_int_equal(a->nnodes, b->nnodes);
    for (uint32_t i = 0; i < a->nnodes; i++) {
        const hp_node_rec *x = &a->nodes[i], *y = &b->nodes[i];
        assert_int_equal(x->id, y->id);
        assert_int_equal(x->parent, y->parent);
        assert_int_equal(x->site, y->site);
        assert_int_equal(x->thread, y->thread);
        assert_int_equal(x->count, y->count);
        assert_int_equal(x->timed, y->timed);
        assert_true(x->time == y->time && x->min == y->min && x->max == y->max);
    }
    assert_int_equal(a->ncomms, b->ncomms);
    for (uint32_t i = 0; i < a->ncomms; i++) {
        const hp_comm_rec *x = &a->comms[i], *y = &b->comms[i];
        assert_int_equal(x->node, y->node);
        assert_int_equal(x->peer, y->peer);
        assert_int_equal(x->count, y->count);
        assert_int_equal(x->bytes_sent, y->bytes_sent);
        assert_int_equal(x->bytes_recv, y->bytes_recv);
        assert_true(x->tran == y->tran && x->sync == y->sync);
        assert_true(x->min == y->min && x->max == y->max);
    }
}

static void test_round_trip(void **state)
{
    hpf_profile p;
    char err[512];
    (void)state;
    if (read_bytes(encoded.data, encoded.len, &p, err, sizeof err) != 0)
        fail_msg("%s", err);
    assert_int_equal(p.version, HP_FORMAT_VERSION);
    assert_int_equal(p.file_len, encoded.len);
    assert_int_equal(p.run.nranks, 2);
    assert_int_equal(p.nranks, 2);
    assert_int_equal(p.run.clock, HP_CLOCK_MONOTONIC);
    assert_true(p.run.ticks_per_sec == 1e9);
    assert_int_equal(p.run.start_ns, 123456789ull);
    assert_int_equal(p.run.end_ns, 987654321ull);
    assert_string_equal(p.run.program, "./prog");
    assert_int_equal(p.run.argc, 3);
    for (int i = 0; i < 3; i++)
        assert_string_equal(p.run.argv[i], argv_run[i]);
    /* a mapped file's comm records stay in it until asked for */
    for (uint32_t r = 0; r < 2; r++) {
        assert_null(p.ranks[r].comms);
        assert_int_equal(p.ranks[r].ncomms, fixture_ranks[r].ncomms);
        assert_int_equal(hpf_load_comms(&p, r, err, sizeof err), 0);
    }
    for (int r = 0; r < 2; r++)
        compare_rank(&p.ranks[r], &fixture_ranks[r]);
    assert_int_equal(p.ranks[0].comms[1].peer, HP_PEER_ALL);
    assert_int_equal(p.ranks[1].comms[1].peer, HP_PEER_FILE);
    assert_int_equal(p.ranks[0].ntasks, 0);
    assert_int_equal(p.ranks[1].ntasks, 2);
    assert_memory_equal(p.ranks[1].tasks, tasks1, sizeof tasks1);
    assert_int_equal(p.ranks[0].nevents, 0);
    assert_int_equal(p.ranks[0].ncounters, 0);
    assert_int_equal(p.ranks[1].nevents, 2);
    assert_string_equal(p.ranks[1].events[1], "perf::PAGE-FAULTS");
    assert_int_equal(p.ranks[1].ncounters, 2);
    assert_memory_equal(p.ranks[1].counters, counters1, sizeof counters1);
    hpf_free(&p);
    assert_null(p.ranks);
}

/* The fixture re-laid as a version 3 file (RANK without the event costs,
 * 48-byte nodes without timed), as hprof wrote before: it still reads,
 * every call counted as timed and no costs. */
static void append_section_as_v3(hp_buf *v3, uint32_t tag, const unsigned char *pl,
                                 uint64_t len)
{
    size_t at = v3->len;
    if (tag == HP_SEC_CNTR)
        return; /* counters came with version 5 */
    hp_put_u32(hp_buf_reserve(v3, HP_SECTION_HEADER_LEN), tag);
    if (tag == HP_SEC_RANK) {
        size_t keep = (size_t)len - 4 - 16 * HP_COST_KINDS;
        memcpy(hp_buf_reserve(v3, keep), pl, keep);
    } else if (tag == HP_SEC_NODE) {
        for (size_t i = 0; i < len / HP_NODE_REC_LEN; i++)
            memcpy(hp_buf_reserve(v3, HP_NODE_REC_LEN_V3), pl + i * HP_NODE_REC_LEN,
                   HP_NODE_REC_LEN_V3);
    } else {
        memcpy(hp_buf_reserve(v3, (size_t)len), pl, (size_t)len);
        if (tag == HP_SEC_END)
            hp_put_u64(v3->data + at + HP_SECTION_HEADER_LEN + 4, v3->len);
    }
    uint64_t plen = v3->len - at - HP_SECTION_HEADER_LEN;
    hp_put_u64(v3->data + at + 8, plen);
    hp_put_u32(v3->data + at + 4, hp_crc32(v3->data + at + HP_SECTION_HEADER_LEN, plen));
}

static void test_version3_file(void **state)
{
    hp_buf v3 = {0};
    hpf_profile p;
    char err[512];
    (void)state;
    memcpy(hp_buf_reserve(&v3, HP_PREAMBLE_LEN), encoded.data, HP_PREAMBLE_LEN);
    hp_put_u32(v3.data + 8, 3);
    for (size_t pos = HP_PREAMBLE_LEN; pos < encoded.len;) {
        uint64_t len = hp_get_u64(encoded.data + pos + 8);
        append_section_as_v3(&v3, hp_get_u32(encoded.data + pos),
                             encoded.data + pos + HP_SECTION_HEADER_LEN, len);
        pos += HP_SECTION_HEADER_LEN + len;
    }
    assert_false(v3.failed);
    if (read_bytes(v3.data, v3.len, &p, err, sizeof err) != 0)
        fail_msg("%s", err);
    assert_int_equal(p.version, 3);
    for (int r = 0; r < 2; r++) {
        const hp_rank_data *a = &p.ranks[r], *b = &fixture_ranks[r];
        assert_int_equal(a->nnodes, b->nnodes);
        for (uint32_t i = 0; i < a->nnodes; i++) {
            assert_int_equal(a->nodes[i].timed, a->nodes[i].count);
            assert_true(a->nodes[i].time == b->nodes[i].time);
        }
        for (int k = 0; k < HP_COST_KINDS; k++)
            assert_true(a->info.cost[k].outside == 0 && a->info.cost[k].inside == 0);
        assert_string_equal(a->info.host, b->info.host);
    }
    hpf_free(&p);
    hp_buf_free(&v3);
}

/* The CRC-32 of every length and alignment (the fast paths take 8, 16
 * and 64 bytes a step) against one bit at a time, and its check value. */
static uint32_t crc_bitwise(uint32_t crc, const unsigned char *p, size_t n)
{
    uint32_t c = ~crc;
    for (; n--; p++) {
        c ^= *p;
        for (int k = 0; k < 8; k++)
            c = (c & 1) ? 0xedb88320u ^ (c >> 1) : c >> 1;
    }
    return ~c;
}

static void test_crc32(void **state)
{
    (void)state;
    unsigned char buf[600];
    for (size_t i = 0; i < sizeof buf; i++)
        buf[i] = (unsigned char)(i * 2654435761u >> 13);
    assert_int_equal(hp_crc32("123456789", 9), 0xcbf43926u);
    for (size_t len = 0; len + 16 <= sizeof buf; len++)
        for (size_t off = 0; off < 16; off++) {
            uint32_t seed = (uint32_t)(len * 31 + off) * 2246822519u;
            assert_int_equal(hp_crc32_update(seed, buf + off, len),
                             crc_bitwise(seed, buf + off, len));
        }
}

/* ---- corruption classes ---- */

static void test_checksum(void **state)
{
    (void)state;
    size_t sec = find_section(HP_SEC_NODE, 1);
    encoded.data[sec + HP_SECTION_HEADER_LEN + 20] ^= 0x40;
    expect_error(sec, "checksum mismatch in NODE section of rank 1");
}

static void test_truncation(void **state)
{
    (void)state;
    size_t run = find_section(HP_SEC_RUN, 0);
    size_t site0 = find_section(HP_SEC_SITE, 0);
    size_t rank1 = find_section(HP_SEC_RANK, 1);
    size_t end = find_section(HP_SEC_END, 0);

    expect_error_len(0, 0, "bad magic");
    expect_error_len(12, 12, "file truncated inside the preamble");
    expect_error_len(HP_PREAMBLE_LEN, run, "file truncated: RUN section missing");
    expect_error_len(run + 8, run, "file truncated inside the header of the RUN section");
    expect_error_len(site0 + HP_SECTION_HEADER_LEN + 30, site0,
                     "file truncated: SITE section of rank 0 has");
    expect_error_len(rank1, rank1, "file truncated: RANK section of rank 1 missing");
    expect_error_len(end, end, "file truncated: END section missing");
    expect_error_len(encoded.len - 1, end, "file truncated: END section has 12 payload");
}

/* A section that claims the rest of the file, as a sparse or broken file
 * does: the layout is checked against the file before any checksum reads
 * a payload, so the error is the missing section after it, not the
 * checksum of a payload as long as the file (gigabytes of a sparse one). */
static void test_layout_before_checksum(void **state)
{
    (void)state;
    size_t run = find_section(HP_SEC_RUN, 0);
    hp_put_u64(encoded.data + run + 8, encoded.len - run - HP_SECTION_HEADER_LEN);
    expect_error(encoded.len, "file truncated: RANK section of rank 0 missing");
}

static void test_bad_magic(void **state)
{
    (void)state;
    encoded.data[1] = 'X';
    expect_error(0, "bad magic");
}

static void test_version(void **state)
{
    (void)state;
    hp_put_u32(encoded.data + 8, 99);
    expect_error(8, "unsupported format version 99 (this reader supports 2 to 5)");
    hp_put_u32(encoded.data + 8, 1);
    expect_error(8, "unsupported format version 1 (this reader supports 2 to 5)");
}

static void test_wrong_tag(void **state)
{
    (void)state;
    size_t strs = find_section(HP_SEC_STRS, 0);
    hp_put_u32(encoded.data + strs, HP_SEC_SITE);
    expect_error(strs, "expected STRS section of rank 0, found SITE section");
    hp_put_u32(encoded.data + strs, HP_FOURCC('J', 'U', 'N', 'K'));
    expect_error(strs, "expected STRS section of rank 0, found unknown tag");
}

/* Drops the last byte of the payload of section `sec`, keeping the CRC valid. */
static void shrink_payload(size_t sec)
{
    uint64_t len = hp_get_u64(encoded.data + sec + 8);
    size_t cut = sec + HP_SECTION_HEADER_LEN + (size_t)len - 1;
    memmove(encoded.data + cut, encoded.data + cut + 1, encoded.len - cut - 1);
    encoded.len--;
    hp_put_u64(encoded.data + sec + 8, len - 1);
    fix_crc(sec);
}

static void test_record_size(void **state)
{
    (void)state;
    size_t sec = find_section(HP_SEC_NODE, 0);
    shrink_payload(sec);
    expect_error(sec, "NODE section of rank 0 payload length 223 is not a multiple of"
                      " the record size 56");
}

static void test_string_payload(void **state)
{
    (void)state;
    size_t sec = find_section(HP_SEC_STRS, 1);
    shrink_payload(sec);
    /* the last string, "a.c", lost its final byte */
    size_t prefix = sec + HP_SECTION_HEADER_LEN + hp_get_u64(encoded.data + sec + 8) + 1 - 3 - 4;
    expect_error(prefix + 4, "string of the STRS section of rank 1 runs past the end");
}

/* Patches a u32 field of record `index` in section `sec` and fixes the CRC. */
static void patch_record(size_t sec, size_t reclen, uint32_t index, size_t field,
                         uint32_t value)
{
    size_t at = sec + HP_SECTION_HEADER_LEN + index * reclen;
    hp_put_u32(encoded.data + at + field, value);
    fix_crc(sec);
}

static void test_node_parent(void **state)
{
    (void)state;
    size_t sec = find_section(HP_SEC_NODE, 0);
    patch_record(sec, HP_NODE_REC_LEN, 2, 4, 7);
    expect_error(sec + HP_SECTION_HEADER_LEN + 2 * HP_NODE_REC_LEN,
                 "node 2 of rank 0: parent 7 out of range (must precede it)");
    patch_record(sec, HP_NODE_REC_LEN, 2, 4, 2);
    expect_error(sec + HP_SECTION_HEADER_LEN + 2 * HP_NODE_REC_LEN,
                 "node 2 of rank 0: parent 2 out of range");
}

static void test_indices(void **state)
{
    (void)state;
    size_t site = find_section(HP_SEC_SITE, 1);
    size_t node = find_section(HP_SEC_NODE, 1);
    size_t comm = find_section(HP_SEC_COMM, 0);

    patch_record(site, HP_SITE_REC_LEN, 1, 8, 5); /* name */
    expect_error(site + HP_SECTION_HEADER_LEN + HP_SITE_REC_LEN,
                 "site 1 of rank 1: name string index 5 out of range (5 strings)");
    patch_record(site, HP_SITE_REC_LEN, 1, 8, 1);
    patch_record(site, HP_SITE_REC_LEN, 1, 28, 9); /* parent */
    expect_error(site + HP_SECTION_HEADER_LEN + HP_SITE_REC_LEN,
                 "site 1 of rank 1: parent site 9 out of range");
    patch_record(site, HP_SITE_REC_LEN, 1, 28, HP_NONE);

    patch_record(node, HP_NODE_REC_LEN, 2, 8, 3); /* site */
    expect_error(node + HP_SECTION_HEADER_LEN + 2 * HP_NODE_REC_LEN,
                 "node 2 of rank 1: site 3 out of range (3 sites)");
    patch_record(node, HP_NODE_REC_LEN, 2, 8, 1);

    patch_record(comm, HP_COMM_REC_LEN, 0, 0, 4); /* node */
    expect_error(comm + HP_SECTION_HEADER_LEN,
                 "comm record 0 of rank 0: node 4 out of range (4 nodes)");
    patch_record(comm, HP_COMM_REC_LEN, 0, 0, 2);
    patch_record(comm, HP_COMM_REC_LEN, 0, 4, 2); /* peer */
    expect_error(comm + HP_SECTION_HEADER_LEN,
                 "comm record 0 of rank 0: peer 2 out of range (2 ranks)");
    patch_record(comm, HP_COMM_REC_LEN, 0, 4, (uint32_t)-3); /* below HP_PEER_FILE */
    expect_error(comm + HP_SECTION_HEADER_LEN,
                 "comm record 0 of rank 0: peer -3 out of range (2 ranks)");
    patch_record(comm, HP_COMM_REC_LEN, 0, 4, 1);

    size_t task = find_section(HP_SEC_TASK, 1);
    size_t rec1 = task + HP_SECTION_HEADER_LEN + HP_TASK_REC_LEN;
    patch_record(task, HP_TASK_REC_LEN, 1, 8, 3); /* site */
    expect_error(rec1, "task record 1 of rank 1: site 3 out of range (3 sites)");
    patch_record(task, HP_TASK_REC_LEN, 1, 8, 1);
    patch_record(task, HP_TASK_REC_LEN, 1, 0, 2); /* thread */
    expect_error(rec1, "task record 1 of rank 1: thread 2 out of range (2 threads)");
    patch_record(task, HP_TASK_REC_LEN, 1, 0, 0);
    patch_record(task, HP_TASK_REC_LEN, 1, 4, 7); /* kind */
    expect_error(rec1, "task record 1 of rank 1: unknown kind 7");
}

static void test_rank_order(void **state)
{
    (void)state;
    size_t sec = find_section(HP_SEC_RANK, 1);
    hp_put_u32(encoded.data + sec + HP_SECTION_HEADER_LEN, 0);
    fix_crc(sec);
    expect_error(sec + HP_SECTION_HEADER_LEN, "RANK section has rank number 0, expected 1");
}

static void test_end(void **state)
{
    (void)state;
    size_t sec = find_section(HP_SEC_END, 0);
    size_t payload = sec + HP_SECTION_HEADER_LEN;

    hp_put_u32(encoded.data + payload, 3);
    fix_crc(sec);
    expect_error(payload, "END section counts 3 ranks, RUN section says 2");

    hp_put_u32(encoded.data + payload, 2);
    hp_put_u64(encoded.data + payload + 4, encoded.len + 8);
    fix_crc(sec);
    expect_error(payload + 4, "END section gives file length");

    hp_put_u64(encoded.data + payload + 4, encoded.len);
    fix_crc(sec);
    unsigned char *extra = hp_buf_reserve(&encoded, 4);
    assert_non_null(extra);
    memset(extra, 0, 4);
    expect_error(encoded.len - 4, "4 unexpected bytes after the END section");
}

static void test_missing_file(void **state)
{
    hpf_profile p;
    char err[512];
    (void)state;
    assert_int_equal(hpf_read("/nonexistent/x.hpf", &p, err, sizeof err), -1);
    assert_string_equal(err, "/nonexistent/x.hpf: No such file or directory");
}

/* A profile file cut short by someone else while it is mapped: its
 * missing pages raise SIGBUS, which the reader turns into an error; the
 * caller's SIGBUS action is back afterwards.  Cut at 0 (the preamble's
 * page gone) and at a page boundary in the middle of a 200-rank profile
 * (ranks already decoded are freed), and after a whole read (the comm
 * records left in the file, hpf_load_comms). */
static void test_cut_while_mapped(void **state)
{
    hp_run_info run = fixture_run;
    hp_buf big = {0};
    long page = sysconf(_SC_PAGESIZE);
    (void)state;
    run.nranks = 200;
    hp_encode_preamble(&big);
    hp_encode_run(&big, &run);
    for (uint32_t r = 0; r < run.nranks; r++) {
        hp_rank_data rd = fixture_ranks[r % 2];
        rd.info.rank = r;
        hp_encode_rank(&big, &rd);
    }
    hp_encode_end(&big, run.nranks, big.len);
    assert_false(big.failed);
    assert_true(big.len > (size_t)(4 * page));
    const size_t cuts[] = {0, (big.len / 2) / (size_t)page * (size_t)page};
    for (size_t k = 0; k < 2; k++) {
        struct sigaction before, after;
        hpf_profile p;
        char err[512];
        strcpy(tmp_path, "/tmp/test_format_XXXXXX");
        int fd = mkstemp(tmp_path);
        assert_true(fd >= 0);
        assert_int_equal(write(fd, big.data, big.len), (ssize_t)big.len);
        void *map = mmap(NULL, big.len, PROT_READ, MAP_PRIVATE, fd, 0);
        assert_true(map != MAP_FAILED);
        assert_int_equal(ftruncate(fd, (off_t)cuts[k]), 0);
        assert_int_equal(sigaction(SIGBUS, NULL, &before), 0);
        assert_int_equal(hpf_decode_file_mapping(map, big.len, tmp_path, &p, 0, err, sizeof err),
                         -1);
        assert_int_equal(sigaction(SIGBUS, NULL, &after), 0);
        assert_ptr_equal((void *)before.sa_handler, (void *)after.sa_handler);
        assert_non_null(strstr(err, ": the file was cut short while it was being read"));
        assert_int_equal(p.nranks, 0);
        assert_null(p.ranks);
        munmap(map, big.len);
        close(fd);
        unlink(tmp_path);
    }
    /* read whole, then cut: the comm records of the ranks past the cut
     * cannot be loaded any more, those before can */
    hpf_profile p;
    char err[512], want[600];
    strcpy(tmp_path, "/tmp/test_format_XXXXXX");
    int fd = mkstemp(tmp_path);
    assert_true(fd >= 0);
    assert_int_equal(write(fd, big.data, big.len), (ssize_t)big.len);
    if (hpf_read(tmp_path, &p, err, sizeof err) != 0)
        fail_msg("%s", err);
    assert_int_equal(ftruncate(fd, (off_t)cuts[1]), 0);
    assert_int_equal(hpf_load_comms(&p, 0, err, sizeof err), 0);
    assert_int_equal(p.ranks[0].comms[1].peer, HP_PEER_ALL);
    assert_int_equal(hpf_load_comms(&p, run.nranks - 1, err, sizeof err), -1);
    snprintf(want, sizeof want, "%s: the file was cut short while it was being read", tmp_path);
    assert_string_equal(err, want);
    assert_null(p.ranks[run.nranks - 1].comms);
    hpf_free(&p);
    close(fd);
    unlink(tmp_path);
    hp_buf_free(&big);
}

/* ---- value domains: crafted files with valid checksums ---- */

static void patch_u64(size_t sec, size_t at, uint64_t v)
{
    hp_put_u64(encoded.data + at, v);
    fix_crc(sec);
}

static void patch_f64(size_t sec, size_t at, double v)
{
    hp_put_f64(encoded.data + at, v);
    fix_crc(sec);
}

/* A valid file must still read after a field was patched back. */
static void expect_valid(void)
{
    hpf_profile p;
    char err[512];
    if (read_bytes(encoded.data, encoded.len, &p, err, sizeof err) != 0)
        fail_msg("valid file refused: %s", err);
    hpf_free(&p);
}

static void test_preamble_reserved(void **state)
{
    (void)state;
    hp_put_u32(encoded.data + 12, 1);
    expect_error(12, "preamble: reserved field is 0x00000001, not 0");
}

static void test_clock_domain(void **state)
{
    (void)state;
    size_t run = find_section(HP_SEC_RUN, 0);
    size_t clock = run + HP_SECTION_HEADER_LEN + 4, rate = clock + 4;
    static const uint32_t bad[] = {0, 3, 0xffffffffu};
    for (int i = 0; i < 3; i++) {
        char want[128];
        patch_record(run, 0, 0, clock - run - HP_SECTION_HEADER_LEN, bad[i]);
        snprintf(want, sizeof want,
                 "RUN section: clock %u is not a defined clock kind (1 tsc, 2 monotonic)",
                 bad[i]);
        expect_error(clock, want);
    }
    patch_record(run, 0, 0, 4, HP_CLOCK_TSC);
    expect_valid();

    patch_f64(run, rate, 0.0);
    expect_error(rate, "RUN section: ticks per second 0 is not a finite number > 0");
    patch_f64(run, rate, -1e9);
    expect_error(rate, "RUN section: ticks per second -1e+09 is not a finite number > 0");
    patch_f64(run, rate, NAN);
    expect_error(rate, "RUN section: ticks per second nan is not a finite number > 0");
    patch_f64(run, rate, INFINITY);
    expect_error(rate, "RUN section: ticks per second inf is not a finite number > 0");
    patch_f64(run, rate, 2.5e9);
    expect_valid();
}

static void test_rank_domain(void **state)
{
    (void)state;
    size_t sec = find_section(HP_SEC_RANK, 1);
    size_t start = sec + HP_SECTION_HEADER_LEN + 20;
    size_t wall = start + 16, mpi = wall + 8, ovf = mpi + 8;

    patch_u64(sec, start, 1ull << 63);
    expect_error(start, "RANK section of rank 1: start time 9223372036854775808 is 2^63 or more");
    patch_u64(sec, start, 110);
    patch_f64(sec, wall, -0.5);
    expect_error(wall, "RANK section of rank 1: wall time -0.5 is not a finite time >= 0");
    patch_f64(sec, wall, NAN);
    expect_error(wall, "RANK section of rank 1: wall time nan is not a finite time >= 0");
    patch_f64(sec, wall, 5.5);
    patch_f64(sec, mpi, INFINITY);
    expect_error(mpi, "RANK section of rank 1: MPI time inf is not a finite time >= 0");
    patch_f64(sec, mpi, 2.5);
    patch_u64(sec, ovf, UINT64_MAX);
    expect_error(ovf, "RANK section of rank 1: overflow events 18446744073709551615 is 2^63 or more");
    patch_u64(sec, ovf, 17);
    expect_valid();
}

/* A rank's thread count: at least each node's thread + 1, at most its
 * node count (each thread has its own root node). */
static void test_thread_count(void **state)
{
    (void)state;
    size_t sec = find_section(HP_SEC_RANK, 1);
    size_t threads = sec + HP_SECTION_HEADER_LEN + 4;
    hp_put_u32(encoded.data + threads, UINT32_MAX);
    fix_crc(sec);
    expect_error(threads, "RANK section of rank 1: thread count 4294967295, more than its 4 "
                 "nodes (each thread has its own root node)");
    hp_put_u32(encoded.data + threads, 1);
    fix_crc(sec);
    expect_error(find_section(HP_SEC_NODE, 1) + HP_SECTION_HEADER_LEN + 3 * HP_NODE_REC_LEN,
                 "node 3 of rank 1: thread 1 out of range (1 threads)");
    hp_put_u32(encoded.data + threads, 2);
    fix_crc(sec);
    expect_valid();
    /* the OpenMP team size: at most 2^20 (after thread count, pid, flags) */
    size_t omp = threads + 12;
    hp_put_u32(encoded.data + omp, UINT32_MAX);
    fix_crc(sec);
    expect_error(omp, "RANK section of rank 1: OpenMP thread count 4294967295, more than 1048576");
    hp_put_u32(encoded.data + omp, 1u << 20);
    fix_crc(sec);
    expect_valid();
}

static void test_record_domain(void **state)
{
    (void)state;
    size_t site = find_section(HP_SEC_SITE, 0);
    size_t node = find_section(HP_SEC_NODE, 1);
    size_t comm = find_section(HP_SEC_COMM, 0);
    size_t task = find_section(HP_SEC_TASK, 1);
    size_t s1 = site + HP_SECTION_HEADER_LEN + HP_SITE_REC_LEN;
    size_t n2 = node + HP_SECTION_HEADER_LEN + 2 * HP_NODE_REC_LEN;
    size_t c1 = comm + HP_SECTION_HEADER_LEN + HP_COMM_REC_LEN;
    size_t t0 = task + HP_SECTION_HEADER_LEN;

    patch_record(site, HP_SITE_REC_LEN, 1, 44, 7);
    expect_error(s1 + 44, "site 1 of rank 0: reserved field is 0x00000007, not 0");
    patch_record(site, HP_SITE_REC_LEN, 1, 44, 0);
    patch_u64(site, s1 + 48, 1ull << 63);
    expect_error(s1 + 48, "site 1 of rank 0: module offset 9223372036854775808 is 2^63 or more");
    patch_u64(site, s1 + 48, 0);

    patch_u64(node, n2 + 16, 1ull << 63);
    expect_error(n2 + 16, "node 2 of rank 1: count 9223372036854775808 is 2^63 or more");
    patch_u64(node, n2 + 16, 10);
    patch_f64(node, n2 + 24, -2.5);
    expect_error(n2 + 24, "node 2 of rank 1: time -2.5 is not a finite time >= 0");
    patch_f64(node, n2 + 24, 2.5);
    patch_f64(node, n2 + 40, NAN);
    expect_error(n2 + 40, "node 2 of rank 1: max nan is not a finite time >= 0");
    patch_f64(node, n2 + 40, 0.5);

    patch_u64(comm, c1 + 16, UINT64_MAX);
    expect_error(c1 + 16, "comm record 1 of rank 0: bytes sent 18446744073709551615 is 2^63 or more");
    patch_u64(comm, c1 + 16, 24);
    patch_f64(comm, c1 + 40, -0.25);
    expect_error(c1 + 40, "comm record 1 of rank 0: sync time -0.25 is not a finite time >= 0");
    patch_f64(comm, c1 + 40, 0.25);

    patch_f64(task, t0 + 32, -0.5);
    expect_error(t0 + 32, "task record 0 of rank 1: begin -0.5 is not a finite time >= 0");
    patch_f64(task, t0 + 32, 0.5);
    expect_valid();
}

/* The CRC of A then B from those of A and B (live snapshots checksum
 * their payloads in blocks): every split of a buffer, lengths 0 on. */
static void test_crc_combine(void **state)
{
    unsigned char data[700];
    (void)state;
    for (size_t i = 0; i < sizeof data; i++)
        data[i] = (unsigned char)(i * 131u + (i >> 3) * 7u);
    for (size_t len = 0; len <= sizeof data; len += 97)
        for (size_t cut = 0; cut <= len; cut += 13)
            assert_int_equal(hp_crc32_combine(hp_crc32(data, cut), hp_crc32(data + cut, len - cut),
                                              hp_crc32_shift(len - cut)),
                             hp_crc32(data, len));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_crc_combine),
        cmocka_unit_test_setup_teardown(test_round_trip, setup, teardown),
        cmocka_unit_test(test_crc32),
        cmocka_unit_test_setup_teardown(test_checksum, setup, teardown),
        cmocka_unit_test_setup_teardown(test_truncation, setup, teardown),
        cmocka_unit_test_setup_teardown(test_layout_before_checksum, setup, teardown),
        cmocka_unit_test_setup_teardown(test_thread_count, setup, teardown),
        cmocka_unit_test(test_cut_while_mapped),
        cmocka_unit_test_setup_teardown(test_bad_magic, setup, teardown),
        cmocka_unit_test_setup_teardown(test_version, setup, teardown),
        cmocka_unit_test_setup_teardown(test_version3_file, setup, teardown),
        cmocka_unit_test_setup_teardown(test_wrong_tag, setup, teardown),
        cmocka_unit_test_setup_teardown(test_record_size, setup, teardown),
        cmocka_unit_test_setup_teardown(test_string_payload, setup, teardown),
        cmocka_unit_test_setup_teardown(test_node_parent, setup, teardown),
        cmocka_unit_test_setup_teardown(test_indices, setup, teardown),
        cmocka_unit_test_setup_teardown(test_rank_order, setup, teardown),
        cmocka_unit_test_setup_teardown(test_end, setup, teardown),
        cmocka_unit_test_setup_teardown(test_missing_file, setup, teardown),
        cmocka_unit_test_setup_teardown(test_preamble_reserved, setup, teardown),
        cmocka_unit_test_setup_teardown(test_clock_domain, setup, teardown),
        cmocka_unit_test_setup_teardown(test_rank_domain, setup, teardown),
        cmocka_unit_test_setup_teardown(test_record_domain, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
