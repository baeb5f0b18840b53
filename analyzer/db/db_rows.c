/*
 * db_rows.c - the per rank/thread rows of the database (stat, comm, task)
 * and the aggregates computed from them (db_aggregator.h).
 *
 * Two things run at once.  A second thread passes over the ranks: each
 * rank is compensated and every aggregator folds it in (its comm records
 * decoded and freed again).  Meanwhile this thread inserts the comm rows
 * node by node (db_order.h; comm rows are not compensated).  The stat
 * rows, node by node too, wait for the compensated times; the tasks and
 * the aggregators' tables come last.  Rows in node order go in at the end
 * of their table's key: no index is sorted afterwards.
 */
#include "config.h"
#include <assert.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "db_aggregator.h"
#include "db_order.h"
#include "db_rows.h"
#include "phases.h"
#include "rankidx.h"
#include "statrow.h"

/* The aggregators, in the order their tables are written. */
static const hpf_aggregator *const aggregators[] = {
    &hpf_node_aggregator,
    &hpf_site_aggregator,
    &hpf_comm_aggregator,
    &hpf_ovh_aggregator,
    &hpf_rankidx_aggregator,    /* aggregate mode: the per-node index of the rows */
};
#define NAGGREGATORS (sizeof aggregators / sizeof *aggregators)

static int sql_fail(sqlite3 *db, const char *what, char *err, size_t errlen)
{
    snprintf(err, errlen, "%s: %s", what, sqlite3_errmsg(db));
    return -1;
}

#define TASK_INSERT "INSERT INTO task VALUES(?, ?, ?, ?, ?, ?, ?, ?, ?)"

static int prepare_one(sqlite3 *db, const char *sql, sqlite3_stmt **st, char *err,
                       size_t errlen)
{
    if (sqlite3_prepare_v2(db, sql, -1, st, NULL) == SQLITE_OK)
        return 0;
    return sql_fail(db, "sqlite prepare", err, errlen);
}

/* The pass over the ranks (compensation, aggregators), run by a second
 * thread while the comm rows are inserted. */
typedef struct rank_pass {
    hpf_profile *p;
    const hpf_merged *m;
    hpf_comp *comp;
    uint64_t *node_comms;       /* without rows: comm records per merged node; and each
                                   rank's node records and times dropped once used */
    void *acc[NAGGREGATORS];
    int use[NAGGREGATORS];
    int rc;
    char err[512];
} rank_pass;

/* Without rows, a rank's node records (if they came from the file) and
 * compensated times are dropped once folded in. */
static void drop_rank(rank_pass *rk, uint32_t r)
{
    if (!rk->node_comms)
        return;
    hpf_drop_nodes(rk->p, r);
    free(rk->comp->values[r]);
    rk->comp->values[r] = NULL;
}

static int fold_rank(rank_pass *rk, uint32_t r)
{
    hp_rank_data *rd = &rk->p->ranks[r];
    int in_file = !rd->comms;     /* decoded here, freed here */
    if (hpf_load_nodes(rk->p, r, rk->err, sizeof rk->err) ||
        hpf_load_comms(rk->p, r, rk->err, sizeof rk->err))
        return -1;
    if (hpf_comp_rank(rk->p, r, rk->comp)) {
        snprintf(rk->err, sizeof rk->err, "out of memory compensating the times");
        return -1;
    }
    hpf_rank_rows rr = {r, rd, rk->m->node_map[r], rk->m->site_map[r], rk->comp->values[r]};
    for (uint32_t i = 0; rk->node_comms && i < rd->ncomms; i++)
        rk->node_comms[rr.node_map[rd->comms[i].node]]++;
    for (size_t a = 0; a < NAGGREGATORS; a++)
        if (rk->use[a] && aggregators[a]->add_rank(rk->acc[a], &rr)) {
            snprintf(rk->err, sizeof rk->err, "out of memory in the %s aggregates",
                     aggregators[a]->name);
            return -1;
        }
    if (in_file) {
        free(rd->comms);
        rd->comms = NULL;
    }
    drop_rank(rk, r);
    return 0;
}

static void *rank_pass_run(void *arg)
{
    rank_pass *rk = arg;
    for (uint32_t r = 0; r < rk->p->nranks && rk->rc == 0; r++)
        rk->rc = fold_rank(rk, r);
    return NULL;
}

/* The aggregators of one row per node, left out for a profile of one
 * rank and one thread: its rows are as small as their tables would be
 * (node_*: views; ovh_x, ovh_rank: --overheads reads the rows). */
static int is_per_node(const hpf_aggregator *ag)
{
    return ag == &hpf_node_aggregator || ag == &hpf_ovh_aggregator;
}

static int rank_pass_start(rank_pass *rk, int node_aggregates)
{
    for (size_t a = 0; a < NAGGREGATORS; a++) {
        rk->use[a] = node_aggregates || !is_per_node(aggregators[a]);
        if (rk->use[a] && !(rk->acc[a] = aggregators[a]->start(rk->p, rk->m, !rk->node_comms))) {
            snprintf(rk->err, sizeof rk->err, "out of memory in the %s aggregates",
                     aggregators[a]->name);
            return -1;
        }
    }
    return 0;
}

static void rank_pass_finish(rank_pass *rk)
{
    for (size_t a = 0; a < NAGGREGATORS; a++)
        if (rk->acc[a])
            aggregators[a]->finish(rk->acc[a]);
}

typedef struct row_pass {
    hpf_agg_rows stat, comm;          /* the stat and comm rows, batched */
    sqlite3_stmt *task;
    char *err;
    size_t errlen;
} row_pass;

/* The comm rows' ids of each node, [first, last]: rows appended to the
 * empty table are numbered 1, 2, ... (SQLite's new row id is the largest
 * plus one), so the ids are known as the rows go in. */
typedef struct id_ranges {
    int64_t (*v)[3];    /* node, first, last */
    size_t n, cap;
} id_ranges;

static int note_row(id_ranges *ir, uint32_t node, int64_t id)
{
    if (ir->n && ir->v[ir->n - 1][0] == node) {
        ir->v[ir->n - 1][2] = id;
        return 0;
    }
    if (ir->n == ir->cap) {
        size_t cap = ir->cap ? 2 * ir->cap : 1024;
        int64_t (*v)[3] = realloc(ir->v, cap * sizeof *v);
        if (!v)
            return -1;
        ir->v = v;
        ir->cap = cap;
    }
    ir->v[ir->n][0] = node;
    ir->v[ir->n][1] = ir->v[ir->n][2] = id;
    ir->n++;
    return 0;
}

static int write_ranges(row_pass *rp, sqlite3 *db, const id_ranges *ir, int64_t rows)
{
    sqlite3_stmt *st;
    if (rows > 0 && sqlite3_last_insert_rowid(db) != rows) {    /* the last insert's */
        snprintf(rp->err, rp->errlen, "comm rows numbered out of order (%lld, %lld rows)",
                 (long long)sqlite3_last_insert_rowid(db), (long long)rows);
        return -1;
    }
    if (prepare_one(db, "INSERT INTO comm_range VALUES(?, ?, ?)", &st, rp->err, rp->errlen))
        return -1;
    int rc = 0;
    for (size_t i = 0; i < ir->n && rc == 0; i++) {
        for (int k = 0; k < 3; k++)
            sqlite3_bind_int64(st, k + 1, ir->v[i][k]);
        rc = hpf_agg_step(db, st, rp->err, rp->errlen);
    }
    sqlite3_finalize(st);
    return rc;
}

/* Without the rows: the ranges of ids their comm rows would have had
 * (node by node, from 1), from the count of each node's records. */
static int write_counted_ranges(row_pass *rp, sqlite3 *db, const uint64_t *node_comms,
                                uint32_t nnodes)
{
    id_ranges ir = {NULL, 0, 0};
    int64_t rows = 0;
    int rc = 0;
    for (uint32_t g = 1; g <= nnodes && rc == 0; g++) {
        if (node_comms[g] == 0)
            continue;
        rc = note_row(&ir, g, rows + 1) || note_row(&ir, g, rows + (int64_t)node_comms[g]);
        rows += (int64_t)node_comms[g];
    }
    if (rc)
        snprintf(rp->err, rp->errlen, "out of memory");
    else
        rc = write_ranges(rp, db, &ir, 0);
    free(ir.v);
    return rc;
}

/* The comm rows, node by node (db_order.h), and their ranges of ids. */
static int put_comms(row_pass *rp, sqlite3 *db, hpf_comm_src *src, const hpf_merged *m)
{
    hpf_comm_run *runs = NULL;
    size_t nruns = 0;
    id_ranges ir = {NULL, 0, 0};
    int64_t rows = 0;
    int rc = -1;
    if (hpf_comm_runs(src, m, &runs, &nruns, rp->err, rp->errlen))
        goto done;
    hpf_agg_rows *ins = &rp->comm;
    for (size_t k = 0; k < nruns; k++) {
        const hpf_comm_run *run = &runs[k];
        const hp_comm_rec *c = hpf_comm_src_get(src, run->rank, run->first, run->n, rp->err,
                                                rp->errlen);
        if (!c)
            goto done;
        for (uint32_t i = 0; i < run->n; i++) {
            hpf_agg_put_int(ins, run->node);
            hpf_agg_put_int(ins, run->rank);
            hpf_agg_put_int(ins, run->thread);
            hpf_agg_put_int(ins, c[i].peer);
            hpf_agg_put_int(ins, (int64_t)c[i].count);
            hpf_agg_put_int(ins, (int64_t)c[i].bytes_sent);
            hpf_agg_put_int(ins, (int64_t)c[i].bytes_recv);
            hpf_agg_put_real(ins, c[i].tran);
            hpf_agg_put_real(ins, c[i].sync);
            hpf_agg_put_real(ins, c[i].min);
            hpf_agg_put_real(ins, c[i].max);
            if (note_row(&ir, run->node, ++rows)) {
                snprintf(rp->err, rp->errlen, "out of memory");
                goto done;
            }
            if (hpf_agg_row_end(ins, rp->err, rp->errlen))
                goto done;
        }
    }
    rc = hpf_agg_rows_flush(ins, rp->err, rp->errlen) || write_ranges(rp, db, &ir, rows) ? -1 : 0;
done:
    free(ir.v);
    free(runs);
    return rc;
}

static int put_stats(row_pass *rp, const hpf_profile *p, const hpf_merged *m,
                     const hpf_comp *comp)
{
    hpf_stat_ref *refs;
    size_t nrefs;
    if (hpf_stat_order(p, m, &refs, &nrefs)) {
        snprintf(rp->err, rp->errlen, "out of memory");
        return -1;
    }
    hpf_agg_rows *ins = &rp->stat;
    int rc = 0;
    for (size_t k = 0; k < nrefs && rc == 0;) {
        const hp_rank_data *rd = &p->ranks[refs[k].rank];
        const uint32_t *map = m->node_map[refs[k].rank];
        uint32_t node = map[refs[k].local], thread = rd->nodes[refs[k].local].thread;
        const double *v = comp->values[refs[k].rank];
        hpf_stat_row s = hpf_stat_record(&rd->nodes[refs[k].local], v, rd->nnodes, refs[k].local);
        size_t j = k + 1;
        for (; j < nrefs && refs[j].rank == refs[k].rank && map[refs[j].local] == node &&
               rd->nodes[refs[j].local].thread == thread; j++) {
            hpf_stat_row b = hpf_stat_record(&rd->nodes[refs[j].local], v, rd->nnodes, refs[j].local);
            hpf_stat_add(&s, &b);
        }
        hpf_agg_put_int(ins, node);
        hpf_agg_put_int(ins, refs[k].rank);
        hpf_agg_put_int(ins, thread);
        hpf_agg_put_int(ins, (int64_t)s.count);
        hpf_agg_put_real(ins, s.time);
        hpf_agg_put_real(ins, s.min);
        hpf_agg_put_real(ins, s.max);
        hpf_agg_put_int(ins, (int64_t)s.timed);
        hpf_agg_put_real(ins, s.raw_time);
        hpf_agg_put_real(ins, s.raw_min);
        hpf_agg_put_real(ins, s.raw_max);
        rc = hpf_agg_row_end(ins, rp->err, rp->errlen);
        k = j;
    }
    free(refs);
    return rc ? rc : hpf_agg_rows_flush(ins, rp->err, rp->errlen);
}

/* The task rows bind a text column: inserted one by one (a timeline is
 * short beside the stat and comm rows). */
static int put_tasks(row_pass *rp, sqlite3 *db, const hpf_profile *p, const hpf_merged *m,
                     uint32_t r)
{
    const hp_rank_data *rd = &p->ranks[r];
    sqlite3_stmt *st = rp->task;
    for (uint32_t i = 0; i < rd->ntasks; i++) {
        const hp_task_rec *k = &rd->tasks[i];
        sqlite3_bind_int64(st, 1, r);
        sqlite3_bind_int64(st, 2, k->thread);
        sqlite3_bind_text(st, 3, k->kind == HP_TASKEV_CREATE ? "create" : "run", -1,
                          SQLITE_STATIC);
        sqlite3_bind_int64(st, 4, m->site_map[r][k->site]);
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

/* Frees the ranks' node records and compensated times (comp->stats
 * stay), and what a failure left of their comm records. */
static void free_rank_records(hpf_profile *p, hpf_comp *comp)
{
    for (uint32_t r = 0; r < p->nranks; r++) {
        hp_rank_data *rd = &p->ranks[r];
        free(rd->comms);
        rd->comms = NULL;
        rd->ncomms = 0;
        free(rd->nodes);
        rd->nodes = NULL;
        rd->nnodes = 0;
        if (comp->values) {
            free(comp->values[r]);
            comp->values[r] = NULL;
        }
    }
}

static int open_rows(row_pass *rp, sqlite3 *db)
{
    return hpf_agg_rows_open(&rp->stat, db, "stat", 11, rp->err, rp->errlen) ||
           hpf_agg_rows_open(&rp->comm, db,
                         "comm(node, rank, thread, peer, count, bytes_sent, bytes_recv,"
                         " tran, sync, min, max)", 11, rp->err, rp->errlen) ||
           prepare_one(db, TASK_INSERT, &rp->task, rp->err, rp->errlen) ? -1 : 0;
}

/* The aggregators' tables once the pass over the ranks is over. */
static int write_aggregates(row_pass *rp, sqlite3 *db, rank_pass *rk)
{
    for (size_t a = 0; a < NAGGREGATORS; a++) {
        if (rk->use[a] && aggregators[a]->write(rk->acc[a], db, rp->err, rp->errlen))
            return -1;
        hpf_phase_mark(aggregators[a]->name);
    }
    return 0;
}

/* Waits for the pass over the ranks. */
static int join_rank_pass(row_pass *rp, rank_pass *rk, pthread_t *worker)
{
    if (worker)
        pthread_join(*worker, NULL);
    hpf_phase_mark("ranks compensated, folded in");
    if (rk->rc) {
        snprintf(rp->err, rp->errlen, "%s", rk->err);
        return -1;
    }
    return 0;
}

static int put_all_tasks(row_pass *rp, sqlite3 *db, const hpf_profile *p, const hpf_merged *m)
{
    for (uint32_t r = 0; r < p->nranks; r++)
        if (put_tasks(rp, db, p, m, r))
            return -1;
    return 0;
}

/* The rows and the aggregators' tables once the pass over the ranks runs
 * (in a thread, or done already). */
static int write_all_rows(row_pass *rp, sqlite3 *db, hpf_comm_src *src, const hpf_merged *m,
                          rank_pass *rk, pthread_t *worker)
{
    const hpf_profile *p = src->p;
    int rc = open_rows(rp, db) || put_comms(rp, db, src, m);
    hpf_phase_mark("comm rows");
    if (join_rank_pass(rp, rk, worker) || rc)
        return -1;
    if (put_stats(rp, p, m, rk->comp))
        return -1;
    hpf_phase_mark("stat rows");
    if (put_all_tasks(rp, db, p, m))
        return -1;
    hpf_phase_mark("task rows");
    return write_aggregates(rp, db, rk);
}

/* Without the stat and comm rows (aggregate mode): the tasks, the comm
 * rows' ranges of ids and the aggregators' tables. */
static int write_aggregates_only(row_pass *rp, sqlite3 *db, const hpf_profile *p,
                                 const hpf_merged *m, rank_pass *rk, pthread_t *worker)
{
    if (join_rank_pass(rp, rk, worker))
        return -1;
    if (prepare_one(db, TASK_INSERT, &rp->task, rp->err, rp->errlen) ||
        put_all_tasks(rp, db, p, m) ||
        write_counted_ranges(rp, db, rk->node_comms, m->nnodes))
        return -1;
    hpf_phase_mark("task rows, comm ranges");
    return write_aggregates(rp, db, rk);
}

int hpf_db_write_rows(sqlite3 *db, hpf_profile *p, const hpf_merged *m, hpf_comp *comp,
                      int node_aggregates, int rows, char *err, size_t errlen)
{
    rank_pass *rk = calloc(1, sizeof *rk);
    row_pass rp = {{0}, {0}, NULL, err, errlen};
    pthread_t worker;
    hpf_comm_src src;
    int rc = -1, threaded = 0;
    if (!rk) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    if (hpf_comm_src_open(&src, p, err, errlen)) {
        free(rk);
        free_rank_records(p, comp);
        return -1;
    }
    rk->p = p;
    rk->m = m;
    rk->comp = comp;
    if (!rows && !(rk->node_comms = calloc((size_t)m->nnodes + 1, sizeof *rk->node_comms))) {
        snprintf(err, errlen, "out of memory");
        goto done;
    }
    /* the rows need every rank's node records at once (and this thread
     * reads them while the other compensates) */
    for (uint32_t r = 0; rows && r < p->nranks; r++)
        if (hpf_load_nodes(p, r, err, errlen))
            goto done;
    if (rank_pass_start(rk, node_aggregates)) {
        snprintf(err, errlen, "%s", rk->err);
        goto done;
    }
    threaded = pthread_create(&worker, NULL, rank_pass_run, rk) == 0;
    if (!threaded)
        rank_pass_run(rk);    /* no thread: one after the other */
    rc = rows ? write_all_rows(&rp, db, &src, m, rk, threaded ? &worker : NULL)
              : write_aggregates_only(&rp, db, p, m, rk, threaded ? &worker : NULL);
done:
    hpf_comm_src_close(&src);
    hpf_agg_rows_free(&rp.stat);
    hpf_agg_rows_free(&rp.comm);
    sqlite3_finalize(rp.task);
    rank_pass_finish(rk);
    free(rk->node_comms);
    free(rk);
    free_rank_records(p, comp);
    return rc;
}
