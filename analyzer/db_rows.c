/*
 * db_rows.c - the per rank/thread rows of the database (stat, comm, task)
 * and the aggregates computed from them (db_aggregator.h), in one pass
 * over the ranks: a rank is compensated, its rows are inserted, every
 * aggregator folds it in, and its records and compensated times are freed
 * before the next rank.  Rows keep the order of the profile (ranks in
 * order, records in order), so their row ids are those of a table-by-table
 * write.
 */
#include "config.h"
#include <assert.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "db_aggregator.h"
#include "db_rows.h"

/* The aggregators, in the order their tables are written. */
static const hpf_aggregator *const aggregators[] = {
    &hpf_node_aggregator,
    &hpf_site_aggregator,
    &hpf_comm_aggregator,
    &hpf_ovh_aggregator,
};
#define NAGGREGATORS (sizeof aggregators / sizeof *aggregators)

/* Rows go in batches of BATCH per statement: one step per batch instead
 * of one per row.  A row's values wait in `vals` until its batch is full
 * (the records they came from may be freed by then). */
#define BATCH 32
#define MAX_COLS 11

typedef struct cell {
    int real;
    union {
        int64_t i;
        double d;
    } v;
} cell;

typedef struct inserter {
    sqlite3 *db;
    sqlite3_stmt *one, *batch;
    int cols, rows, col;          /* columns per row; rows held; next column */
    cell vals[BATCH * MAX_COLS];
} inserter;

static int sql_fail(sqlite3 *db, const char *what, char *err, size_t errlen)
{
    snprintf(err, errlen, "%s: %s", what, sqlite3_errmsg(db));
    return -1;
}

int hpf_agg_fail(sqlite3 *db, char *err, size_t errlen)
{
    return sql_fail(db, "sqlite", err, errlen);
}

int hpf_agg_step(sqlite3 *db, sqlite3_stmt *st, char *err, size_t errlen)
{
    int rc = sqlite3_step(st);
    sqlite3_reset(st);
    return rc == SQLITE_DONE ? 0 : hpf_agg_fail(db, err, errlen);
}

/* "INSERT INTO table VALUES(?,?),(?,?)..." with `rows` rows of `cols` columns. */
static int prepare_insert(sqlite3 *db, const char *table, int cols, int rows,
                          sqlite3_stmt **st, char *err, size_t errlen)
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
        *at++ = '(';
        for (int c = 0; c < cols; c++) {
            if (c)
                *at++ = ',';
            *at++ = '?';
        }
        *at++ = ')';
    }
    *at = '\0';
    assert((size_t)(at - sql) < len);
    int rc = sqlite3_prepare_v2(db, sql, -1, st, NULL) == SQLITE_OK
                 ? 0 : sql_fail(db, "sqlite prepare", err, errlen);
    free(sql);
    return rc;
}

static int inserter_open(inserter *ins, sqlite3 *db, const char *table, int cols,
                         char *err, size_t errlen)
{
    assert(cols <= MAX_COLS);
    memset(ins, 0, sizeof *ins);
    ins->db = db;
    ins->cols = cols;
    return prepare_insert(db, table, cols, 1, &ins->one, err, errlen) ||
           prepare_insert(db, table, cols, BATCH, &ins->batch, err, errlen) ? -1 : 0;
}

static void inserter_close(inserter *ins)
{
    sqlite3_finalize(ins->one);
    sqlite3_finalize(ins->batch);
    ins->one = ins->batch = NULL;
}

/* Binds rows [first, first + n) of the held values to st and runs it. */
static int run_rows(inserter *ins, sqlite3_stmt *st, int first, int n, char *err, size_t errlen)
{
    for (int k = 0; k < n * ins->cols; k++) {
        const cell *c = &ins->vals[first * ins->cols + k];
        if (c->real)
            sqlite3_bind_double(st, k + 1, c->v.d);
        else
            sqlite3_bind_int64(st, k + 1, c->v.i);
    }
    int rc = sqlite3_step(st);
    sqlite3_reset(st);
    return rc == SQLITE_DONE ? 0 : sql_fail(ins->db, "sqlite insert", err, errlen);
}

/* Inserts the rows held, a batch at a time, the rest one by one. */
static int inserter_flush(inserter *ins, char *err, size_t errlen)
{
    int rc = 0, first = 0;
    assert(ins->col == 0);
    if (ins->rows == BATCH) {
        rc = run_rows(ins, ins->batch, 0, BATCH, err, errlen);
        first = BATCH;
    }
    for (; first < ins->rows && rc == 0; first++)
        rc = run_rows(ins, ins->one, first, 1, err, errlen);
    ins->rows = 0;
    return rc;
}

static void put_int(inserter *ins, int64_t v)
{
    cell *c = &ins->vals[ins->rows * ins->cols + ins->col++];
    c->real = 0;
    c->v.i = v;
}

static void put_real(inserter *ins, double v)
{
    cell *c = &ins->vals[ins->rows * ins->cols + ins->col++];
    c->real = 1;
    c->v.d = v;
}

/* Ends a row; a full batch is inserted. */
static int end_row(inserter *ins, char *err, size_t errlen)
{
    assert(ins->col == ins->cols);
    ins->col = 0;
    return ++ins->rows == BATCH ? inserter_flush(ins, err, errlen) : 0;
}

typedef struct row_pass {
    inserter stat, comm, task;
    void *acc[NAGGREGATORS];
    int use[NAGGREGATORS];
    char *err;
    size_t errlen;
} row_pass;

static int put_comms(row_pass *rp, const hpf_rank_rows *rr)
{
    inserter *ins = &rp->comm;
    const hp_rank_data *rd = rr->rd;
    for (uint32_t i = 0; i < rd->ncomms; i++) {
        const hp_comm_rec *c = &rd->comms[i];
        assert(c->node < rd->nnodes);
        put_int(ins, rr->node_map[c->node]);
        put_int(ins, rr->rank);
        put_int(ins, rd->nodes[c->node].thread);
        put_int(ins, c->peer);
        put_int(ins, (int64_t)c->count);
        put_int(ins, (int64_t)c->bytes_sent);
        put_int(ins, (int64_t)c->bytes_recv);
        put_real(ins, c->tran);
        put_real(ins, c->sync);
        put_real(ins, c->min);
        put_real(ins, c->max);
        if (end_row(ins, rp->err, rp->errlen))
            return -1;
    }
    return 0;
}

static int put_stats(row_pass *rp, const hpf_rank_rows *rr)
{
    inserter *ins = &rp->stat;
    const hp_rank_data *rd = rr->rd;
    uint32_t n = rd->nnodes;
    for (uint32_t i = 0; i < n; i++) {
        const hp_node_rec *nd = &rd->nodes[i];
        put_int(ins, rr->node_map[i]);
        put_int(ins, rr->rank);
        put_int(ins, nd->thread);
        put_int(ins, (int64_t)nd->count);
        put_real(ins, rr->time[i]);
        put_real(ins, rr->time[n + i]);
        put_real(ins, rr->time[2 * n + i]);
        put_int(ins, (int64_t)nd->timed);
        put_real(ins, nd->time);
        put_real(ins, nd->min);
        put_real(ins, nd->max);
        if (end_row(ins, rp->err, rp->errlen))
            return -1;
    }
    return 0;
}

/* The task rows bind a text column: inserted one by one (a timeline is
 * short beside the stat and comm rows). */
static int put_tasks(row_pass *rp, sqlite3 *db, const hpf_rank_rows *rr)
{
    const hp_rank_data *rd = rr->rd;
    sqlite3_stmt *st = rp->task.one;
    for (uint32_t i = 0; i < rd->ntasks; i++) {
        const hp_task_rec *k = &rd->tasks[i];
        sqlite3_bind_int64(st, 1, rr->rank);
        sqlite3_bind_int64(st, 2, k->thread);
        sqlite3_bind_text(st, 3, k->kind == HP_TASKEV_CREATE ? "create" : "run", -1,
                          SQLITE_STATIC);
        sqlite3_bind_int64(st, 4, rr->site_map[k->site]);
        sqlite3_bind_int64(st, 5, k->team);
        sqlite3_bind_int64(st, 6, (int64_t)k->id);
        sqlite3_bind_int64(st, 7, (int64_t)k->parent);
        sqlite3_bind_double(st, 8, k->begin);
        sqlite3_bind_double(st, 9, k->end);
        int rc = sqlite3_step(st);
        sqlite3_reset(st);
        if (rc != SQLITE_DONE)
            return sql_fail(db, "sqlite insert", rp->err, rp->errlen);
    }
    return 0;
}

static int one_rank(row_pass *rp, sqlite3 *db, hpf_profile *p, const hpf_merged *m,
                    hpf_comp *comp, uint32_t r)
{
    hp_rank_data *rd = &p->ranks[r];
    if (hpf_load_comms(p, r, rp->err, rp->errlen))
        return -1;
    if (hpf_comp_rank(p, r, comp)) {
        snprintf(rp->err, rp->errlen, "out of memory compensating the times");
        return -1;
    }
    hpf_rank_rows rr = {r, rd, m->node_map[r], m->site_map[r], comp->values[r]};
    if (put_comms(rp, &rr) || put_stats(rp, &rr) || put_tasks(rp, db, &rr))
        return -1;
    for (size_t a = 0; a < NAGGREGATORS; a++)
        if (rp->use[a] && aggregators[a]->add_rank(rp->acc[a], &rr)) {
            snprintf(rp->err, rp->errlen, "out of memory in the %s aggregates",
                     aggregators[a]->name);
            return -1;
        }
    /* the rank is written and folded in: its records and compensated
     * times are not needed again (only comp->stats[r] is) */
    free(rd->comms);
    rd->comms = NULL;
    rd->ncomms = 0;
    free(rd->nodes);
    rd->nodes = NULL;
    rd->nnodes = 0;
    free(comp->values[r]);
    comp->values[r] = NULL;
    return 0;
}

/* The aggregators of one row per node, left out for a profile of one
 * rank and one thread: its rows are as small as their tables would be
 * (node_*: views; ovh_x, ovh_rank: --overheads reads the rows). */
static int is_per_node(const hpf_aggregator *ag)
{
    return ag == &hpf_node_aggregator || ag == &hpf_ovh_aggregator;
}

static int start_pass(row_pass *rp, sqlite3 *db, const hpf_profile *p, const hpf_merged *m,
                      int node_aggregates)
{
    if (inserter_open(&rp->stat, db, "stat", 11, rp->err, rp->errlen) ||
        inserter_open(&rp->comm, db, "comm", 11, rp->err, rp->errlen) ||
        prepare_insert(db, "task", 9, 1, &rp->task.one, rp->err, rp->errlen))
        return -1;
    for (size_t a = 0; a < NAGGREGATORS; a++) {
        rp->use[a] = node_aggregates || !is_per_node(aggregators[a]);
        if (rp->use[a] && !(rp->acc[a] = aggregators[a]->start(p, m))) {
            snprintf(rp->err, rp->errlen, "out of memory in the %s aggregates",
                     aggregators[a]->name);
            return -1;
        }
    }
    return 0;
}

static void end_pass(row_pass *rp)
{
    inserter_close(&rp->stat);
    inserter_close(&rp->comm);
    inserter_close(&rp->task);
    for (size_t a = 0; a < NAGGREGATORS; a++)
        if (rp->acc[a])
            aggregators[a]->finish(rp->acc[a]);
}

int hpf_db_write_rows(sqlite3 *db, hpf_profile *p, const hpf_merged *m, hpf_comp *comp,
                      int node_aggregates, char *err, size_t errlen)
{
    row_pass *rp = calloc(1, sizeof *rp);
    int rc = -1;
    if (!rp) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    rp->err = err;
    rp->errlen = errlen;
    if (start_pass(rp, db, p, m, node_aggregates))
        goto done;
    for (uint32_t r = 0; r < p->nranks; r++)
        if (one_rank(rp, db, p, m, comp, r))
            goto done;
    if (inserter_flush(&rp->comm, err, errlen) || inserter_flush(&rp->stat, err, errlen))
        goto done;
    for (size_t a = 0; a < NAGGREGATORS; a++)
        if (rp->use[a] && aggregators[a]->write(rp->acc[a], db, err, errlen))
            goto done;
    rc = 0;
done:
    end_pass(rp);
    free(rp);
    for (uint32_t r = 0; r < p->nranks; r++) {     /* what a failure left */
        free(p->ranks[r].comms);
        p->ranks[r].comms = NULL;
        p->ranks[r].ncomms = 0;
    }
    return rc;
}
