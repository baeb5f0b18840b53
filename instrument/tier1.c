/*
 * tier1.c - hprof-instrument --tier=1: the instrumentation policy applied
 * to gcc's and clang's -finstrument-functions hooks.  Tier 1 has no source
 * probes: the compiler puts a __cyg_profile_func_enter/exit pair in every
 * function, inlined copies included, which costs more than a tiny
 * procedure's own work.  So the copy of the unit written here is the
 * original text with __attribute__((no_instrument_function)) put before
 * the definition of each procedure that
 *
 *  - the policy leaves unprobed (policy.c: a tiny procedure, unless
 *    --procedures=all or an `include function` rule keeps it),
 *  - an `exclude function`/`exclude file` rule of the filter excludes
 *    (matched on the whole name, as the runtime does, never on a part
 *    of it as gcc's -finstrument-functions-exclude-function-list does),
 *  - or lies between #pragma hprof noinstrument and instrument.
 *
 * The attribute goes on the line where the definition starts, so every
 * line keeps its number; gcc and clang honour it on a definition that
 * follows a declaration without it.  --list prints one line per procedure
 * instead: "hooked procedure LINE NAME" or "unhooked procedure LINE NAME:
 * why", then the policy.
 */
#include <assert.h>
#include <stdlib.h>
#include <string.h>

#include "hpi.h"
#include "hprof_probe.h"
#include "hp_filter.h"

#define HPI_T1_ATTR "__attribute__((__no_instrument_function__)) "
#define HPI_T1_NOINST "between #pragma hprof noinstrument"

/* What the writer needs: the unit and, per site, why its hooks go (NULL:
 * kept, or not a procedure). */
typedef struct hpi_t1 {
    const hpi_unit *u;
    const char **why;
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
    /* procedure sites come in file order, each after the one before */
    for (i = 0; i < u->nsites; i++) {
        size_t off = u->sites[i].decl_off;
        if (!a->why[i])
            continue;
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
        if (a->why[i])
            fprintf(fp, "unhooked procedure %u %s: %s\n", t->line, t->name, a->why[i]);
        else
            fprintf(fp, "hooked procedure %u %s\n", t->line, t->name);
    }
    fprintf(fp, "policy: tier=1 procedures=%s tiny=%d statements\n",
            o->all_procs ? "all" : "default", HPI_TINY_STMTS);
}

int hpi_tier1(const hpi_unit *u, const hpi_opts *o, const char *out, char *err, size_t errlen)
{
    hpi_t1 a;
    hp_filter *f = NULL;
    size_t i, last = 0;
    int rc = 0;

    assert(o->tier1);
    a.u = u;
    a.why = calloc(u->nsites + 1, sizeof *a.why);
    if (!a.why) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    if (o->filter && !(f = hp_filter_load(o->filter, err, errlen))) {
        free(a.why);
        return -1;
    }
    for (i = 0; i < u->nsites; i++) {
        a.why[i] = hpi_t1_why(u, f, &u->sites[i]);
        if (!a.why[i])
            continue;
        if (u->sites[i].decl_off < last) {   /* never: definitions do not overlap */
            snprintf(err, errlen, "procedure %s: definitions out of order", u->sites[i].name);
            rc = -1;
        }
        last = u->sites[i].decl_off;
    }
    if (rc == 0 && o->list)
        hpi_t1_list(&a, o, stdout);
    else if (rc == 0)
        rc = hpi_emit_file(out, hpi_t1_write, &a, err, errlen);
    hp_filter_free(f);
    free(a.why);
    return rc;
}
