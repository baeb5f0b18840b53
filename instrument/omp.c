/*
 * omp.c - the POMP2 rewriting of OpenMP directives (--omp), following
 * OPARI2's transformation so that code instrumented here and code
 * instrumented by opari2 feed the same POMP2 runtime:
 *
 *   parallel      { fork; #pragma omp parallel ... { begin; BODY
 *                   implicit barrier; end; } join; }
 *   for/for simd/sections
 *                 { enter; #pragma omp for ... nowait LOOP
 *                   [implicit barrier if it had no nowait] exit; }
 *   parallel for [simd], parallel sections
 *                 split into a parallel part and a worksharing part
 *                 (omp_split.c), each with its calls; the probe of the
 *                 loop of a parallel for opens between the two, inside
 *                 the team; one a split would change (inscan or task
 *                 reduction, ...: omp_split.c) is kept whole, inside
 *                 hprof_region_begin/end named after it
 *   single, master, masked (as master), critical, atomic, flush, ordered,
 *   barrier, taskwait, task (create begin/end around, begin/end inside),
 *   section
 *   taskgroup     { #pragma omp taskgroup { BODY wait_begin; } wait_end; }
 *                 with hprof's own hprof_pomp2_taskgroup_wait_begin/end
 *                 (opari2 2.0.7 has no POMP2 call for taskgroup)
 *
 * The pragmas are the #pragma lines and the _Pragma("omp ...") operators
 * written in the code; a pragma whose statement is the unbraced body of
 * an if/else/loop or follows a label gets the braces of its rewriting.
 * Every opener stays on the line of its pragma: the text before the pragma
 * goes on the pragma's line, the pragma is re-emitted on a line of its own
 * after "#line L", and "#line" restores the numbering after it.  Region
 * handles are __hprof_pomp_h[i], reached through the function __hprof_pr(i)
 * so that default(none) regions need no extra clause; the ctc strings are
 * opari2's ("LEN*regionType=...*sscl=FILE:L1:L2*escl=FILE:E:E*...**") and
 * are registered by a constructor through POMP2_Assign_handle.  Pragmas
 * that cannot be rewritten safely (_Pragma made by a macro, constructs
 * without POMP2 events such as simd, taskloop, target, unknown clauses,
 * pragmas separated from their statement by directives other than
 * pragmas and conditionals) stay exactly as they were, with a note for
 * --list; between a pragma and its statement, the conditional code the
 * preprocessor leaves out (libclang's skipped ranges) is passed over, and
 * pragmas inside it are left alone.  Without --omp only the split of
 * parallel loops is made (their loop probes then open inside the team as
 * well).  This file finds the pragmas and their statements and
 * turns each rewriting into edits; omp_construct.c writes the rewriting
 * of each construct, omp_clause.c parses pragmas and writes text.
 */
#include <assert.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "hpi.h"
#include "hpi_omp.h"

int hpi_omp_note(hpi_unit *u, unsigned line, const char *why)
{
    char buf[256], **p = realloc(u->omp_notes, (u->nnotes + 1) * sizeof *p);

    if (!p)
        return -1;
    u->omp_notes = p;
    snprintf(buf, sizeof buf, "%u: %s", line, why);
    if (!(p[u->nnotes] = strdup(buf)))
        return -1;
    u->nnotes++;
    return 0;
}

static int hpi_add_edit(hpi_unit *u, size_t off, size_t end, size_t key, int open, char *text)
{
    hpi_edit *e;

    if (!text)
        return -1;
    if (u->nedits == u->ecap) {
        size_t n = u->ecap ? u->ecap * 2 : 32;
        hpi_edit *p = realloc(u->edits, n * sizeof *p);
        if (!p) {
            free(text);
            return -1;
        }
        u->edits = p;
        u->ecap = n;
    }
    e = &u->edits[u->nedits++];
    e->off = off;
    e->end = end;
    e->key = key;
    e->open = open;
    e->text = text;
    return 0;
}

/* Appends a region; its index, -1 when out of memory. */
int hpi_add_region(hpi_unit *u, const char *type, unsigned l1, unsigned l2,
                          unsigned e1, const char *extra)
{
    hpi_buf b = { 0 };
    hpi_region *r;

    if (u->nregions == u->rcap) {
        size_t n = u->rcap ? u->rcap * 2 : 16;
        hpi_region *p = realloc(u->regions, n * sizeof *p);
        if (!p)
            return -1;
        u->regions = p;
        u->rcap = n;
    }
    hpi_bput(&b, "*regionType=%s*sscl=%s:%u:%u*escl=%s:%u:%u%s**", type, u->src.path, l1, l2,
             u->src.path, e1, e1, extra ? extra : "");
    r = &u->regions[u->nregions];
    r->ctc = hpi_btake(&b);
    r->type = strdup(type);
    if (!r->ctc || !r->type) {
        free(r->ctc);
        free(r->type);
        return -1;
    }
    r->line = l1;
    r->end_line = e1;
    return (int)u->nregions++;
}

static const hpi_prag *hpi_prag_at(const hpi_plan *pl, size_t off)
{
    size_t i;

    for (i = 0; i < pl->nprags; i++)
        if (pl->prags[i].op && pl->prags[i].start == off)
            return &pl->prags[i];
    return NULL;
}

/* 1 when directive x may stand between a pragma and its statement: an
 * omp (or other) pragma of a construct nested in it, or a conditional
 * (#if, #ifdef, #elif, #else, #endif) choosing the code the statement is
 * made of. */
static int hpi_dir_between(const hpi_src *s, const hpi_dir *x)
{
    const char *t = s->text + x->start + 1;

    if (x->kind == HPI_D_IF || x->kind == HPI_D_ELSE || x->kind == HPI_D_ENDIF)
        return 1;
    while (*t == ' ' || *t == '\t')
        t++;
    return strncmp(t, "pragma", 6) == 0 && x->kind != HPI_D_OTHER;
}

/* The statement right after pragma d (other omp pragmas and conditional
 * directives in between allowed, the conditional code the preprocessor
 * leaves out skipped); NULL with *why set when there is none we can
 * wrap.  The rewriting's opener then stays at the pragma and its closer
 * follows the statement: the code the compiler sees is that of the same
 * preprocessor flags. */
const hpi_stmt *hpi_stmt_after(hpi_plan *pl, const hpi_prag *d, const char **why)
{
    const hpi_src *s = &pl->u->src;
    size_t at = d->after, lo = 0, hi = pl->nstmts, best = HPI_NONE, i;

    for (;;) {
        size_t p = hpi_src_next_nonspace(s, at);
        const hpi_dir *x;
        const hpi_prag *op;
        if (p >= s->len) {
            *why = "no statement follows";
            return NULL;
        }
        if (hpi_src_past_skipped(s, p) != p) {
            at = hpi_src_past_skipped(s, p);
            continue;
        }
        if ((op = hpi_prag_at(pl, p)) != NULL) {
            at = op->end;
            continue;
        }
        if (s->cls[p] != HPI_C_DIRECTIVE) {
            at = p;
            break;
        }
        x = hpi_src_dir_at(s, p);
        if (!x) {
            *why = "no statement follows";
            return NULL;
        }
        if (!hpi_dir_between(s, x)) {
            *why = "another directive between the pragma and its statement: left as is (not recorded)";
            return NULL;
        }
        at = x->end + 1;
    }
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (pl->stmts[mid].s < at)
            lo = mid + 1;
        else
            hi = mid;
    }
    for (i = lo; i < pl->nstmts && pl->stmts[i].s == at; i++)
        if (best == HPI_NONE || pl->stmts[i].e > pl->stmts[best].e)
            best = i;
    if (best == HPI_NONE) {
        *why = "its statement is not plain code of the file (macro or not found)";
        return NULL;
    }
    if (!hpi_src_balanced_kept(s, pl->stmts[best].s, pl->stmts[best].e)) {
        *why = "unbalanced statement (macros or conditional code)";
        return NULL;
    }
    return &pl->stmts[best];
}

/* A directive's replacement ends before its newline: drop the last "\n"
 * of the #line so the newline of the source ends that line. */
static void hpi_end_before_newline(hpi_ctx *c, hpi_buf *last)
{
    if (!c->d->op && last->n && last->p[last->n - 1] == '\n')
        last->p[--last->n] = 0;
}

/* A closer after the statement, on a line of its own (as line e1) when
 * line: clang's -Wmisleading-indentation takes code right after a loop
 * body on its line for a statement meant to be in the loop. */
static const char *hpi_add_closer(hpi_ctx *c, size_t key, int line, hpi_buf *text)
{
    hpi_buf cl = { 0 };

    if (line)
        hpi_bline(&cl, c->u, c->e1);
    hpi_bput(&cl, "%s", text->p ? text->p : "");
    if (cl.oom) {
        free(cl.p);
        return hpi_oom;
    }
    if (hpi_add_edit(c->u, c->st->e, c->st->e, key, 0, hpi_btake(&cl)) < 0)
        return hpi_oom;
    return NULL;
}

/* The opener replaces the pragma, the closer follows the statement.  A
 * split construct has two of each: the parallel part's (key d->start)
 * around the worksharing part's (key d->start + 1), with the loop probe
 * of a split parallel loop between them (omp_split.c). */
static const char *hpi_plan_edits(hpi_ctx *c)
{
    size_t key = c->d->start;
    const char *why;

    if (!c->wpre.p) {
        hpi_end_before_newline(c, &c->pre);
        if (hpi_add_edit(c->u, key, c->d->end, key, 1, hpi_btake(&c->pre)) < 0)
            return hpi_oom;
        return c->st ? hpi_add_closer(c, key, 1, &c->post) : NULL;
    }
    assert(c->st);
    hpi_end_before_newline(c, &c->wpre);
    if (hpi_add_edit(c->u, key, c->d->end, key, 1, hpi_btake(&c->pre)) < 0 ||
        hpi_add_edit(c->u, key, key, key + 1, 1, hpi_btake(&c->wpre)) < 0)
        return hpi_oom;
    if ((why = hpi_add_closer(c, key + 1, 1, &c->wpost)) != NULL ||
        (why = hpi_add_closer(c, key, 0, &c->post)) != NULL)
        return why;
    if (hpi_split_is_loop(c->o))
        hpi_split_loop_probe(c->u, c->d, c->st);
    return NULL;
}

/* Why a construct without POMP2 events stays as it is, or NULL when it
 * is one that is rewritten. */
static const char *hpi_unrewritten(const hpi_omp *o)
{
    static const char *const kept[] = {
        "simd", "target", "teams", "distribute", "declare", "taskloop", "loop", "requires",
        "threadprivate", "allocate", "scan", "tile", "unroll", "taskyield", "cancel",
        "cancellation", "depobj", "metadirective", "interop", "dispatch", "assume",
        "error", "nothing", "scope", "workshare", "begin", "end", NULL
    };
    const char *w0 = o->words[0];
    int i;

    if (o->nwords == 1 || (o->nwords == 2 && strcmp(w0, "for") == 0 && strcmp(o->words[1], "simd") == 0) ||
        (strcmp(w0, "parallel") == 0 && (o->nwords == 2 ? strcmp(o->words[1], "for") == 0 ||
                                                           strcmp(o->words[1], "sections") == 0
                                                         : strcmp(o->words[1], "for") == 0 &&
                                                           strcmp(o->words[2], "simd") == 0))) {
        for (i = 0; kept[i]; i++)
            if (strcmp(w0, kept[i]) == 0)
                return "no POMP2 events for it (as opari2): left as is";
        return NULL;
    }
    for (i = 0; kept[i]; i++)
        if (strcmp(o->words[o->nwords - 1], kept[i]) == 0 || strcmp(w0, kept[i]) == 0)
            return "no POMP2 events for it (as opari2): left as is";
    return "combined construct not rewritten: left as is";
}

/* Plans one pragma; returns the reason it stays as it is, or NULL. */
static const char *hpi_plan_dir(hpi_plan *pl, const hpi_prag *d, hpi_omp *o,
                                hpi_secs *secs, size_t *nsecs)
{
    static const struct {
        const char *word;
        const char *(*fn)(hpi_ctx *);
        int standalone;
    } kinds[] = {
        { "parallel", hpi_plan_parallel, 0 }, { "for", hpi_plan_for, 0 },
        { "sections", hpi_plan_for, 0 }, { "section", hpi_plan_section, 0 },
        { "single", hpi_plan_single, 0 }, { "master", hpi_plan_master, 0 },
        { "masked", hpi_plan_master, 0 }, { "critical", hpi_plan_critical, 0 },
        { "ordered", hpi_plan_critical, 0 }, { "atomic", hpi_plan_atomic, 0 },
        { "task", hpi_plan_task, 0 }, { "taskgroup", hpi_plan_taskgroup, 0 },
        { "barrier", hpi_plan_standalone, 1 }, { "taskwait", hpi_plan_standalone, 1 },
        { "flush", hpi_plan_standalone, 1 }, { NULL, NULL, 0 }
    };
    hpi_ctx c;
    const char *why;
    const char *(*fn)(hpi_ctx *);
    int i;

    if ((why = hpi_unrewritten(o)) != NULL)
        return why;
    for (i = 0; kinds[i].word; i++)
        if (strcmp(o->words[0], kinds[i].word) == 0)
            break;
    if (!kinds[i].word)
        return "construct not rewritten";
    fn = pl->pomp ? kinds[i].fn : hpi_plan_split_plain;
    memset(&c, 0, sizeof c);
    c.pl = pl;
    c.u = pl->u;
    c.d = d;
    c.o = o;
    c.l1 = d->l1;
    c.l2 = c.e1 = d->l2;
    c.lr = d->resume;
    c.nowait = hpi_has(o, "nowait") >= 0;
    c.secs = secs;
    c.nsecs = nsecs;
    if (kinds[i].standalone) {
        if (o->ncl > (o->words[0][0] == 'f' && o->ncl && !o->cl[0].name[0]))
            return "clauses not rewritten";
    } else {
        if (!(c.st = hpi_stmt_after(pl, d, &why)))
            return why;
        c.e1 = hpi_src_line(&pl->u->src, c.st->e - 1);
    }
    hpi_ctc_extra(&c.ex, o);
    why = fn(&c);
    free(c.ex.p);
    if (!why && (c.pre.oom || c.post.oom || c.wpre.oom || c.wpost.oom))
        why = hpi_oom;
    if (!why)
        why = hpi_plan_edits(&c);
    if (why == hpi_oom)
        pl->oom = 1;
    free(c.pre.p);
    free(c.post.p);
    free(c.wpre.p);
    free(c.wpost.p);
    return why;
}

/* Plans one parsed pragma: with POMP2 every construct, without it only
 * the split of parallel loops. */
static void hpi_plan_prag(hpi_plan *pl, const hpi_prag *d, hpi_omp *o,
                          hpi_secs *secs, size_t *nsecs)
{
    const char *why;

    if (!pl->pomp && !hpi_split_is_loop(o))
        return;
    /* scan separates the two phases of its loop's iterations: not a
     * construct, nothing to record (its loop is kept whole) */
    if (strcmp(o->words[0], "scan") == 0)
        return;
    why = hpi_plan_dir(pl, d, o, secs, nsecs);
    if (why && pl->pomp && hpi_omp_note(pl->u, d->l1, why) < 0)
        pl->oom = 1;
}

/* "_Pragma ( "..." )" at off in the code: its end and the string's text
 * with the escapes undone (malloc'ed), or NULL. */
static char *hpi_op_at(const hpi_src *s, size_t off, size_t *end)
{
    size_t p, q, n = 0;
    char *t;

    if (off + 7 > s->len || strncmp(s->text + off, "_Pragma", 7) != 0 || s->cls[off] != HPI_C_CODE ||
        (off > 0 && hpi_id(s->text[off - 1])) || hpi_id(s->text[off + 7]))
        return NULL;
    p = hpi_src_next_nonspace(s, off + 7);
    if (p >= s->len || s->text[p] != '(')
        return NULL;
    q = hpi_src_next_nonspace(s, p + 1);
    if (q >= s->len || s->text[q] != '"')
        return NULL;
    for (p = q + 1; p < s->len && s->text[p] != '"' && s->text[p] != '\n'; p += s->text[p] == '\\' ? 2 : 1)
        ;
    if (p >= s->len || s->text[p] != '"')
        return NULL;
    *end = hpi_src_next_nonspace(s, p + 1);
    if (*end >= s->len || s->text[*end] != ')')
        return NULL;
    (*end)++;
    if (!(t = malloc(p - q + 9)))
        return NULL;
    n = (size_t)sprintf(t, "#pragma ");
    for (q++; q < p; q++)
        t[n++] = s->text[q] == '\\' && (s->text[q + 1] == '"' || s->text[q + 1] == '\\') ? s->text[++q] : s->text[q];
    t[n] = 0;
    return t;
}

/* 1 when the text (after "#pragma") is an omp one. */
static int hpi_is_omp(const char *t)
{
    t = hpi_skipsp(t);
    return strncmp(t, "omp", 3) == 0 && !hpi_id(t[3]);
}

int hpi_omp_has_pragmas(const hpi_src *s)
{
    size_t i, end;

    for (i = 0; i < s->ndirs; i++) {
        const char *t = s->text + s->dirs[i].start + 1;
        const char *e = s->text + s->dirs[i].end;
        while (t < e && (*t == ' ' || *t == '\t'))
            t++;
        if (e - t > 6 && strncmp(t, "pragma", 6) == 0) {
            t += 6;
            while (t < e && (*t == ' ' || *t == '\t'))
                t++;
            if (e - t >= 3 && strncmp(t, "omp", 3) == 0 && (e - t == 3 || !hpi_id(t[3])))
                return 1;
        }
    }
    for (i = 0; i + 7 < s->len; i++) {
        char *t;
        if (s->text[i] != '_' || !(t = hpi_op_at(s, i, &end)))
            continue;
        end = hpi_is_omp(t + 7);
        free(t);
        if (end)
            return 1;
    }
    return 0;
}

int hpi_omp_lock(hpi_unit *u, const char *name, size_t s)
{
    static const char *const locks[][2] = {
        { "omp_init_lock", "POMP2_Init_lock" }, { "omp_destroy_lock", "POMP2_Destroy_lock" },
        { "omp_set_lock", "POMP2_Set_lock" }, { "omp_unset_lock", "POMP2_Unset_lock" },
        { "omp_test_lock", "POMP2_Test_lock" }, { "omp_init_nest_lock", "POMP2_Init_nest_lock" },
        { "omp_destroy_nest_lock", "POMP2_Destroy_nest_lock" },
        { "omp_set_nest_lock", "POMP2_Set_nest_lock" },
        { "omp_unset_nest_lock", "POMP2_Unset_nest_lock" },
        { "omp_test_nest_lock", "POMP2_Test_nest_lock" }, { NULL, NULL }
    };
    int i;
    size_t n = strlen(name);

    for (i = 0; locks[i][0]; i++)
        if (strcmp(name, locks[i][0]) == 0)
            break;
    if (!locks[i][0] || s + n > u->src.len || strncmp(u->src.text + s, name, n) != 0 ||
        hpi_id(u->src.text[s + n]) || (s > 0 && hpi_id(u->src.text[s - 1])))
        return 0;
    u->omp_locks = 1;
    return hpi_add_edit(u, s, s + n, s, 1, strdup(locks[i][1]));
}

static int hpi_push_prag(hpi_plan *pl, size_t *cap, const hpi_prag *p)
{
    if (pl->nprags == *cap) {
        size_t n = *cap ? *cap * 2 : 32;
        hpi_prag *q = realloc(pl->prags, n * sizeof *q);
        if (!q)
            return -1;
        pl->prags = q;
        *cap = n;
    }
    pl->prags[pl->nprags++] = *p;
    return 0;
}

/* 1 when off is inside a macro invocation (libclang records the
 * _Pragma operator itself as one: that starts at off). */
static int hpi_in_macro(const hpi_stmt *macros, size_t nmacros, size_t off)
{
    size_t i;

    for (i = 0; i < nmacros; i++)
        if (macros[i].s < off && off < macros[i].e)
            return 1;
    return 0;
}

/* The omp pragmas of the unit in file order: #pragma lines and _Pragma
 * operators of the code outside macro invocations. */
static int hpi_find_prags(hpi_plan *pl, const hpi_stmt *macros, size_t nmacros)
{
    const hpi_src *s = &pl->u->src;
    size_t cap = 0, i, d = 0;

    for (i = 0; i <= s->len; i++) {
        hpi_prag p;
        memset(&p, 0, sizeof p);
        if (d < s->ndirs && s->dirs[d].start <= i) {
            const hpi_dir *x = &s->dirs[d++];
            p.start = x->start;
            p.end = x->end;
            p.after = x->end + 1;
            p.l1 = hpi_src_line(s, x->start);
            p.l2 = hpi_src_line(s, x->end ? x->end - 1 : 0);
            p.resume = p.l2 + 1;
            if (!(p.text = hpi_dir_text(s, x)))
                return -1;
            i = x->end;
        } else if (i < s->len && s->text[i] == '_' && s->cls[i] == HPI_C_CODE &&
                   (p.text = hpi_op_at(s, i, &p.end)) != NULL) {
            if (!hpi_is_omp(p.text + 7) || hpi_in_macro(macros, nmacros, i)) {
                free(p.text);
                continue;
            }
            p.start = i;
            p.after = p.end;
            p.op = 1;
            p.l1 = hpi_src_line(s, i);
            p.l2 = p.resume = hpi_src_line(s, p.end - 1);
            i = p.end - 1;
        } else {
            continue;
        }
        if (hpi_push_prag(pl, &cap, &p) < 0) {
            free(p.text);
            return -1;
        }
    }
    return 0;
}

static void hpi_note_unparsed(hpi_plan *pl, const hpi_prag *d)
{
    const char *p = hpi_skipsp(d->text + 1);

    if (strncmp(p, "pragma", 6) == 0 && hpi_is_omp(p + 6) && !strstr(p, "omp inst") &&
        hpi_omp_note(pl->u, d->l1, "not understood") < 0)
        pl->oom = 1;
}

int hpi_omp_plan(hpi_unit *u, const hpi_stmt *stmts, size_t nstmts,
                 const hpi_stmt *macros, size_t nmacros, int pomp)
{
    hpi_plan pl;
    hpi_secs secs[64];
    size_t i, nsecs = 0;

    memset(&pl, 0, sizeof pl);
    pl.u = u;
    pl.stmts = stmts;
    pl.nstmts = nstmts;
    pl.pomp = pomp;
    if (hpi_find_prags(&pl, macros, nmacros) < 0 || hpi_target_find(&pl) < 0)
        pl.oom = 1;
    hpi_target_skip_sites(&pl);
    for (i = 0; i < pl.nprags && !pl.oom; i++) {
        const hpi_prag *d = &pl.prags[i];
        hpi_omp o;
        if (hpi_src_past_skipped(&u->src, d->start) != d->start)
            continue;   /* conditional code the compiler never sees */
        if (hpi_in_device(&pl, d->start) || hpi_in_device_procedure(&pl, d->l1))
            continue;   /* device code, a taskloop's body, in host teams: left as written (omp_asis.c) */
        if (hpi_omp_parse(d->text, &o) < 0) {
            if (pomp)
                hpi_note_unparsed(&pl, d);
            hpi_omp_clear(&o);
            continue;
        }
        hpi_plan_prag(&pl, d, &o, secs, &nsecs);
        hpi_omp_clear(&o);
    }
    hpi_split_drop_outside(u);
    for (i = 0; i < pl.nprags; i++)
        free(pl.prags[i].text);
    free(pl.prags);
    free(pl.dev);
    return pl.oom ? -1 : 0;
}

void hpi_omp_free(hpi_unit *u)
{
    size_t i;

    for (i = 0; i < u->nedits; i++)
        free(u->edits[i].text);
    free(u->edits);
    for (i = 0; i < u->nregions; i++) {
        free(u->regions[i].type);
        free(u->regions[i].ctc);
    }
    free(u->regions);
    for (i = 0; i < u->nnotes; i++)
        free(u->omp_notes[i]);
    free(u->omp_notes);
}
