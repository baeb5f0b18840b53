/*
 * db_aggregator.c - what the aggregators of db_aggregator.h share for
 * their writes: the failure message, one bound insert run and reset, and
 * rows appended a batch at a time.
 * (db_rows.c runs the aggregators; they need nothing else of it.)
 */
#include "config.h"
#include <assert.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
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

/* "INSERT INTO table VALUES (?,?),(?,?)..." with `rows` rows of `cols`. */
static int prepare_rows(sqlite3 *db, const char *table, int cols, int rows, sqlite3_stmt **st,
                        char *err, size_t errlen)
{
    size_t len = strlen(table) + 32 + (size_t)rows * (2 * (size_t)cols + 2);
    char *sql = malloc(len), *at = sql;
    if (!sql) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    at += sprintf(at, "INSERT INTO %s VALUES", table);
    for (int r = 0; r < rows; r++) {
        *at++ = r ? ',' : ' ';
        for (int c = 0; c < cols; c++) {
            *at++ = c ? ',' : '(';
            *at++ = '?';
        }
        *at++ = ')';
    }
    *at = '\0';
    assert((size_t)(at - sql) < len);
    int rc = sqlite3_prepare_v2(db, sql, -1, st, NULL) == SQLITE_OK ? 0
                                                                   : hpf_agg_fail(db, err, errlen);
    free(sql);
    return rc;
}

int hpf_agg_rows_open(hpf_agg_rows *w, sqlite3 *db, const char *table, int cols, char *err,
                      size_t errlen)
{
    assert(cols > 0 && cols <= HPF_AGG_MAX_COLS);
    w->db = db;
    w->batch = w->one = NULL;
    w->cols = cols;
    w->rows = w->col = 0;
    return prepare_rows(db, table, cols, HPF_AGG_BATCH, &w->batch, err, errlen) ||
           prepare_rows(db, table, cols, 1, &w->one, err, errlen) ? -1 : 0;
}

void hpf_agg_put_int(hpf_agg_rows *w, int64_t v)
{
    struct hpf_agg_value *x = &w->vals[w->rows * w->cols + w->col++];
    x->real = 0;
    x->v.i = v;
}

void hpf_agg_put_real(hpf_agg_rows *w, double v)
{
    struct hpf_agg_value *x = &w->vals[w->rows * w->cols + w->col++];
    x->real = 1;
    x->v.d = v;
}

/* Rows [first, first + n) of the held values bound to st and inserted. */
static int insert_held(hpf_agg_rows *w, sqlite3_stmt *st, int first, int n, char *err,
                       size_t errlen)
{
    for (int k = 0; k < n * w->cols; k++) {
        const struct hpf_agg_value *x = &w->vals[first * w->cols + k];
        if (x->real)
            sqlite3_bind_double(st, k + 1, x->v.d);
        else
            sqlite3_bind_int64(st, k + 1, x->v.i);
    }
    return hpf_agg_step(w->db, st, err, errlen);
}

int hpf_agg_row_end(hpf_agg_rows *w, char *err, size_t errlen)
{
    assert(w->col == w->cols);
    w->col = 0;
    if (++w->rows < HPF_AGG_BATCH)
        return 0;
    w->rows = 0;
    return insert_held(w, w->batch, 0, HPF_AGG_BATCH, err, errlen);
}

int hpf_agg_rows_flush(hpf_agg_rows *w, char *err, size_t errlen)
{
    int rc = 0;
    assert(w->col == 0);
    for (int r = 0; r < w->rows && rc == 0; r++)
        rc = insert_held(w, w->one, r, 1, err, errlen);
    w->rows = 0;
    return rc;
}

void hpf_agg_rows_free(hpf_agg_rows *w)
{
    sqlite3_finalize(w->batch);
    sqlite3_finalize(w->one);
    w->batch = w->one = NULL;
    w->rows = 0;
}

int hpf_agg_rows_close(hpf_agg_rows *w, char *err, size_t errlen)
{
    int rc = hpf_agg_rows_flush(w, err, errlen);
    hpf_agg_rows_free(w);
    return rc;
}
