/*
 * callers.c - hprof-query --callers SITE: the bottom-up view of one site.
 * The first row is the site merged over every calling context it ran in;
 * the rows below it are its callers (the sites of the parent contexts),
 * then their callers, and so on up to the root (a row of its own: the
 * contexts entered from no recorded site).  Every row carries the selected
 * site's calls and time in the contexts that pass through that chain of
 * callers, so the callers of a row add up to it.
 *
 * Only outermost contexts count (node.outer): a recursive activation's
 * time is already inside its outermost one.  The chains are read with one
 * recursive query, then merged in a trie keyed by site id.
 */
#include "config.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "report.h"
#include "report_util.h"
#include "sitesel.h"

typedef struct caller {
    int64_t site, node;         /* node: the context, when only one passes here; else 0 */
    int64_t calls, contexts;
    double time;
    size_t first_kid, nkids;    /* into the trie's kid index, once sorted */
    size_t parent;              /* trie index of the row below; (size_t)-1 for the first */
    int level;
} caller;

typedef struct trie {
    caller *c;
    size_t n, cap;
    size_t *kids;               /* children of every entry, grouped by parent */
} trie;

static size_t trie_add(trie *t, size_t parent, int64_t site, int level)
{
    if (t->n == t->cap) {
        size_t cap = t->cap ? 2 * t->cap : 64;
        caller *c = realloc(t->c, cap * sizeof *c);
        if (!c)
            return (size_t)-1;
        t->c = c;
        t->cap = cap;
    }
    caller *e = &t->c[t->n];
    memset(e, 0, sizeof *e);
    e->site = site;
    e->parent = parent;
    e->level = level;
    return t->n++;
}

/* The entry for `site` above `parent`, made when new.  A linear search of
 * the entries made since the parent's: callers of one row are few. */
static size_t trie_child(trie *t, size_t parent, int64_t site, int level)
{
    for (size_t i = parent + 1; i < t->n; i++)
        if (t->c[i].parent == parent && t->c[i].site == site)
            return i;
    return trie_add(t, parent, site, level);
}

static void credit(caller *e, int64_t node, int64_t calls, double time)
{
    e->node = e->contexts == 0 ? node : (e->node == node ? node : 0);
    e->contexts++;
    e->calls += calls;
    e->time += time;
}

/* One row per (outer context of the site, ancestor up to the root): the
 * context's calls and time and the ancestor's level, node and site, by
 * context then level (one row with no ancestor when --depth is 0). */
static char *chains_sql(const char *nodes, long depth, int stored)
{
    char *sql;
    if (asprintf(&sql,
                 "WITH RECURSIVE ctx(id, calls, time) AS"
                 " (SELECT n.id, COALESCE(SUM(s.%s), 0), COALESCE(SUM(s.time), 0)"
                 "  FROM node n LEFT JOIN %s s ON s.node = n.id"
                 "  WHERE n.id IN (%s) AND n.outer AND n.parent IS NOT NULL GROUP BY n.id),"
                 " up(start, id, level) AS (SELECT c.id, p.id, 1 FROM ctx c"
                 "  JOIN node n ON n.id = c.id JOIN node p ON p.id = n.parent"
                 "  WHERE %ld != 0"
                 "  UNION ALL SELECT up.start, p.id, up.level + 1 FROM up"
                 "  JOIN node n ON n.id = up.id JOIN node p ON p.id = n.parent"
                 "  WHERE %ld < 0 OR up.level < %ld)"
                 " SELECT c.id, c.calls, c.time, up.level, up.id, n.site FROM ctx c"
                 " LEFT JOIN up ON up.start = c.id LEFT JOIN node n ON n.id = up.id"
                 " ORDER BY c.id, up.level",
                 stored ? "calls" : "count", stored ? "node_time" : "stat", nodes, depth,
                 depth, depth) < 0)
        return NULL;
    return sql;
}

/* Reads the chains into the trie whose entry 0 is the site itself. */
static int build_trie(const hpq_ctx *ctx, const char *nodes, trie *t)
{
    sqlite3_stmt *st;
    /* a context's sums: node_time's where it is stored (no per-rank row read) */
    char *sql = chains_sql(nodes, ctx->opt->depth, hpq_aggregate_stored(ctx, "node_time"));
    if (!sql)
        return hpq_oom(ctx);
    int rc = sqlite3_prepare_v2(ctx->db, sql, -1, &st, NULL);
    free(sql);
    if (rc != SQLITE_OK)
        return hpq_db_error(ctx);
    int64_t current = 0, calls = 0;
    double time = 0;
    size_t at = 0;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        int64_t ctx_id = sqlite3_column_int64(st, 0);
        if (ctx_id != current) {      /* a new context: credit the site itself */
            current = ctx_id;
            calls = sqlite3_column_int64(st, 1);
            time = sqlite3_column_double(st, 2);
            credit(&t->c[0], ctx_id, calls, time);
            at = 0;
        }
        if (sqlite3_column_type(st, 4) == SQLITE_NULL)
            continue;               /* --depth 0: the site alone */
        at = trie_child(t, at, sqlite3_column_int64(st, 5), sqlite3_column_int(st, 3));
        if (at == (size_t)-1)
            break;
        credit(&t->c[at], sqlite3_column_int64(st, 4), calls, time);
    }
    sqlite3_finalize(st);
    if (at == (size_t)-1)
        return hpq_oom(ctx);
    return rc == SQLITE_DONE ? 0 : hpq_db_error(ctx);
}

/* The order of callers: by time unless --sort names calls, contexts,
 * site or site_id (one tool run sorts one trie: qsort has no context). */
static struct {
    const trie *t;
    int column;                 /* 0 time, 1 calls, 2 contexts, 3 site id, 4 label */
    int desc;
    char **labels;              /* column 4: labels by entry */
} order;

static int compare_entries(size_t a, size_t b)
{
    const caller *x = &order.t->c[a], *y = &order.t->c[b];
    switch (order.column) {
    case 1:
        return (x->calls > y->calls) - (x->calls < y->calls);
    case 2:
        return (x->contexts > y->contexts) - (x->contexts < y->contexts);
    case 3:
        return (x->site > y->site) - (x->site < y->site);
    case 4:
        return strcmp(order.labels[a], order.labels[b]);
    default:
        return (x->time > y->time) - (x->time < y->time);
    }
}

static int by_order(const void *pa, const void *pb)
{
    size_t a = *(const size_t *)pa, b = *(const size_t *)pb;
    int c = compare_entries(a, b);
    if (c)
        return order.desc ? -c : c;
    return (order.t->c[a].site > order.t->c[b].site) - (order.t->c[a].site < order.t->c[b].site);
}

/* Sets the order from --sort; -1 with the message for another column. */
static int choose_order(const hpq_ctx *ctx, const hpq_table *tab)
{
    static const char *const columns[] = {"time", "calls", "contexts", "site_id", "site"};
    int desc, col = hpq_sort_column(ctx, tab, &desc);
    order.column = 0;
    order.desc = 1;
    if (col == -2)
        return -1;
    if (col == -1 || strcmp(tab->names[col], "pct") == 0)
        return 0;
    for (int i = 0; i < 5; i++)
        if (strcmp(tab->names[col], columns[i]) == 0) {
            order.column = i;
            order.desc = ctx->opt->sort_dir ? ctx->opt->sort_dir > 0 : i < 3;
            return 0;
        }
    snprintf(ctx->err, ctx->errlen, "--sort: --callers sorts callers by time, pct, calls,"
             " contexts, site or site_id, not '%s'", tab->names[col]);
    return -1;
}

/* Groups the children of every entry (by decreasing time) in t->kids. */
static int index_kids(trie *t)
{
    size_t *count = calloc(t->n + 1, sizeof *count);
    t->kids = malloc((t->n + 1) * sizeof *t->kids);
    if (!count || !t->kids) {
        free(count);
        return -1;
    }
    for (size_t i = 1; i < t->n; i++)
        t->c[t->c[i].parent].nkids++;
    size_t next = 0;
    for (size_t i = 0; i < t->n; i++) {
        t->c[i].first_kid = next;
        next += t->c[i].nkids;
    }
    for (size_t i = 1; i < t->n; i++) {
        caller *p = &t->c[t->c[i].parent];
        t->kids[p->first_kid + count[t->c[i].parent]++] = i;
    }
    free(count);
    order.t = t;
    for (size_t i = 0; i < t->n; i++)
        qsort(t->kids + t->c[i].first_kid, t->c[i].nkids, sizeof *t->kids, by_order);
    return 0;
}

/* The label of every entry's site, in order.labels (one query per entry:
 * the entries are few). */
static int read_labels(const hpq_ctx *ctx, const trie *t)
{
    sqlite3_stmt *st;
    int rc = SQLITE_DONE;
    order.labels = calloc(t->n + 1, sizeof *order.labels);
    if (!order.labels)
        return hpq_oom(ctx);
    if (sqlite3_prepare_v2(ctx->db, "SELECT label FROM site WHERE id = ?1", -1, &st, NULL) !=
        SQLITE_OK)
        return hpq_db_error(ctx);
    for (size_t i = 0; i < t->n; i++) {
        sqlite3_bind_int64(st, 1, t->c[i].site);
        rc = sqlite3_step(st);
        const unsigned char *s = rc == SQLITE_ROW ? sqlite3_column_text(st, 0) : NULL;
        order.labels[i] = strdup(s ? (const char *)s : "?");
        sqlite3_reset(st);
        if (rc != SQLITE_ROW && rc != SQLITE_DONE)
            break;
        if (!order.labels[i]) {
            sqlite3_finalize(st);
            return hpq_oom(ctx);
        }
    }
    sqlite3_finalize(st);
    return rc == SQLITE_ROW || rc == SQLITE_DONE ? 0 : hpq_db_error(ctx);
}

static void free_labels(size_t n)
{
    for (size_t i = 0; order.labels && i < n; i++)
        free(order.labels[i]);
    free(order.labels);
    order.labels = NULL;
}

static void add_row(const hpq_ctx *ctx, hpq_table *tab, const trie *t, size_t i,
                    const size_t *row_of, double total)
{
    const caller *e = &t->c[i];
    const char *label = order.labels[i];
    char *shown = NULL;
    hpq_table_add_row(tab);
    hpq_set_int(tab, 0, (int64_t)row_of[i]);
    if (i > 0)
        hpq_set_int(tab, 1, (int64_t)row_of[e->parent]);
    hpq_set_int(tab, 2, e->level);
    if (ctx->opt->format == HPQ_TEXT &&
        asprintf(&shown, "%*s%s", 2 * e->level, "", label) >= 0) {
        hpq_set_str(tab, 3, shown);
        free(shown);
    } else {
        hpq_set_str(tab, 3, label);
    }
    hpq_set_int(tab, 4, e->site);
    if (e->node)
        hpq_set_int(tab, 5, e->node);
    hpq_set_int(tab, 6, e->contexts);
    hpq_set_int(tab, 7, e->calls);
    hpq_set_real(tab, 8, e->time);
    hpq_set_real(tab, 9, total > 0 ? 100.0 * e->time / total : 0);
}

/* Depth first from the site, callers in order, within --top (text output
 * always, CSV and JSON when it was given); *more counts the rows left out. */
static int fill_table(const hpq_ctx *ctx, const trie *t, hpq_table *tab, size_t *more)
{
    double total = hpq_query_double(ctx, "SELECT SUM(wall * MAX(threads, 1)) FROM rank");
    size_t *stack = malloc((t->n + 1) * sizeof *stack), sp = 0, row = 0;
    size_t *row_of = calloc(t->n + 1, sizeof *row_of);
    const hpq_options *o = ctx->opt;
    long top = o->format == HPQ_TEXT || o->top_given ? o->top : 0;
    if (!stack || !row_of) {
        free(stack);
        free(row_of);
        return hpq_oom(ctx);
    }
    stack[sp++] = 0;
    while (sp && (top <= 0 || row < (size_t)top)) {
        size_t i = stack[--sp];
        row_of[i] = ++row;
        add_row(ctx, tab, t, i, row_of, total);
        for (size_t k = t->c[i].nkids; k-- > 0;)
            stack[sp++] = t->kids[t->c[i].first_kid + k];
    }
    *more = t->n - row;     /* every entry is a row */
    free(stack);
    free(row_of);
    return tab->failed ? hpq_oom(ctx) : 0;
}

/* The site of the selected contexts (they share one: HPQ_WANT_ONE). */
static int first_site(const hpq_ctx *ctx, const char *nodes, int64_t *site)
{
    char *sql;
    if (asprintf(&sql, "SELECT site FROM node WHERE id IN (%s) LIMIT 1", nodes) < 0)
        return hpq_oom(ctx);
    *site = (int64_t)hpq_query_double(ctx, sql);
    free(sql);
    return 0;
}

int hpq_report_callers(const hpq_ctx *ctx, const char *site)
{
    static const char *const cols[] = {"id", "parent", "level", "site", "site_id", "node",
                                       "contexts", "calls", "time", "pct"};
    hpq_sel sel;
    trie t = {0};
    hpq_table *tab = NULL;
    size_t more = 0;
    int64_t site_id = 0;
    int rc = -1;
    if (hpq_select(ctx->db, ctx->db_path, site, HPQ_WANT_ONE, &sel, ctx->err, ctx->errlen))
        return -1;
    if (!(tab = hpq_table_new(10, cols))) {
        hpq_oom(ctx);
        goto done;
    }
    if (choose_order(ctx, tab) || first_site(ctx, sel.nodes, &site_id))
        goto done;
    if (trie_add(&t, (size_t)-1, site_id, 0) == (size_t)-1) {
        hpq_oom(ctx);
        goto done;
    }
    if (build_trie(ctx, sel.nodes, &t) || read_labels(ctx, &t))
        goto done;
    if (index_kids(&t)) {
        hpq_oom(ctx);
        goto done;
    }
    if (fill_table(ctx, &t, tab, &more))
        goto done;
    hpq_time_columns(tab);
    if (ctx->opt->format == HPQ_TEXT) {
        fputs("callers of ", ctx->out);
        hpq_print_text_string(ctx->out, sel.label);
        fputs(" (bottom-up)\n(each level: the callers of the row it is indented under,"
              " with the site's calls and time there)\n", ctx->out);
    }
    rc = hpq_print_rows(ctx, tab);
    if (rc == 0)
        hpq_print_more(ctx, (double)more);
done:
    free_labels(t.n);
    hpq_table_free(tab);
    free(t.c);
    free(t.kids);
    hpq_sel_free(&sel);
    return rc;
}
