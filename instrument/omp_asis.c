/*
 * omp_asis.c - code that hprof-instrument leaves exactly as written:
 *  - device code: the statement of a target construct (target, target
 *    parallel ..., target teams ...; not target data, whose body runs on
 *    the host, nor the stand-alone target enter/exit data and update),
 *    the code between "declare target" (or "begin declare target") and
 *    "end declare target", the procedures a declare target directive
 *    names and those device code calls (OpenMP 5.0 makes them declare
 *    target).  That code is compiled for the device as well: a probe there
 *    reads the runtime's thread-local state, which gcc refuses in a
 *    target region (so the whole file fell back to its original), and a
 *    POMP2 call there has no runtime on a device.  Run on the host (no
 *    device), a deferred target task runs inside the encountering
 *    thread's taskwait or barrier, where its records overlapped the wait.
 *  - with POMP2, the body of a taskloop: POMP2 has no taskloop events,
 *    so its tasks are invisible, and records made in them (an atomic, a
 *    loop) landed beside the barrier or taskwait that ran them, whose
 *    time already holds theirs.
 *  - the pragmas nested in a host teams region (teams, teams distribute
 *    ...): a rewritten parallel there called omp_get_max_threads(), and
 *    no OpenMP call but omp_get_num_teams and omp_get_team_num may be
 *    nested in teams (gcc refuses the copy).  Its sites keep their
 *    probes (no OpenMP call); device code inside one is device code.
 * The procedures that are device code take their variants (declare
 * variant on them or on their declarations) with them: gcc compiles
 * those for the device too.
 * Their sites get no probe, their pragmas are not rewritten: the
 * construct is recorded by GOMP or OMPT as the runtime reports it, or
 * not at all under POMP2.
 */
#include <stdlib.h>
#include <string.h>

#include "hpi.h"
#include "hpi_omp.h"
#include "hprof_probe.h"

/* 1 when o is a construct whose statement runs on the device. */
static int hpi_is_device_construct(const hpi_omp *o)
{
    static const char *const host[] = { "data", "enter", "exit", "update", NULL };
    int i;

    if (strcmp(o->words[0], "target") != 0)
        return 0;
    for (i = 0; o->nwords > 1 && host[i]; i++)
        if (strcmp(o->words[1], host[i]) == 0)
            return 0;
    return 1;
}

/* 1: "declare target" (no clauses) or "begin declare target" opens a
 * range, -1: "end declare target" closes it, 0 otherwise. */
static int hpi_declare_target(const hpi_omp *o)
{
    if (o->nwords == 2 && strcmp(o->words[0], "declare") == 0 && strcmp(o->words[1], "target") == 0)
        return o->ncl == 0;
    if (o->nwords == 3 && strcmp(o->words[1], "declare") == 0 && strcmp(o->words[2], "target") == 0)
        return strcmp(o->words[0], "begin") == 0 ? 1 : strcmp(o->words[0], "end") == 0 ? -1 : 0;
    return 0;
}

static const char hpi_why_device[] = "device code (in a target region or declare target): left as written";
static const char hpi_why_declared[] = "device code (a declare target procedure, or one device code calls): left as written";
static const char hpi_why_taskloop[] = "in a taskloop, whose tasks POMP2 does not see: left as written";
static const char hpi_why_teams[] = "in a host teams region, where no other OpenMP call may be nested: left as written";

/* 1 when o is a host teams construct (teams, teams distribute ...). */
static int hpi_is_teams(const hpi_omp *o)
{
    return strcmp(o->words[0], "teams") == 0;
}

/* 1 when o is a taskloop (taskloop simd, master taskloop, ...). */
static int hpi_is_taskloop(const hpi_omp *o)
{
    int i;

    for (i = 0; i < o->nwords; i++)
        if (strcmp(o->words[i], "taskloop") == 0)
            return 1;
    return 0;
}

/* The range of pl->dev holding off (after its pragma), NULL if none;
 * teams 0: host teams regions left out (their sites keep their probes,
 * and device code may stand inside one). */
static const hpi_range *hpi_range_of(const hpi_plan *pl, size_t off, int teams)
{
    size_t i;

    for (i = 0; i < pl->ndev; i++)
        if (pl->dev[i].s < off && off < pl->dev[i].e && (teams || pl->dev[i].why != hpi_why_teams))
            return &pl->dev[i];
    return NULL;
}

static int hpi_add_range(hpi_plan *pl, size_t s, size_t e, const char *why)
{
    hpi_range *p = realloc(pl->dev, (pl->ndev + 1) * sizeof *p);

    if (!p)
        return -1;
    pl->dev = p;
    pl->dev[pl->ndev].s = s;
    pl->dev[pl->ndev].e = e;
    pl->dev[pl->ndev++].why = why;
    return 0;
}

/* The names listed by "declare target(LIST)", "declare target to(LIST)"
 * or "enter(LIST)" in pragma text t, each passed to fn. */
static void hpi_declared_names(const char *t, void (*fn)(const hpi_plan *, const char *, size_t),
                               const hpi_plan *pl)
{
    const char *p = strstr(t, "declare");

    if (!p || !(p = strstr(p, "target")))
        return;
    for (p += 6; *p;) {
        const char *w = hpi_skipsp(p), *q;
        size_t n;
        for (n = 0; hpi_id(w[n]); n++)
            ;
        q = hpi_skipsp(w + n);
        if (*q != '(')
            return;
        if (!(n == 0 || (n == 2 && strncmp(w, "to", 2) == 0) || (n == 5 && strncmp(w, "enter", 5) == 0))) {
            p = strchr(q, ')');   /* link, device_type, indirect: no procedures */
            if (!p)
                return;
            p++;
            continue;
        }
        for (q++; *q && *q != ')';) {
            q = hpi_skipsp(q);
            for (n = 0; hpi_id(q[n]); n++)
                ;
            if (n)
                fn(pl, q, n);
            q += n;
            if (*q == ',' || (!n && *q && *q != ')'))
                q++;
        }
        p = *q ? q + 1 : q;
    }
}

/* A procedure named by declare target or called from device code: its
 * sites and those inside it; how many were not skipped yet. */
static int hpi_skip_procedure(const hpi_plan *pl, const char *name, size_t n)
{
    size_t i;
    int k = 0;

    for (i = 0; i < pl->u->nsites; i++) {
        hpi_site *t = &pl->u->sites[i];
        const char *f = t->kind == HPROF_SITE_PROCEDURE ? t->name : t->func;
        if (!t->skip && f && strlen(f) == n && strncmp(f, name, n) == 0) {
            t->skip = hpi_why_declared;
            k++;
        }
    }
    return k;
}

static void hpi_skip_declared(const hpi_plan *pl, const char *name, size_t n)
{
    hpi_skip_procedure(pl, name, n);
}

/* 1 when "name (" stands in the code of a range of device code (a call
 * that is no call site: in an atomic's expression, say). */
static int hpi_device_mentions(const hpi_plan *pl, const char *name, size_t n)
{
    const hpi_src *src = &pl->u->src;
    size_t i;

    for (i = 0; i < pl->ndev; i++) {
        size_t p;
        if (pl->dev[i].why == hpi_why_taskloop || pl->dev[i].why == hpi_why_teams)
            continue;
        for (p = pl->dev[i].s; p + n < pl->dev[i].e && p + n < src->len; p++)
            if (src->cls[p] == HPI_C_CODE && strncmp(src->text + p, name, n) == 0 &&
                (p == 0 || !hpi_id(src->text[p - 1])) && *hpi_skipsp(src->text + p + n) == '(')
                return 1;
    }
    return 0;
}

/* The name of the procedure declared or defined by the code after off
 * (a declare variant directive's end): the identifier before its first
 * '(', attributes passed over; NULL if a ';' or '{' comes first. */
static const char *hpi_declared_after(const hpi_src *src, size_t off, size_t *n)
{
    size_t p, w = HPI_NONE;

    for (p = off; p < src->len; p++) {
        char ch = src->text[p];
        if (src->cls[p] != HPI_C_CODE || ch == ' ' || ch == '\t' || ch == '\n')
            continue;
        if (ch == ';' || ch == '{')
            return NULL;
        if (hpi_id(ch)) {
            if (p == 0 || !hpi_id(src->text[p - 1]))
                w = p;
            continue;
        }
        if (ch != '(')
            continue;
        if (w != HPI_NONE && (strncmp(src->text + w, "__attribute__", 13) == 0 ||
                              strncmp(src->text + w, "__declspec", 10) == 0)) {
            int depth = 0;
            for (; p < src->len; p++) {
                if (src->cls[p] != HPI_C_CODE)
                    continue;
                depth += (src->text[p] == '(') - (src->text[p] == ')');
                if (depth == 0)
                    break;
            }
            w = HPI_NONE;
            continue;
        }
        if (w == HPI_NONE)
            return NULL;
        for (*n = 0; hpi_id(src->text[w + *n]); (*n)++)
            ;
        return src->text + w;
    }
    return NULL;
}

/* Pragma d when it is "declare variant([BASE:]VARIANT) ...": 1 with the
 * variant's name and the base's (written, or the procedure the directive
 * stands before); 0 otherwise. */
static int hpi_variant_of(const hpi_plan *pl, const hpi_prag *d, const char **base, size_t *nb,
                          const char **var, size_t *nv)
{
    const char *p = strstr(d->text, "declare"), *c;

    if (!p || !(p = strstr(p, "variant")) || *(p = hpi_skipsp(p + 7)) != '(')
        return 0;
    p = hpi_skipsp(p + 1);
    for (c = p; *c && *c != ')' && !(c[0] == ':' && c[1] != ':' && (c == p || c[-1] != ':')); c++)
        ;
    if (*c == ':') {   /* base:variant */
        for (*nb = 0; hpi_id(p[*nb]); (*nb)++)
            ;
        *base = p;
        p = hpi_skipsp(c + 1);
    } else if (!(*base = hpi_declared_after(&pl->u->src, d->end, nb)))
        return 0;
    for (*nv = 0; hpi_id(p[*nv]); (*nv)++)
        ;
    *var = p;
    return *nv > 0 && *nb > 0;
}

/* 1 when the procedure called name is device code: its sites are left as
 * device code, device code calls it or names it. */
static int hpi_is_device_procedure(const hpi_plan *pl, const char *name, size_t n)
{
    size_t i;

    for (i = 0; i < pl->u->nsites; i++) {
        const hpi_site *t = &pl->u->sites[i];
        if ((t->kind == HPROF_SITE_PROCEDURE || t->kind == HPROF_SITE_CALL) && t->name &&
            (t->skip == hpi_why_device || t->skip == hpi_why_declared) &&
            strlen(t->name) == n && strncmp(t->name, name, n) == 0)
            return 1;
    }
    return hpi_device_mentions(pl, name, n);
}

/* The variants of device procedures (declare variant on them or on their
 * declarations) are compiled for the device with them: device code too;
 * 1 when a site was newly left as written. */
static int hpi_skip_variants(const hpi_plan *pl)
{
    size_t i, nb, nv;
    const char *base, *var;
    int more = 0;

    for (i = 0; i < pl->nprags; i++)
        if (hpi_src_past_skipped(&pl->u->src, pl->prags[i].start) == pl->prags[i].start &&
            hpi_variant_of(pl, &pl->prags[i], &base, &nb, &var, &nv) &&
            hpi_is_device_procedure(pl, base, nb) && hpi_skip_procedure(pl, var, nv) > 0)
            more = 1;
    return more;
}

/* The procedures of the unit that device code calls are device code too
 * (OpenMP 5.0 makes them declare target), and so are those they call
 * and the variants of all of them. */
static void hpi_skip_callees(const hpi_plan *pl)
{
    size_t i;
    int more = 1;

    for (i = 0; i < pl->u->nsites; i++) {
        const hpi_site *t = &pl->u->sites[i];
        if (t->kind == HPROF_SITE_PROCEDURE && !t->skip && t->name && hpi_device_mentions(pl, t->name, strlen(t->name)))
            hpi_skip_procedure(pl, t->name, strlen(t->name));
    }

    while (more) {
        more = hpi_skip_variants(pl);
        for (i = 0; i < pl->u->nsites; i++) {
            const hpi_site *t = &pl->u->sites[i];
            if (t->kind == HPROF_SITE_CALL && t->name &&
                (t->skip == hpi_why_device || t->skip == hpi_why_declared) &&
                hpi_skip_procedure(pl, t->name, strlen(t->name)) > 0)
                more = 1;
        }
    }
}

int hpi_target_find(hpi_plan *pl)
{
    size_t i, open = HPI_NONE;

    for (i = 0; i < pl->nprags; i++) {
        const hpi_prag *d = &pl->prags[i];
        const hpi_stmt *st;
        const char *why;
        hpi_omp o;
        int k, rc = 0;
        if (hpi_src_past_skipped(&pl->u->src, d->start) != d->start)
            continue;   /* in a region the preprocessor skips: o is not parsed */
        if (hpi_omp_parse(d->text, &o) < 0) {
            hpi_omp_clear(&o);
            continue;
        }
        k = hpi_declare_target(&o);
        if (k > 0 && open == HPI_NONE)
            open = d->start;
        else if (k < 0 && open != HPI_NONE) {
            rc = hpi_add_range(pl, open, d->end, hpi_why_device);
            open = HPI_NONE;
        } else if ((hpi_is_device_construct(&o) || hpi_is_teams(&o) || (pl->pomp && hpi_is_taskloop(&o))) &&
                   !hpi_range_of(pl, d->start, hpi_is_teams(&o)) && (st = hpi_stmt_after(pl, d, &why)) != NULL) {
            rc = hpi_add_range(pl, d->start, st->e,
                               hpi_is_device_construct(&o) ? hpi_why_device
                               : hpi_is_teams(&o) ? hpi_why_teams : hpi_why_taskloop);
        }
        hpi_omp_clear(&o);
        if (rc < 0)
            return -1;
    }
    return 0;
}

int hpi_in_device(const hpi_plan *pl, size_t off)
{
    return hpi_range_of(pl, off, 1) != NULL;
}

int hpi_in_device_procedure(const hpi_plan *pl, unsigned line)
{
    size_t i;

    for (i = 0; i < pl->u->nsites; i++) {
        const hpi_site *t = &pl->u->sites[i];
        if (t->kind == HPROF_SITE_PROCEDURE && (t->skip == hpi_why_device || t->skip == hpi_why_declared) &&
            t->line <= line && line <= t->end_line)
            return 1;
    }
    return 0;
}

void hpi_target_skip_sites(const hpi_plan *pl)
{
    size_t i;

    for (i = 0; i < pl->nprags; i++)
        if (hpi_src_past_skipped(&pl->u->src, pl->prags[i].start) == pl->prags[i].start)
            hpi_declared_names(pl->prags[i].text, hpi_skip_declared, pl);

    for (i = 0; i < pl->u->nsites; i++) {
        hpi_site *t = &pl->u->sites[i];
        const hpi_range *r = hpi_range_of(pl, t->start, 0);
        if (!t->skip && r)
            t->skip = r->why;
    }
    hpi_skip_callees(pl);
}
