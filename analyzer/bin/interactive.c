/*
 * interactive.c - hprof-query -i: reads commands (a line each) and runs
 * them against one database, keeping a current node of the merged
 * calling-context tree.  Every command is one entry of the command table
 * calling the same report function as the matching option of
 * hprof-query (report.h); names are resolved by nodepath.c / sitesel.c.
 * On a terminal the lines come from libedit (editing, history, Tab
 * completion: complete.c) after a prompt naming the current node, else
 * from the stream as they are, without a prompt.
 */
#include "config.h"
#include <assert.h>
#include <ctype.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#ifdef HAVE_LIBEDIT
#include <editline/readline.h>
#endif
#include "complete.h"
#include "interactive.h"
#include "query/matrix.h"
#include "query/nodepath.h"

#define LS_ROWS 10000   /* ls lists the children up to this many */

typedef struct session {
    const hpq_ctx *ctx;
    hpq_options opt;    /* the options of the session: format, --top */
    int64_t cur;        /* the current node */
    int quit;
} session;

typedef int (*command_fn)(session *s, const char *arg);
/* A report of hprof-query taking one SITE or NODE argument (report.h). */
typedef int (*site_report)(const hpq_ctx *ctx, const char *site);

/* What a report's argument is, and what it is when none is given. */
enum arg_kind {
    ARG_SITE_HERE,      /* a SITE (sitesel.c); none: the current node */
    ARG_SITE_ALL,       /* a SITE; none: NULL (the report's whole run) */
    ARG_NODE_HERE       /* a NODE (nodepath.c, relative to here); none: here */
};

/* A command runs `run`, or else `report` with its argument. */
typedef struct command {
    const char *name;
    const char *args;   /* for help */
    command_fn run;
    site_report report;
    enum arg_kind arg;
    const char *what;   /* for help */
} command;

/* ctx with the session's options, ctx->err for messages. */
static hpq_ctx session_ctx(const session *s, const hpq_options *opt)
{
    hpq_ctx c = *s->ctx;
    c.opt = opt;
    return c;
}

static void cur_spec(const session *s, char *buf, size_t len)
{
    snprintf(buf, len, "#%lld", (long long)s->cur);
}

/* ---- navigation ---- */

static int cmd_ls(session *s, const char *arg)
{
    char spec[32];
    hpq_options o = s->opt;
    int64_t node = s->cur;
    if (*arg && hpq_resolve_node(s->ctx->db, s->ctx->db_path, arg, s->cur, &node,
                                 s->ctx->err, s->ctx->errlen))
        return -1;
    snprintf(spec, sizeof spec, "#%lld", (long long)node);
    o.root = spec;
    o.depth = 1;
    o.top = LS_ROWS;
    o.kids_only = 1;
    o.no_run_header = 1;
    hpq_ctx c = session_ctx(s, &o);
    return hpq_report_tree(&c);
}

static int cmd_cd(session *s, const char *arg)
{
    int64_t node;
    if (!*arg)
        arg = "/";
    if (hpq_resolve_node(s->ctx->db, s->ctx->db_path, arg, s->cur, &node, s->ctx->err,
                         s->ctx->errlen))
        return -1;
    s->cur = node;
    return 0;
}

static int cmd_pwd(session *s, const char *arg)
{
    char path[4096];
    (void)arg;
    if (hpq_node_label_path(s->ctx->db, s->cur, path, sizeof path))
        snprintf(path, sizeof path, "?");
    hpq_print_text_string(s->ctx->out, path);
    fprintf(s->ctx->out, " (#%lld)\n", (long long)s->cur);
    return 0;
}

/* A count argument ("" keeps `dflt`); -1 with a message if not a number. */
static int parse_rows(const session *s, const char *arg, long dflt, long *rows)
{
    char *end;
    if (!*arg) {
        *rows = dflt;
        return 0;
    }
    errno = 0;
    long v = strtol(arg, &end, 10);
    if (!isdigit((unsigned char)*arg) || *end || errno == ERANGE) {
        snprintf(s->ctx->err, s->ctx->errlen, "needs a number >= 0, not '%s'", arg);
        return -1;
    }
    *rows = v;
    return 0;
}

static int cmd_top(session *s, const char *arg)
{
    char spec[32];
    hpq_options o = s->opt;
    if (parse_rows(s, arg, o.top, &o.top))
        return -1;
    o.top_given = o.top_given || *arg;
    cur_spec(s, spec, sizeof spec);
    o.root = spec;
    o.no_run_header = 1;
    hpq_ctx c = session_ctx(s, &o);
    return hpq_report_tree(&c);
}

/* ---- the reports of a site or node ---- */

static int run_site_report(session *s, const char *arg, site_report report,
                           enum arg_kind kind)
{
    char spec[32];
    int64_t node = s->cur;
    if (kind == ARG_NODE_HERE && *arg &&
        hpq_resolve_node(s->ctx->db, s->ctx->db_path, arg, s->cur, &node, s->ctx->err,
                         s->ctx->errlen))
        return -1;
    snprintf(spec, sizeof spec, "#%lld", (long long)node);
    if (kind == ARG_NODE_HERE || (kind == ARG_SITE_HERE && !*arg))
        arg = spec;
    else if (kind == ARG_SITE_ALL && !*arg)
        arg = NULL;
    hpq_ctx c = session_ctx(s, &s->opt);
    return report(&c, arg);
}

/* ---- whole-run reports and settings ---- */

static int cmd_flat(session *s, const char *arg)
{
    (void)arg;
    hpq_ctx c = session_ctx(s, &s->opt);
    return hpq_report_flat(&c);
}

static int cmd_sql(session *s, const char *arg)
{
    hpq_options o = s->opt;
    if (!*arg) {
        snprintf(s->ctx->err, s->ctx->errlen, "sql needs a query");
        return -1;
    }
    o.top = 0;          /* a query's rows are all its own, as with --sql */
    o.top_given = 0;
    hpq_ctx c = session_ctx(s, &o);
    return hpq_report_sql(&c, arg);
}

static int cmd_format(session *s, const char *arg)
{
    if (strcmp(arg, "text") == 0)
        s->opt.format = HPQ_TEXT;
    else if (strcmp(arg, "csv") == 0)
        s->opt.format = HPQ_CSV;
    else if (strcmp(arg, "json") == 0)
        s->opt.format = HPQ_JSON;
    else {
        snprintf(s->ctx->err, s->ctx->errlen, "format must be text, csv or json, not '%s'", arg);
        return -1;
    }
    return 0;
}

static int cmd_quit(session *s, const char *arg)
{
    (void)arg;
    s->quit = 1;
    return 0;
}

static int cmd_help(session *s, const char *arg);

/* The commands; a report of hprof-query is one more line here. */
/* The matrix of bytes (--matrix) as a report of one SITE (NULL: all). */
static int matrix_of_bytes(const hpq_ctx *ctx, const char *site)
{
    return hpq_report_matrix(ctx, site, HPQ_M_BYTES);
}

static const command commands[] = {
    {"ls", "[NODE]", cmd_ls, NULL, 0, "children of the current node (or of NODE)"},
    {"cd", "NODE|..|/", cmd_cd, NULL, 0,
     "make NODE current: a path of labels (from / or here), #N, a SITE"},
    {"pwd", "", cmd_pwd, NULL, 0, "the current node's path and id"},
    {"top", "[N]", cmd_top, NULL, 0, "the listing of the subtree under the current node"},
    {"comm", "[SITE]", NULL, hpq_report_comm, ARG_SITE_HERE,
     "per-destination communication of SITE (default: here)"},
    {"threads", "[SITE]", NULL, hpq_report_threads, ARG_SITE_HERE,
     "per-thread table of an OpenMP construct (default: here)"},
    {"ranks", "[SITE]", NULL, hpq_report_ranks, ARG_SITE_HERE,
     "per-rank distribution of SITE (default: here)"},
    {"callers", "[SITE]", NULL, hpq_report_callers, ARG_SITE_HERE,
     "bottom-up: the callers of SITE (default: here)"},
    {"matrix", "[SITE]", NULL, matrix_of_bytes, ARG_SITE_ALL,
     "rank x rank bytes of SITE's messages (default: all sites)"},
    {"overheads", "[NODE]", NULL, hpq_report_overheads, ARG_NODE_HERE,
     "overhead classes of the subtree under NODE (default: here)"},
    {"flat", "", cmd_flat, NULL, 0, "sites instead of calling contexts"},
    {"sql", "QUERY", cmd_sql, NULL, 0, "an SQL query on the database"},
    {"format", "text|csv|json", cmd_format, NULL, 0, "the output format of the next commands"},
    {"help", "", cmd_help, NULL, 0, "this list"},
    {"quit", "", cmd_quit, NULL, 0, "leave (so does end of input)"},
    {"exit", "", cmd_quit, NULL, 0, "leave"},
};
#define NCOMMANDS (sizeof commands / sizeof commands[0])

static int cmd_help(session *s, const char *arg)
{
    (void)arg;
    for (size_t i = 0; i < NCOMMANDS; i++) {
        char head[48];
        snprintf(head, sizeof head, "%s %s", commands[i].name, commands[i].args);
        fprintf(s->ctx->out, "  %-22s %s\n", head, commands[i].what);
    }
    fputs("NODE is a path of labels as ls prints them (main/loop@app.c:20; from the root\n"
          "when it starts with /), .., #N (a node id) or a SITE naming one context; SITE is\n"
          "file:line, a function or MPI name, a label, site:N or #N.\n", s->ctx->out);
    return 0;
}

/* ---- prompt and completion ---- */

/* "hprof:/main/loop@app.c:20> ": the current node's path, its last 40
 * bytes when longer. */
static void prompt_of(const session *s, char *buf, size_t len)
{
    char path[4096];
    if (hpq_node_label_path(s->ctx->db, s->cur, path, sizeof path))
        snprintf(path, sizeof path, "#%lld", (long long)s->cur);
    size_t n = strlen(path);
    snprintf(buf, len, "hprof:%s%.40s> ", n > 40 ? "..." : "", n > 40 ? path + n - 37 : path);
}

#ifdef HAVE_LIBEDIT
/* What a command's argument completes to (complete.h). */
static hpq_carg completes(const command *c)
{
    if (c->run == cmd_ls || c->run == cmd_cd)
        return HPQ_C_NODE;
    if (c->run == cmd_format)
        return HPQ_C_FORMAT;
    if (c->report)
        return c->arg == ARG_NODE_HERE ? HPQ_C_NODE : HPQ_C_SITE;
    return HPQ_C_NONE;
}

/* libedit's completion hooks have no context argument: the session being
 * read, and the candidates of the word being completed. */
static const session *completing;
static hpq_cword cwords[NCOMMANDS];
static char **candidates;

static char *next_candidate(const char *text, int state)
{
    static size_t i;
    (void)text;
    if (state == 0)
        i = 0;
    return candidates && candidates[i] ? strdup(candidates[i++]) : NULL;
}

static char **complete_word(const char *text, int start, int end)
{
    const session *s = completing;
    (void)end;
    rl_attempted_completion_over = 1;   /* no file names */
    hpq_complete_free(candidates);
    candidates = hpq_complete(s->ctx->db, s->ctx->db_path, cwords, NCOMMANDS, s->cur,
                              rl_line_buffer, start, text);
    return candidates ? rl_completion_matches(text, next_candidate) : NULL;
}

/* Words break at blanks only: labels hold '@', ':', '/'. */
static void install_completion(const session *s)
{
    static char breaks[] = " \t";
    completing = s;
    for (size_t i = 0; i < NCOMMANDS; i++)
        cwords[i] = (hpq_cword){commands[i].name, completes(&commands[i])};
    rl_attempted_completion_function = complete_word;
    rl_completer_word_break_characters = breaks;
    rl_basic_word_break_characters = breaks;
}
#endif

/* ---- the loop ---- */

static char *trim(char *line)
{
    char *end = line + strlen(line);
    while (isspace((unsigned char)*line))
        line++;
    while (end > line && isspace((unsigned char)end[-1]))
        *--end = '\0';
    return line;
}

static const command *find_command(const char *name)
{
    for (size_t i = 0; i < NCOMMANDS; i++)
        if (strcmp(commands[i].name, name) == 0)
            return &commands[i];
    return NULL;
}

/* Prints one line "hprof-query: MESSAGE" on stderr, after what the
 * command wrote to stdout. */
static void report_error(const session *s, const char *msg)
{
    fflush(s->ctx->out);
    fputs("hprof-query: ", stderr);
    hpq_print_text_string(stderr, msg);
    fputc('\n', stderr);
    fflush(stderr);
}

/* Runs one line: "NAME [ARGUMENT]", the argument the rest of the line. */
static void run_line(session *s, char *line)
{
    char *cmd = trim(line);
    if (!*cmd)
        return;
    size_t n = strcspn(cmd, " \t");
    char *arg = cmd + n;
    if (*arg)
        *arg++ = '\0';
    arg = trim(arg);
    const command *c = find_command(cmd);
    if (!c) {
        char msg[160];
        snprintf(msg, sizeof msg, "unknown command '%.100s' (help lists them)", cmd);
        report_error(s, msg);
        return;
    }
    s->ctx->err[0] = '\0';
    assert(c->run || c->report);
    int rc = c->run ? c->run(s, arg) : run_site_report(s, arg, c->report, c->arg);
    if (rc != 0)
        report_error(s, s->ctx->err[0] ? s->ctx->err : "failed");
    fflush(s->ctx->out);
}

/* One line from `in` without its newline (malloc'ed), NULL at EOF; on a
 * terminal after the session's prompt. */
static char *next_line(const session *s, FILE *in, int tty)
{
    char prompt[64];
    if (tty)
        prompt_of(s, prompt, sizeof prompt);
#ifdef HAVE_LIBEDIT
    if (tty) {
        char *line = readline(prompt);
        if (line && *line)
            add_history(line);
        return line;
    }
#else
    if (tty) {
        fputs(prompt, stdout);
        fflush(stdout);
    }
#endif
    char *line = NULL;
    size_t cap = 0;
    ssize_t len = getline(&line, &cap, in);
    if (len < 0) {
        free(line);
        return NULL;
    }
    if (len > 0 && line[len - 1] == '\n')
        line[len - 1] = '\0';
    return line;
}

int hpq_interactive(const hpq_ctx *ctx, FILE *in)
{
    session s = {ctx, *ctx->opt, HPQ_ROOT_NODE, 0};
    int tty = isatty(fileno(in)) && in == stdin;
    char *line;
    assert(ctx->opt);
    s.opt.root = NULL;
#ifdef HAVE_LIBEDIT
    if (tty)
        install_completion(&s);
#endif
    while (!s.quit && (line = next_line(&s, in, tty)) != NULL) {
        run_line(&s, line);
        free(line);
    }
#ifdef HAVE_LIBEDIT
    hpq_complete_free(candidates);
    candidates = NULL;
#endif
    if (tty && !s.quit)
        fputc('\n', ctx->out);
    return 0;
}
