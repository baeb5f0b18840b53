/*
 * db_fromagg.c - hprof-merge of an aggregated profile (HPROF_AGGREGATE,
 * read/hpf_agg.h): the database of the current format, with the tables a
 * full-mode merge stores (db_fromagg.h) filled from the per-node
 * distributions instead of per-rank records.  The per-rank rows do not
 * exist: stat and comm are the virtual tables of aggregate mode, which say
 * in one line that they need HPROF_AGGREGATE=0 (detail_src.c), and the
 * aggregates made of them (rank_site, comm_node_rank) stay their views.
 *
 * Numbers are defined as db_agg.c defines them: mean over the ranks
 * present, min 0 when a rank never ran the node, imbalance max x ranks /
 * sum.  What the profile does not hold is NULL or has no row, never 0:
 * node_hist's 10 bins from min to max (the profile's fixed bins are
 * node_hist_fixed), a rank's pid, start, end and compensation figures,
 * the loss of parallelism of OpenMP ranks (db_fromagg_tab.c).
 */
#include "config.h"
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <sqlite3.h>
#include "db.h"
#include "db_agg.h"
#include "db_fromagg.h"
#include "db_tree.h"
#include "dbcomp.h"
#include "detail.h"
#include "merge.h"

typedef hpf_agg_conv conv;

static int sql_fail(conv *c)
{
    return hpf_agg_fail(c->db, c->err, c->errlen);
}

static int exec(conv *c, const char *sql)
{
    return hpf_exec(c->db, sql, c->err, c->errlen);
}

static int prepare(conv *c, const char *sql, sqlite3_stmt **st)
{
    return sqlite3_prepare_v2(c->db, sql, -1, st, NULL) == SQLITE_OK ? 0 : sql_fail(c);
}

static int step(conv *c, sqlite3_stmt *st)
{
    return hpf_agg_step(c->db, st, c->err, c->errlen);
}

static void bind_text(sqlite3_stmt *st, int col, const char *s)
{
    sqlite3_bind_text(st, col, s, -1, SQLITE_STATIC);
}

/* ---- the merged view: sites and nodes as merge.c numbers them ---- */

static int build_merged(conv *c)
{
    const hp_aggprof *a = &c->f->tree;
    hp_rank_data rd;
    memset(&rd, 0, sizeof rd);
    rd.nstrings = a->nstrings;
    rd.strings = a->strings;
    c->m.nsites = a->nsites;
    c->m.sites = calloc(a->nsites ? a->nsites : 1, sizeof *c->m.sites);
    c->m.nnodes = a->nnodes;
    c->m.nodes = calloc(a->nnodes ? a->nnodes : 1, sizeof *c->m.nodes);
    if (!c->m.sites || !c->m.nodes)
        return -1;
    for (uint32_t i = 0; i < a->nsites; i++) {
        const hp_site_rec *s = &a->sites[i];
        hpf_gsite *g = &c->m.sites[i];
        g->local = i;
        g->parent = s->parent == HP_NONE ? 0 : s->parent + 1;
        g->callee = s->callee == HP_NONE ? 0 : s->callee + 1;
        g->throttled = s->flags & (HP_SITEF_THROTTLED | HP_SITEF_ESTIMATED);
        if (!(g->label = hpf_site_label(&rd, s)))
            return -1;
    }
    for (uint32_t i = 0; i < a->nnodes; i++) {
        const hp_anode *n = &a->nodes[i];
        hpf_gnode *g = &c->m.nodes[i];
        g->parent = i == 0 ? 0 : n->parent + 1;
        g->site = n->site + 1;
        g->depth = i == 0 ? 0 : c->m.nodes[n->parent].depth + 1;
    }
    return hpf_merge_finish(&c->m);
}

/* ---- run, ranks, sites, nodes ---- */

static int put_key(conv *c, sqlite3_stmt *st, const char *key, const char *text, int64_t i,
                   double d, int type)
{
    bind_text(st, 1, key);
    if (type == SQLITE_TEXT)
        bind_text(st, 2, text);
    else if (type == SQLITE_INTEGER)
        sqlite3_bind_int64(st, 2, i);
    else
        sqlite3_bind_double(st, 2, d);
    return step(c, st);
}

static int write_run(conv *c, const char *source)
{
    const hp_run_info *run = &c->f->run;
    uint32_t threads_max = 0;
    double wall = 0;
    for (uint32_t r = 0; r < c->f->nranks; r++) {
        const hp_rank_total *t = &c->f->ranks[r];
        threads_max = t->threads > threads_max ? t->threads : threads_max;
        wall = t->wall > wall ? t->wall : wall;
    }
    char resolved[PATH_MAX], id[HPF_ID_LEN] = "";
    const char *src = realpath(source, resolved) ? resolved : source;
    if (hpf_file_identity(source, id, sizeof id) != 0)
        id[0] = 0;
    char *argv = hpf_join_argv(run);
    sqlite3_stmt *st;
    if (!argv || prepare(c, "INSERT INTO run(key, value) VALUES(?, ?)", &st)) {
        if (!argv)
            snprintf(c->err, c->errlen, "out of memory");
        free(argv);
        return -1;
    }
    int rc = put_key(c, st, "program", run->program, 0, 0, SQLITE_TEXT) ||
             put_key(c, st, "argv", argv, 0, 0, SQLITE_TEXT) ||
             put_key(c, st, "nranks", NULL, run->nranks, 0, SQLITE_INTEGER) ||
             put_key(c, st, "threads_max", NULL, threads_max, 0, SQLITE_INTEGER) ||
             put_key(c, st, "clock", hpf_clock_name(run->clock), 0, 0, SQLITE_TEXT) ||
             put_key(c, st, "ticks_per_sec", NULL, 0, run->ticks_per_sec, SQLITE_FLOAT) ||
             put_key(c, st, "start_ns", NULL, (int64_t)run->start_ns, 0, SQLITE_INTEGER) ||
             put_key(c, st, "end_ns", NULL, (int64_t)run->end_ns, 0, SQLITE_INTEGER) ||
             put_key(c, st, "wall", NULL, 0, wall, SQLITE_FLOAT) ||
             put_key(c, st, "format_version", NULL, HP_FORMAT_AGG_VERSION, 0, SQLITE_INTEGER) ||
             put_key(c, st, "source", src, 0, 0, SQLITE_TEXT) ||
             put_key(c, st, "detail", NULL, 0, 0, SQLITE_INTEGER) ||
             put_key(c, st, "aggregated", NULL, 1, 0, SQLITE_INTEGER) ||
             (id[0] && put_key(c, st, "source_id", id, 0, 0, SQLITE_TEXT)) ? -1 : 0;
    sqlite3_finalize(st);
    free(argv);
    return rc;
}

/* A rank row from its totals; what they do not hold is NULL. */
static int write_ranks(conv *c)
{
    sqlite3_stmt *st;
    int rc = 0;
    if (prepare(c, "INSERT INTO rank(rank, host, threads, wall, mpi_time, flags, omp_threads)"
                   " VALUES(?, ?, ?, ?, ?, ?, ?)", &st))
        return -1;
    for (uint32_t r = 0; r < c->f->nranks && rc == 0; r++) {
        const hp_rank_total *t = &c->f->ranks[r];
        if (t->flags & HP_RANKF_MISSING)
            continue;
        c->present++;
        sqlite3_bind_int64(st, 1, t->rank);
        sqlite3_bind_text(st, 2, t->host, (int)strnlen(t->host, sizeof t->host), SQLITE_STATIC);
        sqlite3_bind_int64(st, 3, t->threads);
        sqlite3_bind_double(st, 4, t->wall);
        sqlite3_bind_double(st, 5, t->mpi_time);
        sqlite3_bind_int64(st, 6, t->flags);
        sqlite3_bind_int64(st, 7, t->omp_threads);
        rc = step(c, st);
    }
    sqlite3_finalize(st);
    if (c->present == 0)
        c->present = 1;
    return rc;
}

/* Merged site i is the aggregated tree's site i. */
static hpf_site_source aggregated_site(const void *ctx, uint32_t i)
{
    const hp_aggprof *a = ctx;
    return (hpf_site_source){&a->sites[i], a->strings, 0};
}

static int write_sites(conv *c)
{
    return hpf_db_write_sites(c->db, &c->m, aggregated_site, &c->f->tree, c->err, c->errlen);
}

static int write_nodes(conv *c)
{
    return hpf_db_write_nodes(c->db, &c->m, c->err, c->errlen);
}

static int write_all(conv *c, const char *source)
{
    char version[64];
    snprintf(version, sizeof version, "PRAGMA user_version = %d;", HPF_DB_FORMAT);
    return exec(c, "PRAGMA page_size=16384; PRAGMA journal_mode=OFF; PRAGMA synchronous=OFF;"
                   " PRAGMA cache_size=-65536; BEGIN;") ||
           exec(c, hpf_db_sql(HPF_DB_SQL_SCHEMA)) || exec(c, HPF_DETAIL_TABLES_SQL) ||
           exec(c, "CREATE TABLE counter(node INTEGER, rank INTEGER, thread INTEGER,"
                   " event TEXT, value INTEGER); CREATE INDEX counter_node ON counter(node);") ||
           write_run(c, source) || write_ranks(c) || write_sites(c) || write_nodes(c) ||
           hpf_agg_node_tables(c) || hpf_agg_site_tables(c) || hpf_agg_comm_tables(c) ||
           hpf_agg_ovh_tables(c) || exec(c, hpf_db_sql(HPF_DB_SQL_INDEX)) ||
           exec(c, hpf_db_sql(HPF_DB_SQL_VIEWS)) ||
           hpf_db_write_aggregates(c->db, 0, 1, c->err, c->errlen) ||
           exec(c, hpf_db_record_objects_sql) || exec(c, version) || exec(c, "COMMIT;")
               ? -1 : 0;
}

static int write_tmp(conv *c, const char *source, const char *tmp)
{
    int rc = -1;
    if (hpf_detail_register()) {
        snprintf(c->err, c->errlen, "cannot register the sqlite module " HPF_DETAIL_MODULE);
        return -1;
    }
    if (sqlite3_open_v2(tmp, &c->db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE |
                        SQLITE_OPEN_NOMUTEX, NULL) != SQLITE_OK)
        snprintf(c->err, c->errlen, "%s: %s", tmp,
                 c->db ? sqlite3_errmsg(c->db) : "cannot open");
    else
        rc = write_all(c, source);
    if (sqlite3_close(c->db) != SQLITE_OK && rc == 0) {
        snprintf(c->err, c->errlen, "%s: cannot close database", tmp);
        rc = -1;
    }
    return rc;
}

int hpf_db_write_aggregated(const hpf_aggfile *f, const char *source, const char *db_path,
                            int force, hpf_db_summary *sum, char *err, size_t errlen)
{
    struct stat sb;
    conv c = {.f = f, .err = err, .errlen = errlen};
    char *tmp = NULL;
    int rc = -1;
    if (!force && stat(db_path, &sb) == 0) {
        snprintf(err, errlen, "%s exists (use -f to overwrite)", db_path);
        return -1;
    }
    if (build_merged(&c) || asprintf(&tmp, "%s.tmp-%ld", db_path, (long)getpid()) < 0) {
        snprintf(err, errlen, "out of memory converting %s", source);
        tmp = NULL;
        goto done;
    }
    unlink(tmp);
    if (write_tmp(&c, source, tmp))
        goto done;
    if (rename(tmp, db_path) != 0) {
        snprintf(err, errlen, "cannot rename %s to %s: %s", tmp, db_path, strerror(errno));
        goto done;
    }
    sum->nranks = f->nranks;
    sum->nsites = c.m.nsites;
    sum->nnodes = c.m.nnodes;
    rc = 0;
done:
    if (rc && tmp)
        unlink(tmp);
    free(tmp);
    hpf_merged_free(&c.m);
    return rc;
}

int hpf_db_merge_aggregated(const char *path, const char *db_path, int force,
                            hpf_db_summary *sum, char *err, size_t errlen)
{
    hpf_aggfile f;
    int rc = hpf_agg_read(path, &f, err, errlen) ||
             hpf_db_write_aggregated(&f, path, db_path, force, sum, err, errlen) ? -1 : 0;
    hpf_agg_free(&f);     /* zeroed by a failed read */
    return rc;
}
