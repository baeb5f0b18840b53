/*
 * html_aggcomm.c - the communication section of hprof-report's page for
 * the database of an aggregated profile (html.h, db/db_fromagg.h), which
 * has no rank x rank matrix to draw: per communication site and peer
 * class (every rank of a collective, file I/O, the point-to-point peers
 * together) the sums over ranks and, from comm_node_class, the ranks with
 * records and the worst rank and its time, the numbers and the rule of
 * hprof-query --comm site:N (query/report.c): a class kept at several
 * calling contexts of the site has empty cells, and one line says why.
 */
#include "config.h"
#include <stdlib.h>
#include "html.h"
#include "hp_profile.h"
#include "db/db_agg.h"
#include "query/report_util.h"

#define COMM_SITES_MAX 20   /* sites shown, those with the most tran + sync */

/* Per site and class: its label, the class as the text names it, the
 * sums of comm_node_peer over the site's nodes, and comm_node_class's
 * figures when the site keeps the class at one node (else NULL); the
 * COMM_SITES_MAX sites with the most time first, classes by peer. */
static const char rows_sql[] =
    "WITH per AS (SELECT n.site AS site, p.peer AS peer, SUM(p.count) AS count,"
    "   SUM(p.bytes_sent) AS bytes_sent, SUM(p.bytes_recv) AS bytes_recv, SUM(p.tran) AS tran,"
    "   SUM(p.sync) AS sync FROM comm_node_peer p JOIN node n ON n.id = p.node"
    "   GROUP BY n.site, p.peer),"
    " top AS (SELECT site, SUM(tran + sync) AS t FROM per GROUP BY site"
    "   ORDER BY t DESC, site LIMIT ?1),"
    " cls AS (SELECT m.site AS site, k.peer AS peer, COUNT(*) AS n, MAX(k.ranks) AS ranks,"
    "   MAX(k.worst_rank) AS worst_rank, MAX(k.worst_time) AS worst_time"
    "   FROM comm_node_class k JOIN node m ON m.id = k.node"
    "   WHERE m.site IN (SELECT site FROM top) GROUP BY m.site, k.peer)"
    " SELECT per.site, s.label, CASE per.peer WHEN ?2 THEN '*all*' WHEN ?3 THEN 'file'"
    "   WHEN ?4 THEN '*ranks*' ELSE per.peer END, per.count, per.bytes_sent, per.bytes_recv,"
    "   per.tran, per.sync, CASE WHEN cls.n = 1 THEN cls.ranks END,"
    "   CASE WHEN cls.n = 1 THEN cls.worst_rank END, CASE WHEN cls.n = 1 THEN cls.worst_time END"
    " FROM per JOIN top ON top.site = per.site JOIN site s ON s.id = per.site"
    " LEFT JOIN cls ON cls.site = per.site AND cls.peer = per.peer"
    " ORDER BY top.t DESC, per.site, per.peer";

/* Sites without the class columns' figures, as "3,7" (SQL list). */
typedef struct several {
    char *list;
    size_t len;
    FILE *f;
    long long last;
} several;

static void put_int_cell(FILE *out, sqlite3_stmt *st, int col)
{
    if (sqlite3_column_type(st, col) == SQLITE_NULL)
        fputs("<td></td>", out);
    else
        fprintf(out, "<td>%lld</td>", (long long)sqlite3_column_int64(st, col));
}

static void put_time_cell(FILE *out, sqlite3_stmt *st, int col)
{
    fputs("<td>", out);
    if (sqlite3_column_type(st, col) != SQLITE_NULL)
        hpq_html_time(out, sqlite3_column_double(st, col));
    fputs("</td>", out);
}

/* One row: site, peer, count, bytes sent and received, tran, sync, then
 * ranks, worst_rank, worst_time (empty when not kept for the site). */
static void put_row(FILE *out, sqlite3_stmt *st, several *sv)
{
    long long site = sqlite3_column_int64(st, 0);
    fprintf(out, "<tr class=\"cclass\" data-site=\"%lld\" data-peer=\"", site);
    hpq_html_text(out, (const char *)sqlite3_column_text(st, 2));
    fputs("\"><td class=\"l\">", out);
    hpq_html_text(out, (const char *)sqlite3_column_text(st, 1));
    fputs("</td><td class=\"l\">", out);
    hpq_html_text(out, (const char *)sqlite3_column_text(st, 2));
    fputs("</td>", out);
    for (int c = 3; c <= 5; c++)
        put_int_cell(out, st, c);
    put_time_cell(out, st, 6);
    put_time_cell(out, st, 7);
    put_int_cell(out, st, 8);
    put_int_cell(out, st, 9);
    put_time_cell(out, st, 10);
    fputs("</tr>\n", out);
    if (sqlite3_column_type(st, 8) == SQLITE_NULL && site != sv->last) {
        fprintf(sv->f, "%s%lld", sv->len ? "," : "", site);
        fflush(sv->f);
        sv->last = site;
    }
}

static void put_intro(FILE *out, long long nsites)
{
    fputs("<p class=\"note\" id=\"comm-classes-note\">Per communication site and peer class"
          " (<code>*all*</code> the ranks of a collective, <code>file</code> file I/O,"
          " <code>*ranks*</code> every point-to-point peer), as <code>hprof-query RUN --comm"
          " site:N</code> shows it: calls, bytes and seconds summed over ranks; the ranks with"
          " records, the rank with the most transfer + synchronization time and that time.", out);
    if (nsites > COMM_SITES_MAX)
        fprintf(out, " The %d of %lld sites with the most time.", COMM_SITES_MAX, nsites);
    fputs("</p>\n<table id=\"comm-classes\">\n<tr><th class=\"l\">site</th><th class=\"l\">"
          "peer</th><th>count</th><th>bytes_sent</th><th>bytes_recv</th><th>tran</th>"
          "<th>sync</th><th>ranks</th><th>worst_rank</th><th>worst_time</th></tr>\n", out);
}

/* The one line under the table when some sites' cells are empty. */
static void put_several(FILE *out, const several *sv)
{
    if (!sv->len)
        return;
    fputs("<p class=\"note\" id=\"comm-classes-several\">ranks, worst_rank, worst_time: kept per"
          " calling context, and the sites with empty cells have several: <code>hprof-query RUN"
          " --sql \"SELECT * FROM comm_node_class WHERE node IN (SELECT id FROM node WHERE site"
          " IN (", out);
    hpq_html_text(out, sv->list);
    fputs("))\"</code></p>\n", out);
}

static int put_rows(const hpq_ctx *ctx, FILE *out, several *sv)
{
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(ctx->db, rows_sql, -1, &st, NULL) != SQLITE_OK)
        return hpq_db_error(ctx);
    sqlite3_bind_int(st, 1, COMM_SITES_MAX);
    sqlite3_bind_int(st, 2, HP_PEER_ALL);
    sqlite3_bind_int(st, 3, HP_PEER_FILE);
    sqlite3_bind_int(st, 4, HPF_PEER_RANKS);
    int rc;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW)
        put_row(out, st, sv);
    sqlite3_finalize(st);
    return rc == SQLITE_DONE ? 0 : hpq_db_error(ctx);
}

int hpq_html_comm_classes(const hpq_ctx *ctx, FILE *out)
{
    double nsites = hpq_query_double(ctx, "SELECT COUNT(DISTINCT n.site) FROM comm_node_peer p"
                                          " JOIN node n ON n.id = p.node");
    if (!(nsites > 0))
        return 0;
    several sv = {NULL, 0, NULL, -1};
    if (!(sv.f = open_memstream(&sv.list, &sv.len)))
        return hpq_oom(ctx);
    put_intro(out, (long long)nsites);
    int rc = put_rows(ctx, out, &sv);
    fputs("</table>\n", out);
    if (fclose(sv.f) != 0 || !sv.list) {
        free(sv.list);
        return rc ? rc : hpq_oom(ctx);
    }
    if (rc == 0)
        put_several(out, &sv);
    free(sv.list);
    return rc;
}
