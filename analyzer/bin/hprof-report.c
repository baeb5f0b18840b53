/*
 * hprof-report.c - command line tool: one self-contained HTML page of a
 * run (hprof-report RUN -o report.html): run header, expandable
 * calling-context tree, flame graph, communication matrix, per-rank bars,
 * overhead classes, OpenMP thread tables and task timeline (html.h).  RUN is what
 * hprof-query takes: a profile, its database, or a dead run's per-rank
 * files.  Exit status 0; 1 on bad input or a database error; 2 on a
 * usage error or when the page cannot be written.
 */
#include "config.h"
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "render/html.h"
#include "query/qlive.h"
#include "query/qopen.h"

static void usage(FILE *out)
{
    fputs("Usage: hprof-report RUN... -o OUT.html\n"
          "  or:  hprof-report --live [--once] [--interval S] PATH -o OUT.html\n"
          "Write one self-contained HTML page (no network) of a run: run header,\n"
          "calling-context tree with inclusive and exclusive time, flame graph,\n"
          "communication matrix, per-rank imbalance of the top nodes, overhead classes,\n"
          "OpenMP threads and task timeline.  RUN is a profile (.hpf, merged on first\n"
          "use into the database next to it), a database written by hprof-merge, or a\n"
          "run's per-rank files or their directory.  A tree of more than 2,000 nodes is\n"
          "shown with its nodes under 0.1% of the run folded, one entry per parent\n"
          "(hprof-query lists every node).\n"
          "\n"
          "Options:\n"
          "  -o OUT.html, --output=OUT.html  the page to write\n"
          "  --live          PATH is a running job's HPROF_OUTPUT (or its .live folder):\n"
          "                  the page of its latest snapshots (HPROF_LIVE), rewritten every\n"
          "                  interval until the run ends, and reloading itself\n"
          "  --once          with --live: write the page once\n"
          "  --interval S    with --live: seconds between pages (default 5)\n"
          "  --              end of options: the arguments after it are inputs\n"
          "  -h, --help      print this help and exit\n"
          "  --version       print the version and exit\n"
          "\n"
          "Exit status: 0; 1 on bad input or a database error; 2 on a usage error or\n"
          "when the page cannot be written.\n", out);
}

static int usage_error(const char *msg)
{
    fprintf(stderr, "hprof-report: %s (try --help)\n", msg);
    return 2;
}

/* Collects the inputs into argv's front; *output from -o.  -1 to go on,
 * else the exit status. */
static int live, once, interval = 5;

static int parse_args(int argc, char **argv, int *ninputs, const char **output)
{
    int only_inputs = 0;
    *ninputs = 0;
    *output = NULL;
    for (int i = 1; i < argc; i++) {
        const char *arg = argv[i];
        if (only_inputs || arg[0] != '-' || arg[1] == '\0') {
            argv[(*ninputs)++] = argv[i];
        } else if (strcmp(arg, "--") == 0) {
            only_inputs = 1;
        } else if (strcmp(arg, "-h") == 0 || strcmp(arg, "--help") == 0) {
            usage(stdout);
            return 0;
        } else if (strcmp(arg, "--version") == 0) {
            puts("hprof-report (hprof) " PACKAGE_VERSION);
            return 0;
        } else if (strcmp(arg, "--live") == 0) {
            live = 1;
        } else if (strcmp(arg, "--once") == 0) {
            once = 1;
        } else if (strcmp(arg, "--interval") == 0 && i + 1 < argc) {
            char *end;
            long v = strtol(argv[++i], &end, 10);
            if (end == argv[i] || *end || v < 1 || v > 3600)
                return usage_error("--interval needs whole seconds from 1 to 3600");
            interval = (int)v;
        } else if (strcmp(arg, "-o") == 0 && i + 1 < argc) {
            *output = argv[++i];
        } else if (strncmp(arg, "--output=", 9) == 0) {
            *output = arg + 9;
        } else if (strcmp(arg, "-o") == 0) {
            return usage_error("-o needs a file name");
        } else {
            fprintf(stderr, "hprof-report: unknown option '%s'\n", arg);
            return 2;
        }
    }
    if (*ninputs == 0)
        return usage_error("no profile or database given");
    if (!*output || !**output)
        return usage_error("no output file given (-o OUT.html)");
    if (live && *ninputs != 1)
        return usage_error("--live takes one PATH (the job's HPROF_OUTPUT or its .live folder)");
    if (!live && (once || interval != 5))
        return usage_error("--once and --interval go with --live");
    return -1;
}

/* Can the page be written at path?  Tried as the writer will
 * (flame_out.c): a temporary file next to it, removed at once, so that a
 * bad path fails before a profile is merged.  0, or -1 with the message. */
static int output_writable(const char *path)
{
    size_t len = strlen(path) + sizeof ".tmpXXXXXX";
    char *tmp = malloc(len);
    if (!tmp) {
        fprintf(stderr, "hprof-report: out of memory\n");
        return -1;
    }
    snprintf(tmp, len, "%s.tmpXXXXXX", path);
    struct stat sb;
    int fd = -1, e = EISDIR;
    if (stat(path, &sb) != 0 || !S_ISDIR(sb.st_mode)) {
        fd = mkstemp(tmp);
        e = errno;
    }
    if (fd >= 0) {
        close(fd);
        unlink(tmp);
    }
    free(tmp);
    if (fd < 0)
        fprintf(stderr, "hprof-report: cannot write %s: %s\n", path, strerror(e));
    return fd < 0 ? -1 : 0;
}

/* The page of the database db (at db_path) into output; closes db, and
 * removes its file when temporary.  0, or the exit status. */
static int write_page(sqlite3 *db, char *db_path, const char *output, int temporary)
{
    char err[1024];
    hpq_options opt = {.format = HPQ_TEXT, .depth = -1};
    hpq_ctx ctx = {db, db_path, &opt, stdout, err, sizeof err};
    int rc = hpq_write_output(&ctx, output, hpq_write_html);
    if (rc != 0)
        fprintf(stderr, "hprof-report: %s\n", err);
    sqlite3_close(db);
    if (temporary)
        unlink(db_path);
    free(db_path);
    return rc == 0 ? 0 : rc == -2 ? 2 : 1;
}

/* One page of the latest snapshots of the job at path; 0 or the status. */
static int live_page(const char *path, const char *output)
{
    char err[1024], header[2048];
    sqlite3 *db;
    char *db_path;
    if (hpq_live_open(path, &db, &db_path, header, sizeof header, err, sizeof err)) {
        fprintf(stderr, "hprof-report: %s\n", err);
        return 1;
    }
    hpq_html_set_live(interval, header);
    return write_page(db, db_path, output, 1);
}

/* --live: a page every interval while the job's live folder is there. */
static int live_pages(const char *path, const char *output)
{
    char dir[4096];
    struct stat st;
    int status = live_page(path, output);
    hpq_live_dir(path, dir, sizeof dir);
    while (!once && status == 0) {
        sleep((unsigned)interval);
        if (stat(dir, &st) != 0)
            break;   /* the run has ended: its profile replaces the snapshots */
        status = live_page(path, output);
    }
    return status;
}

int main(int argc, char **argv)
{
    int ninputs;
    const char *output;
    int status = parse_args(argc, argv, &ninputs, &output);
    if (status >= 0)
        return status;
    if (output_writable(output))
        return 2;
    if (live)
        return live_pages(argv[0], output);
    char err[1024];
    sqlite3 *db;
    char *db_path;
    hpq_open_set_program("hprof-report");
    if (hpq_open(ninputs, argv, &db, &db_path, err, sizeof err)) {
        fprintf(stderr, "hprof-report: %s\n", err);
        return 1;
    }
    return write_page(db, db_path, output, 0);
}
