/*
 * dbcomp.c - the compensated and the raw view of a profile's times in the
 * database (dbcomp.h).
 */
#include <assert.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "dbcomp.h"

int hpf_comp_start(const hpf_profile *p, hpf_comp *c)
{
    c->nranks = p->nranks;
    c->values = calloc(p->nranks ? p->nranks : 1, sizeof *c->values);
    c->stats = calloc(p->nranks ? p->nranks : 1, sizeof *c->stats);
    if (!c->values || !c->stats) {
        hpf_comp_free(c);
        return -1;
    }
    return 0;
}

int hpf_comp_rank(const hpf_profile *p, uint32_t r, hpf_comp *c)
{
    const hp_rank_data *rd = &p->ranks[r];
    size_t n = rd->nnodes ? rd->nnodes : 1;
    double *v = malloc(3 * n * sizeof *v);
    assert(r < c->nranks && !c->values[r]);
    if (!v || hp_compensate(rd, v, v + n, v + 2 * n, &c->stats[r]) != 0) {
        free(v);
        return -1;
    }
    c->values[r] = v;
    return 0;
}

void hpf_comp_free(hpf_comp *c)
{
    for (uint32_t r = 0; c->values && r < c->nranks; r++)
        free(c->values[r]);
    free(c->values);
    free(c->stats);
    memset(c, 0, sizeof *c);
}

int hpf_exec(sqlite3 *db, const char *sql, char *err, size_t errlen)
{
    char *msg = NULL;
    if (sqlite3_exec(db, sql, NULL, NULL, &msg) == SQLITE_OK)
        return 0;
    snprintf(err, errlen, "sqlite: %s", msg ? msg : "error");
    sqlite3_free(msg);
    return -1;
}

/* A view of the main schema reads the main schema's stat whatever the
 * connection's temporary objects are, so each view is made again as a
 * temporary one, which names resolve to first. */
int hpq_use_raw_times(sqlite3 *db, const char *view_sql, char *err, size_t errlen)
{
    if (hpf_exec(db, "CREATE TEMP VIEW stat AS SELECT node, rank, thread, count,"
                     " raw_time AS time, raw_min AS min, raw_max AS max, timed, raw_time,"
                     " raw_min, raw_max FROM main.stat;", err, errlen))
        return -1;
    static const char create[] = "CREATE VIEW ";
    for (const char *s = strstr(view_sql, create); s; s = strstr(s + 1, create)) {
        const char *end = strstr(s, ";\n");
        size_t len = end ? (size_t)(end - s) : strlen(s);
        char *sql = malloc(len + 8);
        if (!sql) {
            snprintf(err, errlen, "out of memory");
            return -1;
        }
        snprintf(sql, len + 8, "CREATE TEMP %.*s", (int)(len - 7), s + 7);
        int rc = hpf_exec(db, sql, err, errlen);
        free(sql);
        if (rc)
            return -1;
    }
    return 0;
}
