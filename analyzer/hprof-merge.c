/*
 * hprof-merge.c - command line tool: converts a profile (.hpf) into an
 * SQLite database for hprof-query and other SQL tools.
 *
 *   hprof-merge [-o DB] [-f] [--] FILE
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "db.h"
#include "hpf_read.h"

static void usage(FILE *out)
{
    fprintf(out, "usage: hprof-merge [-o DB] [-f] [--] FILE\n"
                 "  converts the profile FILE into an SQLite database\n"
                 "  -o DB   database to write (default: FILE with .hpf replaced by .db)\n"
                 "  -f      overwrite an existing database\n"
                 "  --      end of options: the next argument is FILE\n");
}

static int usage_error(const char *msg, const char *arg)
{
    fprintf(stderr, "hprof-merge: %s%s (try --help)\n", msg, arg ? arg : "");
    return 2;
}

int main(int argc, char **argv)
{
    const char *input = NULL, *output = NULL;
    int force = 0, options_end = 0;

    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (options_end) {
            if (input)
                return usage_error("more than one input file: ", a);
            input = a;
        } else if (strcmp(a, "--") == 0) {
            options_end = 1;
        } else if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
            usage(stdout);
            return 0;
        } else if (strcmp(a, "-f") == 0) {
            force = 1;
        } else if (strcmp(a, "-o") == 0) {
            if (++i == argc)
                return usage_error("-o needs an argument", NULL);
            output = argv[i];
        } else if (a[0] == '-' && a[1]) {
            return usage_error("unknown option ", a);
        } else if (input) {
            return usage_error("more than one input file: ", a);
        } else {
            input = a;
        }
    }
    if (!input)
        return usage_error("no profile given", NULL);

    char err[1024];
    char *db_path = output ? strdup(output) : hpf_default_db_path(input);
    hpf_profile p;
    hpf_db_summary sum;
    int rc = 1;
    if (!db_path) {
        fprintf(stderr, "hprof-merge: out of memory\n");
        return 1;
    }
    if (hpf_read(input, &p, err, sizeof err) != 0) {
        fprintf(stderr, "hprof-merge: %s\n", err);
    } else {
        if (hpf_db_write(&p, input, db_path, force, &sum, err, sizeof err) != 0) {
            fprintf(stderr, "hprof-merge: %s\n", err);
        } else {
            printf("hprof-merge: wrote %s (%u ranks, %u sites, %u nodes)\n", db_path,
                   sum.nranks, sum.nsites, sum.nnodes);
            rc = 0;
        }
        hpf_free(&p);
    }
    free(db_path);
    return rc;
}
