/*
 * db.h - writing a decoded profile into an SQLite database (schema in
 * README.md, "The database").  The database is built in a temporary file in one
 * transaction and renamed over the target only when complete.
 */
#ifndef HPF_DB_H
#define HPF_DB_H

#include <stddef.h>
#include "hpf_read.h"

typedef struct hpf_db_summary {
    uint32_t nranks, nsites, nnodes;
} hpf_db_summary;

/* Writes `p` (read from `source`) to `db_path`.  Refuses to replace an
 * existing file unless `force`.  Returns 0, or -1 with a one-line message
 * in `err`; on failure nothing is left at `db_path` (or the old file). */
int hpf_db_write(const hpf_profile *p, const char *source, const char *db_path, int force,
                 hpf_db_summary *sum, char *err, size_t errlen);

/* PROFILE.hpf -> PROFILE.db, anything else -> NAME.db.  malloc'ed. */
char *hpf_default_db_path(const char *profile);

#endif
