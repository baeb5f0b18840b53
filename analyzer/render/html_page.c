/*
 * html_page.c - the frame of hprof-report's page (html.h): head with the
 * inline style and script, the run header, the expandable top-down tree
 * and the inline flame graph; the other sections come from html_comm.c
 * html_ovh.c and html_omp.c.
 *
 * The tree is nested <details> elements, one per node with id
 * "node-<id>", children by decreasing inclusive time; the first two
 * levels are open.  It works without the script; the script adds
 * "expand all" / "collapse all", opens a node when its flame graph
 * rectangle is clicked, and counts the nodes into #node-count (so a
 * browser test sees that it ran).  A large tree is shown folded
 * (html_fold.c), in the tree and the flame graph alike: a folded entry is
 * a <div> with class "fold" and id "fold-<parent id>" (not a "leaf": the
 * script counts the nodes shown).
 */
#include "config.h"
#include <assert.h>
#include <stdlib.h>
#include <string.h>
#include "html.h"
#include "query/report_util.h"
#include "query/counter_cols.h"

#define OPEN_DEPTH 2    /* tree levels open when the page loads */
#define LABEL_EM 40.0   /* width of the root's label column */
#define INDENT_EM 1.4   /* indentation per level (the style's margin-left) */

static const char style[] =
    "body{font-family:sans-serif;margin:1em 2em;color:#222}\n"
    "h1{font-size:1.4em}h2{font-size:1.15em;margin-top:1.6em;border-bottom:1px solid #ccc}\n"
    "table{border-collapse:collapse;font-size:.9em}\n"
    "td,th{border:1px solid #ddd;padding:2px 6px;text-align:right}\n"
    "th{background:#f2f2f2}td.l,th.l{text-align:left}\n"
    "#tree{font-family:monospace;font-size:.9em}\n"
    "#tree details{margin-left:1.4em}#tree>details{margin-left:0}\n"
    "#tree .leaf{margin-left:1.4em;white-space:nowrap}\n"

    "#tree summary{cursor:pointer;white-space:nowrap;list-style:none}\n"
    "#tree summary::-webkit-details-marker{display:none}\n"
    "#tree summary::before,#tree .leaf::before{content:'';display:inline-block;width:1.2em}\n"
    "#tree summary::before{content:'\\25b8'}#tree details[open]>summary::before{content:'\\25be'}\n"
    ".lab{display:inline-block}\n"
    ".incl,.excl{display:inline-block;min-width:12em;text-align:right}\n"
    ".ibar{height:10px;background:#4f8fd6;display:inline-block;vertical-align:middle}\n"
    ".irow{font-family:monospace;font-size:.85em;white-space:nowrap}\n"
    ".irow .r{display:inline-block;width:6em}\n"
    ".note{color:#666;font-size:.9em}\n"
    "button{margin-right:.5em}\n"
    "#flame svg{max-width:100%;height:auto}\n"
    ".ovh-bar{display:inline-flex;width:300px;height:12px;background:#f4f4f4}\n"
    ".ovh-bar span{display:inline-block;height:12px}\n"
    ".ovh-sw{display:inline-block;width:1em;height:.8em;vertical-align:middle}\n"
    ".ovh-key{margin-right:1em;white-space:nowrap;font-size:.9em}\n"
    "#overheads td{white-space:nowrap}\n";

/* The folded entries' style, on a page that has them (a page without is
 * the same as before folding was added). */
static const char fold_style[] =
    "#tree .fold{margin-left:1.4em;white-space:nowrap;color:#666;font-style:italic}\n"
    "#tree .fold::before{content:'';display:inline-block;width:1.2em}\n";

static const char script[] =
    "(function(){\n"
    "var all=document.querySelectorAll('#tree details,#tree .leaf');\n"
    "document.getElementById('node-count').textContent=String(all.length);\n"
    "function setAll(open){document.querySelectorAll('#tree details').forEach("
    "function(d){d.open=open;});}\n"
    "document.getElementById('expand').onclick=function(){setAll(true);};\n"
    "document.getElementById('collapse').onclick=function(){setAll(false);};\n"
    "document.querySelectorAll('#flame rect[data-node]').forEach(function(r){\n"
    " r.style.cursor='pointer';\n"
    " r.addEventListener('click',function(){\n"
    "  var e=document.getElementById('node-'+r.getAttribute('data-node'));\n"
    "  for(var p=e;p;p=p.parentElement){if(p.tagName==='DETAILS')p.open=true;}\n"
    "  if(e){e.scrollIntoView();}});});\n"
    "document.body.setAttribute('data-script','ran');\n"
    "})();\n";

/* ---- run header ---- */

static const char header_sql[] =
    "SELECT COALESCE(NULLIF((SELECT value FROM run WHERE key = 'argv'), ''),"
    " (SELECT value FROM run WHERE key = 'program'), '?'),"
    " (SELECT COUNT(*) FROM rank), (SELECT MAX(threads) FROM rank),"
    " (SELECT MAX(wall) FROM rank), (SELECT SUM(wall * MAX(threads, 1)) FROM rank)";

static int put_header(const hpq_ctx *ctx, FILE *out)
{
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(ctx->db, header_sql, -1, &st, NULL) != SQLITE_OK)
        return hpq_db_error(ctx);
    if (sqlite3_step(st) != SQLITE_ROW) {
        sqlite3_finalize(st);
        return hpq_db_error(ctx);
    }
    fputs("<h1>hprof report: <span id=\"program\">", out);
    hpq_html_text(out, (const char *)sqlite3_column_text(st, 0));
    fputs("</span></h1>\n<table id=\"run\">\n", out);
    fprintf(out, "<tr><th class=\"l\">ranks</th><td id=\"ranks\">%d</td></tr>\n",
            sqlite3_column_int(st, 1));
    fprintf(out, "<tr><th class=\"l\">threads (max per rank)</th><td id=\"threads\">%d</td>"
                 "</tr>\n", sqlite3_column_int(st, 2));
    fputs("<tr><th class=\"l\">wall (s, max over ranks)</th><td id=\"wall\">", out);
    hpq_html_time(out, sqlite3_column_double(st, 3));
    fputs("</td></tr>\n<tr><th class=\"l\">thread time (s, wall &#215; threads, summed over"
          " ranks)</th><td id=\"total\">", out);
    hpq_html_time(out, sqlite3_column_double(st, 4));
    fputs("</td></tr>\n</table>\n", out);
    sqlite3_finalize(st);
    if (hpq_counters_dropped(ctx))
        fputs("<p class=\"note\" id=\"counters-dropped\">Counters: " HPQ_COUNTERS_DROPPED
              ".</p>\n", out);
    return 0;
}

/* ---- top-down tree ---- */

/* By decreasing inclusive time, a folded entry (id < 0) last. */
static int by_time(const void *a, const void *b)
{
    const hpq_fnode *x = *(hpq_fnode *const *)a, *y = *(hpq_fnode *const *)b;
    if ((x->id < 0) != (y->id < 0))
        return x->id < 0 ? 1 : -1;
    if (x->incl != y->incl)
        return x->incl > y->incl ? -1 : 1;
    return x->id < y->id ? -1 : x->id > y->id;
}

/* label, inclusive and exclusive time with their shares of the root */
static void put_node_line(FILE *out, const hpq_fnode *nd, double total)
{
    /* deeper labels are narrower, so the time columns line up */
    double em = LABEL_EM - INDENT_EM * nd->depth;
    fprintf(out, "<span class=\"lab\" style=\"min-width:%.1fem\">", em > 8 ? em : 8.0);
    hpq_html_text(out, nd->label);
    fputs("</span> <span class=\"incl\" title=\"inclusive s (%)\">", out);
    hpq_html_time(out, nd->incl);
    fputs(" (", out);
    hpq_html_pct(out, nd->incl, total);
    fputs("%)</span> <span class=\"excl\" title=\"exclusive s (%)\">", out);
    hpq_html_time(out, nd->excl);
    fputs(" (", out);
    hpq_html_pct(out, nd->excl, total);
    fputs("%)</span>", out);
}

/* A folded entry: its nodes are hprof-query's --root '#PARENT'. */
static void put_fold(FILE *out, const hpq_fnode *nd, double total)
{
    fprintf(out, "<div class=\"fold\" id=\"fold-%lld\" title=\"folded: hprof-query RUN"
                 " --root '#%lld' --top 0 lists them\">", (long long)nd->parent,
            (long long)nd->parent);
    put_node_line(out, nd, total);
    fputs("</div>\n", out);
}

static int put_tree_node(const hpq_ctx *ctx, FILE *out, const hpq_fnode *nd, double total)
{
    if (nd->id < 0) {
        put_fold(out, nd, total);
        return 0;
    }
    if (nd->nkids == 0) {
        fprintf(out, "<div class=\"leaf\" id=\"node-%lld\">", (long long)nd->id);
        put_node_line(out, nd, total);
        fputs("</div>\n", out);
        return 0;
    }
    hpq_fnode **kids = malloc(nd->nkids * sizeof *kids);
    if (!kids)
        return hpq_oom(ctx);
    memcpy(kids, nd->kids, nd->nkids * sizeof *kids);
    qsort(kids, nd->nkids, sizeof *kids, by_time);
    fprintf(out, "<details id=\"node-%lld\"%s><summary>", (long long)nd->id,
            nd->depth < OPEN_DEPTH ? " open" : "");
    put_node_line(out, nd, total);
    fputs("</summary>\n", out);
    int rc = 0;
    for (size_t i = 0; i < nd->nkids && rc == 0; i++)
        rc = put_tree_node(ctx, out, kids[i], total);
    fputs("</details>\n", out);
    free(kids);
    return rc;
}

/* What folding left out, when it did (html_fold.c's rule). */
static void put_fold_note(FILE *out, const hpq_ftree *full, size_t nfolded)
{
    if (!nfolded)
        return;
    fprintf(out, "<p class=\"note\" id=\"fold-note\" data-folded=\"%zu\">%zu of the %zu nodes"
                 " shown: a tree of more than %d nodes shows those with at least %.1f%% of the"
                 " root's time, the largest first, within %d entries (always the nodes with the"
                 " largest imbalance cost and the communication statements over %.1f%%), and"
                 " folds the other %zu into one &#8220;N smaller nodes&#8221; entry per parent,"
                 " whose time is theirs.  <code>hprof-query RUN --top 0</code> lists every"
                 " node.</p>\n", nfolded, full->n - nfolded, full->n, FOLD_BUDGET,
            100 * FOLD_SHARE, FOLD_BUDGET, 100 * FOLD_SHARE, nfolded);
}

/* The tree tr shown of full (itself, or folded: nfolded nodes). */
static int put_tree(const hpq_ctx *ctx, const hpq_ftree *tr, const hpq_ftree *full,
                    size_t nfolded, FILE *out)
{
    fputs("<h2 id=\"tree-title\">Calling-context tree (top-down)</h2>\n<p class=\"note\">"
          "Inclusive and exclusive seconds summed over ranks and threads, % of the root"
          " (wall &#215; threads summed over ranks); exclusive time is computed per thread"
          " before the sum. <span id=\"node-count\"></span> nodes. "
          "<button id=\"expand\" type=\"button\">expand all</button>"
          "<button id=\"collapse\" type=\"button\">collapse all</button></p>\n", out);
    put_fold_note(out, full, nfolded);
    fputs("<div id=\"tree\">\n", out);
    int rc = tr->root ? put_tree_node(ctx, out, tr->root, tr->root->incl) : 0;
    fputs("</div>\n", out);
    return rc;
}

/* ---- flame graph: flame_svg.c's SVG without its XML declaration ---- */

static int put_flame(const hpq_ctx *ctx, const hpq_ftree *tr, FILE *out)
{
    char *svg = NULL;
    size_t len = 0;
    FILE *mem = open_memstream(&svg, &len);
    if (!mem)
        return hpq_oom(ctx);
    int rc = hpq_write_flamegraph(ctx, tr, mem);
    if (fclose(mem) != 0 || !svg) {
        free(svg);
        return hpq_oom(ctx);
    }
    const char *body = svg;
    if (strncmp(body, "<?xml", 5) == 0 && strchr(body, '\n'))
        body = strchr(body, '\n') + 1;
    fputs("<h2>Flame graph</h2>\n<p class=\"note\">Inclusive time, root at the bottom;"
          " hover for times, click to open the node in the tree.</p>\n<div id=\"flame\">\n",
          out);
    if (rc == 0)
        fputs(body, out);
    fputs("</div>\n", out);
    free(svg);
    return rc;
}

static int live_refresh_s;
static const char *live_header;

void hpq_html_set_live(int refresh_s, const char *header)
{
    live_refresh_s = refresh_s;
    live_header = header;
}

/* A running job's page reloads itself and says how current it is. */
static void put_live(FILE *out)
{
    if (!live_refresh_s)
        return;
    fputs("<pre class=\"note\">", out);
    hpq_html_text(out, live_header);
    fputs("</pre>\n", out);
}

int hpq_write_html(const hpq_ctx *ctx, const hpq_ftree *tr, FILE *out)
{
    fputs("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n", out);
    if (live_refresh_s)
        fprintf(out, "<meta http-equiv=\"refresh\" content=\"%d\">\n", live_refresh_s);
    hpq_ftree folded;
    size_t nfolded;
    int rc = hpq_html_fold(ctx, tr, &folded, &nfolded);
    const hpq_ftree *shown = folded.root ? &folded : tr;
    fprintf(out, "<title>hprof report%s</title>\n<style>\n%s%s</style>\n</head>\n<body>\n",
            live_refresh_s ? " (live)" : "", style, nfolded ? fold_style : "");
    put_live(out);
    if (rc == 0)
        rc = put_header(ctx, out);
    if (rc == 0)
        rc = put_tree(ctx, shown, tr, nfolded, out);
    if (rc == 0)
        rc = put_flame(ctx, shown, out);
    hpq_ftree_free(&folded);
    if (rc == 0)
        rc = hpq_html_matrix(ctx, out);
    if (rc == 0)
        rc = hpq_html_rank_bars(ctx, tr, out);
    if (rc == 0)
        rc = hpq_html_overheads(ctx, out);
    if (rc == 0)
        rc = hpq_html_threads(ctx, tr, out);
    if (rc == 0)
        rc = hpq_html_tasks(ctx, out);
    fprintf(out, "<script>\n%s</script>\n</body>\n</html>\n", script);
    return rc;
}
