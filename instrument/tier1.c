/*
 * tier1.c - hprof-instrument --tier=1: the instrumentation policy applied
 * to gcc's and clang's -finstrument-functions hooks.  Tier 1 has no loop,
 * call or OpenMP probes: the compiler puts a __cyg_profile_func_enter/exit
 * pair in every function, inlined copies included, which costs more than
 * a tiny procedure's own work.  So the copy of the unit written here is
 * the original text with __attribute__((no_instrument_function)) put
 * before the definition of each procedure that
 *
 *  - the policy leaves unprobed (policy.c: a tiny procedure, unless
 *    --procedures=all or an `include function` rule keeps it),
 *  - an `exclude function`/`exclude file` rule of the filter excludes
 *    (matched on the whole name, as the runtime does, never on a part
 *    of it as gcc's -finstrument-functions-exclude-function-list does),
 *  - or lies between #pragma hprof noinstrument and instrument,
 *  - or is static and called once (hpi_site.once): the hooks pass its
 *    address, which keeps the compiler from inlining it into its one
 *    caller as it does without them.  Such a procedure gets tier 2's
 *    procedure probe instead (emit.c, called out of line), which names
 *    it by its site, not its address.
 *
 * The attribute goes on the line where the definition starts, so every
 * line keeps its number; gcc and clang honour it on a definition that
 * follows a declaration without it.  --list prints one line per procedure
 * instead: "hooked procedure LINE NAME", "probed procedure LINE NAME: why"
 * or "unhooked procedure LINE NAME: why", then the policy.
 */
#include <assert.h>
#include <stdlib.h>
#include <string.h>

#include "hpi.h"
#include "hprof_probe.h"
#include "hp_filter.h"

#define HPI_T1_ATTR "__attribute__((__no_instrument_function__)) "
#define HPI_T1_NOINST "between #pragma hprof noinstrument"
#define HPI_T1_ONCE "static and called once: a probe, as hooks would keep it from being inlined"

/* What the writer needs: the unit and, per site, why its hooks go (NULL:
 * kept, or not a procedure) and whether a probe replaces them. */
typedef struct hpi_t1 {
    const hpi_unit *u;
    const char **why;
    int *probed;
    size_t *order;       /* the sites that get the attribute, in file order
                            (C++ lambdas come last in the table) */
    size_t norder;
} hpi_t1;

/* Why procedure t gets no hooks, or NULL when it keeps them. */
static const char *hpi_t1_why(const hpi_unit *u, const hp_filter *f, const hpi_site *t)
{
    if (t->kind != HPROF_SITE_PROCEDURE || t->decl_off == (size_t)-1)
        return NULL;
    if (f && !hp_filter_allows(f, t->name, u->src.path))
        return "the filter excludes it";
    if (t->skip && strncmp(t->skip, HPI_T1_NOINST, strlen(HPI_T1_NOINST)) == 0)
        return t->skip;
    if (t->unprobed && !t->skip)
        return t->unprobed;
    return NULL;
}

static int hpi_t1_write(FILE *fp, const void *arg)
{
    const hpi_t1 *a = arg;
    const hpi_unit *u = a->u;
    size_t i, at = 0;

    fputs("#line 1 ", fp);
    hpi_put_cstr(fp, u->src.path);
    fputc('\n', fp);
    for (i = 0; i < a->norder; i++) {
        size_t off = u->sites[a->order[i]].decl_off;
        assert(off >= at && off <= u->src.len);
        fwrite(u->src.text + at, 1, off - at, fp);
        fputs(HPI_T1_ATTR, fp);
        at = off;
    }
    fwrite(u->src.text + at, 1, u->src.len - at, fp);
    return ferror(fp) ? -1 : 0;
}

static void hpi_t1_list(const hpi_t1 *a, const hpi_opts *o, FILE *fp)
{
    const hpi_unit *u = a->u;
    size_t i;

    for (i = 0; i < u->nsites; i++) {
        const hpi_site *t = &u->sites[i];
        if (t->kind != HPROF_SITE_PROCEDURE)
            continue;
        if (a->probed[i])
            fprintf(fp, "probed procedure %u %s: %s\n", t->line, t->name, HPI_T1_ONCE);
        else if (a->why[i])
            fprintf(fp, "unhooked procedure %u %s: %s\n", t->line, t->name, a->why[i]);
        else
            fprintf(fp, "hooked procedure %u %s\n", t->line, t->name);
    }
    fprintf(fp, "policy: tier=1 procedures=%s tiny=loops<=%d\n",
            o->all_procs ? "all" : "default", HPI_TINY_ITERS);
}

/* The copy when some procedures get a probe (a->probed): emit.c's
 * instrumented unit with only those procedure sites in its table, and the
 * attribute on every procedure without hooks as an edit of the text (the
 * unit's own edits, its POMP2 rewriting, belong to tier 2). */
static int hpi_t1_emit_probed(const hpi_t1 *a, const char *out, char *err, size_t errlen)
{
    static char attr[] = HPI_T1_ATTR;
    const hpi_unit *u = a->u;
    hpi_unit c = *u;
    hpi_site *sites = malloc((u->nsites + 1) * sizeof *sites);
    hpi_edit *edits = calloc(u->nsites + 1, sizeof *edits);
    size_t i;
    int rc;

    if (!sites || !edits) {
        free(sites);
        free(edits);
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    c.nedits = 0;
    for (i = 0; i < u->nsites; i++) {
        sites[i] = u->sites[i];
        sites[i].leaf = 0;
        if (!a->probed[i])
            sites[i].skip = "hooked, or no procedure";   /* not in the table */
        else   /* the line a hooked procedure's entry address resolves to */
            sites[i].line = hpi_src_line(&u->src, u->sites[i].open_off - 1);
        if (a->why[i] || a->probed[i]) {
            hpi_edit *e = &edits[c.nedits++];
            e->off = e->end = e->key = u->sites[i].decl_off;
            e->open = 1;
            e->text = attr;
        }
    }
    c.sites = sites;
    c.edits = edits;
    c.regions = NULL;
    c.nregions = 0;
    c.omp_locks = 0;
    rc = hpi_emit(&c, out, err, errlen);
    free(sites);
    free(edits);
    return rc;
}

/* 1 when procedure i gets tier 2's probe instead of hooks. */
static int hpi_t1_probes(const hpi_unit *u, const char *const *why, size_t i)
{
    const hpi_site *t = &u->sites[i];
    return t->kind == HPROF_SITE_PROCEDURE && t->once && !why[i] && !t->skip &&
           t->decl_off != (size_t)-1;
}

/* For qsort of site indexes by decl_off. */
static const hpi_unit *hpi_t1_sorting;

static int hpi_t1_cmp(const void *x, const void *y)
{
    size_t a = hpi_t1_sorting->sites[*(const size_t *)x].decl_off;
    size_t b = hpi_t1_sorting->sites[*(const size_t *)y].decl_off;
    return a < b ? -1 : a > b;
}

int hpi_tier1(const hpi_unit *u, const hpi_opts *o, const char *out, char *err, size_t errlen)
{
    hpi_t1 a;
    hp_filter *f = NULL;
    size_t i, last = 0, nprobed = 0;
    int rc = 0;

    assert(o->tier1);
    a.u = u;
    a.why = calloc(u->nsites + 1, sizeof *a.why);
    a.probed = calloc(u->nsites + 1, sizeof *a.probed);
    a.order = calloc(u->nsites + 1, sizeof *a.order);
    a.norder = 0;
    if (!a.why || !a.probed || !a.order) {
        free(a.why);
        free(a.probed);
        free(a.order);
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    if (o->filter && !(f = hp_filter_load(o->filter, err, errlen))) {
        free(a.why);
        free(a.probed);
        free(a.order);
        return -1;
    }
    for (i = 0; i < u->nsites; i++) {
        a.why[i] = hpi_t1_why(u, f, &u->sites[i]);
        a.probed[i] = hpi_t1_probes(u, a.why, i);
        nprobed += a.probed[i] != 0;
        if (a.why[i] || a.probed[i])
            a.order[a.norder++] = i;
    }
    hpi_t1_sorting = u;
    if (a.norder)
        qsort(a.order, a.norder, sizeof *a.order, hpi_t1_cmp);
    for (i = 0; i < a.norder; i++) {
        if (i > 0 && u->sites[a.order[i]].decl_off <= last) {   /* never: definitions do not overlap */
            snprintf(err, errlen, "procedure %s: definitions out of order", u->sites[a.order[i]].name);
            rc = -1;
        }
        last = u->sites[a.order[i]].decl_off;
    }
    if (rc == 0 && o->list)
        hpi_t1_list(&a, o, stdout);
    else if (rc == 0 && nprobed)
        rc = hpi_t1_emit_probed(&a, out, err, errlen);
    else if (rc == 0)
        rc = hpi_emit_file(out, hpi_t1_write, &a, err, errlen);
    hp_filter_free(f);
    free(a.why);
    free(a.probed);
    free(a.order);
    return rc;
}
