/*
 * db_counters.c - writes the counter table (db_counters.h) from the CNTR
 * records of every rank, node ids mapped to the merged tree's.
 */
#include <stdio.h>
#include "db_counters.h"

static int fail(sqlite3 *db, char *err, size_t errlen, const char *what)
{
    snprintf(err, errlen, "%s: %s", what, sqlite3_errmsg(db));
    return -1;
}

/* The rows of rank r. */
static int write_rank(sqlite3 *db, sqlite3_stmt *st, const hp_rank_data *rd, uint32_t r,
                      const hpf_merged *m, char *err, size_t errlen)
{
    for (uint32_t i = 0; i < rd->ncounters; i++) {
        const hp_counter_rec *c = &rd->counters[i];
        if (c->node >= rd->nnodes || c->event >= rd->nevents)
            continue; /* the reader refused these: cannot happen */
        sqlite3_bind_int64(st, 1, m->node_map[r][c->node]);
        sqlite3_bind_int64(st, 2, r);
        sqlite3_bind_int64(st, 3, rd->nodes[c->node].thread);
        sqlite3_bind_text(st, 4, rd->events[c->event], -1, SQLITE_STATIC);
        sqlite3_bind_int64(st, 5, (sqlite3_int64)c->value);
        int rc = sqlite3_step(st);
        sqlite3_reset(st);
        if (rc != SQLITE_DONE)
            return fail(db, err, errlen, "sqlite insert");
    }
    return 0;
}

int hpf_db_write_counters(sqlite3 *db, const hpf_profile *p, const hpf_merged *m, char *err,
                          size_t errlen)
{
    sqlite3_stmt *st;
    char *msg = NULL;
    if (sqlite3_exec(db,
                     "CREATE TABLE counter(node INTEGER, rank INTEGER, thread INTEGER,"
                     " event TEXT, value INTEGER);",
                     NULL, NULL, &msg) != SQLITE_OK) {
        snprintf(err, errlen, "sqlite: %s", msg ? msg : "error");
        sqlite3_free(msg);
        return -1;
    }
    if (sqlite3_prepare_v2(db, "INSERT INTO counter VALUES(?, ?, ?, ?, ?)", -1, &st, NULL) !=
        SQLITE_OK)
        return fail(db, err, errlen, "sqlite prepare");
    int rc = 0;
    for (uint32_t r = 0; r < p->nranks && rc == 0; r++)
        rc = write_rank(db, st, &p->ranks[r], r, m, err, errlen);
    sqlite3_finalize(st);
    if (rc == 0 && sqlite3_exec(db, "CREATE INDEX counter_node ON counter(node);", NULL, NULL,
                                NULL) != SQLITE_OK)
        rc = fail(db, err, errlen, "sqlite index");
    return rc;
}
