/*
 * db_counters.c - writes the counter table (db_counters.h) from the CNTR
 * records of every rank, node ids mapped to the merged tree's.
 */
#include <stdio.h>
#include <stdlib.h>
#include "db_counters.h"

static int fail(sqlite3 *db, char *err, size_t errlen, const char *what)
{
    snprintf(err, errlen, "%s: %s", what, sqlite3_errmsg(db));
    return -1;
}

/* The rows of rank r. */
/* One row of the table: a rank's counter of one merged node and thread. */
typedef struct counter_row {
    uint32_t node, thread, event;
    uint64_t value;
} counter_row;

static int row_order(const void *a, const void *b)
{
    const counter_row *x = a, *y = b;
    if (x->node != y->node)
        return x->node < y->node ? -1 : 1;
    if (x->thread != y->thread)
        return x->thread < y->thread ? -1 : 1;
    return (x->event > y->event) - (x->event < y->event);
}

/* A rank's rows, the records of two sites merged into one node summed
 * (one row per node, thread and event, as stat has). */
static int write_rank(sqlite3 *db, sqlite3_stmt *st, const hp_rank_data *rd, uint32_t r,
                      const hpf_merged *m, char *err, size_t errlen)
{
    counter_row *rows = malloc((rd->ncounters ? rd->ncounters : 1) * sizeof *rows);
    size_t n = 0;
    int rc = 0;
    if (!rows) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    for (uint32_t i = 0; i < rd->ncounters; i++) {
        const hp_counter_rec *c = &rd->counters[i];
        if (c->node >= rd->nnodes || c->event >= rd->nevents)
            continue; /* the reader refused these: cannot happen */
        rows[n++] = (counter_row){m->node_map[r][c->node], rd->nodes[c->node].thread, c->event,
                                  c->value};
    }
    if (n > 1)
        qsort(rows, n, sizeof *rows, row_order);
    for (size_t i = 0; i < n && rc == 0;) {
        counter_row sum = rows[i];
        size_t j = i + 1;
        for (; j < n && row_order(&rows[j], &sum) == 0; j++)
            sum.value += rows[j].value;
        sqlite3_bind_int64(st, 1, sum.node);
        sqlite3_bind_int64(st, 2, r);
        sqlite3_bind_int64(st, 3, sum.thread);
        sqlite3_bind_text(st, 4, rd->events[sum.event], -1, SQLITE_STATIC);
        sqlite3_bind_int64(st, 5, (sqlite3_int64)sum.value);
        int step = sqlite3_step(st);
        sqlite3_reset(st);
        if (step != SQLITE_DONE)
            rc = fail(db, err, errlen, "sqlite insert");
        i = j;
    }
    free(rows);
    return rc;
}

int hpf_db_write_counters(sqlite3 *db, hpf_profile *p, const hpf_merged *m, char *err,
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
    for (uint32_t r = 0; r < p->nranks && rc == 0; r++) {
        if (p->ranks[r].ncounters == 0)
            continue;
        int held = p->ranks[r].nodes != NULL;    /* else from the file, and back */
        rc = hpf_load_nodes(p, r, err, errlen) ||
             write_rank(db, st, &p->ranks[r], r, m, err, errlen) ? -1 : 0;
        if (!held)
            hpf_drop_nodes(p, r);
    }
    sqlite3_finalize(st);
    if (rc == 0 && sqlite3_exec(db, "CREATE INDEX counter_node ON counter(node);", NULL, NULL,
                                NULL) != SQLITE_OK)
        rc = fail(db, err, errlen, "sqlite index");
    return rc;
}
