/*
 * policy.c - which sites are worth a probe.  By default hprof-instrument
 * probes procedures, loops that make a call or hold an OpenMP construct,
 * outermost loops, and call and communication statements; these stay in
 * the site table with no probe (hpi_site.unprobed, HPROF_SITEINFO_UNPROBED),
 * their time measured in their parent's:
 *
 *  - a tiny procedure: no call, no OpenMP construct, and no loop but
 *    short ones (a constant trip count, collect_trip.c, at most
 *    HPI_TINY_ITERS iterations in all with the loops around it: bounded
 *    work, as straight-line code of any length is); a loop whose bounds
 *    are not constant may run any number of iterations, whatever the
 *    statement count (main never is tiny); so are the tiny procedures of
 *    the program's own headers (hpi_unit.hdr_tiny);
 *  - a loop nested in another loop that makes no call and holds no OpenMP
 *    construct (calls of math.h's arithmetic, and of tiny procedures of
 *    the file, whose calls are unprobed, do not count);
 *  - a call statement of a tiny procedure of the file or of one of the
 *    program's headers (timing the call costs what timing the procedure
 *    would), or of a procedure the filter excludes, or that an `exclude
 *    call FILE:LINE` rule names;
 *  - a loop an `exclude loop FILE:LINE` rule of the filter names.
 *
 * A probed procedure or loop inside which nothing can record is a leaf
 * (hpi_site.leaf, HPROF_SITEINFO_LEAF): every site inside it is unprobed
 * (calls only of tiny procedures of the file), it makes no other call but
 * of math.h's arithmetic and holds no OpenMP or hprof pragma; not when
 * the file is compiled with -finstrument-functions too (the hooks of the
 * tiny procedures record).  Once throttled its probes only count it.
 *
 * --loops=all and --procedures=all restore the probes of the first two
 * (and the third's tiny part).  An `include function X` rule of the filter
 * that names X keeps X's procedure probe and the probes of its calls.
 */
#include <stdlib.h>
#include <string.h>

#include "hpi.h"
#include "hprof_probe.h"
#include "hp_filter.h"

/* 1 when directive d is a pragma of `word` ("# pragma omp ..."). */
static int hpi_dir_is_pragma(const hpi_src *src, const hpi_dir *d, const char *word)
{
    size_t n = strlen(word);
    char *text = hpi_dir_text(src, d);
    const char *p = text;
    int omp = 0;

    if (!text)
        return 0;
    p += strspn(p, " \t#");
    if (strncmp(p, "pragma", 6) == 0) {
        p += 6;
        p += strspn(p, " \t");
        omp = strncmp(p, word, n) == 0 && (p[n] == 0 || p[n] == ' ' || p[n] == '\t');
    }
    free(text);
    return omp;
}

/* 1 when a pragma marked in is_omp starts in [a, b) (a loop's range
 * starts at the pragmas that bind it). */
static int hpi_has_omp(const hpi_src *src, const unsigned char *is_omp, size_t a, size_t b)
{
    size_t i;

    for (i = 0; i < src->ndirs; i++)
        if (is_omp[i] && src->dirs[i].start >= a && src->dirs[i].start < b)
            return 1;
    return 0;
}

static int hpi_site_has_omp(const hpi_unit *u, const unsigned char *is_omp, const hpi_site *t)
{
    size_t a = t->kind == HPROF_SITE_PROCEDURE ? t->start : t->open_off;

    if (t->par_bound)
        return 1;   /* bound to a combined parallel construct (maybe a macro's _Pragma) */
    return hpi_has_omp(&u->src, is_omp, a, t->close_off);
}

/* The procedure site around site i. */
static int hpi_proc_of(const hpi_unit *u, int i)
{
    while (i >= 0 && u->sites[i].kind != HPROF_SITE_PROCEDURE)
        i = u->sites[i].parent;
    return i;
}

/* 1 when a loop site encloses site i. */
static int hpi_nested(const hpi_unit *u, int i)
{
    int p;

    for (p = u->sites[i].parent; p >= 0; p = u->sites[p].parent)
        if (u->sites[p].kind == HPROF_SITE_LOOP)
            return 1;
    return 0;
}

/* 1 when loop i runs at most HPI_TINY_ITERS iterations of its body in
 * all per entry of its procedure: it and the loops around it have
 * constant trip counts whose product is that small. */
static int hpi_short_loop(const hpi_unit *u, int i)
{
    long iters = 1;
    int p;

    for (p = i; p >= 0 && u->sites[p].kind == HPROF_SITE_LOOP; p = u->sites[p].parent) {
        if (u->sites[p].trip < 0 || u->sites[p].skip)
            return 0;
        iters *= u->sites[p].trip > 0 ? u->sites[p].trip : 1;
        if (iters > HPI_TINY_ITERS)
            return 0;
    }
    return 1;
}

/* 1 when the filter's last rule matching procedure name is an include
 * rule naming it (not its file): an explicit request to measure it. */
static int hpi_forced(const hp_filter *f, const char *name)
{
    return f && hp_filter_names(f, name) == 1;
}

static void hpi_policy_procs(hpi_unit *u, const hpi_opts *o, const hp_filter *f,
                             const unsigned char *is_omp, const char *loops)
{
    size_t i;

    for (i = 0; i < u->nsites; i++) {
        hpi_site *t = &u->sites[i];
        if (t->kind != HPROF_SITE_PROCEDURE || t->skip || o->all_procs)
            continue;
        if (t->calls || loops[i] == 2 || strcmp(t->name, "main") == 0 || hpi_forced(f, t->name) ||
            hpi_site_has_omp(u, is_omp, t))
            continue;
        t->unprobed = loops[i] ? "tiny procedure: only short loops of constant trip count, no call"
                               : "tiny procedure: straight-line, no call";
    }
}

/* 1 when site a encloses site i. */
static int hpi_encloses(const hpi_unit *u, int a, int i)
{
    int p;

    for (p = u->sites[i].parent; p >= 0; p = u->sites[p].parent)
        if (p == a)
            return 1;
    return 0;
}

/* 1 when loop i makes a call worth its probe: one the policy cannot judge,
 * or a call or communication statement inside it that keeps its probe
 * (sites come parents first, so those inside follow i). */
static int hpi_loop_calls(const hpi_unit *u, size_t i)
{
    size_t j;

    if (u->sites[i].calls_out)
        return 1;
    if (!u->sites[i].calls)
        return 0;
    for (j = i + 1; j < u->nsites; j++) {
        const hpi_site *t = &u->sites[j];
        if ((t->kind == HPROF_SITE_CALL || t->kind == HPROF_SITE_COMM) && !t->unprobed &&
            hpi_encloses(u, (int)i, (int)j))
            return 1;
    }
    return 0;
}

static void hpi_policy_loops(hpi_unit *u, const hpi_opts *o, const hp_filter *f,
                             const unsigned char *is_omp)
{
    size_t i;

    for (i = 0; i < u->nsites; i++) {
        hpi_site *t = &u->sites[i];
        int proc;
        if (t->kind != HPROF_SITE_LOOP || t->skip)
            continue;
        if (!hp_filter_allows_loop(f, u->src.path, t->line)) {
            t->unprobed = "the filter excludes the loop";
            continue;
        }
        if (o->all_loops)
            continue;
        proc = hpi_proc_of(u, (int)i);
        if (proc >= 0 && u->sites[proc].unprobed)
            t->unprobed = "loop of a tiny procedure";
        else if (hpi_nested(u, (int)i) && !hpi_loop_calls(u, i) && !hpi_site_has_omp(u, is_omp, t))
            t->unprobed = "nested loop without calls or OpenMP";
    }
}

/* The procedure site of this unit named name, or NULL. */
static const hpi_site *hpi_find_proc(const hpi_unit *u, const char *name)
{
    size_t i;

    for (i = 0; i < u->nsites; i++)
        if (u->sites[i].kind == HPROF_SITE_PROCEDURE && strcmp(u->sites[i].name, name) == 0)
            return &u->sites[i];
    return NULL;
}

static void hpi_policy_calls(hpi_unit *u, const hpi_opts *o, const hp_filter *f)
{
    size_t i;

    for (i = 0; i < u->nsites; i++) {
        hpi_site *t = &u->sites[i];
        const hpi_site *callee;
        if (t->kind != HPROF_SITE_CALL || t->skip)
            continue;
        if (f && !hp_filter_allows(f, t->name, NULL))
            t->unprobed = "the filter excludes the callee";
        else if (!hp_filter_allows_call(f, u->src.path, t->line))
            t->unprobed = "the filter excludes the call statement";
        else if ((callee = hpi_find_proc(u, t->name)) && callee->unprobed && !callee->skip)
            t->unprobed = "call of a tiny procedure";
        else if (!callee && hpi_header_tiny(u, t->name) && !hpi_forced(f, t->name) && !o->all_procs)
            t->unprobed = "call of a tiny procedure of a header";
    }
}

/* 1 when site t, inside a probed procedure or loop, may record there. */
static int hpi_records(const hpi_unit *u, const hpi_site *t)
{
    const hpi_site *callee;

    if (t->skip)
        return 1;   /* no probe, but a call or loop all the same */
    if (t->kind == HPROF_SITE_CALL) {
        if (!t->unprobed)
            return 1;
        if (!(callee = hpi_find_proc(u, t->name)))
            return !hpi_header_tiny(u, t->name);   /* a tiny one of a header cannot record */
        return !callee->unprobed || callee->skip || callee->opaque;
    }
    return t->kind == HPROF_SITE_COMM || !t->unprobed;
}

static int hpi_instrument_functions(const hpi_opts *o)
{
    int i;

    for (i = 0; i < o->ncflags; i++)
        if (strcmp(o->cflags[i], "-finstrument-functions") == 0)
            return 1;
    return 0;
}

/* Marks the leaves (see the top of the file); pragmas: is_omp and
 * is_hprof of the unit's directives. */
static void hpi_policy_leaves(hpi_unit *u, const hpi_opts *o, const unsigned char *is_omp,
                              const unsigned char *is_hprof)
{
    char *inner = calloc(u->nsites + 1, 1);   /* something inside records */
    size_t i;
    int p;

    if (!inner || hpi_instrument_functions(o)) {
        free(inner);
        return;
    }
    for (i = 0; i < u->nsites; i++)
        if (hpi_records(u, &u->sites[i]))
            for (p = u->sites[i].parent; p >= 0; p = u->sites[p].parent)
                inner[p] = 1;
    for (i = 0; i < u->nsites; i++) {
        hpi_site *t = &u->sites[i];
        t->leaf = (t->kind == HPROF_SITE_PROCEDURE || t->kind == HPROF_SITE_LOOP) && !t->skip &&
                  !t->unprobed && !inner[i] && !t->opaque && !hpi_site_has_omp(u, is_omp, t) &&
                  !hpi_site_has_omp(u, is_hprof, t);
    }
    free(inner);
}

int hpi_policy(hpi_unit *u, const hpi_opts *o, char *err, size_t errlen)
{
    unsigned char *is_omp = calloc(u->src.ndirs + 1, 1);
    unsigned char *is_hprof = calloc(u->src.ndirs + 1, 1);
    char *loops = calloc(u->nsites + 1, 1);   /* procedure: 1 short loops, 2 a loop not short */
    hp_filter *f = NULL;
    size_t i;
    int p;

    if (!is_omp || !is_hprof || !loops) {
        free(is_omp);
        free(is_hprof);
        free(loops);
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    if (o->filter && !(f = hp_filter_load(o->filter, err, errlen))) {
        free(is_omp);
        free(is_hprof);
        free(loops);
        return -1;
    }
    for (i = 0; i < u->src.ndirs; i++) {
        is_omp[i] = (unsigned char)hpi_dir_is_pragma(&u->src, &u->src.dirs[i], "omp");
        is_hprof[i] = (unsigned char)hpi_dir_is_pragma(&u->src, &u->src.dirs[i], "hprof");
    }
    for (i = 0; i < u->nsites; i++)
        if (u->sites[i].kind == HPROF_SITE_LOOP && (p = hpi_proc_of(u, (int)i)) >= 0 && loops[p] < 2)
            loops[p] = hpi_short_loop(u, (int)i) ? 1 : 2;
    hpi_policy_procs(u, o, f, is_omp, loops);
    hpi_policy_calls(u, o, f);
    hpi_policy_loops(u, o, f, is_omp);
    hpi_policy_leaves(u, o, is_omp, is_hprof);
    hp_filter_free(f);
    free(is_omp);
    free(is_hprof);
    free(loops);
    return 0;
}

void hpi_policy_describe(const hpi_opts *o, FILE *fp)
{
    fprintf(fp, "policy: loops=%s procedures=%s tiny=loops<=%d\n",
            o->all_loops ? "all" : "default", o->all_procs ? "all" : "default", HPI_TINY_ITERS);
}
