/*
 * aggview.c - hprof-query --check of an aggregated profile (aggview.h),
 * the one view that reads its distributions from the file: every other
 * view reads the database hprof-merge makes of it (db/db_fromagg.h),
 * which holds the same numbers.  Site labels as the database's: " [est]"
 * on estimated sites.
 */
#include "config.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "aggview.h"
#include "aggcheck.h"
#include "db/merge.h"
#include "read/hpf_agg.h"

static char **site_labels(const hp_aggprof *a)
{
    hp_rank_data rd;
    memset(&rd, 0, sizeof rd);
    rd.nstrings = a->nstrings;
    rd.strings = a->strings;
    char **labels = calloc(a->nsites ? a->nsites : 1, sizeof *labels);
    for (uint32_t i = 0; labels && i < a->nsites; i++) {
        char *l = hpf_site_label(&rd, &a->sites[i]);
        if (l && (a->sites[i].flags & HP_SITEF_ESTIMATED)) {
            char *marked = NULL;
            if (asprintf(&marked, "%s [est]", l) < 0)
                marked = NULL;
            free(l);
            l = marked;
        }
        labels[i] = l ? l : strdup("?");
    }
    return labels;
}

static void free_labels(char **labels, uint32_t n)
{
    for (uint32_t i = 0; labels && i < n; i++)
        free(labels[i]);
    free(labels);
}

int hpq_agg_check_file(const char *path, FILE *out)
{
    hpf_aggfile f;
    char err[1024];
    if (hpf_agg_read(path, &f, err, sizeof err)) {
        fprintf(stderr, "hprof-query: %s\n", err);
        return 1;
    }
    char **labels = site_labels(&f.tree);
    int rc = 1;
    if (!labels)
        fprintf(stderr, "hprof-query: out of memory\n");
    else
        rc = hpq_agg_check(&f, labels, out);
    free_labels(labels, f.tree.nsites);
    hpf_agg_free(&f);
    return rc;
}
