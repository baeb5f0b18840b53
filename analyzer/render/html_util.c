/*
 * html_util.c - escaping and number formatting shared by the sections of
 * hprof-report's HTML page (html.h).
 */
#include "config.h"
#include "html.h"
#include "db/db.h"
#include "query/report_util.h"

void hpq_html_text(FILE *out, const char *s)
{
    if (!s)
        return;
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        switch (*p) {
        case '&': fputs("&amp;", out); break;
        case '<': fputs("&lt;", out); break;
        case '>': fputs("&gt;", out); break;
        case '"': fputs("&quot;", out); break;
        case '\'': fputs("&#39;", out); break;
        default:
            if ((*p < 0x20 && *p != '\t' && *p != '\n') || *p == 0x7f)
                fputc('?', out);
            else
                fputc(*p, out);
        }
    }
}

void hpq_html_time(FILE *out, double seconds)
{
    fprintf(out, "%.6f", seconds);
}

void hpq_html_pct(FILE *out, double part, double total)
{
    fprintf(out, "%.1f", total > 0 ? 100.0 * part / total : 0.0);
}

int hpq_html_nranks(const hpq_ctx *ctx)
{
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(ctx->db, "SELECT COALESCE(MAX(rank) + 1, 0) FROM rank", -1, &st,
                           NULL) != SQLITE_OK)
        return hpq_db_error(ctx);
    int rc = sqlite3_step(st);
    int n = rc == SQLITE_ROW ? sqlite3_column_int(st, 0) : -1;
    sqlite3_finalize(st);
    if (n < 0)
        return hpq_db_error(ctx);
    return n;
}

int hpq_html_rows_few(const hpq_ctx *ctx)
{
    if (hpq_is_aggregated(ctx))     /* none at all (db/db_fromagg.h) */
        return 0;
    double bound = hpq_query_double(ctx,
        "SELECT ((SELECT COUNT(*) FROM node) + (SELECT COUNT(*) FROM comm_node_peer))"
        " * 1.0 * (SELECT COUNT(*) FROM rank) * (SELECT MAX(MAX(threads, 1)) FROM rank)");
    return bound <= HPF_DETAIL_ROWS;
}
