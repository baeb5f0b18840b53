/*
 * db.h - writing a decoded profile into an SQLite database (schema in
 * docs/formats.md, "The database").  The database is built in a temporary file in one
 * transaction and renamed over the target only when complete.
 */
#ifndef HPF_DB_H
#define HPF_DB_H

#include <stddef.h>
#include "read/hpf_read.h"

typedef struct hpf_db_summary {
    uint32_t nranks, nsites, nnodes;
} hpf_db_summary;

/* Writes `p` (read from `source`) to `db_path`.  Refuses to replace an
 * existing file unless `force`.  Returns 0, or -1 with a one-line message
 * in `err`; on failure nothing is left at `db_path` (or the old file).
 * Consumes p's comm and node records (each rank's freed once written:
 * ncomms 0 after, success or not; nnodes 0 once written); the rest of p
 * (run, rank infos, sites, strings, tasks) is left as it was. */
int hpf_db_write(hpf_profile *p, const char *source, const char *db_path, int force,
                 hpf_db_summary *sum, char *err, size_t errlen);

/* Whether hpf_db_write stores the per rank/thread rows (stat, comm):
 * HPF_DETAIL_AUTO when there are at most HPF_DETAIL_ROWS of them (and
 * always for one rank and one thread), HPF_DETAIL_ALWAYS (hprof-merge
 * --detail), HPF_DETAIL_NEVER (--no-detail).  Without them the database
 * holds the aggregates, and its stat and comm tables read the rows from
 * the profile when a query needs them (detail.h). */
enum { HPF_DETAIL_AUTO, HPF_DETAIL_ALWAYS, HPF_DETAIL_NEVER };
#define HPF_DETAIL_ROWS 2000000
void hpf_db_set_detail(int mode);

/* The identity of the profile file at path, "SIZE:CRC32" of its preamble
 * and section headers (each holds its payload's CRC; of every byte for a
 * file without that structure), into out (HPF_ID_LEN); recorded in the
 * database as run key source_id, so a database is fresh when its source
 * still has the same content, whatever the files' times say
 * (identity.c).  0, or -1 with errno set. */
#define HPF_ID_LEN 40
int hpf_file_identity(const char *path, char *out, size_t len);

/* The SQL of the schema's tables (but stat, comm and the aggregates),
 * their indices, and the views of db.c: for db_fromagg.c, which writes
 * the same database from an aggregated profile. */
enum { HPF_DB_SQL_SCHEMA, HPF_DB_SQL_INDEX, HPF_DB_SQL_VIEWS };
const char *hpf_db_sql(int part);
/* Run keys argv (the arguments joined by spaces, malloc'ed; NULL without
 * memory) and clock ("tsc", "monotonic", "unknown"). */
char *hpf_join_argv(const hp_run_info *run);
const char *hpf_clock_name(uint32_t clock);

/* The definitions of the database's views (for hpq_use_raw_times). */
const char *hpf_db_view_sql(void);

/* PROFILE.hpf -> PROFILE.db, anything else -> NAME.db.  malloc'ed. */
char *hpf_default_db_path(const char *profile);

#endif
