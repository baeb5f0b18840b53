/*
 * db_tree.h - the rows of the merged tree in the database, the `site` and
 * `node` tables, written the same way for a profile (db.c) and for an
 * aggregated profile (db_fromagg.c): merge.h numbers the sites and nodes,
 * the caller says where each site's record and strings are.
 */
#ifndef HPF_DB_TREE_H
#define HPF_DB_TREE_H

#include <stddef.h>
#include <stdint.h>
#include <sqlite3.h>
#include "merge.h"

/* Where merged site i's record is: the record, the string table its
 * names index, and flags to add to the record's (hpf_gsite.throttled). */
typedef struct hpf_site_source {
    const hp_site_rec *rec;
    char *const *strings;
    uint32_t extra_flags;
} hpf_site_source;

typedef hpf_site_source (*hpf_site_lookup)(const void *ctx, uint32_t i);

/* Inserts a row of `site` per merged site and one of `node` per merged
 * node (ids from 1).  0, or -1 with err ("sqlite prepare: ..." or
 * "sqlite insert: ..."). */
int hpf_db_write_sites(sqlite3 *db, const hpf_merged *m, hpf_site_lookup lookup,
                       const void *ctx, char *err, size_t errlen);
int hpf_db_write_nodes(sqlite3 *db, const hpf_merged *m, char *err, size_t errlen);

#endif
