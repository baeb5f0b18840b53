/*
 * report.c - hprof-query's reports: flat site listing, per-destination
 * communication table, per-rank and per-thread distribution, tasks and
 * free SQL (the run header and top-down listing: report_tree.c).
 *
 * Conventions: "time" sums over ranks and threads; "mean" divides it by
 * the number of ranks; "max" is the largest per-rank sum; imbalance is
 * max / mean; "pct" is time relative to the thread time of the run: each
 * rank's wall time times its threads that recorded, summed over ranks,
 * which the root row of the tree carries (so nothing exceeds 100%).
 */
#include "config.h"
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "hp_profile.h"
#include "db/db_agg.h"
#include "db/detail_sums.h"
#include "report.h"
#include "report_util.h"
#include "counter_cols.h"
#include "sitesel.h"

_Static_assert(HP_SITEF_UNPROBED == 512u, "the flat listing's SQL names HP_SITEF_UNPROBED");

/* "title label" on a line of its own, the label escaped. */
static void print_title(const hpq_ctx *ctx, const char *title, const char *label)
{
    fprintf(ctx->out, "%s ", title);
    hpq_print_text_string(ctx->out, label);
    fputc('\n', ctx->out);
}

/* ---- fixed listings ---- */

/* Runs `select` with --top's LIMIT and prints the table, after `title`
 * (text only, NULL for none); with `site_counters`, its first column a
 * site id, with the counter columns (counter_cols.h). */
static int print_listing(const hpq_ctx *ctx, const char *select, const char *title,
                         int site_counters)
{
    char limit[32] = "";
    char *sql;
    /* --top's rows only, as hpq_rows_allowed counts them (CSV and JSON:
     * all unless --top was given); sorted: all rows, then --top */
    int limited = ctx->opt->format == HPQ_TEXT || ctx->opt->top_given;
    if (ctx->opt->top && limited && !ctx->opt->sort)
        snprintf(limit, sizeof limit, " LIMIT %ld", ctx->opt->top);
    if (asprintf(&sql, "%s%s", select, limit) < 0)
        return hpq_oom(ctx);
    hpq_table *t = hpq_query_table(ctx, sql);
    free(sql);
    if (!t)
        return -1;
    hpq_time_columns(t);
    if (site_counters && hpq_counter_columns(ctx, &t, 0, 1)) {
        hpq_table_free(t);
        return -1;
    }
    hpq_text_hide(t, "mean");   /* time / ranks */
    if (title && ctx->opt->format == HPQ_TEXT)
        fprintf(ctx->out, "%s\n", title);
    if (site_counters)
        hpq_note_counters_dropped(ctx);
    int rc = hpq_print_table(ctx, t);
    if (rc == 0 && limit[0] && t->nrows == (size_t)ctx->opt->top &&
        asprintf(&sql, "SELECT COUNT(*) FROM (%s)", select) >= 0) {
        hpq_print_more(ctx, hpq_query_double(ctx, sql) - (double)t->nrows);
        free(sql);
    }
    hpq_table_free(t);
    return rc;
}

int hpq_report_flat(const hpq_ctx *ctx)
{
    return print_listing(ctx,
                         "SELECT t.site AS site, label, kind, calls, time,"
                         /* exclusive: the site's nodes' own time minus
                          * their children's (node_excl), every context */
                         " e.excl AS excl, mean, max, imbalance,"
                         " 100.0 * time / (SELECT SUM(wall * MAX(threads, 1)) FROM rank) AS pct,"
                         " w.rank AS worst_rank, w.thread AS worst_thread"
                         " FROM site_time t LEFT JOIN site_worst w ON w.site = t.site"
                         " LEFT JOIN (SELECT n.site AS site, SUM(x.excl) AS excl FROM node_excl x"
                         " JOIN node n ON n.id = x.node GROUP BY n.site) e ON e.site = t.site"
                         /* sites the instrumenter left without a probe:
                          * no calls, no time (theirs is their parent's) */
                         " UNION ALL SELECT id, label, kind || ' (not probed)', NULL, NULL,"
                         " NULL, NULL, NULL, NULL, NULL, NULL, NULL FROM site WHERE (flags & 512) != 0"
                         " AND id NOT IN (SELECT site FROM site_time)"
                         " ORDER BY time DESC, site",
                         NULL, 1);
}

/* Explicit tasks: which construct created which. */
int hpq_report_tasks(const hpq_ctx *ctx)
{
    return print_listing(ctx,
                         "SELECT parent, child, created FROM task_children"
                         " ORDER BY created DESC, parent, child",
                         "tasks created per (parent construct, child construct)", 0);
}

/* ---- communication of one site ---- */

/* One row per peer (a world rank, '*all*' for a collective's whole
 * communicator, 'file' for MPI-IO); `dir` says whether the site sent to it
 * ("to"; for a file: wrote), received from it ("from"; read), both
 * ("with"), or is a collective ("all"); NULL when no bytes tell (zero-byte
 * messages). */

/* The peer columns: in JSON a number (null for a communicator's whole
 * group, a file, or every rank peer) and the flags "all" and "file", so
 * that the peer column has one type; in text and CSV '*all*', 'file' and
 * '*ranks*' in its place ('*ranks*': the point-to-point peers in one row,
 * as the database of an aggregated profile has them: db/db_fromagg.h). */
static char *peer_columns(const hpq_ctx *ctx)
{
    char *cols;
    int rc = ctx->opt->format == HPQ_JSON
                 ? asprintf(&cols, "CASE WHEN peer IN (%d, %d, %d) THEN NULL ELSE peer END AS"
                                   " peer, peer = %d AS \"all\", peer = %d AS file,",
                            HP_PEER_ALL, HP_PEER_FILE, HPF_PEER_RANKS, HP_PEER_ALL, HP_PEER_FILE)
                 : asprintf(&cols, "CASE peer WHEN %d THEN '*all*' WHEN %d THEN 'file' WHEN %d"
                                   " THEN '*ranks*' ELSE peer END AS peer,", HP_PEER_ALL,
                            HP_PEER_FILE, HPF_PEER_RANKS);
    return rc < 0 ? NULL : cols;
}

/* The rows of --by-rank, FROM the table returned (malloc'ed) WHERE the
 * condition *rows: the comm rows of the site's nodes, or in aggregate
 * mode their sums by rank and peer made in C, as `comm`
 * (db/detail_sums.h: the same numbers, in 0.1 s, not SQLite's 0.25 s for
 * a site of 163 k rows).  NULL without memory. */
static char *by_rank_rows(const hpq_ctx *ctx, const hpq_sel *sel, char **rows)
{
    if (!hpq_comm_is_virtual(ctx->db)) {
        *rows = hpq_comm_rows_of(ctx->db, sel->nodes, "");
        return strdup("comm");
    }
    *rows = strdup("1");
    char *from;
    if (asprintf(&from, "(SELECT k1 AS rank, k2 AS peer, n1 AS count, n2 AS bytes_sent,"
                 " n3 AS bytes_recv, t1 AS tran, t2 AS sync, t3 AS min, t4 AS max"
                 " FROM " HPF_SUMS_FN "('peers', '%s')) AS comm", sel->nodes) < 0)
        return NULL;
    return from;
}

/* An aggregated profile's database (db/db_fromagg.h) keeps per node and
 * peer class the ranks with records, the worst rank (most tran + sync)
 * and its time (comm_node_class): three more columns of the per-peer
 * table, for a class at one node of the site (a rank's time over several
 * calling contexts is not kept: NULL, and the text says so).  "" for
 * other databases; malloc'ed, NULL without memory. */
static char *class_columns(const hpq_ctx *ctx, const hpq_sel *sel)
{
    static const char *const col[] = {"ranks", "worst_rank", "worst_time"};
    char *cols = strdup(""), *more;
    for (int i = 0; cols && hpq_is_aggregated(ctx) && i < 3; i++) {
        if (asprintf(&more, "%s, (SELECT CASE WHEN COUNT(*) = 1 THEN MAX(k.%s) END FROM"
                     " comm_node_class k WHERE k.node IN (%s) AND k.peer = comm_node_peer.peer)"
                     " AS %s", cols, col[i], sel->nodes, col[i]) < 0)
            more = NULL;
        free(cols);
        cols = more;
    }
    return cols;
}

static hpq_table *comm_table(const hpq_ctx *ctx, const hpq_sel *sel, int by_rank)
{
    /* per peer from the node's sums over ranks (db_agg.c); the columns
     * named with their table, not the printed peer */
    const char *group = by_rank ? "comm.rank, comm.peer" : "comm_node_peer.peer";
    char *sql, *peer = peer_columns(ctx), *rows = NULL;
    char *from = by_rank ? by_rank_rows(ctx, sel, &rows) : strdup("comm_node_peer");
    char *classes = by_rank ? strdup("") : class_columns(ctx, sel);
    if (!peer || !from || !classes || (by_rank && !rows) || asprintf(&sql,
                 "SELECT %s%s"
                 " CASE WHEN peer = %d THEN 'all'"
                 "  WHEN SUM(bytes_sent) > 0 AND SUM(bytes_recv) > 0 THEN 'with'"
                 "  WHEN SUM(bytes_sent) > 0 THEN 'to' WHEN SUM(bytes_recv) > 0 THEN 'from'"
                 " END AS dir, SUM(count) AS count, SUM(bytes_sent) AS bytes_sent,"
                 " SUM(bytes_recv) AS bytes_recv, SUM(tran) AS tran, SUM(sync) AS sync,"
                 " MIN(min) AS min, MAX(max) AS max%s"
                 " FROM %s WHERE %s%s%s GROUP BY %s ORDER BY %s",
                 by_rank ? "rank, " : "", peer, HP_PEER_ALL, classes, from,
                 by_rank ? rows : "node IN (", by_rank ? "" : sel->nodes,
                 by_rank ? "" : ")", group, group) < 0) {
        free(peer);
        free(rows);
        free(from);
        free(classes);
        hpq_oom(ctx);
        return NULL;
    }
    free(peer);
    free(rows);
    free(from);
    free(classes);
    hpq_table *t = hpq_query_table(ctx, sql);
    free(sql);
    if (t)
        hpq_time_columns(t);
    return t;
}

/* The nonblocking posting sites (MPI_I..., MPI_R... one-sided, ..._init
 * persistent) with communication records in the calling contexts of the
 * completion calls (MPI_Wait..., MPI_Test...) among `nodes`, labels in
 * line order: the lines a wait's completions are recorded at (waits.c). */
static const char posting_sql_fmt[] =
    "SELECT DISTINCT s.label FROM node w JOIN site ws ON ws.id = w.site"
    " JOIN node n ON n.parent = w.parent JOIN site s ON s.id = n.site"
    " WHERE w.id IN (%s) AND (ws.name LIKE 'MPI\\_Wait%%' ESCAPE '\\'"
    "  OR ws.name LIKE 'MPI\\_Test%%' ESCAPE '\\')"
    " AND s.kind = 'comm' AND (s.name LIKE 'MPI\\_I%%' ESCAPE '\\'"
    "  OR s.name LIKE 'MPI\\_R%%' ESCAPE '\\' OR s.name LIKE '%%\\_init' ESCAPE '\\')"
    " AND EXISTS (SELECT 1 FROM comm_node_peer c WHERE c.node = n.id)"
    " ORDER BY s.file, s.line, s.label";

/* Is every site of sel a completion call (MPI_Wait..., MPI_Test...)? */
static int completions_only(const hpq_ctx *ctx, const hpq_sel *sel)
{
    char *sql;
    if (asprintf(&sql, "SELECT COUNT(*) = SUM(s.name LIKE 'MPI\\_Wait%%' ESCAPE '\\'"
                 " OR s.name LIKE 'MPI\\_Test%%' ESCAPE '\\') FROM node n"
                 " JOIN site s ON s.id = n.site WHERE n.id IN (%s)", sel->nodes) < 0)
        return 0;
    int yes = hpq_query_double(ctx, sql) == 1;
    free(sql);
    return yes;
}

/* An empty table of a completion call says why, in one line (on stdout in
 * text, on stderr in CSV and JSON, which stay tables), and lists the
 * posting lines in its contexts. */
static int explain_completions(const hpq_ctx *ctx, const hpq_sel *sel)
{
    char *sql;
    if (!completions_only(ctx, sel))
        return 0;
    if (asprintf(&sql, posting_sql_fmt, sel->nodes) < 0)
        return hpq_oom(ctx);
    hpq_table *t = hpq_query_table(ctx, sql);
    free(sql);
    if (!t)
        return -1;
    FILE *out = ctx->opt->format == HPQ_TEXT ? ctx->out : stderr;
    fputs(ctx->opt->format == HPQ_TEXT ? "" : "hprof-query: ", out);
    hpq_print_text_string(out, sel->label);
    fputs(" completes requests: the time of completions is charged to the posting lines", out);
    for (size_t r = 0; r < t->nrows; r++) {
        fputs(r ? ", " : " (--comm on them: ", out);
        hpq_print_text_string(out, hpq_cell_at(t, r, 0)->s);
    }
    fputs(t->nrows ? ")\n" : " (none in its calling context)\n", out);
    hpq_table_free(t);
    return 0;
}

/* Text, an aggregated profile's database: when a class's ranks are not
 * known (several calling contexts of the site, class_columns), one line
 * says why and where the per-context figures are. */
static void explain_class_columns(const hpq_ctx *ctx, const hpq_sel *sel, const hpq_table *t)
{
    int col = hpq_table_column(t, "ranks");
    size_t r = 0;
    while (col >= 0 && r < t->nrows && hpq_cell_at(t, r, col)->type != HPQ_NULL)
        r++;
    if (col < 0 || r == t->nrows)
        return;
    fprintf(ctx->out, "(ranks, worst_rank, worst_time: kept per calling context, and the site"
            " has several: --sql \"SELECT * FROM comm_node_class WHERE node IN (%s)\")\n",
            sel->nodes);
}

/* Text output shows the per-destination table and, with --by-rank, the
 * per source rank breakdown below it; CSV and JSON show one table, the
 * breakdown when --by-rank is given. */
int hpq_report_comm(const hpq_ctx *ctx, const char *site)
{
    int text = ctx->opt->format == HPQ_TEXT, by_rank = ctx->opt->by_rank;
    hpq_table *dest = NULL, *ranks = NULL;
    hpq_sel sel;
    int rc = -1;
    if (hpq_select(ctx->db, ctx->db_path, site, HPQ_WANT_COMM, &sel, ctx->err, ctx->errlen))
        return -1;
    if ((text || !by_rank) && !(dest = comm_table(ctx, &sel, 0)))
        goto done;
    if (by_rank && !(ranks = comm_table(ctx, &sel, 1)))
        goto done;
    if (text)
        print_title(ctx, "communication of", sel.label);
    if (dest && hpq_print_table(ctx, dest))
        goto done;
    if (dest && text)
        explain_class_columns(ctx, &sel, dest);
    if (((dest && dest->nrows == 0) || (ranks && ranks->nrows == 0)) &&
        explain_completions(ctx, &sel))
        goto done;
    if (text && ranks)
        fprintf(ctx->out, "\nby source rank:\n");
    rc = ranks ? hpq_print_table(ctx, ranks) : 0;
done:
    hpq_table_free(dest);
    hpq_table_free(ranks);
    hpq_sel_free(&sel);
    return rc;
}

/* ---- per-rank distribution of one site ---- */

static void print_distribution(const hpq_ctx *ctx, const hpq_table *t)
{
    double min = 0, max = 0, sum = 0;
    int64_t min_rank = 0, max_rank = 0;
    for (size_t r = 0; r < t->nrows; r++) {
        double v = hpq_cell_at(t, r, 2)->d;
        int64_t rank = hpq_cell_at(t, r, 0)->i;
        sum += v;
        if (r == 0 || v < min) {
            min = v;
            min_rank = rank;
        }
        if (r == 0 || v > max) {
            max = v;
            max_rank = rank;
        }
    }
    double mean = t->nrows ? sum / (double)t->nrows : 0;
    fprintf(ctx->out, "time: min %.6f (rank %lld), mean %.6f, max %.6f (rank %lld),"
            " imbalance %.2f\n", min, (long long)min_rank, mean, max, (long long)max_rank,
            mean > 0 ? max / mean : 0.0);
}

/* Text leaves out the columns from `first` on whose every cell is 0 or
 * NULL (the kinds of records a construct did not have). */
static void hide_zero_columns(hpq_table *t, int first)
{
    for (int c = first; c < t->ncols; c++) {
        size_t r = 0;
        for (; r < t->nrows; r++) {
            const hpq_cell *x = hpq_cell_at(t, r, c);
            if (x->type == HPQ_STR || (x->type == HPQ_INT && x->i != 0) ||
                (x->type == HPQ_REAL && x->d != 0))
                break;
        }
        if (t->nrows > 0 && r == t->nrows)
            hpq_table_text_hide(t, c);
    }
}

/* Runs sql (freed here), then prints "TITLE LABEL" (text only), the table
 * (in text without the all-zero columns from column zero_from on, when
 * it is > 0) and, for text, what `after` adds.  Returns 0 or -1. */
static int print_site_report(const hpq_ctx *ctx, char *sql, const char *title,
                             const hpq_sel *sel, int zero_from,
                             void (*after)(const hpq_ctx *, const hpq_table *))
{
    hpq_table *t = hpq_query_table(ctx, sql);
    free(sql);
    int rc = -1;
    if (t) {
        hpq_time_columns(t);
        if (zero_from > 0)
            hide_zero_columns(t, zero_from);
        if (ctx->opt->format == HPQ_TEXT)
            print_title(ctx, title, sel->label);
        rc = hpq_print_table(ctx, t);
        if (rc == 0 && after && ctx->opt->format == HPQ_TEXT)
            after(ctx, t);
    }
    hpq_table_free(t);
    return rc;
}

int hpq_report_ranks(const hpq_ctx *ctx, const char *site)
{
    hpq_sel sel;
    char *sql;
    if (hpq_select(ctx->db, ctx->db_path, site, HPQ_WANT_ONE, &sel, ctx->err, ctx->errlen))
        return -1;
    if (asprintf(&sql,
                 "SELECT r.rank AS rank, COALESCE(st.calls, 0) AS calls,"
                 " COALESCE(st.time, 0.0) AS time, COALESCE(cm.tran, 0.0) AS tran,"
                 " COALESCE(cm.sync, 0.0) AS sync, ROW_NUMBER() OVER"
                 " (ORDER BY COALESCE(st.time, 0.0) DESC, r.rank) = 1 AS worst FROM rank r"
                 " LEFT JOIN (SELECT rank, SUM(count) AS calls, SUM(time) AS time FROM stat"
                 "  WHERE node IN (%s) GROUP BY rank) st ON st.rank = r.rank"
                 " LEFT JOIN (SELECT rank, SUM(tran) AS tran, SUM(sync) AS sync FROM comm_node_rank"
                 "  WHERE node IN (%s) GROUP BY rank) cm ON cm.rank = r.rank"
                 " ORDER BY r.rank", sel.nodes, sel.nodes) < 0) {
        hpq_sel_free(&sel);
        return hpq_oom(ctx);
    }
    int rc = print_site_report(ctx, sql, "per-rank distribution of", &sel, 0,
                               print_distribution);
    hpq_sel_free(&sel);
    return rc;
}

/* ---- free SQL ---- */

/* One column of the per-thread table: the time (or, for executions, the
 * count) of the OpenMP records named `name` inside the construct.  A wait
 * is subtracted from the work column; an optional column is listed only
 * when the construct has such records; an outermost one sums only the
 * records with no record of that name between them and the construct (a
 * task's time holds the tasks run nested in it: counted once). */
static const struct {
    const char *column, *name;
    int count, wait, optional, outermost;
} thread_columns[] = {
    {"ibarrier", "implicit barrier", 0, 1, 0, 0}, {"barrier", "barrier", 0, 1, 0, 0},
    {"crit_wait", "critical wait", 0, 1, 0, 0},   {"crit_hold", "critical", 0, 0, 0, 0},
    {"lock_wait", "lock wait", 0, 1, 0, 0},       {"lock_hold", "lock", 0, 0, 0, 0},
    {"single", "single", 1, 0, 0, 0},             {"master", "master", 1, 0, 0, 0},
    {"tasks", "task", 1, 0, 0, 0},                {"task_time", "task", 0, 0, 0, 1},
    {"taskwait", "taskwait", 0, 1, 0, 0},         {"ord_wait", "ordered wait", 0, 1, 1, 0},
    {"ord_hold", "ordered", 0, 0, 1, 0},          {"atomics", "atomic", 1, 0, 1, 0},
    {"flushes", "flush", 1, 0, 1, 0},             {"red_wait", "reduction", 0, 1, 1, 0},
};
#define NTHREAD_COLUMNS (sizeof thread_columns / sizeof thread_columns[0])

/* Appends printf-style text to b. */
static void append(hp_buf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void append(hp_buf *b, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    unsigned char *p = n >= 0 ? hp_buf_reserve(b, (size_t)n + 1) : NULL;
    if (!p)
        return;
    va_start(ap, fmt);
    vsnprintf((char *)p, (size_t)n + 1, fmt, ap);
    va_end(ap);
    b->len--; /* the NUL stays as a terminator, not as content */
}

/* The records named `name` strictly inside the nodes, as SQL joins and
 * conditions over stat x (c: the record's node) for a FROM clause. */
#define INSIDE_SQL "stat x JOIN node c ON c.id = x.node JOIN site cs ON cs.id = c.site" \
                   " JOIN node p ON p.id IN (%s) WHERE cs.kind = 'omp' AND cs.name = '%s'" \
                   " AND c.lo > p.lo AND c.lo <= p.hi"

/* ... and no node between p and c carries records of c's name. */
#define OUTERMOST_SQL " AND NOT EXISTS (SELECT 1 FROM node a JOIN site asn ON asn.id = a.site" \
                      " WHERE asn.kind = 'omp' AND asn.name = cs.name" \
                      " AND c.lo > a.lo AND c.lo <= a.hi AND a.lo > p.lo AND a.lo <= p.hi)"

/* Does any node inside the selected nodes carry records named `name`? */
static int has_records(const hpq_ctx *ctx, const char *nodes, const char *name)
{
    char *sql;
    if (asprintf(&sql, "SELECT EXISTS (SELECT 1 FROM " INSIDE_SQL " AND x.count > 0)", nodes,
                 name) < 0)
        return 0;
    int r = hpq_query_double(ctx, sql) != 0;
    free(sql);
    return r;
}

/* shown[i]: column i of thread_columns is listed. */
static char *threads_sql(const char *nodes, const int *shown)
{
    hp_buf b = {0};
    append(&b, "SELECT st.rank AS rank, st.thread AS thread, SUM(st.count) AS calls,"
               " SUM(st.time) AS time");
    for (size_t i = 0; i < NTHREAD_COLUMNS; i++)
        if (shown[i])
            append(&b, ", COALESCE((SELECT SUM(%s) FROM " INSIDE_SQL
                       " AND x.rank = st.rank AND x.thread = st.thread%s), 0) AS %s",
                   thread_columns[i].count ? "x.count" : "x.time", nodes,
                   thread_columns[i].name, thread_columns[i].outermost ? OUTERMOST_SQL : "",
                   thread_columns[i].column);
    append(&b, " FROM stat st WHERE st.node IN (%s) GROUP BY st.rank, st.thread", nodes);
    /* work: the construct's time less every wait recorded inside it */
    hp_buf outer = {0};
    append(&outer, "SELECT rank, thread, calls, time, MAX(time");
    for (size_t i = 0; i < NTHREAD_COLUMNS; i++)
        if (shown[i] && thread_columns[i].wait)
            append(&outer, " - %s", thread_columns[i].column);
    append(&outer, ", 0) AS work");
    for (size_t i = 0; i < NTHREAD_COLUMNS; i++)
        if (shown[i])
            append(&outer, ", %s", thread_columns[i].column);
    /* the slowest thread of each rank */
    append(&outer, ", ROW_NUMBER() OVER (PARTITION BY rank ORDER BY time DESC, thread) = 1"
                   " AS worst FROM (%s) ORDER BY rank, thread",
           b.failed || !b.data ? "" : (const char *)b.data);
    hp_buf_free(&b);
    b = outer;
    if (b.failed || !b.data) {
        hp_buf_free(&b);
        return NULL;
    }
    return (char *)b.data;
}

/* The largest max/mean over the threads of one rank, of column col of a
 * table sorted by rank; *worst is that rank. */
static double thread_imbalance(const hpq_table *t, int col, int64_t *worst)
{
    double best = 0;
    for (size_t r = 0; r < t->nrows;) {
        int64_t rank = hpq_cell_at(t, r, 0)->i;
        double sum = 0, max = 0;
        size_t n = 0;
        for (; r < t->nrows && hpq_cell_at(t, r, 0)->i == rank; r++, n++) {
            double v = hpq_cell_at(t, r, col)->d;
            sum += v;
            max = v > max ? v : max;
        }
        double imb = sum > 0 ? max * (double)n / sum : 0;
        if (imb > best) {
            best = imb;
            *worst = rank;
        }
    }
    return best;
}

static void print_thread_imbalance(const hpq_ctx *ctx, const hpq_table *t)
{
    int64_t rt = 0, rw = 0;
    double it = thread_imbalance(t, 3, &rt), iw = thread_imbalance(t, 4, &rw);
    fprintf(ctx->out, "thread imbalance (max/mean over a rank's threads, worst rank):"
            " time %.2f (rank %lld), work %.2f (rank %lld)\n", it, (long long)rt, iw,
            (long long)rw);
}

int hpq_report_threads(const hpq_ctx *ctx, const char *site)
{
    hpq_sel sel;
    if (hpq_select(ctx->db, ctx->db_path, site, HPQ_WANT_OMP, &sel, ctx->err, ctx->errlen))
        return -1;
    int shown[NTHREAD_COLUMNS];
    for (size_t i = 0; i < NTHREAD_COLUMNS; i++)
        shown[i] = !thread_columns[i].optional ||
                   has_records(ctx, sel.nodes, thread_columns[i].name);
    char *sql = threads_sql(sel.nodes, shown);
    if (!sql) {
        hpq_sel_free(&sel);
        return hpq_oom(ctx);
    }
    int rc = print_site_report(ctx, sql, "per-thread records (seconds) of", &sel, 4,
                               print_thread_imbalance);
    hpq_sel_free(&sel);
    return rc;
}

int hpq_report_sql(const hpq_ctx *ctx, const char *sql)
{
    hpq_table *t = hpq_query_table(ctx, sql);
    if (!t)
        return -1;
    int rc = hpq_print_table(ctx, t);
    hpq_table_free(t);
    return rc;
}
