/*
 * qopen.c - opening hprof-query's input (see qopen.h): file type by magic,
 * merge-on-first-use of profiles, read-only open and a sanity check that
 * the database is an hprof one.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include "db/db.h"
#include "db/db_agg.h"
#include "db/db_fromagg.h"
#include "db/detail.h"
#include "hp_format.h"
#include "read/hpf_read.h"
#include "db/parts.h"
#include "qlive.h"
#include "qopen.h"

static const char *program = "hprof-query";   /* names the notes on stderr */

void hpq_open_set_program(const char *name)
{
    program = name;
}

#define SQLITE_MAGIC "SQLite format 3"  /* 16 bytes with the NUL */

enum file_kind { FILE_PROFILE, FILE_DATABASE, FILE_OTHER };

static int file_kind(const char *path, enum file_kind *kind, char *err, size_t errlen)
{
    unsigned char head[16];
    FILE *f = fopen(path, "rb");
    if (!f) {
        snprintf(err, errlen, "%s: %s", path, strerror(errno));
        return -1;
    }
    size_t n = fread(head, 1, sizeof head, f);
    fclose(f);
    if (n >= HP_FORMAT_MAGIC_LEN && memcmp(head, HP_FORMAT_MAGIC, HP_FORMAT_MAGIC_LEN) == 0)
        *kind = FILE_PROFILE;
    else if (n == sizeof head && memcmp(head, SQLITE_MAGIC, sizeof head) == 0)
        *kind = FILE_DATABASE;
    else
        *kind = FILE_OTHER;
    return 0;
}

/* Is the database at db_path the merge of the profile whose identity is
 * id (hpf_file_identity), in this hprof's format (an older one is merged
 * again)?  *newer is set for a database of a newer format.  Judged by
 * content, not by the files' times: a profile replaced by an older-dated
 * file is merged again. */
static int db_is_of(const char *db_path, const char *id, int *newer)
{
    sqlite3 *db = NULL;
    sqlite3_stmt *st = NULL;
    int same = 0, version = -1;
    if (sqlite3_open_v2(db_path, &db, SQLITE_OPEN_READONLY, NULL) == SQLITE_OK)
        version = hpf_db_format(db);
    *newer = version > HPF_DB_FORMAT;
    if (version == HPF_DB_FORMAT &&
        sqlite3_prepare_v2(db, "SELECT value FROM run WHERE key = 'source_id'", -1, &st,
                           NULL) == SQLITE_OK &&
        sqlite3_step(st) == SQLITE_ROW) {
        const char *v = (const char *)sqlite3_column_text(st, 0);
        same = v && strcmp(v, id) == 0;
    }
    sqlite3_finalize(st);
    st = NULL;
    /* a database merged before the raw times were kept (format 4) */
    if (same && sqlite3_prepare_v2(db, "SELECT raw_time FROM stat LIMIT 0", -1, &st,
                                   NULL) != SQLITE_OK)
        same = 0;
    sqlite3_finalize(st);
    /* a table dropped since: merged again */
    char ignored[256];
    if (same && hpf_db_check_complete(db, db_path, ignored, sizeof ignored))
        same = 0;
    sqlite3_close(db);
    return same;
}

/* Makes sure the database of the input exists and is up to date. */
/* An aggregated profile (HPROF_AGGREGATE) into its database
 * (db/db_fromagg.h). */
static int merge_aggregated(const char *path, const char *db_path, char *err, size_t errlen)
{
    hpf_db_summary sum;
    int rc = hpf_db_merge_aggregated(path, db_path, 1, &sum, err, errlen);
    if (rc == 0)
        fprintf(stderr, "%s: merged the aggregated profile %s into %s\n", program, path,
                db_path);
    return rc;
}

static int merge_if_needed(const hpf_input *in, const char *db_path, char *err, size_t errlen)
{
    struct stat ds;
    char id[HPF_ID_LEN], note[1024];
    hpf_profile p;
    hpf_db_summary sum;
    int newer = 0;
    if (stat(db_path, &ds) == 0 && hpf_input_identity(in, id, sizeof id) == 0 &&
        db_is_of(db_path, id, &newer))
        return 0;
    if (newer) {    /* never overwrite the database of a newer hprof */
        sqlite3 *db = NULL;
        if (sqlite3_open_v2(db_path, &db, SQLITE_OPEN_READONLY, NULL) == SQLITE_OK)
            hpf_db_check_version(db, db_path, err, errlen);
        sqlite3_close(db);
        return -1;
    }
    if (in->nfiles == 1 && hpf_is_aggregate(in->files[0]))
        return merge_aggregated(in->files[0], db_path, err, errlen);
    if (hpf_read_input(in, &p, err, errlen))
        return -1;
    hpf_missing_note(&p, in->name, note, sizeof note);
    hpq_live_note(in, &p, note, sizeof note);
    int rc = hpf_input_db_write(in, &p, db_path, 1, &sum, err, errlen);
    hpf_free(&p);
    if (rc == 0 && in->nfiles == 1)
        fprintf(stderr, "%s: merged %s into %s%s%s\n", program, in->files[0], db_path,
                note[0] ? "; " : "", note);
    else if (rc == 0)
        fprintf(stderr, "%s: merged the %u per-rank files of %s into %s%s%s\n",
                program, in->nfiles, in->name, db_path, note[0] ? "; " : "", note);
    return rc;
}

static int check_hprof_db(sqlite3 *db, const char *db_path, char *err, size_t errlen)
{
    sqlite3_stmt *st;
    int ok = sqlite3_prepare_v2(db, "SELECT value FROM run WHERE key = 'nranks'", -1, &st,
                                NULL) == SQLITE_OK &&
             sqlite3_step(st) == SQLITE_ROW;
    sqlite3_finalize(st);
    if (!ok)
        snprintf(err, errlen, "%s: not an hprof database", db_path);
    return ok ? 0 : -1;
}

static int is_directory(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

int hpq_open(int npaths, char *const *paths, sqlite3 **db, char **db_path, char *err,
             size_t errlen)
{
    enum file_kind kind = FILE_PROFILE;
    hpf_input in = {0};
    *db = NULL;
    *db_path = NULL;
    if (hpf_detail_register()) {
        snprintf(err, errlen, "cannot register the sqlite module " HPF_DETAIL_MODULE);
        return -1;
    }
    int from_live = npaths == 1 ? hpq_live_as_run(paths[0], &in, err, errlen) : 0;
    if (from_live < 0)
        return -1;
    if (npaths == 1 && !from_live && !is_directory(paths[0])) {
        if (file_kind(paths[0], &kind, err, errlen))
            return -1;
        if (kind == FILE_OTHER) {
            snprintf(err, errlen, "%s: neither an hprof profile nor an hprof database",
                     paths[0]);
            return -1;
        }
    }
    if (kind == FILE_PROFILE && !from_live && hpf_input_find(npaths, paths, &in, err, errlen))
        return -1;
    if (kind == FILE_PROFILE && hpq_live_add_to_parts(&in)) {
        snprintf(err, errlen, "out of memory");
        goto failed;
    }
    *db_path = kind == FILE_PROFILE ? hpf_default_db_path(in.name) : strdup(paths[0]);
    if (!*db_path) {
        snprintf(err, errlen, "out of memory");
        goto failed;
    }
    if (kind == FILE_PROFILE && merge_if_needed(&in, *db_path, err, errlen))
        goto failed;
    hpf_input_free(&in);
    /* one thread uses the connection: no mutex around every sqlite3_column_*
     * (15% of --check at 1024 ranks, reading millions of rows) */
    if (sqlite3_open_v2(*db_path, db, SQLITE_OPEN_READONLY | SQLITE_OPEN_NOMUTEX, NULL) !=
        SQLITE_OK) {
        snprintf(err, errlen, "%s: %s", *db_path, *db ? sqlite3_errmsg(*db) : "cannot open");
        goto failed;
    }
    if (check_hprof_db(*db, *db_path, err, errlen) ||
        hpf_db_check_version(*db, *db_path, err, errlen) ||
        hpf_db_check_complete(*db, *db_path, err, errlen))
        goto failed;
    return 0;
failed:
    hpf_input_free(&in);
    sqlite3_close(*db);
    *db = NULL;
    free(*db_path);
    *db_path = NULL;
    return -1;
}
