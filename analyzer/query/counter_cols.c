/*
 * counter_cols.c - appends the counter columns and the derived metrics
 * (counter_cols.h) to a finished listing table.
 */
#include <stdlib.h>
#include <string.h>
#include <stdio.h>
#include "hp_profile.h"
#include "counter_cols.h"
#include "report_util.h"

#define MAX_EVENTS 16
#define MAX_DERIVED (1 + 2 * MAX_EVENTS)

typedef enum { D_IPC, D_PER_KINS, D_RATIO } derived_kind;

typedef struct derived {
    derived_kind kind;
    int a, b;              /* event indices: value a / value b (x 1000: per kins) */
    char name[96];
} derived;

typedef struct counter_set {
    int nev;
    char *ev[MAX_EVENTS];
    int nder;
    derived der[MAX_DERIVED];
} counter_set;

static int event_index(const counter_set *c, const char *name)
{
    for (int i = 0; i < c->nev; i++)
        if (strcmp(c->ev[i], name) == 0)
            return i;
    return -1;
}

static int is_miss_event(const char *e)
{
    return strstr(e, "_TCM") || strstr(e, "_DCM") || strstr(e, "_ICM") || strstr(e, "MISS");
}

static void add_derived(counter_set *c, derived_kind kind, int a, int b, const char *name)
{
    if (c->nder == MAX_DERIVED)
        return;
    derived *d = &c->der[c->nder++];
    d->kind = kind;
    d->a = a;
    d->b = b;
    snprintf(d->name, sizeof d->name, "%s", name);
}

/* The derived metrics the events of c allow. */
static void choose_derived(counter_set *c)
{
    char name[96];
    int ins = event_index(c, "PAPI_TOT_INS"), cyc = event_index(c, "PAPI_TOT_CYC");
    if (ins >= 0 && cyc >= 0)
        add_derived(c, D_IPC, ins, cyc, "IPC");
    for (int i = 0; i < c->nev; i++) {
        size_t len = strlen(c->ev[i]);
        if (ins >= 0 && i != ins && is_miss_event(c->ev[i])) {
            snprintf(name, sizeof name, "%s/kins", c->ev[i]);
            add_derived(c, D_PER_KINS, i, ins, name);
        }
        if (len > 2 && len < 64 && strcmp(c->ev[i] + len - 2, "CM") == 0) {
            char acc[64];
            memcpy(acc, c->ev[i], len - 2);
            memcpy(acc + len - 2, "CA", 3);
            int j = event_index(c, acc);
            if (j >= 0) {
                snprintf(name, sizeof name, "%s/%s", c->ev[i], acc);
                add_derived(c, D_RATIO, i, j, name);
            }
        }
    }
}

/* The events of the database's counter table; 0 with none (or no table). */
static int load_events(const hpq_ctx *ctx, counter_set *c)
{
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(ctx->db, "SELECT DISTINCT event FROM counter ORDER BY event", -1, &st,
                           NULL) != SQLITE_OK)
        return 0; /* a database from before counters */
    while (sqlite3_step(st) == SQLITE_ROW && c->nev < MAX_EVENTS) {
        const char *e = (const char *)sqlite3_column_text(st, 0);
        if (e && (c->ev[c->nev] = strdup(e)))
            c->nev++;
    }
    sqlite3_finalize(st);
    choose_derived(c);
    return c->nev;
}

static void free_events(counter_set *c)
{
    for (int i = 0; i < c->nev; i++)
        free(c->ev[i]);
}

/* A new table: t's columns, then the events', then the derived ones. */
static hpq_table *widened(const hpq_table *t, const counter_set *c)
{
    int n = t->ncols + c->nev + c->nder;
    const char *names[64 + MAX_EVENTS + MAX_DERIVED];
    if (t->ncols > 64)
        return NULL;
    for (int i = 0; i < t->ncols; i++)
        names[i] = t->names[i];
    for (int i = 0; i < c->nev; i++)
        names[t->ncols + i] = c->ev[i];
    for (int i = 0; i < c->nder; i++)
        names[t->ncols + c->nev + i] = c->der[i].name;
    hpq_table *w = hpq_table_new(n, names);
    if (!w)
        return NULL;
    for (int i = 0; i < t->ncols; i++)
        hpq_table_decimals(w, i, t->decimals[i]);
    for (int i = 0; i < c->nder; i++)
        hpq_table_decimals(w, t->ncols + c->nev + i, c->der[i].kind == D_RATIO ? 4 : 3);
    return w;
}

/* Fills the last row of w: the values of key, then the derived metrics. */
static void fill_counters(hpq_table *w, int first, const counter_set *c, sqlite3_stmt *st,
                          int64_t key)
{
    int64_t v[MAX_EVENTS];
    int have[MAX_EVENTS] = {0};
    sqlite3_bind_int64(st, 1, key);
    while (sqlite3_step(st) == SQLITE_ROW) {
        int i = event_index(c, (const char *)sqlite3_column_text(st, 0));
        if (i >= 0) {
            v[i] = sqlite3_column_int64(st, 1);
            have[i] = 1;
            hpq_set_int(w, first + i, v[i]);
        }
    }
    sqlite3_reset(st);
    for (int k = 0; k < c->nder; k++) {
        const derived *d = &c->der[k];
        if (!have[d->a] || !have[d->b] || v[d->b] == 0)
            continue;
        double r = (double)v[d->a] / (double)v[d->b];
        hpq_set_real(w, first + c->nev + k, d->kind == D_PER_KINS ? 1000.0 * r : r);
    }
}

int hpq_counter_columns(const hpq_ctx *ctx, hpq_table **t, int key_col, int by_site)
{
    counter_set c = {0};
    sqlite3_stmt *st = NULL;
    hpq_table *w = NULL;
    int rc = -1;
    if (load_events(ctx, &c) == 0) {
        free_events(&c);
        return 0;
    }
    const char *sql = by_site ? "SELECT c.event, SUM(c.value) FROM counter c JOIN node n"
                                " ON n.id = c.node WHERE n.site = ?1 AND n.outer"
                                " GROUP BY c.event"
                              : "SELECT event, SUM(value) FROM counter WHERE node = ?1"
                                " GROUP BY event";
    if (sqlite3_prepare_v2(ctx->db, sql, -1, &st, NULL) != SQLITE_OK) {
        hpq_db_error(ctx);
        goto done;
    }
    if (!(w = widened(*t, &c))) {
        hpq_oom(ctx);
        goto done;
    }
    for (size_t r = 0; r < (*t)->nrows; r++) {
        hpq_table_add_row(w);
        for (int i = 0; i < (*t)->ncols; i++)
            hpq_set_cell(w, i, hpq_cell_at(*t, r, i));
        const hpq_cell *key = hpq_cell_at(*t, r, key_col);
        if (key->type == HPQ_INT)
            fill_counters(w, (*t)->ncols, &c, st, key->i);
    }
    if (w->failed) {
        hpq_oom(ctx);
        goto done;
    }
    hpq_table_free(*t);
    *t = w;
    w = NULL;
    rc = 0;
done:
    hpq_table_free(w);
    sqlite3_finalize(st);
    free_events(&c);
    return rc;
}

int hpq_counters_dropped(const hpq_ctx *ctx)
{
    /* only an aggregated profile's ranks have the flag: a full database
     * is not scanned (10^5 rank rows: 61 M instructions) */
    char sql[96];
    snprintf(sql, sizeof sql, "SELECT EXISTS (SELECT 1 FROM rank WHERE (flags & %u) != 0)",
             HP_RANKF_COUNTERS_DROPPED);
    return hpq_is_aggregated(ctx) && hpq_query_double(ctx, sql) == 1;
}

int hpq_note_counters_dropped(const hpq_ctx *ctx)
{
    if (ctx->opt->format != HPQ_TEXT || !hpq_counters_dropped(ctx))
        return 0;
    fprintf(ctx->out, "counters:  %s\n", HPQ_COUNTERS_DROPPED);
    return 1;
}
