/*
 * fuzz_profile.c - libFuzzer target for the profile reader, the merge of
 * ranks and the database writer (analyzer/read/hpf_read.c, merge.c, db.c): any
 * input must give either a profile or a one-line error, never a crash, a
 * hang or a sanitizer report.  Mutated bytes would nearly always fail a
 * section's CRC and stop at the first check, so the target first
 * recomputes the CRC of every section it can frame (tag, crc, length,
 * payload): the fuzzer then reaches the decoders of the payloads.
 *
 * A profile the reader accepts then goes the whole way of a first
 * hprof-query: merged into an SQLite database (a file in $TMPDIR, as
 * hprof-merge writes it), then checked (the --check rules) and listed (the
 * default report).  When the writer fails, nothing may be left at the
 * database's path nor its temporary file (the target aborts otherwise);
 * so that it does fail, part way, one accepted profile in four is written
 * under an SQLite heap limit picked from the input (16 to 256 KB).
 * tests/fuzz/run.sh builds it with clang -fsanitize=fuzzer,address,undefined
 * and runs it on seeds written by tests/unit/mkprofile, mkcheck and mkdeep.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "hp_format.h"
#include "read/hpf_read.h"
#include "db/merge.h"
#include "db/db.h"
#include "query/check.h"
#include "query/report.h"

static void fix_section_crcs(unsigned char *p, size_t n)
{
    size_t at = HP_PREAMBLE_LEN;
    while (at + 16 <= n) {
        uint64_t len = hp_get_u64(p + at + 8);
        if (len > n - at - 16)
            return;
        hp_put_u32(p + at + 4, hp_crc32(p + at + 16, (size_t)len));
        at += 16 + (size_t)len;
    }
}

/* What the run reached, printed at exit for tests/fuzz/run.sh. */
static unsigned long n_written, n_failed;

static void print_counts(void)
{
    fprintf(stderr, "fuzz_profile: %lu accepted profiles written to SQLite, checked and"
            " listed; %lu writes failed cleanly\n", n_written, n_failed);
}

static int exists(const char *path)
{
    struct stat sb;
    return stat(path, &sb) == 0;
}

/* The checker and the default listing on the database just written:
 * their verdicts do not matter, only that they do not crash. */
static void query_database(const char *db_path)
{
    static FILE *devnull;
    sqlite3 *db = NULL;
    char err[512];
    if (!devnull && !(devnull = fopen("/dev/null", "w")))
        abort();
    if (sqlite3_open_v2(db_path, &db, SQLITE_OPEN_READONLY, NULL) != SQLITE_OK) {
        fprintf(stderr, "fuzz: cannot open the database just written: %s\n", db_path);
        abort();
    }
    hpq_options opt = {HPQ_TEXT, -1, 30, 0};
    hpq_ctx ctx = {db, db_path, &opt, devnull, err, sizeof err};
    hpq_check(&ctx);
    hpq_report_tree(&ctx);
    sqlite3_close(db);
}

/* Writes the database of an accepted profile (consuming its comm records,
 * after the merge above); a failure must leave no
 * file behind, neither the database nor the writer's temporary one. */
static void write_database(hpf_profile *prof, const uint8_t *data, size_t size)
{
    char db_path[512], tmp_path[600], err[512];
    const char *dir = getenv("TMPDIR");
    hpf_db_summary sum;
    snprintf(db_path, sizeof db_path, "%s/fuzz-profile-%ld.db", dir && *dir ? dir : "/tmp",
             (long)getpid());
    snprintf(tmp_path, sizeof tmp_path, "%s.tmp-%ld", db_path, (long)getpid());
    unlink(db_path);
    uint32_t pick = size ? hp_crc32(data, size) : 0;
    sqlite3_int64 limit = pick % 4 == 0 ? (sqlite3_int64)(16 + (pick >> 2) % 240) << 10 : 0;
    sqlite3_hard_heap_limit64(limit);
    int rc = hpf_db_write(prof, "fuzz", db_path, 1, &sum, err, sizeof err);
    sqlite3_hard_heap_limit64(0);
    if (rc == 0) {
        query_database(db_path);
        n_written++;
    } else if (exists(db_path) || exists(tmp_path)) {
        fprintf(stderr, "fuzz: the failed write (%s) left a partial database\n", err);
        abort();
    } else {
        n_failed++;
    }
    unlink(db_path);
}

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    /* the heap limit needs SQLite's allocation statistics, which the
     * writer turns off when it is the first to initialize SQLite */
    sqlite3_config(SQLITE_CONFIG_MEMSTATUS, 1);
    sqlite3_initialize();
    atexit(print_counts);
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    unsigned char *copy = malloc(size ? size : 1);
    if (!copy)
        return 0;
    memcpy(copy, data, size);
    fix_section_crcs(copy, size);
    hpf_profile prof;
    hpf_merged merged;
    char err[512];
    if (hpf_decode(copy, size, "fuzz", &prof, err, sizeof err) == 0) {
        if (hpf_merge(&prof, &merged) == 0)
            hpf_merged_free(&merged);
        write_database(&prof, data, size);
        hpf_free(&prof);
    }
    free(copy);
    return 0;
}
