/*
 * checktree.c - the per (rank, thread) rules of hprof-query --check
 * (checktree.h; check.c runs them): children within their parent (a),
 * waits within their parallel region (b), tasks and waits within the
 * construct that ran them (c), a "task create" where its creator ran (d,
 * placement half) and the consistency of one node's numbers (f); the
 * printing of a violation, which check.c's rules share.
 *
 * The node table is read once; the stat table is then read in (rank,
 * thread) order and each group's records, indexed by node id, are checked
 * before the next group is read.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "checktree.h"
#include "db/rankidx_read.h"

static const char *const wait_names[] = {"implicit barrier", "barrier", "critical wait",
                                         "lock wait", "ordered wait", "taskwait", "reduction"};

static enum hpq_node_role role_of(const char *kind, const char *name)
{
    if (!kind || !name || strcmp(kind, "omp") != 0)
        return HPQ_ROLE_OTHER;
    if (strcmp(name, "parallel") == 0)
        return HPQ_ROLE_REGION;
    if (strcmp(name, "task") == 0)
        return HPQ_ROLE_TASK;
    if (strcmp(name, "task create") == 0)
        return HPQ_ROLE_CREATE;
    for (size_t i = 0; i < sizeof wait_names / sizeof wait_names[0]; i++)
        if (strcmp(name, wait_names[i]) == 0)
            return HPQ_ROLE_WAIT;
    return HPQ_ROLE_OTHER;
}

static int check_oom(hpq_checker *ck)
{
    snprintf(ck->ctx->err, ck->ctx->errlen, "out of memory");
    return -1;
}

static int check_sql_error(hpq_checker *ck)
{
    snprintf(ck->ctx->err, ck->ctx->errlen, "sqlite: %s", sqlite3_errmsg(ck->ctx->db));
    return -1;
}

static int load_nodes(hpq_checker *ck)
{
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(ck->ctx->db, "SELECT COALESCE(MAX(id), 0) FROM node", -1, &st,
                           NULL) != SQLITE_OK)
        return check_sql_error(ck);
    ck->nnodes = sqlite3_step(st) == SQLITE_ROW ? (uint32_t)sqlite3_column_int64(st, 0) : 0;
    sqlite3_finalize(st);
    ck->parent = calloc(ck->nnodes + 1, sizeof *ck->parent);
    ck->role = calloc(ck->nnodes + 1, 1);
    ck->label = calloc(ck->nnodes + 1, sizeof *ck->label);
    if (!ck->parent || !ck->role || !ck->label)
        return check_oom(ck);
    if (sqlite3_prepare_v2(ck->ctx->db, "SELECT n.id, COALESCE(n.parent, 0), s.kind, s.name,"
                           " s.label FROM node n LEFT JOIN site s ON s.id = n.site", -1, &st,
                           NULL) != SQLITE_OK)
        return check_sql_error(ck);
    int rc;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        int64_t id = sqlite3_column_int64(st, 0), parent = sqlite3_column_int64(st, 1);
        if (id < 1 || id > ck->nnodes)
            continue;
        ck->parent[id] = parent >= 1 && parent <= ck->nnodes ? (uint32_t)parent : 0;
        ck->role[id] = (unsigned char)role_of((const char *)sqlite3_column_text(st, 2),
                                              (const char *)sqlite3_column_text(st, 3));
        const char *label = (const char *)sqlite3_column_text(st, 4);
        if (!(ck->label[id] = strdup(label ? label : "?"))) {
            sqlite3_finalize(st);
            return check_oom(ck);
        }
    }
    sqlite3_finalize(st);
    return rc == SQLITE_DONE ? 0 : check_sql_error(ck);
}

static void free_nodes(hpq_checker *ck)
{
    for (uint32_t i = 0; ck->label && i <= ck->nnodes; i++)
        free(ck->label[i]);
    free(ck->label);
    free(ck->parent);
    free(ck->role);
    ck->label = NULL;
    ck->parent = NULL;
    ck->role = NULL;
}

const char *hpq_node_path(const hpq_checker *ck, uint32_t id, char *buf, size_t len)
{
    uint32_t chain[512], n = 0;
    for (uint32_t at = id; at && ck->parent[at] && n < 512; at = ck->parent[at])
        chain[n++] = at;
    size_t used = 0;
    buf[0] = 0;
    for (uint32_t i = n; i-- > 0 && used + 1 < len;) {
        int w = snprintf(buf + used, len - used, "/%s", ck->label[chain[i]]);
        used = w < 0 ? len : used + (size_t)w;
    }
    if (used >= len && len > 4)
        memcpy(buf + len - 4, "...", 4);
    else if (n == 0)
        snprintf(buf, len, "/");
    return buf;
}

void hpq_violation(hpq_checker *ck, char rule, int64_t rank, int64_t thread, uint32_t node,
                   const char *fmt, ...)
{
    FILE *out = ck->ctx->out;
    if (ck->violations++ >= HPQ_CHECK_MAX_SHOWN)
        return;
    fprintf(out, "check: rule %c:", rule);
    if (rank >= 0)
        fprintf(out, " rank %lld", (long long)rank);
    if (thread >= 0)
        fprintf(out, " thread %lld", (long long)thread);
    char path[1024];
    if (node && ck->label && node <= ck->nnodes) {
        fprintf(out, " node #%u ", node);
        hpq_print_text_string(out, hpq_node_path(ck, node, path, sizeof path));
    }
    fputs(": ", out);
    /* the message quotes labels of the profile: escaped, one line */
    char msg[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    hpq_print_text_string(out, msg);
    fputc('\n', out);
}

/* ---- one (rank, thread) group ---- */

typedef struct group {
    int64_t rank, thread;
    uint32_t *ids;          /* nodes recorded on this thread */
    size_t n;
    double *time, *min, *max, *sum;   /* indexed by node id */
    uint64_t *count;
    uint32_t *nsum;         /* records summed into sum[] */
    unsigned char *here;    /* 1: recorded on this thread */
} group;

static int group_init(group *g, uint32_t nnodes)
{
    size_t n = (size_t)nnodes + 1;
    memset(g, 0, sizeof *g);
    g->ids = malloc(n * sizeof *g->ids);
    g->time = calloc(n, sizeof *g->time);
    g->min = calloc(n, sizeof *g->min);
    g->max = calloc(n, sizeof *g->max);
    g->sum = calloc(n, sizeof *g->sum);
    g->count = calloc(n, sizeof *g->count);
    g->nsum = calloc(n, sizeof *g->nsum);
    g->here = calloc(n, 1);
    return g->ids && g->time && g->min && g->max && g->sum && g->count && g->nsum && g->here
               ? 0 : -1;
}

static void group_free(group *g)
{
    free(g->ids);
    free(g->time);
    free(g->min);
    free(g->max);
    free(g->sum);
    free(g->count);
    free(g->nsum);
    free(g->here);
}

static void group_clear(group *g)
{
    for (size_t i = 0; i < g->n; i++) {
        uint32_t id = g->ids[i];
        g->here[id] = 0;
        g->time[id] = g->min[id] = g->max[id] = 0;
        g->count[id] = 0;
    }
    g->n = 0;
}

/* A record of `id` on this thread (several rows of one node add up). */
static void group_add(group *g, uint32_t id, uint64_t count, double time, double min,
                      double max)
{
    if (!g->here[id]) {
        g->here[id] = 1;
        g->ids[g->n++] = id;
        g->min[id] = min;
        g->max[id] = max;
    } else {
        g->min[id] = min < g->min[id] ? min : g->min[id];
        g->max[id] = max > g->max[id] ? max : g->max[id];
    }
    g->count[id] += count;
    g->time[id] += time;
}

/* ---- what encloses a node ---- */

/* The nearest ancestor of `id` with role `role` or `role2`, or 0. */
static uint32_t nearest(const hpq_checker *ck, uint32_t id, int role, int role2)
{
    uint32_t up = ck->parent[id];
    for (uint32_t steps = 0; up && steps <= ck->nnodes; steps++) {
        if (ck->role[up] == role || ck->role[up] == role2)
            return up;
        up = ck->parent[up];
    }
    return 0;
}

typedef uint32_t (*target_fn)(const hpq_checker *ck, const group *g, uint32_t id);

/* Did the node run on this thread?  A thread's tree also holds the
 * context it was forked in (the forking thread's nodes, not run here). */
static int ran_here(const group *g, uint32_t id)
{
    return g->here[id] && (g->count[id] > 0 || g->time[id] > 0);
}

/* The nearest ancestor that ran on this thread, or 0.  A thread's root
 * carries no time of its own (its top-level nodes are compared with the
 * wall time instead, rule e). */
static uint32_t parent_of(const hpq_checker *ck, const group *g, uint32_t id)
{
    uint32_t p = ck->parent[id];
    for (uint32_t steps = 0; p && ck->parent[p] && steps <= ck->nnodes; steps++) {
        if (ran_here(g, p))
            return p;
        p = ck->parent[p];
    }
    return 0;
}

static uint32_t region_of_wait(const hpq_checker *ck, const group *g, uint32_t id)
{
    (void)g;
    if (ck->role[id] != HPQ_ROLE_WAIT)
        return 0;
    return nearest(ck, id, HPQ_ROLE_REGION, HPQ_ROLE_REGION);
}

static uint32_t construct_of_task_or_wait(const hpq_checker *ck, const group *g, uint32_t id)
{
    (void)g;
    if (ck->role[id] != HPQ_ROLE_TASK && ck->role[id] != HPQ_ROLE_WAIT)
        return 0;
    return nearest(ck, id, HPQ_ROLE_REGION, HPQ_ROLE_TASK);
}

static const char *const fit_rules[] = {
    ['a'] = "children within their parent",
    ['b'] = "waits within their parallel region",
    ['c'] = "tasks and waits within the construct that ran them",
};

/* Sums the times of this thread's records into their target nodes and
 * reports every target whose sum exceeds its own time beyond the
 * tolerance.  `what` names the records summed. */
static void check_fit(hpq_checker *ck, group *g, char rule, target_fn target, const char *what)
{
    for (size_t i = 0; i < g->n; i++) {
        uint32_t id = g->ids[i], t = target(ck, g, id);
        if (t) {
            g->sum[t] += g->time[id];
            g->nsum[t]++;
        }
    }
    for (size_t i = 0; i < g->n; i++) {
        uint32_t t = target(ck, g, g->ids[i]);
        if (!t || !g->nsum[t])
            continue;
        double own = g->here[t] ? g->time[t] : 0.0;
        double bound = own * (1 + HPQ_CHECK_REL) + HPQ_CHECK_EPS * g->nsum[t];
        if (g->sum[t] > bound)
            hpq_violation(ck, rule, g->rank, g->thread, t,
                          "%s %.6f s (%u) > its time %.6f s%s + 1%% + 2 us each (%s)", what,
                          g->sum[t], g->nsum[t], own, g->here[t] ? "" : " (not recorded here)",
                          fit_rules[(unsigned char)rule]);
        g->sum[t] = 0;
        g->nsum[t] = 0;
    }
}

/* Rule f: one node's numbers. */
static void check_numbers(hpq_checker *ck, group *g)
{
    for (size_t i = 0; i < g->n; i++) {
        uint32_t id = g->ids[i];
        double t = g->time[id], mn = g->min[id], mx = g->max[id];
        uint64_t c = g->count[id];
        double tol = t * HPQ_CHECK_REL + HPQ_CHECK_EPS;
        if (t < 0 || mn < 0 || mx < 0)
            hpq_violation(ck, 'f', g->rank, g->thread, id, "negative time %.6f s (min %.6f,"
                          " max %.6f)", t, mn, mx);
        else if (c == 0 && t > 0 && ck->role[id] != HPQ_ROLE_TASK)
            /* (a task node may: the fragments of untied tasks that another
             * thread resumed and completed, and counted) */
            hpq_violation(ck, 'f', g->rank, g->thread, id, "time %.6f s with 0 calls", t);
        else if (c > 0 && mn > mx)
            hpq_violation(ck, 'f', g->rank, g->thread, id, "min %.6f s > max %.6f s", mn, mx);
        else if (c > 0 && mx > t + tol)
            hpq_violation(ck, 'f', g->rank, g->thread, id, "max %.6f s > time %.6f s", mx, t);
        else if (c > 0 && t > (double)c * mx * (1 + HPQ_CHECK_REL) + HPQ_CHECK_EPS &&
                 ck->role[id] != HPQ_ROLE_TASK)
            /* (a task node's time may also hold fragments of untied tasks
             * completed, and counted, elsewhere) */
            hpq_violation(ck, 'f', g->rank, g->thread, id, "time %.6f s > %llu calls x max"
                          " %.6f s", t, (unsigned long long)c, mx);
    }
}

/* Rule d, placement: a task is created inside its creator's execution,
 * so the construct above a "task create" ran on the same thread. */
static void check_creators(hpq_checker *ck, group *g)
{
    char path[1024];
    for (size_t i = 0; i < g->n; i++) {
        uint32_t id = g->ids[i];
        if (ck->role[id] != HPQ_ROLE_CREATE || g->count[id] == 0)
            continue;
        uint32_t c = nearest(ck, id, HPQ_ROLE_REGION, HPQ_ROLE_TASK);
        if (c && (!g->here[c] || (g->count[c] == 0 && g->time[c] <= 0)))
            hpq_violation(ck, 'd', g->rank, g->thread, id, "%llu creations under %s, which"
                          " never ran on this thread (a task's children are where its"
                          " creator was)", (unsigned long long)g->count[id],
                          hpq_node_path(ck, c, path, sizeof path));
    }
}

static void check_group(hpq_checker *ck, group *g)
{
    ck->groups++;
    ck->nodes_checked += g->n;
    check_numbers(ck, g);
    check_fit(ck, g, 'a', parent_of, "children");
    check_fit(ck, g, 'b', region_of_wait, "waits");
    check_fit(ck, g, 'c', construct_of_task_or_wait, "tasks and waits");
    check_creators(ck, g);
}

/* One row of stat, in (rank, thread, node) order: a group checked when
 * its rank and thread are over. */
static void add_row(hpq_checker *ck, group *g, int64_t rank, int64_t thread, int64_t node,
                    uint64_t count, double time, double min, double max)
{
    if (g->n && (rank != g->rank || thread != g->thread)) {
        check_group(ck, g);
        group_clear(g);
    }
    g->rank = rank;
    g->thread = thread;
    if (node < 1 || node > ck->nnodes) {
        hpq_violation(ck, 'f', rank, thread, 0, "a record of node %lld, which does not"
                      " exist", (long long)node);
        return;
    }
    group_add(g, (uint32_t)node, count, time, min, max);
}

static int read_groups(hpq_checker *ck, group *g)
{
    sqlite3_stmt *st;
    /* one row per (node, rank, thread), the key of stat: no GROUP BY (in
     * aggregate mode the rows come in this order, unsorted: detail.c) */
    if (sqlite3_prepare_v2(ck->ctx->db, "SELECT rank, thread, node, count, time, min, max"
                           " FROM stat ORDER BY rank, thread, node", -1, &st,
                           NULL) != SQLITE_OK)
        return check_sql_error(ck);
    int rc;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW)
        add_row(ck, g, sqlite3_column_int64(st, 0), sqlite3_column_int64(st, 1),
                sqlite3_column_int64(st, 2), (uint64_t)sqlite3_column_int64(st, 3),
                sqlite3_column_double(st, 4), sqlite3_column_double(st, 5),
                sqlite3_column_double(st, 6));
    sqlite3_finalize(st);
    if (rc != SQLITE_DONE)
        return check_sql_error(ck);
    if (g->n)
        check_group(ck, g);
    return 0;
}

/* Does a TEMP view `stat` (--raw's) shadow the database's? */
static int stat_shadowed(sqlite3 *db)
{
    sqlite3_stmt *st = NULL;
    int found = sqlite3_prepare_v2(db, "SELECT 1 FROM sqlite_temp_master WHERE name = 'stat'",
                                   -1, &st, NULL) == SQLITE_OK &&
                sqlite3_step(st) == SQLITE_ROW;
    sqlite3_finalize(st);
    return found;
}

/* The same rows, in the same order, straight from the per-rank index of
 * an aggregate-mode database (db/rankidx.h): SQL's cost per row and
 * column was most of --check at 1024 ranks. */
static int read_groups_indexed(hpq_checker *ck, group *g)
{
    hpf_rix_scan scan;
    memset(&scan, 0, sizeof scan);
    int rc = hpf_rix_scan_all(&scan, ck->ctx->db, 1);
    for (; rc == 0 && scan.at < scan.n; rc = hpf_rix_scan_next(&scan)) {
        const hpf_rix_row *x = &scan.rows[scan.at];
        add_row(ck, g, x->rank, x->thread, scan.nodes[scan.at], x->v.count, x->v.time,
                x->v.min, x->v.max);
    }
    if (rc)
        snprintf(ck->ctx->err, ck->ctx->errlen, "%s", scan.err);
    hpf_rix_scan_free(&scan);
    if (rc == 0 && g->n)
        check_group(ck, g);
    return rc ? -1 : 0;
}

int hpq_check_trees(hpq_checker *ck)
{
    group g;
    int rc = load_nodes(ck);
    if (rc == 0) {
        int indexed = hpf_rix_mode(ck->ctx->db) && !stat_shadowed(ck->ctx->db);
        rc = group_init(&g, ck->nnodes) != 0 ? check_oom(ck)
             : indexed                     ? read_groups_indexed(ck, &g)
                                           : read_groups(ck, &g);
        group_free(&g);
    }
    free_nodes(ck);
    return rc;
}
