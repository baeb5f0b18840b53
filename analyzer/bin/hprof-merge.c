/*
 * hprof-merge.c - command line tool: converts a profile (.hpf), or the
 * per-rank files of a run that died (parts.h), into an SQLite database for
 * hprof-query and other SQL tools.
 *
 *   hprof-merge [-o DB] [-f] [--detail|--no-detail] [--] FILE | RANKFILE... | DIR
 */
#include "config.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sqlite3.h>
#ifdef __GLIBC__
#include <malloc.h>
#endif
#include "db/db.h"
#include "read/hpf_agg.h"
#include "db/db_agg.h"
#include "db/db_fromagg.h"
#include "db/detail.h"
#include "read/hpf_read.h"
#include "db/parts.h"
#include "db/phases.h"

static void usage(FILE *out)
{
    fputs("Usage: hprof-merge [-o DB] [-f] [--detail|--no-detail] [--] FILE | RANKFILE... | DIR\n"
          "  or:  hprof-merge --aggregate DB\n"
          "Convert the profile FILE (.hpf) into an SQLite database for hprof-query,\n"
          "hprof-report and other SQL tools; or merge the files NAME.rank<N>.hpf that\n"
          "the ranks of a run that died wrote alone (named one by one, or their\n"
          "directory DIR) into one database.  An aggregated profile (HPROF_AGGREGATE)\n"
          "becomes a database of its aggregates, without per-rank rows.\n"
          "\n"
          "Options:\n"
          "  -o DB           database to write (default: FILE or NAME with .hpf\n"
          "                  replaced by .db)\n"
          "  -f              overwrite an existing database\n"
          "  --detail        store the per rank/thread rows (tables stat, comm) whatever\n"
          "                  the run's size; by default only when there are at most\n"
          "                  2,000,000 (else queries read them from the profile: keep\n"
          "                  it beside the database)\n"
          "  --no-detail     never store them (only the aggregates)\n"
          "  --              end of options: the arguments after it are inputs\n"
          "  --aggregate DB  recompute the aggregates DB stores from its rows (after\n"
          "                  editing them by hand)\n"
          "  -h, --help      print this help and exit\n"
          "  --version       print the version and exit\n"
          "\n"
          "Environment: HPROF_MERGE_PHASES=1 prints each phase's time.\n", out);
}

static int usage_error(const char *msg, const char *arg)
{
    fprintf(stderr, "hprof-merge: %s%s (try --help)\n", msg, arg ? arg : "");
    return 2;
}

/* hprof-merge --aggregate DB: the stored aggregates recomputed from the
 * rows of an existing database. */
static int reaggregate(const char *path)
{
    sqlite3 *db = NULL;
    hpf_detail_register();
    char err[1024] = "";
    int rc = sqlite3_open_v2(path, &db, SQLITE_OPEN_READWRITE, NULL) != SQLITE_OK;
    if (rc)
        snprintf(err, sizeof err, "%s: %s", path, db ? sqlite3_errmsg(db) : "cannot open");
    else if ((rc = hpf_db_check_version(db, path, err, sizeof err)) == 0 &&
             (rc = hpf_db_reaggregate(db, err, sizeof err)) == 0)
        printf("hprof-merge: re-aggregated %s\n", path);
    sqlite3_close(db);
    if (rc)
        fprintf(stderr, "hprof-merge: %s\n", err);
    return rc ? 1 : 0;
}

/* An aggregated profile (HPROF_AGGREGATE): its database holds the same
 * aggregates, from its distributions, and no per-rank rows
 * (db/db_fromagg.h). */
static int aggregated(const char *path, const char *output, int force)
{
    hpf_db_summary sum;
    char err[1024];
    char *db_path = output ? strdup(output) : hpf_default_db_path(path);
    int rc = 1;
    if (!db_path) {
        fprintf(stderr, "hprof-merge: out of memory\n");
        return 1;
    }
    if (hpf_db_merge_aggregated(path, db_path, force, &sum, err, sizeof err)) {
        fprintf(stderr, "hprof-merge: %s\n", err);
    } else {
        printf("hprof-merge: wrote %s (%u ranks, %u sites, %u nodes) from the aggregated"
               " profile: no per-rank rows\n", db_path, sum.nranks, sum.nsites, sum.nnodes);
        rc = 0;
    }
    free(db_path);
    return rc;
}

/* The passes over the ranks allocate and free a rank's records (a few
 * MB) rank after rank.  glibc gives freed memory at the top of a heap back
 * to the kernel once it exceeds a threshold that its own adjustments keep
 * near one rank's size, so every rank's buffers were fresh pages again:
 * zeroed and faulted in by the kernel, a quarter of the merge's CPU at
 * 1024 mkbig ranks (1.5 s of system time).  Fixed thresholds keep the
 * freed memory for the next rank; blocks above 32 MB are still mapped and
 * unmapped on their own. */
static void keep_freed_memory(void)
{
#ifdef __GLIBC__
    mallopt(M_MMAP_THRESHOLD, 32 << 20);
    mallopt(M_TRIM_THRESHOLD, 64 << 20);
#endif
}

int main(int argc, char **argv)
{
    keep_freed_memory();
    if (argc == 3 && strcmp(argv[1], "--aggregate") == 0)
        return reaggregate(argv[2]);
    const char *output = NULL;
    char **inputs = calloc((size_t)argc, sizeof *inputs);
    int ninputs = 0, force = 0, options_end = 0;

    if (!inputs) {
        fprintf(stderr, "hprof-merge: out of memory\n");
        return 1;
    }
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (options_end) {
            inputs[ninputs++] = argv[i];
        } else if (strcmp(a, "--") == 0) {
            options_end = 1;
        } else if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
            usage(stdout);
            free(inputs);
            return 0;
        } else if (strcmp(a, "--detail") == 0 || strcmp(a, "--no-detail") == 0) {
            hpf_db_set_detail(a[2] == 'd' ? HPF_DETAIL_ALWAYS : HPF_DETAIL_NEVER);
        } else if (strcmp(a, "--version") == 0) {
            puts("hprof-merge (hprof) " PACKAGE_VERSION);
            free(inputs);
            return 0;
        } else if (strcmp(a, "-f") == 0) {
            force = 1;
        } else if (strcmp(a, "-o") == 0) {
            if (++i == argc) {
                free(inputs);
                return usage_error("-o needs an argument", NULL);
            }
            output = argv[i];
        } else if (a[0] == '-' && a[1]) {
            free(inputs);
            return usage_error("unknown option ", a);
        } else {
            inputs[ninputs++] = argv[i];
        }
    }
    if (!ninputs) {
        free(inputs);
        return usage_error("no profile given", NULL);
    }

    if (ninputs == 1 && hpf_is_aggregate(inputs[0])) {
        int rc = aggregated(inputs[0], output, force);
        free(inputs);
        return rc;
    }
    char err[1024];
    hpf_input in;
    if (hpf_input_find(ninputs, inputs, &in, err, sizeof err) != 0) {
        free(inputs);
        fprintf(stderr, "hprof-merge: %s\n", err);
        return ninputs > 1 ? 2 : 1;
    }
    free(inputs);
    char *db_path = output ? strdup(output) : hpf_default_db_path(in.name);
    hpf_profile p;
    hpf_db_summary sum;
    int rc = 1;
    if (!db_path) {
        fprintf(stderr, "hprof-merge: out of memory\n");
        hpf_input_free(&in);
        return 1;
    }
    hpf_phase_mark("start");
    if (hpf_read_input(&in, &p, err, sizeof err) != 0) {
        fprintf(stderr, "hprof-merge: %s\n", err);
    } else {
        char note[512];
        hpf_phase_mark("read");
        hpf_missing_note(&p, in.name, note, sizeof note);
        if (hpf_input_db_write(&in, &p, db_path, force, &sum, err, sizeof err) != 0) {
            fprintf(stderr, "hprof-merge: %s\n", err);
        } else {
            printf("hprof-merge: wrote %s (%u ranks, %u sites, %u nodes)%s%s\n", db_path,
                   sum.nranks, sum.nsites, sum.nnodes, note[0] ? "; " : "", note);
            rc = 0;
        }
        hpf_free(&p);
    }
    hpf_input_free(&in);
    free(db_path);
    return rc;
}
