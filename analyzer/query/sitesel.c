/*
 * sitesel.c - SITE argument resolution for hprof-query (see sitesel.h):
 * a node id, a site id (site:N), a label as the reports print it, a
 * file:line, or a function or MPI name.
 */
#include "config.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "hp_profile.h"
#include "sitesel.h"

typedef struct candidate {
    int64_t id;
    char *kind, *label, *name;
} candidate;

typedef struct candidates {
    candidate *items;
    size_t n, cap;
} candidates;

static void candidates_free(candidates *c)
{
    for (size_t i = 0; i < c->n; i++) {
        free(c->items[i].kind);
        free(c->items[i].label);
        free(c->items[i].name);
    }
    free(c->items);
    memset(c, 0, sizeof *c);
}

static char *column_dup(sqlite3_stmt *st, int col)
{
    const unsigned char *s = sqlite3_column_text(st, col);
    return strdup(s ? (const char *)s : "");
}

static int add_candidate(candidates *c, sqlite3_stmt *st)
{
    if (c->n == c->cap) {
        size_t cap = c->cap ? c->cap * 2 : 16;
        candidate *items = realloc(c->items, cap * sizeof *items);
        if (!items)
            return -1;
        c->items = items;
        c->cap = cap;
    }
    candidate *k = &c->items[c->n++];
    k->id = sqlite3_column_int64(st, 0);
    k->kind = column_dup(st, 1);
    k->label = column_dup(st, 2);
    k->name = column_dup(st, 3);
    return k->kind && k->label && k->name ? 0 : -1;
}

int hpq_is_number(const char *s)
{
    if (!*s)
        return 0;
    for (; *s; s++)
        if (*s < '0' || *s > '9')
            return 0;
    return 1;
}

/* Files match when equal or when one is a trailing path of the other:
 * "file.c" finds "/src/file.c", and "/src/dir/file.c" finds "dir/file.c". */
static int file_matches(const char *stored, const char *want)
{
    size_t ls = strlen(stored), lw = strlen(want);
    if (strcmp(stored, want) == 0)
        return 1;
    if (ls > lw && stored[ls - lw - 1] == '/' && strcmp(stored + ls - lw, want) == 0)
        return 1;
    if (lw > ls && want[lw - ls - 1] == '/' && strcmp(want + lw - ls, stored) == 0)
        return 1;
    return 0;
}

static int find_by_file_line(sqlite3 *db, const char *spec, const char *colon,
                             candidates *c)
{
    sqlite3_stmt *st;
    char *file = strndup(spec, (size_t)(colon - spec));
    int rc = -1;
    if (!file)
        return -1;
    if (sqlite3_prepare_v2(db, "SELECT id, kind, label, name, file FROM site WHERE line = ?"
                               " ORDER BY id", -1, &st, NULL) == SQLITE_OK) {
        sqlite3_bind_int64(st, 1, atoll(colon + 1));
        rc = 0;
        while (rc == 0 && sqlite3_step(st) == SQLITE_ROW) {
            const char *stored = (const char *)sqlite3_column_text(st, 4);
            if (stored && file_matches(stored, file))
                rc = add_candidate(c, st);
        }
    }
    sqlite3_finalize(st);
    free(file);
    return rc;
}

/* The sites matching `where` (an SQL condition on site with one
 * parameter ?1: text when given, else num), in id order. */
static int find_where(sqlite3 *db, const char *where, const char *text, int64_t num,
                      candidates *c)
{
    char sql[160];
    sqlite3_stmt *st;
    int rc = -1;
    snprintf(sql, sizeof sql, "SELECT id, kind, label, name FROM site WHERE %s ORDER BY id",
             where);
    if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) == SQLITE_OK) {
        if (text)
            sqlite3_bind_text(st, 1, text, -1, SQLITE_STATIC);
        else
            sqlite3_bind_int64(st, 1, num);
        rc = 0;
        while (rc == 0 && sqlite3_step(st) == SQLITE_ROW)
            rc = add_candidate(c, st);
    }
    sqlite3_finalize(st);
    return rc;
}

/* Keeps the candidates for which keep() is true. */
static void filter(candidates *c, int (*keep)(const candidate *, const char *),
                   const char *spec)
{
    size_t out = 0;
    for (size_t i = 0; i < c->n; i++) {
        if (keep(&c->items[i], spec)) {
            c->items[out++] = c->items[i];
        } else {
            free(c->items[i].kind);
            free(c->items[i].label);
            free(c->items[i].name);
        }
    }
    c->n = out;
}

static int is_comm(const candidate *k, const char *spec)
{
    (void)spec;
    return strcmp(k->kind, "comm") == 0;
}

static int is_omp(const candidate *k, const char *spec)
{
    (void)spec;
    return strcmp(k->kind, "omp") == 0 || strcmp(k->kind, "loop") == 0;
}

/* The construct a line names: what the records of waits hang under. */
static int is_omp_construct(const candidate *k, const char *spec)
{
    (void)spec;
    return strcmp(k->kind, "loop") == 0 ||
           (strcmp(k->kind, "omp") == 0 &&
            (strcmp(k->name, "parallel") == 0 || strcmp(k->name, "loop") == 0));
}

/* A task construct's line: its executions, not its creations. */
static int is_task_execution(const candidate *k, const char *spec)
{
    (void)spec;
    return strcmp(k->kind, "omp") == 0 && strcmp(k->name, "task") == 0;
}

/* Filters c with keep when that leaves at least one candidate. */
static int narrow(candidates *c, int (*keep)(const candidate *, const char *),
                  const char *spec)
{
    size_t kept = 0;
    for (size_t i = 0; i < c->n; i++)
        kept += keep(&c->items[i], spec) != 0;
    if (kept)
        filter(c, keep, spec);
    return kept != 0;
}

static int is_named_procedure(const candidate *k, const char *spec)
{
    return strcmp(k->kind, "procedure") == 0 && strcmp(k->name, spec) == 0;
}

/* "label (kind), label (kind), ..." */
static void list_candidates(const candidates *c, char *buf, size_t len)
{
    size_t at = 0;
    buf[0] = '\0';
    for (size_t i = 0; i < c->n && at < len; i++) {
        int n = snprintf(buf + at, len - at, "%s%s (%s)", i ? ", " : "",
                         c->items[i].label, c->items[i].kind);
        if (n < 0)
            break;
        at += (size_t)n;
    }
}

/* The merged nodes of the chosen sites, as an SQL id list. */
static int nodes_of_sites(sqlite3 *db, const candidates *c, hpq_sel *sel)
{
    hp_buf ids = {0};
    char num[32];
    sqlite3_stmt *st;
    int rc = -1;
    if (sqlite3_prepare_v2(db, "SELECT id FROM node WHERE site = ? ORDER BY id", -1, &st,
                           NULL) != SQLITE_OK)
        goto done;
    for (size_t i = 0; i < c->n; i++) {
        sqlite3_bind_int64(st, 1, c->items[i].id);
        while (sqlite3_step(st) == SQLITE_ROW) {
            int n = snprintf(num, sizeof num, "%s%lld", ids.len ? "," : "",
                             (long long)sqlite3_column_int64(st, 0));
            unsigned char *p = hp_buf_reserve(&ids, (size_t)n);
            if (p)
                memcpy(p, num, (size_t)n);
        }
        sqlite3_reset(st);
    }
    unsigned char *end = hp_buf_reserve(&ids, 1);
    if (!end)
        goto done;
    *end = '\0';
    sel->nodes = ids.len > 1 ? strdup((char *)ids.data) : strdup("NULL");
    rc = sel->nodes ? 0 : -1;
done:
    sqlite3_finalize(st);
    hp_buf_free(&ids);
    return rc;
}

static int select_node(sqlite3 *db, const char *db_path, const char *spec,
                       enum hpq_want want, hpq_sel *sel, char *err, size_t errlen)
{
    const char *digits = spec[0] == '#' ? spec + 1 : spec;
    sqlite3_stmt *st;
    int rc = -1;
    if (sqlite3_prepare_v2(db, "SELECT s.kind, s.label FROM node n JOIN site s"
                               " ON s.id = n.site WHERE n.id = ?", -1, &st, NULL) != SQLITE_OK) {
        snprintf(err, errlen, "%s: %s", db_path, sqlite3_errmsg(db));
        return -1;
    }
    sqlite3_bind_int64(st, 1, atoll(digits));
    if (sqlite3_step(st) != SQLITE_ROW) {
        snprintf(err, errlen, "no site matches '%s' in %s", spec, db_path);
    } else if (want == HPQ_WANT_COMM &&
               strcmp((const char *)sqlite3_column_text(st, 0), "comm") != 0) {
        snprintf(err, errlen, "node %s (%s) is not a communication site", spec,
                 (const char *)sqlite3_column_text(st, 1));
    } else {
        sel->nodes = strdup(digits);
        sel->label = strdup((const char *)sqlite3_column_text(st, 1));
        rc = sel->nodes && sel->label ? 0 : -1;
        if (rc)
            snprintf(err, errlen, "out of memory");
    }
    sqlite3_finalize(st);
    return rc;
}

/* Narrows the candidates to what `want` needs; -1 with a message if that
 * is impossible. */
static int choose(candidates *c, const char *spec, const char *db_path, enum hpq_want want,
                  char *err, size_t errlen)
{
    char list[768];
    if (c->n == 0) {
        snprintf(err, errlen, "no site matches '%s' in %s", spec, db_path);
        return -1;
    }
    if (want == HPQ_WANT_COMM) {
        filter(c, is_comm, spec);
        if (c->n == 0) {
            snprintf(err, errlen, "no communication site matches '%s' in %s", spec, db_path);
            return -1;
        }
        return 0;
    }
    if (want == HPQ_WANT_OMP) {
        filter(c, is_omp, spec);
        if (c->n > 1 && !narrow(c, is_omp_construct, spec))
            narrow(c, is_task_execution, spec);
        if (c->n == 0) {
            snprintf(err, errlen, "no OpenMP construct matches '%s' in %s", spec, db_path);
            return -1;
        }
    }
    if (c->n > 1) {
        candidates all = *c;
        size_t named = 0;
        for (size_t i = 0; i < all.n; i++)
            named += is_named_procedure(&all.items[i], spec);
        if (named == 1) {
            filter(c, is_named_procedure, spec);
            return 0;
        }
        list_candidates(c, list, sizeof list);
        snprintf(err, errlen, "'%s' is ambiguous, it matches %zu sites: %s;"
                 " name one by its label, site:N or a node id #N", spec, c->n, list);
        return -1;
    }
    return 0;
}

static char *selection_label(const candidates *c)
{
    char list[768];
    list_candidates(c, list, sizeof list);
    return c->n == 1 ? strdup(c->items[0].label) : strdup(list);
}

int hpq_select(sqlite3 *db, const char *db_path, const char *spec, enum hpq_want want,
               hpq_sel *sel, char *err, size_t errlen)
{
    candidates c = {0};
    const char *colon = strrchr(spec, ':');
    int rc;

    memset(sel, 0, sizeof *sel);
    if (hpq_is_number(spec) || (spec[0] == '#' && hpq_is_number(spec + 1)))
        return select_node(db, db_path, spec, want, sel, err, errlen);
    if (strncmp(spec, "site:", 5) == 0 && hpq_is_number(spec + 5))
        rc = find_where(db, "id = ?1", NULL, atoll(spec + 5), &c);
    else if (strchr(spec, '@') && ((rc = find_where(db, "label = ?1", spec, 0, &c)) != 0 || c.n > 0))
        ;   /* a construct's label as the reports print it names its site */
    else if (colon && colon > spec && hpq_is_number(colon + 1))
        rc = find_by_file_line(db, spec, colon, &c);
    else  /* a function or MPI name, or the function sites are in */
        rc = find_where(db, "name = ?1 OR func = ?1", spec, 0, &c);
    if (rc) {
        snprintf(err, errlen, "%s: %s", db_path, sqlite3_errmsg(db));
    } else if ((rc = choose(&c, spec, db_path, want, err, errlen)) == 0) {
        sel->label = selection_label(&c);
        rc = sel->label ? nodes_of_sites(db, &c, sel) : -1;
        if (rc)
            snprintf(err, errlen, "out of memory");
    }
    candidates_free(&c);
    if (rc)
        hpq_sel_free(sel);
    return rc;
}

void hpq_sel_free(hpq_sel *sel)
{
    free(sel->nodes);
    free(sel->label);
    memset(sel, 0, sizeof *sel);
}

int hpq_comm_is_virtual(sqlite3 *db)
{
    sqlite3_stmt *st = NULL;
    int virt = sqlite3_prepare_v2(db, "SELECT 1 FROM main.sqlite_master WHERE name = 'comm'"
                                  " AND sql LIKE 'CREATE VIRTUAL%'", -1, &st, NULL) ==
                   SQLITE_OK && sqlite3_step(st) == SQLITE_ROW;
    sqlite3_finalize(st);
    return virt;
}

char *hpq_comm_rows_of(sqlite3 *db, const char *nodes, const char *alias)
{
    /* the range is a superset once rows were added by hand (hprof-merge
     * --aggregate widens it): the node is checked too; the virtual table
     * reads a node's rows by its node alone (its id range: no lookup of
     * each id) */
    const char *dot = *alias ? "." : "";
    char *sql;
    if (hpq_comm_is_virtual(db))
        return asprintf(&sql, "%s%snode IN (%s)", alias, dot, nodes) < 0 ? NULL : sql;
    if (asprintf(&sql, "%s%snode IN (%s) AND %s%sid IN (SELECT x.id FROM comm_range k"
                       " JOIN comm x ON x.id BETWEEN k.first AND k.last WHERE k.node IN (%s))",
                 alias, dot, nodes, alias, dot, nodes) < 0)
        return NULL;
    return sql;
}
