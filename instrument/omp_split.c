/*
 * omp_split.c - combined parallel worksharing constructs (parallel for,
 * parallel for simd, parallel sections) split into a parallel part and a
 * worksharing part:
 *
 *   #pragma omp parallel PARALLEL-CLAUSES
 *   { [loop probe]
 *   #pragma omp for WORKSHARING-CLAUSES nowait
 *   LOOP }
 *
 * which the OpenMP specification defines as the same program.  The split
 * is what lets a loop probe open inside the team, around the share of the
 * loop each thread runs, instead of around the whole region on the
 * encountering thread only.  The POMP2 rewriting (omp_construct.c) adds
 * its calls around both parts; without --omp the plan only splits
 * (hpi_plan_split_plain).  The parallel part keeps if, num_threads,
 * default, shared, private, firstprivate, copyin, proc_bind and (but for
 * simd) reduction; the worksharing part schedule, ordered, collapse,
 * lastprivate, linear and with simd reduction and the simd clauses; items
 * moved off the parallel part are made shared on it (lastprivate, linear,
 * and with simd reduction: OpenMP 5.x's rules for clauses on combined
 * constructs).  The split is refused where it would not be the same
 * program (hpi_split_whole_why): an inscan or task reduction, which the
 * loop must own with its own end (gcc rejects the scan directive of a
 * split exclusive scan; clang's for simd inscan with nowait computes
 * wrong prefixes), lastprivate(conditional:), a linear item with a
 * modifier, an if clause on parallel for simd (OpenMP 5.0 applies it to
 * simd as well).  A combined parallel construct that is not split keeps
 * its pragma, and its loop gets no probe: one around the region would
 * hold the records of one thread only; with POMP2 it is measured as one
 * user region around it (omp_construct.c).
 */
#include <assert.h>
#include <stdlib.h>
#include <string.h>

#include "hpi.h"
#include "hpi_omp.h"
#include "hprof_probe.h"

#define HPI_SIMD_CL "safelen", "simdlen", "aligned", "nontemporal", "order"
#define HPI_PAR_CL "if", "num_threads", "default", "shared", "private", "firstprivate", \
    "copyin", "proc_bind", "reduction"

/* 1 when o is parallel for, parallel for simd or parallel sections. */
static int hpi_split_kind(const hpi_omp *o)
{
    if (o->nwords < 2 || strcmp(o->words[0], "parallel") != 0)
        return 0;
    if (o->nwords == 2)
        return strcmp(o->words[1], "for") == 0 || strcmp(o->words[1], "sections") == 0;
    return o->nwords == 3 && strcmp(o->words[1], "for") == 0 && strcmp(o->words[2], "simd") == 0;
}

static int hpi_split_is_simd(const hpi_omp *o)
{
    return o->nwords == 3;
}

static int hpi_split_is_for(const hpi_omp *o)
{
    return o->nwords >= 2 && strcmp(o->words[1], "for") == 0;
}

int hpi_split_is_loop(const hpi_omp *o)
{
    return hpi_split_kind(o) && hpi_split_is_for(o);
}


/* The modifier of a reduction clause ("inscan" of "inscan, +: x"), copied
 * to m; "" when it has none. */
static void hpi_reduction_modifier(const hpi_clause *c, char *m, size_t size)
{
    const char *colon = c->arg ? strchr(c->arg, ':') : NULL;
    const char *comma = c->arg ? strchr(c->arg, ',') : NULL;
    size_t n = 0;

    m[0] = 0;
    if (!colon || !comma || comma > colon)
        return;
    for (const char *p = hpi_skipsp(c->arg); hpi_id(*p) && n + 1 < size; p++)
        m[n++] = *p;
    m[n] = 0;
}

/* 1 when the items of a linear clause (before its ": step") are plain
 * names, no val/ref/uval modifier, and its step has no comma (the items
 * are read up to the commas). */
static int hpi_linear_plain(const hpi_clause *c)
{
    char items[256];
    const char *colon = c->arg ? strchr(c->arg, ':') : NULL;
    size_t n = c->arg ? (colon ? (size_t)(colon - c->arg) : strlen(c->arg)) : 0;

    if (!c->arg || n >= sizeof items || (colon && strchr(colon, ',')))
        return 0;
    memcpy(items, c->arg, n);
    items[n] = 0;
    return hpi_plain_items(items);
}

const char *hpi_split_whole_why(const hpi_omp *o)
{
    int k;

    assert(hpi_split_kind(o));
    for (k = 0; k < o->ncl; k++) {
        const hpi_clause *c = &o->cl[k];
        char m[16];
        if (strcmp(c->name, "reduction") == 0) {
            hpi_reduction_modifier(c, m, sizeof m);
            if (strcmp(m, "inscan") == 0)
                return "inscan reduction: its scan belongs to the loop construct";
            if (strcmp(m, "task") == 0)
                return "task reduction: the loop construct cannot take nowait";
        } else if (strcmp(c->name, "linear") == 0 && !hpi_linear_plain(c)) {
            return "linear item with a modifier";
        } else if (strcmp(c->name, "lastprivate") == 0 && c->arg && strchr(c->arg, ':')) {
            return "lastprivate with the conditional modifier";
        } else if (strcmp(c->name, "if") == 0 && hpi_split_is_simd(o)) {
            return "if clause applies to simd as well";
        }
    }
    return NULL;
}

const char *hpi_split_why(const hpi_omp *o)
{
    static const char *const ok_par[] = { HPI_PAR_CL, NULL };
    static const char *const ok_for[] = {
        HPI_PAR_CL, "schedule", "ordered", "collapse", "lastprivate", "linear", NULL
    };
    static const char *const ok_simd[] = {
        HPI_PAR_CL, "schedule", "ordered", "collapse", "lastprivate", "linear", HPI_SIMD_CL, NULL
    };
    static const char *const ok_sec[] = { HPI_PAR_CL, "lastprivate", NULL };
    int k, split = o->nwords >= 2, simd = hpi_split_is_simd(o);
    const char *why;

    assert(o->nwords == 1 || hpi_split_kind(o));
    if (split && (why = hpi_split_whole_why(o)) != NULL)
        return why;
    if (!hpi_only(o, !split ? ok_par : simd ? ok_simd : hpi_split_is_for(o) ? ok_for : ok_sec))
        return "clauses not rewritten";
    if ((k = hpi_has(o, "if")) >= 0 && (!o->cl[k].arg || strchr(o->cl[k].arg, ':')))
        return "if clause with a modifier not rewritten";
    if (split && hpi_last_conflict(o))
        return "lastprivate items also private/firstprivate/reduction: not split";
    for (k = 0; simd && k < o->ncl; k++)
        if (strcmp(o->cl[k].name, "reduction") == 0 && (!o->cl[k].arg || !hpi_plain_items(hpi_items(&o->cl[k]))))
            return "reduction items that are not plain names: not split";
    return NULL;
}

void hpi_split_parallel_pragma(hpi_buf *b, const hpi_omp *o, int pomp)
{
    static const char *const keep_pomp[] = {
        "default", "shared", "private", "firstprivate", "copyin", "proc_bind", "reduction", NULL
    };
    static const char *const keep_pomp_simd[] = {
        "default", "shared", "private", "firstprivate", "copyin", "proc_bind", NULL
    };
    static const char *const keep_plain[] = {
        "if", "num_threads", "default", "shared", "private", "firstprivate", "copyin",
        "proc_bind", "reduction", NULL
    };
    static const char *const keep_plain_simd[] = {
        "if", "num_threads", "default", "shared", "private", "firstprivate", "copyin",
        "proc_bind", NULL
    };
    int simd = hpi_split_is_simd(o);
    hpi_buf extra = { 0 };

    if (pomp)
        hpi_bput(&extra, " if(pomp2_if) num_threads(pomp2_num_threads)");
    /* items of the clauses moved to the worksharing part: shared here */
    if (o->nwords >= 2) {
        hpi_shared_items(&extra, o, "lastprivate");
        hpi_shared_items(&extra, o, "linear");
    }
    if (simd)
        hpi_shared_items(&extra, o, "reduction");
    hpi_bpragma(b, "parallel", o, pomp ? (simd ? keep_pomp_simd : keep_pomp) : (simd ? keep_plain_simd : keep_plain),
                extra.p);
    free(extra.p);
    if (extra.oom)
        b->oom = 1;
}

void hpi_split_ws_pragma(hpi_buf *b, const hpi_omp *o)
{
    static const char *const keep_for[] = { "schedule", "ordered", "collapse", "lastprivate", "linear", NULL };
    static const char *const keep_simd[] = {
        "schedule", "ordered", "collapse", "lastprivate", "linear", "reduction", HPI_SIMD_CL, NULL
    };
    static const char *const keep_sec[] = { "lastprivate", NULL };
    int simd = hpi_split_is_simd(o), is_for = hpi_split_is_for(o);

    assert(hpi_split_kind(o));
    hpi_bpragma(b, simd ? "for simd" : is_for ? "for" : "sections", o,
                simd ? keep_simd : is_for ? keep_for : keep_sec, " nowait");
}

/* Only parallel loops are split without --omp: a parallel sections has
 * no loop probe to place. */
const char *hpi_plan_split_plain(hpi_ctx *c)
{
    const char *why;

    assert(hpi_split_is_loop(c->o));
    if ((why = hpi_split_why(c->o)) != NULL)
        return why;
    /* braces around: the pragma may be the body of an if or a loop, or
     * follow a label */
    hpi_bput(&c->pre, "{");
    hpi_bline(&c->pre, c->u, c->l1);
    hpi_split_parallel_pragma(&c->pre, c->o, 0);
    hpi_bput(&c->pre, "\n{");
    hpi_bline(&c->wpre, c->u, c->l1);
    hpi_split_ws_pragma(&c->wpre, c->o);
    hpi_bline(&c->wpre, c->u, c->lr);
    hpi_bput(&c->post, " } }");
    return NULL;
}

/* The loop site whose loop statement starts at st, with a probe; NULL
 * if none (the first in preorder: an enclosing loop starts before it). */
static hpi_site *hpi_split_loop_site(hpi_unit *u, const hpi_stmt *st)
{
    size_t i;

    for (i = 0; i < u->nsites; i++) {
        hpi_site *t = &u->sites[i];
        if (t->kind == HPROF_SITE_LOOP && t->start == st->s)
            return t->skip ? NULL : t;
    }
    return NULL;
}

/* The parts' edits have the keys d->start (parallel part) and
 * d->start + 1 (worksharing part): the probe, at d->start with the key
 * d->start + 1, opens after the parallel part's opener and before the
 * worksharing part's (probes go before edits of the same key), and
 * closes after the worksharing part's closer and before the parallel
 * part's. */
void hpi_split_loop_probe(hpi_unit *u, const hpi_prag *d, const hpi_stmt *st)
{
    hpi_site *t = hpi_split_loop_site(u, st);

    if (!t)
        return;
    assert(t->open_off <= d->start && t->close_off == st->e);
    t->open_off = d->start;
    t->nest_key = d->start + 1;
    t->open_line = 0;
}

/* A probe left around a combined parallel construct would hold the
 * whole region on the encountering thread only: the construct was not
 * split (clauses, made by a macro, under #if, taskloop, target, ...). */
void hpi_split_drop_outside(hpi_unit *u)
{
    size_t i;

    for (i = 0; i < u->nsites; i++) {
        hpi_site *t = &u->sites[i];
        if (t->par_bound && !t->nest_key && !t->skip)
            t->skip = "bound to a combined parallel construct that is not split "
                      "(its probe would be outside the team)";
    }
}
