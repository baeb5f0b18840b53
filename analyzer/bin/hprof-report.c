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
#include "query/qopen.h"

static void usage(FILE *out)
{
    fputs("Usage: hprof-report RUN... -o OUT.html\n"
          "Write one self-contained HTML page (no network) of a run: run header,\n"
          "calling-context tree with inclusive and exclusive time, flame graph,\n"
          "communication matrix, per-rank imbalance of the top nodes, overhead classes,\n"
          "OpenMP threads and task timeline.  RUN is a profile (.hpf, merged on first\n"
          "use into the database next to it), a database written by hprof-merge, or a\n"
          "run's per-rank files or their directory.\n"
          "\n"
          "Options:\n"
          "  -o OUT.html, --output=OUT.html  the page to write\n"
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

int main(int argc, char **argv)
{
    int ninputs;
    const char *output;
    int status = parse_args(argc, argv, &ninputs, &output);
    if (status >= 0)
        return status;
    if (output_writable(output))
        return 2;
    char err[1024];
    sqlite3 *db;
    char *db_path;
    hpq_open_set_program("hprof-report");
    if (hpq_open(ninputs, argv, &db, &db_path, err, sizeof err)) {
        fprintf(stderr, "hprof-report: %s\n", err);
        return 1;
    }
    hpq_options opt = {.format = HPQ_TEXT, .depth = -1};
    hpq_ctx ctx = {db, db_path, &opt, stdout, err, sizeof err};
    int rc = hpq_write_output(&ctx, output, hpq_write_html);
    if (rc != 0)
        fprintf(stderr, "hprof-report: %s\n", err);
    sqlite3_close(db);
    free(db_path);
    return rc == 0 ? 0 : rc == -2 ? 2 : 1;
}
