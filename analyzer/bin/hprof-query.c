/*
 * hprof-query.c - command line tool: reports on a profile or its database
 * (top-down listing, flat sites, communication, per-rank distribution,
 * OpenMP threads and tasks, the task timeline, free SQL) in text, CSV or
 * JSON, or checks its invariants.  Option parsing and dispatch only; the
 * reports live in report.c, the checker in check.c.
 */
#include "config.h"
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "query/qopen.h"
#include "query/qlive.h"
#include "query/report.h"
#include "query/check.h"
#include "db/db.h"
#include "db/dbcomp.h"
#include "render/flame_out.h"
#include "query/matrix.h"
#include "interactive.h"
#include "live_top.h"
#include "query/aggview.h"
#include "read/hpf_agg.h"

typedef struct query_args {
    char **inputs;          /* argv entries: a profile or database, or per-rank files */
    int ninputs;
    const char *comm_site, *ranks_site, *threads_site, *callers_site, *sql;
    int flat, tasks, task_trace, check, suggest;
    int folded;             /* --folded: folded stacks (flame.c) */
    const char *flamegraph; /* --flamegraph FILE: the SVG (flame_svg.c) */
    const char *output;     /* -o FILE of --suggest-filter or --folded */
    int overheads;          /* --overheads [PATH] (overheads.c) */
    const char *overheads_path;
    double suggest_factor;
    int raw;                /* --raw: times as measured, not compensated */
    int matrix;             /* --matrix [SITE] (matrix.c) */
    const char *matrix_site;
    hpq_metric metric;      /* --metric of the matrix's heat map */
    int compare;            /* 1: `diff A B`, 2: `scaling A B C...` (compare.c) */
    int interactive;        /* -i: commands from stdin (interactive.c) */
    const char *format_name; /* --format as given, NULL if not */
    int live, once;         /* --live: the input is a running job's PATH; --once */
    double interval;        /* --interval S: refresh of --live without --once */
    int interval_given;
    hpq_options opt;
} query_args;

static void usage(FILE *out)
{
    fputs("Usage: hprof-query [OPTION]... [--] FILE|DB|RANKFILES...|DIR [OPTION]...\n"
          "  or:  hprof-query diff [OPTION]... RUN_A RUN_B\n"
          "  or:  hprof-query scaling [OPTION]... RUN1 RUN2 [RUN3...]\n"
          "  or:  hprof-query --live [--once] [OPTION]... PATH\n"
          "Report on a profile: calling contexts, sites, communication, ranks, OpenMP\n"
          "threads and tasks, in text, CSV or JSON; or check its invariants.\n"
          "FILE is a profile (.hpf, merged on first use into the database next to\n"
          "it) or a database written by hprof-merge.  A run that died leaves\n"
          "NAME.rank<N>.hpf per rank: name them all, or their directory, to merge\n"
          "the ranks that wrote one into NAME.db.  An aggregated profile\n"
          "(HPROF_AGGREGATE) is merged the same way, into a database without per-rank\n"
          "rows: every aggregate view works, --comm lists peer classes, and the\n"
          "per-rank reports (--ranks, --threads, --matrix, SQL on stat) need a full one.\n"
          "\n"
          "Reports (default: run header and top-down listing of the calling contexts):\n"
          "  --flat            sites instead of calling contexts\n"
          "  --comm SITE       per-destination table of communication site(s) SITE\n"
          "  --by-rank         with --comm: per source rank and destination\n"
          "  --ranks SITE      per-rank distribution of SITE\n"
          "  --callers SITE    bottom-up: SITE merged over its calling contexts, then its\n"
          "                    callers, their callers, ... with SITE's time under each\n"
          "  --threads SITE    per-thread table of an OpenMP construct (waits, holds, tasks)\n"
          "  --matrix [SITE]   rank x rank point-to-point matrix (of SITE's communication):\n"
          "                    a heat map in text, a row per sender -> receiver otherwise\n"
          "  --metric M        the heat map's metric: bytes (default), messages, tran, sync\n"
          "  diff A B          per calling context (path) and site (label): the change in\n"
          "                    time, count and share from run A to run B\n"
          "  scaling A B ...   per calling context: time per run, speedup and efficiency\n"
          "                    relative to the first run (resources = ranks x threads)\n"
          "  --tasks           tasks created per (parent construct, child construct)\n"
          "  --task-trace      the task timeline (HPROF_TASK_TRACE) as Chrome trace JSON\n"
          "  --sql QUERY       run an SQL query on the database\n"
          "  --suggest-filter  write a filter file (HPROF_FILTER, hprof-cc --filter)\n"
          "                    excluding the procedures and loops run >= 10000 times\n"
          "                    whose mean time per call is below K x the probe cost\n"
          "                    (the run's calibrated cost, else 30 ns)\n"
          "  --suggest-factor K  that multiple (default 10)\n"
          "  -o FILE           with --suggest-filter or --folded: write it to FILE\n"
          "  --folded          folded stacks: a line per calling context with exclusive\n"
          "                    time, frame;frame;... MICROSECONDS (flame graph tools)\n"
          "  --flamegraph OUT.svg  a self-contained SVG flame graph of the tree\n"
          "  --overheads [PATH]  overhead classes per node of the subtree at PATH\n"
          "                    (a NODE as --root takes it; default the root;\n"
          "                    --overheads=PATH when PATH could be a file name)\n"
          "  -i                interactive: ls, cd, top, comm, ranks, sql... on stdin\n"
          "                    (on a terminal: a prompt naming the current node, line\n"
          "                    editing, Tab completion; help lists the commands)\n"
          "  --live PATH       a running job's live snapshots (HPROF_LIVE) in PATH.live/,\n"
          "                    PATH the job's HPROF_OUTPUT (or the folder): any report\n"
          "                    above, refreshed like top (q quits) with the calls/s and\n"
          "                    MPI and OpenMP wait shares of the last interval\n"
          "  --once            with --live: print once and exit\n"
          "  --interval S      with --live: seconds between refreshes (default 2)\n"
          "  --check           verify the profile's invariants (children within parents,\n"
          "                    waits and tasks within their constructs, task counts,\n"
          "                    shares); exit status 1 if one does not hold\n"
          "\n"
          "Options:\n"
          "  --root NODE       list the subtree under NODE: a path of labels from the\n"
          "                    root (main/loop@app.c:20), #N, or a SITE of one context\n"
          "  --depth N         list calling contexts down to depth N\n"
          "  --top N           list at most N rows (default: 30 in text, all in CSV and\n"
          "                    JSON; 0 = all)\n"
          "  --sort COLUMN[:asc|:desc]  rows by that column of the report (siblings in the\n"
          "                    tree and --callers); numbers descending, text ascending\n"
          "  --format F        text, csv or json (default text); hatchet: the top-down\n"
          "                    listing as nested JSON for hatchet's GraphFrame.from_literal\n"
          "  --raw             times as measured; by default the calibrated cost of the\n"
          "                    measurement is subtracted (intrusion compensation)\n"
          "  --                end of options: the arguments after it are inputs\n"
          "  -h, --help        print this help and exit\n"
          "  --version         print the version and exit\n"
          "\n"
          "SITE is file:line, a function or MPI name, a label as the reports print it\n"
          "(parallel@app.c:42: one of the constructs of a line), a site id site:N\n"
          "(--flat's site column) or a node id #N.\n", out);
}

/* Every message is one line: what it quotes (an argument, a label of the
 * profile) has its control characters escaped. */
static void print_error(const char *msg, const char *arg, const char *tail)
{
    fputs("hprof-query: ", stderr);
    hpq_print_text_string(stderr, msg);
    hpq_print_text_string(stderr, arg ? arg : "");
    fprintf(stderr, "%s\n", tail);
}

static int usage_error(const char *msg, const char *arg)
{
    print_error(msg, arg, " (try --help)");
    return 2;
}

/* A whole number >= 0 in decimal digits only: no sign, no spaces, no
 * overflow (strtol alone would skip leading spaces and clamp). */
static int parse_count(const char *s, long *v)
{
    char *end;
    if (!isdigit((unsigned char)*s))
        return -1;
    errno = 0;
    long x = strtol(s, &end, 10);
    if (errno == ERANGE || *end)
        return -1;
    *v = x;
    return 0;
}

static int parse_format(const char *s, hpq_format *f)
{
    if (strcmp(s, "text") == 0)
        *f = HPQ_TEXT;
    else if (strcmp(s, "csv") == 0)
        *f = HPQ_CSV;
    else if (strcmp(s, "json") == 0)
        *f = HPQ_JSON;
    else if (strcmp(s, "hatchet") == 0)
        *f = HPQ_HATCHET;
    else
        return -1;
    return 0;
}

/* COLUMN[:asc|:desc] into opt->sort and opt->sort_dir. */
static int parse_sort(const char *s, hpq_options *opt)
{
    static char column[64];
    const char *colon = strchr(s, ':');
    size_t len = colon ? (size_t)(colon - s) : strlen(s);
    if (len == 0 || len >= sizeof column)
        return -1;
    if (!colon)
        opt->sort_dir = 0;
    else if (strcmp(colon, ":asc") == 0)
        opt->sort_dir = -1;
    else if (strcmp(colon, ":desc") == 0)
        opt->sort_dir = 1;
    else
        return -1;
    memcpy(column, s, len);
    column[len] = 0;
    opt->sort = column;
    return 0;
}

static int takes_value(const char *name)
{
    static const char *const names[] = {"--comm", "--ranks", "--threads", "--callers", "--sql",
                                        "--depth", "--top", "--sort", "--format",
                                        "--suggest-factor", "-o", "--flamegraph", "--metric",
                                        "--root", "--interval"};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        if (strcmp(name, names[i]) == 0)
            return 1;
    return 0;
}

/* Applies one option with its value; returns 2 on a usage error. */
static int apply_option(query_args *a, const char *name, const char *value)
{
    if (strcmp(name, "--comm") == 0)
        a->comm_site = value;
    else if (strcmp(name, "--ranks") == 0)
        a->ranks_site = value;
    else if (strcmp(name, "--threads") == 0)
        a->threads_site = value;
    else if (strcmp(name, "--callers") == 0)
        a->callers_site = value;
    else if (strcmp(name, "--sql") == 0)
        a->sql = value;
    else if (strcmp(name, "--flamegraph") == 0)
        a->flamegraph = value;
    else if (strcmp(name, "--metric") == 0) {
        if (hpq_parse_metric(value, &a->metric))
            return usage_error("--metric must be bytes, messages, tran or sync, not ", value);
    }
    else if (strcmp(name, "--root") == 0)
        a->opt.root = value;
    else if (strcmp(name, "--depth") == 0) {
        if (parse_count(value, &a->opt.depth))
            return usage_error("--depth needs a number >= 0, not ", value);
    } else if (strcmp(name, "--top") == 0) {
        if (parse_count(value, &a->opt.top))
            return usage_error("--top needs a number >= 0, not ", value);
        a->opt.top_given = 1;
    } else if (strcmp(name, "--sort") == 0) {
        if (parse_sort(value, &a->opt))
            return usage_error("--sort needs COLUMN, COLUMN:asc or COLUMN:desc, not ", value);
    } else if (strcmp(name, "--suggest-factor") == 0) {
        char *end;
        a->suggest_factor = strtod(value, &end);
        if (end == value || *end || !(a->suggest_factor > 0))
            return usage_error("--suggest-factor needs a number > 0, not ", value);
    } else if (strcmp(name, "-o") == 0) {
        a->output = value;
    } else if (strcmp(name, "--interval") == 0) {
        char *end;
        a->interval = strtod(value, &end);
        a->interval_given = 1;
        if (end == value || *end || !(a->interval >= 0.1) || a->interval > 3600)
            return usage_error("--interval needs seconds from 0.1 to 3600, not ", value);
    } else if (strcmp(name, "--format") == 0) {
        if (parse_format(value, &a->opt.format))
            return usage_error("--format must be text, csv, json or hatchet, not ", value);
        a->format_name = value;
    }
    return 0;
}

/* Is the argument after --matrix or --overheads their optional SITE or
 * PATH rather than the run?  A node id, or anything that is not an option
 * and names no file. */
static int is_optional_value(const char *arg)
{
    if (arg[0] == '#')
        return 1;
    return arg[0] != '-' && access(arg, F_OK) != 0;
}

/* How many reports other than the default listing the options ask for. */
static int other_report(const query_args *a)
{
    return (a->flat != 0) + (a->comm_site != NULL) + (a->ranks_site != NULL) +
           (a->threads_site != NULL) + (a->callers_site != NULL) + (a->tasks != 0) +
           (a->task_trace != 0) + (a->sql != NULL) + (a->check != 0) + (a->suggest != 0) +
           (a->folded != 0) + (a->flamegraph != NULL) + (a->matrix != 0) + (a->compare != 0) +
           (a->overheads != 0) + (a->interactive != 0);
}

/* The reports with an output of their own, which --format cannot change
 * (--task-trace has its own JSON and CSV: trace.c): a row per report with
 * what it writes and the one --format besides text that says the same
 * (NULL: none). */
typedef struct fixed_output {
    const char *report, *own, *allowed;
} fixed_output;

static int fixed_output_of(const query_args *a, fixed_output *f)
{
    static const fixed_output check = {"--check", "text lines", NULL},
                              folded = {"--folded", "folded stacks", NULL},
                              suggest = {"--suggest-filter", "a filter file", NULL},
                              flame = {"--flamegraph", "an SVG file", NULL};
    const fixed_output *o = a->check ? &check : a->folded ? &folded : a->suggest ? &suggest
                          : a->flamegraph ? &flame : NULL;
    if (o)
        *f = *o;
    return o != NULL;
}

/* A --format other than text (or the report's own) with a report whose
 * output is fixed: one line naming the combination, exit status 2. */
static int check_fixed_format(const query_args *a)
{
    fixed_output f;
    if (!a->format_name || !fixed_output_of(a, &f) || strcmp(a->format_name, "text") == 0 ||
        (f.allowed && strcmp(a->format_name, f.allowed) == 0))
        return 0;
    char msg[160];
    snprintf(msg, sizeof msg, "--format %s does not apply to %s (its output is %s)",
             a->format_name, f.report, f.own);
    return usage_error(msg, NULL);
}

/* Returns -1 to go on, or the exit status (0 after --help, 2 on errors). */
static int parse_args(int argc, char **argv, query_args *a)
{
    memset(a, 0, sizeof *a);
    static char *inputs[4096];
    a->inputs = inputs;
    if (argc > (int)(sizeof inputs / sizeof inputs[0]))
        return usage_error("too many arguments", NULL);
    a->opt.depth = -1;
    a->opt.top = 30;
    a->suggest_factor = 10.0;
    a->interval = 2.0;
    int options_end = 0, first = 1;
    if (argc > 1 && (strcmp(argv[1], "diff") == 0 || strcmp(argv[1], "scaling") == 0)) {
        a->compare = argv[1][0] == 'd' ? 1 : 2;
        first = 2;
    }
    for (int i = first; i < argc; i++) {
        char name[32];
        const char *arg = argv[i], *value = NULL, *eq = strchr(arg, '=');
        if (!options_end && strcmp(arg, "--") == 0) {
            options_end = 1;
            continue;
        }
        if (!options_end && (strcmp(arg, "--help") == 0 || strcmp(arg, "-h") == 0)) {
            usage(stdout);
            return 0;
        }
        if (!options_end && strcmp(arg, "--version") == 0) {
            puts("hprof-query (hprof) " PACKAGE_VERSION);
            return 0;
        }
        if (options_end || arg[0] != '-' || !arg[1]) {
            a->inputs[a->ninputs++] = argv[i];
            continue;
        }
        snprintf(name, sizeof name, "%.*s", eq ? (int)(eq - arg) : (int)strlen(arg), arg);
        if (strcmp(name, "--flat") == 0 && !eq)
            a->flat = 1;
        else if (strcmp(name, "--tasks") == 0 && !eq)
            a->tasks = 1;
        else if (strcmp(name, "--task-trace") == 0 && !eq)
            a->task_trace = 1;
        else if (strcmp(name, "--check") == 0 && !eq)
            a->check = 1;
        else if (strcmp(name, "--suggest-filter") == 0 && !eq)
            a->suggest = 1;
        else if (strcmp(name, "--folded") == 0 && !eq)
            a->folded = 1;
        else if (strcmp(name, "--raw") == 0 && !eq)
            a->raw = 1;
        else if (strcmp(name, "-i") == 0 && !eq)
            a->interactive = 1;
        else if (strcmp(name, "--by-rank") == 0 && !eq)
            a->opt.by_rank = 1;
        else if (strcmp(name, "--live") == 0 && !eq)
            a->live = 1;
        else if (strcmp(name, "--once") == 0 && !eq)
            a->once = 1;
        else if (strcmp(name, "--matrix") == 0 || strcmp(name, "--overheads") == 0) {
            int matrix = strcmp(name, "--matrix") == 0;
            const char **where = matrix ? &a->matrix_site : &a->overheads_path;
            a->matrix |= matrix;
            a->overheads |= !matrix;
            if (eq)
                *where = eq + 1;
            else if (i + 1 < argc && is_optional_value(argv[i + 1]))
                *where = argv[++i];
        }
        else if (!takes_value(name))
            return usage_error("unknown option ", arg);
        else if (eq)
            value = eq + 1;
        else if (i + 1 < argc)
            value = argv[++i];
        else
            return usage_error(name, " needs an argument");
        if (value && apply_option(a, name, value))
            return 2;
    }
    if (!a->ninputs)
        return usage_error("no profile or database given", NULL);
    if (other_report(a) > 1)
        return usage_error("--flat, --comm, --ranks, --threads, --callers, --tasks, --task-trace,"
                           " --sql, --check, --suggest-filter, --folded, --flamegraph,"
                           " --matrix, --overheads, diff, scaling and -i exclude each other",
                           NULL);
    if (a->compare == 1 && a->ninputs != 2)
        return usage_error("diff needs two runs (profiles or databases)", NULL);
    if (a->compare == 2 && a->ninputs < 2)
        return usage_error("scaling needs at least two runs (profiles or databases)", NULL);
    if (a->opt.root && other_report(a))
        return usage_error("--root goes with the default listing", NULL);
    if (a->output && !a->suggest && !a->folded)
        return usage_error("-o goes with --suggest-filter or --folded", NULL);
    if (a->sql && !a->opt.top_given)
        a->opt.top = 0;   /* a query's rows are all its own */
    /* (the listing in any format other than text is the whole tree
     * unless --top prunes it: report_tree.c) */
    if (a->opt.format == HPQ_HATCHET && other_report(a))
        return usage_error("--format hatchet is for the top-down listing only", NULL);
    if (a->live && (a->ninputs != 1 || a->compare))
        return usage_error("--live takes one PATH (the job's HPROF_OUTPUT or its .live folder)",
                           NULL);
    if ((a->once || a->interval_given) && !a->live)
        return usage_error("--once and --interval go with --live", NULL);
    if (a->opt.by_rank && !a->comm_site)
        return usage_error("--by-rank goes with --comm", NULL);
    if (check_fixed_format(a))
        return 2;
    return -1;
}

static int run_report(const query_args *a, const hpq_ctx *ctx)
{
    if (a->compare == 1)
        return hpq_report_diff(ctx, a->inputs, a->ninputs);
    if (a->compare == 2)
        return hpq_report_scaling(ctx, a->inputs, a->ninputs);
    if (a->matrix)
        return hpq_report_matrix(ctx, a->matrix_site, a->metric);
    if (a->flat)
        return hpq_report_flat(ctx);
    if (a->suggest)
        return hpq_suggest_filter(ctx, a->output, a->suggest_factor);
    if (a->comm_site)
        return hpq_report_comm(ctx, a->comm_site);
    if (a->ranks_site)
        return hpq_report_ranks(ctx, a->ranks_site);
    if (a->threads_site)
        return hpq_report_threads(ctx, a->threads_site);
    if (a->callers_site)
        return hpq_report_callers(ctx, a->callers_site);
    if (a->tasks)
        return hpq_report_tasks(ctx);
    if (a->task_trace)
        return hpq_report_task_trace(ctx);
    if (a->sql)
        return hpq_report_sql(ctx, a->sql);
    if (a->folded)
        return hpq_report_folded(ctx, a->output);
    if (a->flamegraph)
        return hpq_report_flamegraph(ctx, a->flamegraph);
    if (a->overheads)
        return hpq_report_overheads(ctx, a->overheads_path);
    if (a->interactive)
        return hpq_interactive(ctx, stdin);
    return hpq_report_tree(ctx);
}

/* One report on ctx's database, as main runs it; 0 or the exit status. */
static int report_status(const query_args *a, hpq_ctx *ctx, char *err)
{
    int status = 0;
    /* --suggest-filter judges the times as measured: compensation may
     * clamp a tiny site's time to 0, which any threshold would name. */
    if ((a->raw || a->suggest) && hpq_use_raw_times(ctx->db, hpf_db_view_sql(), err, ctx->errlen)) {
        print_error(err, NULL, "");
        status = 1;
    } else if (a->check) {
        status = hpq_check(ctx);
        if (status < 0)
            print_error(err, NULL, "");
        status = status != 0;
    } else if ((status = run_report(a, ctx)) != 0) {
        print_error(err, NULL, "");
        status = status == -2 ? 2 : 1;     /* -2: the output file (flame_out.c) */
    }
    return status;
}

/* One frame of --live: the header line, then the report on a temporary
 * merge of the latest snapshots. */
static int live_frame(void *arg, FILE *out)
{
    const query_args *a = arg;
    char err[1024], header[2048];
    sqlite3 *db;
    char *db_path;
    if (hpq_live_open(a->inputs[0], &db, &db_path, header, sizeof header, err, sizeof err)) {
        print_error(err, NULL, "");
        return 1;
    }
    fprintf(out, "%s\n", header);
    hpq_options opt = a->opt;
    hpq_ctx ctx = {db, db_path, &opt, out, err, sizeof err};
    int status = report_status(a, &ctx, err);
    sqlite3_close(db);
    unlink(db_path);
    free(db_path);
    return status;
}

static int live_main(const query_args *a)
{
    int status = a->once ? live_frame((void *)a, stdout)
                         : hpq_live_top(a->inputs[0], a->interval, live_frame, (void *)a);
    if (fflush(stdout) != 0) {
        perror("hprof-query: stdout");
        status = 1;
    }
    return status;
}

/* --check of an aggregated profile (HPROF_AGGREGATE) reads its
 * distributions (query/aggcheck.h): the rules on sums over ranks.  Every
 * other view reads the database hprof-merge makes of it (db/db_fromagg.h). */
static int check_aggregate(const query_args *a)
{
    return hpq_agg_check_file(a->inputs[0], stdout);
}

/* --check of an aggregated profile's database checks the profile it was
 * merged from (run key source), when it is still an aggregated profile;
 * -1 when the database is not such. */
static int check_aggregate_db(sqlite3 *db)
{
    sqlite3_stmt *st = NULL;
    int rc = -1;
    if (sqlite3_prepare_v2(db, "SELECT (SELECT value FROM run WHERE key = 'aggregated'),"
                           " (SELECT value FROM run WHERE key = 'source')", -1, &st,
                           NULL) == SQLITE_OK &&
        sqlite3_step(st) == SQLITE_ROW && sqlite3_column_int(st, 0) == 1) {
        const char *source = (const char *)sqlite3_column_text(st, 1);
        if (source && hpf_is_aggregate(source))
            rc = hpq_agg_check_file(source, stdout);
    }
    sqlite3_finalize(st);
    return rc;
}

int main(int argc, char **argv)
{
    query_args a;
    char err[1024];
    sqlite3 *db;
    char *db_path;

    int status = parse_args(argc, argv, &a);
    if (status >= 0)
        return status;
    if (a.live)
        return live_main(&a);
    if (a.ninputs == 1 && a.check && hpf_is_aggregate(a.inputs[0]))
        return check_aggregate(&a);
    /* diff and scaling open their first run here, the others in compare.c */
    if (hpq_open(a.compare ? 1 : a.ninputs, a.inputs, &db, &db_path, err, sizeof err)) {
        print_error(err, NULL, "");
        return 1;
    }
    hpq_ctx ctx = {db, db_path, &a.opt, stdout, err, sizeof err};
    status = a.check && a.ninputs == 1 ? check_aggregate_db(db) : -1;
    if (status < 0)
        status = report_status(&a, &ctx, err);
    sqlite3_close(db);
    free(db_path);
    if (fflush(stdout) != 0) {
        perror("hprof-query: stdout");
        status = 1;
    }
    return status;
}
