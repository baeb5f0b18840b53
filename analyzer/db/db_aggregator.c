/*
 * db_aggregator.c - what the aggregators of db_aggregator.h share for
 * their writes: the failure message and one bound insert run and reset.
 * (db_rows.c runs the aggregators; they need nothing else of it.)
 */
#include "config.h"
#include <stdio.h>
#include "db_aggregator.h"

int hpf_agg_fail(sqlite3 *db, char *err, size_t errlen)
{
    snprintf(err, errlen, "sqlite: %s", sqlite3_errmsg(db));
    return -1;
}

int hpf_agg_step(sqlite3 *db, sqlite3_stmt *st, char *err, size_t errlen)
{
    int rc = sqlite3_step(st);
    sqlite3_reset(st);
    return rc == SQLITE_DONE ? 0 : hpf_agg_fail(db, err, errlen);
}
