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
 *                 split: parallel part (if, num_threads, default, shared,
 *                 private, firstprivate, copyin, proc_bind, reduction) and
 *                 worksharing part (schedule, ordered, collapse,
 *                 lastprivate, linear; with simd also reduction and the
 *                 simd clauses); items moved off the parallel part are
 *                 made shared on it
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
 * pragmas separated from their statement by other directives) stay
 * exactly as they were, with a note for --list.
 */
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "hpi.h"

#define HPI_NONE ((size_t)-1)
#define HPI_MAXCL 32

typedef struct hpi_clause {
    char name[32];
    char *arg;           /* inside the parentheses, NULL without */
} hpi_clause;

typedef struct hpi_omp {
    char words[3][16];   /* directive name words */
    int nwords;
    char crit[256];      /* critical name, "" if none */
    hpi_clause cl[HPI_MAXCL];
    int ncl;
} hpi_omp;

typedef struct hpi_buf {
    char *p;
    size_t n, cap;
    int oom;
} hpi_buf;

static void hpi_bput(hpi_buf *b, const char *fmt, ...)
{
    va_list ap;
    int k;

    for (;;) {
        size_t room = b->cap - b->n;
        va_start(ap, fmt);
        k = vsnprintf(b->p ? b->p + b->n : NULL, room, fmt, ap);
        va_end(ap);
        if (k < 0) {
            b->oom = 1;
            return;
        }
        if ((size_t)k < room) {
            b->n += (size_t)k;
            return;
        }
        {
            size_t n = (b->cap + (size_t)k + 1) * 2;
            char *q = realloc(b->p, n);
            if (!q) {
                b->oom = 1;
                return;
            }
            b->p = q;
            b->cap = n;
        }
    }
}

static char *hpi_btake(hpi_buf *b)
{
    char *p = b->p;

    if (b->oom) {
        free(p);
        return NULL;
    }
    if (!p)
        p = strdup("");
    memset(b, 0, sizeof *b);
    return p;
}

static int hpi_id(char c)
{
    return c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
}

/* The directive text on one line: continuations joined, comments out. */
char *hpi_dir_text(const hpi_src *s, const hpi_dir *d)
{
    char *t = malloc(d->end - d->start + 2);
    size_t i, n = 0;
    char q = 0;

    if (!t)
        return NULL;
    for (i = d->start; i < d->end; i++) {
        char c = s->text[i];
        if (q) {
            if (c == '\\' && i + 1 < d->end)
                t[n++] = c, c = s->text[++i];
            else if (c == q)
                q = 0;
        } else if (c == '"' || c == '\'') {
            q = c;
        } else if (c == '\\' && i + 1 < d->end && s->text[i + 1] == '\n') {
            c = ' ';
            i++;
        } else if (c == '/' && i + 1 < d->end && s->text[i + 1] == '*') {
            for (i += 2; i + 1 < d->end && !(s->text[i] == '*' && s->text[i + 1] == '/'); i++)
                ;
            i++;
            c = ' ';
        } else if (c == '/' && i + 1 < d->end && s->text[i + 1] == '/') {
            break;
        }
        t[n++] = c == '\t' || c == '\n' || c == '\r' ? ' ' : c;
    }
    while (n && t[n - 1] == ' ')
        n--;
    t[n] = 0;
    return t;
}

static const char *hpi_skipsp(const char *p)
{
    while (*p == ' ')
        p++;
    return p;
}

/* Parses "#pragma omp WORDS [(name)] CLAUSES"; -1 if it is not one. */
static int hpi_omp_parse(const char *t, hpi_omp *o)
{
    const char *p = hpi_skipsp(t);
    size_t n;

    memset(o, 0, sizeof *o);
    if (*p++ != '#')
        return -1;
    p = hpi_skipsp(p);
    if (strncmp(p, "pragma", 6) != 0 || hpi_id(p[6]))
        return -1;
    p = hpi_skipsp(p + 6);
    if (strncmp(p, "omp", 3) != 0 || hpi_id(p[3]))
        return -1;
    p = hpi_skipsp(p + 3);
    /* directive words: the known construct words */
    while (o->nwords < 3) {
        static const char *const words[] = {
            "parallel", "for", "sections", "section", "single", "master",
            "critical", "barrier", "atomic", "flush", "ordered", "task",
            "taskwait", "simd", "target", "teams", "distribute", "taskloop",
            "taskgroup", "masked", "declare", "threadprivate", "loop",
            "workshare", "scope", "cancel", "cancellation", "point",
            "taskyield", "requires", "depobj", "scan", "tile", "unroll",
            "end", "begin", "allocate", "assume", "interop", "error", "nothing",
            "metadirective", "dispatch", "data", "enter", "exit", "update", NULL
        };
        int i, hit = 0;
        for (n = 0; hpi_id(p[n]); n++)
            ;
        for (i = 0; words[i] && !hit; i++)
            if (strlen(words[i]) == n && strncmp(p, words[i], n) == 0)
                hit = 1;
        /* "update", "data", ... are words only after target; atomic's
         * update/read/write/capture are clauses */
        if (!hit || n == 0 || n >= sizeof o->words[0] ||
            (o->nwords == 0 && (strncmp(p, "update", n) == 0 || strncmp(p, "data", n) == 0 ||
                                strncmp(p, "enter", n) == 0 || strncmp(p, "exit", n) == 0)) ||
            (o->nwords > 0 && strcmp(o->words[0], "target") != 0 &&
             (strncmp(p, "update", n) == 0 || strncmp(p, "data", n) == 0)))
            break;
        if (o->nwords > 0) {   /* words that continue a combined construct */
            static const char *const next[] = {
                "parallel", "for", "sections", "simd", "teams", "distribute", "loop",
                "master", "masked", "workshare", "taskloop", "data", "update", "enter",
                "exit", "target", "point", "end", "begin", "declare", NULL
            };
            for (i = 0; next[i]; i++)
                if (strlen(next[i]) == n && strncmp(p, next[i], n) == 0)
                    break;
            if (!next[i])
                break;
        }
        memcpy(o->words[o->nwords], p, n);
        o->words[o->nwords++][n] = 0;
        p = hpi_skipsp(p + n);
        if (*p == ',')
            p = hpi_skipsp(p + 1);
    }
    if (o->nwords == 0)
        return -1;
    if (strcmp(o->words[0], "critical") == 0 && *p == '(') {
        const char *q = strchr(p, ')');
        if (!q || (size_t)(q - p) >= sizeof o->crit)
            return -1;
        memcpy(o->crit, p + 1, (size_t)(q - p - 1));
        o->crit[q - p - 1] = 0;
        p = hpi_skipsp(q + 1);
    } else if (strcmp(o->words[0], "flush") == 0 && *p == '(') {
        const char *q = strchr(p, ')');
        if (!q)
            return -1;
        if (o->ncl < HPI_MAXCL) {   /* the flush list, kept as a pseudo clause */
            strcpy(o->cl[o->ncl].name, "");
            o->cl[o->ncl].arg = strndup(p + 1, (size_t)(q - p - 1));
            o->ncl++;
        }
        p = hpi_skipsp(q + 1);
    }
    while (*p) {
        hpi_clause *c;
        if (*p == ',') {
            p = hpi_skipsp(p + 1);
            continue;
        }
        for (n = 0; hpi_id(p[n]); n++)
            ;
        if (n == 0 || n >= sizeof c->name || o->ncl == HPI_MAXCL)
            return -1;
        c = &o->cl[o->ncl++];
        memcpy(c->name, p, n);
        c->name[n] = 0;
        p = hpi_skipsp(p + n);
        if (*p == '(') {
            int lvl = 0;
            const char *a = p + 1;
            char q = 0;
            for (; *p; p++) {
                if (q) {
                    if (*p == '\\' && p[1])
                        p++;
                    else if (*p == q)
                        q = 0;
                } else if (*p == '"' || *p == '\'') {
                    q = *p;
                } else if (*p == '(') {
                    lvl++;
                } else if (*p == ')' && --lvl == 0) {
                    break;
                }
            }
            if (*p != ')')
                return -1;
            c->arg = strndup(a, (size_t)(p - a));
            if (!c->arg)
                return -1;
            p = hpi_skipsp(p + 1);
        }
    }
    return 0;
}

static void hpi_omp_clear(hpi_omp *o)
{
    int i;

    for (i = 0; i < o->ncl; i++)
        free(o->cl[i].arg);
    o->ncl = 0;
}

static int hpi_has(const hpi_omp *o, const char *name)
{
    int i;

    for (i = 0; i < o->ncl; i++)
        if (strcmp(o->cl[i].name, name) == 0)
            return i;
    return -1;
}

/* 1 when every clause of o is in the NULL-terminated list. */
static int hpi_only(const hpi_omp *o, const char *const *ok)
{
    int i, j;

    for (i = 0; i < o->ncl; i++) {
        for (j = 0; ok[j]; j++)
            if (strcmp(o->cl[i].name, ok[j]) == 0)
                break;
        if (!ok[j])
            return 0;
    }
    return 1;
}

static void hpi_put_clause(hpi_buf *b, const hpi_clause *c)
{
    if (c->arg)
        hpi_bput(b, " %s(%s)", c->name, c->arg);
    else
        hpi_bput(b, " %s", c->name);
}

/* ---- the plan ----------------------------------------------------- */

/* One OpenMP pragma of the unit: a #pragma line, or a _Pragma operator
 * written in the code (not one made by a macro). */
typedef struct hpi_prag {
    size_t start, end;   /* the text the rewriting replaces */
    size_t after;        /* where its statement may start */
    unsigned l1, l2;     /* its first and last line */
    unsigned resume;     /* the line the source goes on with after it */
    int op;              /* 1: a _Pragma operator */
    char *text;          /* "#pragma omp ..." on one line */
} hpi_prag;

typedef struct hpi_plan {
    hpi_unit *u;
    const hpi_stmt *stmts;
    size_t nstmts;
    hpi_prag *prags;     /* in file order */
    size_t nprags;
    int oom;
} hpi_plan;

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
static int hpi_add_region(hpi_unit *u, const char *type, unsigned l1, unsigned l2,
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

/* The statement right after pragma d (other omp pragmas in between
 * allowed); NULL with *why set when there is none we can wrap. */
static const hpi_stmt *hpi_stmt_after(hpi_plan *pl, const hpi_prag *d, const char **why)
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
        {
            const char *t = s->text + x->start + 1;
            while (*t == ' ' || *t == '\t')
                t++;
            if (strncmp(t, "pragma", 6) != 0 || x->kind == HPI_D_OTHER) {
                *why = "another directive between the pragma and its statement";
                return NULL;
            }
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
    if (!hpi_src_balanced(s, pl->stmts[best].s, pl->stmts[best].e)) {
        *why = "unbalanced statement (macros or conditional code)";
        return NULL;
    }
    return &pl->stmts[best];
}

/* "\n#line N \"FILE\"\n" */
static void hpi_bline(hpi_buf *b, const hpi_unit *u, unsigned line)
{
    const char *p;

    hpi_bput(b, "\n#line %u \"", line);
    for (p = u->src.path; *p; p++)
        hpi_bput(b, *p == '"' || *p == '\\' ? "\\%c" : "%c", *p);
    hpi_bput(b, "\"\n");
}

#define H(i) "__hprof_pr(%d)"

static void hpi_ibar(hpi_buf *b, const hpi_unit *u, int r, unsigned line)
{
    hpi_bput(b, " { POMP2_Task_handle pomp2_old_task; POMP2_Implicit_barrier_enter(" H(r)
                ", &pomp2_old_task);", r);
    hpi_bline(b, u, line);
    hpi_bput(b, "#pragma omp barrier");
    hpi_bline(b, u, line);
    hpi_bput(b, " POMP2_Implicit_barrier_exit(" H(r) ", pomp2_old_task); }", r);
}

/* The pragma re-emitted: "#pragma omp WORDS" then the clauses of o that
 * pass keep (all when NULL), then extra. */
static void hpi_bpragma(hpi_buf *b, const char *words, const hpi_omp *o,
                        const char *const *keep, const char *extra)
{
    int i, j;

    hpi_bput(b, "#pragma omp %s", words);
    if (o->crit[0])
        hpi_bput(b, "(%s)", o->crit);
    for (i = 0; i < o->ncl; i++) {
        if (!o->cl[i].name[0]) {
            hpi_bput(b, " (%s)", o->cl[i].arg);
            continue;
        }
        if (keep) {
            for (j = 0; keep[j]; j++)
                if (strcmp(keep[j], o->cl[i].name) == 0)
                    break;
            if (!keep[j])
                continue;
        }
        hpi_put_clause(b, &o->cl[i]);
    }
    if (extra)
        hpi_bput(b, "%s", extra);
}

static int hpi_count_sections(hpi_plan *pl, const hpi_stmt *st)
{
    size_t i;
    int n = 0;

    for (i = 0; i < pl->nprags; i++) {
        const hpi_prag *d = &pl->prags[i];
        hpi_omp o;
        if (d->start < st->s || d->end > st->e)
            continue;
        if (hpi_omp_parse(d->text, &o) == 0 && o.nwords == 1 && strcmp(o.words[0], "section") == 0)
            n++;
        hpi_omp_clear(&o);
    }
    return n;
}

/* Section regions: the sections construct enclosing offset off. */
typedef struct hpi_secs {
    size_t s, e;
    int region;
} hpi_secs;

static void hpi_ctc_extra(hpi_buf *b, const hpi_omp *o)
{
    int k;

    if (o->crit[0])
        hpi_bput(b, "*criticalName=%s", o->crit);
    if (hpi_has(o, "if") >= 0)
        hpi_bput(b, "*hasIf=1");
    if (hpi_has(o, "num_threads") >= 0)
        hpi_bput(b, "*hasNum_threads=1");
    if (hpi_has(o, "nowait") >= 0)
        hpi_bput(b, "*hasNowait=1");
    if (hpi_has(o, "reduction") >= 0)
        hpi_bput(b, "*hasReduction=1");
    if (hpi_has(o, "untied") >= 0)
        hpi_bput(b, "*hasUntied=1");
    if ((k = hpi_has(o, "schedule")) >= 0 && o->cl[k].arg) {
        const char *a = o->cl[k].arg, *c = strchr(a, ',');
        hpi_bput(b, "*hasSchedule=%.*s", (int)(c ? (size_t)(c - a) : strlen(a)), a);
    }
}

/* Names of a list clause argument, comma separated, spaces trimmed. */
static int hpi_list_has(const char *list, const char *name)
{
    size_t n = strlen(name);
    const char *p = list;

    while (p && *p) {
        const char *q;
        p = hpi_skipsp(p);
        if (strncmp(p, name, n) == 0 && !hpi_id(p[n]))
            return 1;
        q = strchr(p, ',');
        p = q ? q + 1 : NULL;
    }
    return 0;
}

/* The list of a clause argument: after the "modifier:" of reduction. */
static const char *hpi_items(const hpi_clause *c)
{
    const char *k = strchr(c->arg, ':');

    return strcmp(c->name, "reduction") == 0 && k ? k + 1 : c->arg;
}

/* 1 when every item of the list is a plain name. */
static int hpi_plain_items(const char *list)
{
    const char *p = list;

    for (;;) {
        size_t n;
        p = hpi_skipsp(p);
        for (n = 0; hpi_id(p[n]); n++)
            ;
        if (n == 0)
            return 0;
        p = hpi_skipsp(p + n);
        if (!*p)
            return 1;
        if (*p++ != ',')
            return 0;
    }
}

/* 1 when a lastprivate item also appears in private/firstprivate. */
static int hpi_last_conflict(const hpi_omp *o)
{
    int i, j;

    for (i = 0; i < o->ncl; i++) {
        const char *p;
        if (strcmp(o->cl[i].name, "lastprivate") != 0 || !o->cl[i].arg)
            continue;
        for (p = o->cl[i].arg; p && *p;) {
            char item[128];
            size_t n;
            p = hpi_skipsp(p);
            for (n = 0; hpi_id(p[n]) && n + 1 < sizeof item; n++)
                item[n] = p[n];
            item[n] = 0;
            if (!n || p[n] == ':')   /* lastprivate(conditional: ...) */
                return 1;
            for (j = 0; j < o->ncl; j++)
                if ((strcmp(o->cl[j].name, "private") == 0 ||
                     strcmp(o->cl[j].name, "firstprivate") == 0 ||
                     strcmp(o->cl[j].name, "reduction") == 0) &&
                    o->cl[j].arg && hpi_list_has(hpi_items(&o->cl[j]), item))
                    return 1;
            p = strchr(p, ',');
            if (p)
                p++;
        }
    }
    return 0;
}

/* " shared(x)" for every item of the `name` clauses of o that no shared
 * clause names yet: what a split moves off the parallel part. */
static void hpi_shared_items(hpi_buf *b, const hpi_omp *o, const char *name)
{
    int k, j;

    for (k = 0; k < o->ncl; k++) {
        const char *p;
        if (strcmp(o->cl[k].name, name) != 0 || !o->cl[k].arg)
            continue;
        for (p = hpi_items(&o->cl[k]); p && *p;) {
            char item[128];
            size_t n;
            int dup = 0;
            p = hpi_skipsp(p);
            for (n = 0; hpi_id(p[n]) && n + 1 < sizeof item; n++)
                item[n] = p[n];
            item[n] = 0;
            for (j = 0; j < o->ncl; j++)
                if (strcmp(o->cl[j].name, "shared") == 0 && o->cl[j].arg &&
                    hpi_list_has(o->cl[j].arg, item))
                    dup = 1;
            if (n && !dup)
                hpi_bput(b, " shared(%s)", item);
            p = strchr(p, ',');
            if (p)
                p++;
        }
    }
}

/* Everything one pragma's rewriting needs. */
typedef struct hpi_ctx {
    hpi_plan *pl;
    hpi_unit *u;
    const hpi_prag *d;
    hpi_omp *o;
    const hpi_stmt *st;  /* its statement, NULL for stand-alone ones */
    unsigned l1, l2, e1, lr;
    int nowait;
    hpi_buf pre, post, ex;
    hpi_secs *secs;
    size_t *nsecs;
} hpi_ctx;

static const char hpi_oom[] = "out of memory";

/* A region of type for the pragma; -1 when out of memory. */
static int hpi_new_region(hpi_ctx *c, const char *type)
{
    int r = hpi_add_region(c->u, type, c->l1, c->l2, c->e1, c->ex.p);

    if (r < 0)
        c->pl->oom = 1;
    return r;
}

static void hpi_add_secs(hpi_ctx *c, int r)
{
    if (*c->nsecs < 64) {
        c->secs[*c->nsecs].s = c->st->s;
        c->secs[*c->nsecs].e = c->st->e;
        c->secs[(*c->nsecs)++].region = r;
    }
}

#define HPI_SIMD_CL "safelen", "simdlen", "aligned", "nontemporal", "order"
#define HPI_PAR_CL "if", "num_threads", "default", "shared", "private", "firstprivate", \
    "copyin", "proc_bind", "reduction"

/* parallel, parallel for [simd], parallel sections: fork/join around,
 * begin/end inside, the worksharing part split off with the clauses that
 * belong to it (reduction goes with simd, whose loop needs it). */
static const char *hpi_plan_parallel(hpi_ctx *c)
{
    static const char *const ok_par[] = { HPI_PAR_CL, NULL };
    static const char *const ok_for[] = {
        HPI_PAR_CL, "schedule", "ordered", "collapse", "lastprivate", "linear", NULL
    };
    static const char *const ok_simd[] = {
        HPI_PAR_CL, "schedule", "ordered", "collapse", "lastprivate", "linear", HPI_SIMD_CL, NULL
    };
    static const char *const ok_sec[] = { HPI_PAR_CL, "lastprivate", NULL };
    static const char *const keep_par[] = {
        "default", "shared", "private", "firstprivate", "copyin", "proc_bind", "reduction", NULL
    };
    static const char *const keep_par_simd[] = {
        "default", "shared", "private", "firstprivate", "copyin", "proc_bind", NULL
    };
    static const char *const keep_for[] = { "schedule", "ordered", "collapse", "lastprivate", "linear", NULL };
    static const char *const keep_simd[] = {
        "schedule", "ordered", "collapse", "lastprivate", "linear", "reduction", HPI_SIMD_CL, NULL
    };
    static const char *const keep_sec[] = { "lastprivate", NULL };
    hpi_omp *o = c->o;
    int k, r, split = o->nwords >= 2, is_for = split && strcmp(o->words[1], "for") == 0;
    int simd = o->nwords == 3, is_sec = split && !is_for;
    const char *type = is_for ? "parallelfor" : is_sec ? "parallelsections" : "parallel";
    hpi_buf extra = { 0 };

    if (!hpi_only(o, !split ? ok_par : simd ? ok_simd : is_for ? ok_for : ok_sec))
        return "clauses not rewritten";
    if ((k = hpi_has(o, "if")) >= 0 && (!o->cl[k].arg || strchr(o->cl[k].arg, ':')))
        return "if clause with a modifier not rewritten";
    if (split && hpi_last_conflict(o))
        return "lastprivate items also private/firstprivate/reduction: not split";
    for (k = 0; simd && k < o->ncl; k++)
        if (strcmp(o->cl[k].name, "reduction") == 0 && (!o->cl[k].arg || !hpi_plain_items(hpi_items(&o->cl[k]))))
            return "reduction items that are not plain names: not split";
    if (is_sec)
        hpi_bput(&c->ex, "*numSections=%d", hpi_count_sections(c->pl, c->st));
    if ((r = hpi_new_region(c, type)) < 0)
        return hpi_oom;
    hpi_bput(&c->pre, "{ int pomp2_num_threads = ");
    if ((k = hpi_has(o, "num_threads")) >= 0 && o->cl[k].arg)
        hpi_bput(&c->pre, "(%s);", o->cl[k].arg);
    else
        hpi_bput(&c->pre, "__hprof_omp_max_threads();");
    hpi_bput(&c->pre, " int pomp2_if = ");
    if ((k = hpi_has(o, "if")) >= 0)
        hpi_bput(&c->pre, "(int)(%s);", o->cl[k].arg);
    else
        hpi_bput(&c->pre, "1;");
    hpi_bput(&c->pre, " POMP2_Task_handle pomp2_old_task; POMP2_Parallel_fork(" H(r)
                      ", pomp2_if, pomp2_num_threads, &pomp2_old_task, __hprof_ctc(%d));", r, r);
    hpi_bline(&c->pre, c->u, c->l1);
    /* items of the clauses moved to the worksharing part: shared here */
    hpi_bput(&extra, " if(pomp2_if) num_threads(pomp2_num_threads)");
    if (split)
        hpi_shared_items(&extra, o, "lastprivate");
    if (simd)
        hpi_shared_items(&extra, o, "reduction");
    hpi_bpragma(&c->pre, "parallel", o, simd ? keep_par_simd : keep_par, extra.p);
    free(extra.p);
    if (extra.oom)
        c->pre.oom = 1;
    hpi_bput(&c->pre, "\n{ POMP2_Parallel_begin(" H(r) ");", r);
    if (split) {
        hpi_bput(&c->pre, " { POMP2_%s_enter(" H(r) ", __hprof_ctc(%d));", is_for ? "For" : "Sections", r, r);
        hpi_bline(&c->pre, c->u, c->l1);
        hpi_bpragma(&c->pre, simd ? "for simd" : is_for ? "for" : "sections", o,
                    simd ? keep_simd : is_for ? keep_for : keep_sec, " nowait");
        if (is_sec)
            hpi_add_secs(c, r);
    }
    hpi_bline(&c->pre, c->u, c->lr);
    /* a split construct's barrier is the worksharing part's (as opari2) */
    hpi_ibar(&c->post, c->u, r, c->e1);
    if (split)
        hpi_bput(&c->post, " POMP2_%s_exit(" H(r) "); }", is_for ? "For" : "Sections", r);
    hpi_bput(&c->post, " POMP2_Parallel_end(" H(r) "); } POMP2_Parallel_join(" H(r)
                       ", pomp2_old_task); }", r, r);
    return NULL;
}

/* for, for simd, sections: enter/exit around, the implicit barrier made
 * explicit after a nowait. */
static const char *hpi_plan_for(hpi_ctx *c)
{
    static const char *const ok_for[] = {
        "private", "firstprivate", "lastprivate", "reduction", "schedule", "ordered",
        "collapse", "linear", "nowait", "allocate", "order", NULL
    };
    static const char *const ok_simd[] = {
        "private", "firstprivate", "lastprivate", "reduction", "schedule", "ordered",
        "collapse", "linear", "nowait", "allocate", "if", HPI_SIMD_CL, NULL
    };
    static const char *const ok_sec[] = {
        "private", "firstprivate", "lastprivate", "reduction", "nowait", "allocate", NULL
    };
    hpi_omp *o = c->o;
    int r, is_for = o->words[0][0] == 'f', simd = o->nwords == 2;

    if (!hpi_only(o, simd ? ok_simd : is_for ? ok_for : ok_sec))
        return "clauses not rewritten";
    if (!is_for)
        hpi_bput(&c->ex, "*numSections=%d", hpi_count_sections(c->pl, c->st));
    if ((r = hpi_new_region(c, o->words[0])) < 0)
        return hpi_oom;
    hpi_bput(&c->pre, "{ POMP2_%s_enter(" H(r) ", __hprof_ctc(%d));", is_for ? "For" : "Sections", r, r);
    hpi_bline(&c->pre, c->u, c->l1);
    hpi_bpragma(&c->pre, simd ? "for simd" : o->words[0], o, NULL, c->nowait ? "" : " nowait");
    hpi_bline(&c->pre, c->u, c->lr);
    if (!c->nowait)
        hpi_ibar(&c->post, c->u, r, c->e1);
    hpi_bput(&c->post, " POMP2_%s_exit(" H(r) "); }", is_for ? "For" : "Sections", r);
    if (!is_for)
        hpi_add_secs(c, r);
    return NULL;
}

static const char *hpi_plan_section(hpi_ctx *c)
{
    size_t i, best = HPI_NONE;
    int r;

    for (i = 0; i < *c->nsecs; i++)
        if (c->secs[i].s < c->d->start && c->d->end < c->secs[i].e &&
            (best == HPI_NONE || c->secs[i].s > c->secs[best].s))
            best = i;
    if (c->o->ncl)
        return "clauses not rewritten";
    if (best == HPI_NONE)
        return "its sections construct is not rewritten";
    r = c->secs[best].region;
    hpi_bline(&c->pre, c->u, c->l1);
    hpi_bput(&c->pre, "#pragma omp section\n{ POMP2_Section_begin(" H(r) ", __hprof_ctc(%d));", r, r);
    hpi_bline(&c->pre, c->u, c->lr);
    hpi_bput(&c->post, " POMP2_Section_end(" H(r) "); }", r);
    return NULL;
}

static const char *hpi_plan_single(hpi_ctx *c)
{
    static const char *const ok[] = { "private", "firstprivate", "nowait", "allocate", NULL };
    int r;

    if (!hpi_only(c->o, ok))
        return "clauses not rewritten (copyprivate cannot take nowait)";
    if ((r = hpi_new_region(c, "single")) < 0)
        return hpi_oom;
    hpi_bput(&c->pre, "{ POMP2_Single_enter(" H(r) ", __hprof_ctc(%d));", r, r);
    hpi_bline(&c->pre, c->u, c->l1);
    hpi_bpragma(&c->pre, "single", c->o, NULL, c->nowait ? "" : " nowait");
    hpi_bput(&c->pre, "\n{ POMP2_Single_begin(" H(r) ");", r);
    hpi_bline(&c->pre, c->u, c->lr);
    hpi_bput(&c->post, " POMP2_Single_end(" H(r) "); }", r);
    if (!c->nowait)
        hpi_ibar(&c->post, c->u, r, c->e1);
    hpi_bput(&c->post, " POMP2_Single_exit(" H(r) "); }", r);
    return NULL;
}

/* master, and masked [filter(...)] as a master of the filtered thread. */
static const char *hpi_plan_master(hpi_ctx *c)
{
    static const char *const ok[] = { "filter", NULL };
    const char *w = c->o->words[0];
    int r;

    if (strcmp(w, "master") == 0 ? c->o->ncl != 0 : !hpi_only(c->o, ok))
        return "clauses not rewritten";
    if ((r = hpi_new_region(c, w)) < 0)
        return hpi_oom;
    hpi_bline(&c->pre, c->u, c->l1);
    hpi_bpragma(&c->pre, w, c->o, NULL, NULL);
    hpi_bput(&c->pre, "\n{ POMP2_Master_begin(" H(r) ", __hprof_ctc(%d));", r, r);
    hpi_bline(&c->pre, c->u, c->lr);
    hpi_bput(&c->post, " POMP2_Master_end(" H(r) "); }", r);
    return NULL;
}

static const char *hpi_plan_critical(hpi_ctx *c)
{
    const char *w = c->o->words[0], *W = w[0] == 'c' ? "Critical" : "Ordered";
    int r;

    if (c->o->ncl && !(w[0] == 'c' && c->o->ncl == 1 && strcmp(c->o->cl[0].name, "hint") == 0))
        return w[0] == 'o' ? "ordered with clauses not rewritten" : "clauses not rewritten";
    if ((r = hpi_new_region(c, w)) < 0)
        return hpi_oom;
    hpi_bput(&c->pre, "{ POMP2_%s_enter(" H(r) ", __hprof_ctc(%d));", W, r, r);
    hpi_bline(&c->pre, c->u, c->l1);
    hpi_bpragma(&c->pre, w, c->o, NULL, NULL);
    hpi_bput(&c->pre, "\n{ POMP2_%s_begin(" H(r) ");", W, r);
    hpi_bline(&c->pre, c->u, c->lr);
    hpi_bput(&c->post, " POMP2_%s_end(" H(r) "); } POMP2_%s_exit(" H(r) "); }", W, r, W, r);
    return NULL;
}

static const char *hpi_plan_atomic(hpi_ctx *c)
{
    int r;

    if ((r = hpi_new_region(c, "atomic")) < 0)
        return hpi_oom;
    hpi_bput(&c->pre, "{ POMP2_Atomic_enter(" H(r) ", __hprof_ctc(%d));", r, r);
    hpi_bline(&c->pre, c->u, c->l1);
    hpi_bpragma(&c->pre, "atomic", c->o, NULL, NULL);
    hpi_bline(&c->pre, c->u, c->lr);
    hpi_bput(&c->post, " POMP2_Atomic_exit(" H(r) "); }", r);
    return NULL;
}

/* task: create begin/end around, begin/end inside.  opari2 puts them all
 * under if (pomp2_if), so that an if(false) task is the encountering
 * task's; here an if(false) task is a task, run at once, as GOMP and OMPT
 * record it (the same metrics whichever way the program was built). */
static const char *hpi_plan_task(hpi_ctx *c)
{
    static const char *const ok[] = {
        "if", "final", "untied", "default", "mergeable", "private", "firstprivate",
        "shared", "depend", "priority", "in_reduction", "allocate", "detach", "affinity", NULL
    };
    static const char *const keep[] = {
        "final", "untied", "default", "mergeable", "private", "firstprivate",
        "shared", "depend", "priority", "in_reduction", "allocate", "detach", "affinity", NULL
    };
    hpi_omp *o = c->o;
    int r, k = hpi_has(o, "if");
    const char *U = hpi_has(o, "untied") >= 0 ? "Untied_task" : "Task";
    const char *arg = k >= 0 ? o->cl[k].arg : NULL;

    if (!hpi_only(o, ok))
        return "clauses not rewritten";
    if (k >= 0 && !arg)
        return "if clause not rewritten";
    if (arg && strchr(arg, ':')) {   /* if(task: expr) */
        if (strncmp(hpi_skipsp(arg), "task", 4) != 0)
            return "if clause with a modifier not rewritten";
        arg = strchr(arg, ':') + 1;
    }
    if ((r = hpi_new_region(c, "task")) < 0)
        return hpi_oom;
    hpi_bput(&c->pre, "{ int pomp2_if = ");
    if (arg)
        hpi_bput(&c->pre, "(int)(%s);", arg);
    else
        hpi_bput(&c->pre, "1;");
    hpi_bput(&c->pre, " { POMP2_Task_handle pomp2_old_task = 0; POMP2_Task_handle pomp2_new_task = 0;"
                      " POMP2_%s_create_begin(" H(r) ", &pomp2_new_task, &pomp2_old_task,"
                      " pomp2_if, __hprof_ctc(%d));", U, r, r);
    hpi_bline(&c->pre, c->u, c->l1);
    hpi_bpragma(&c->pre, "task", o, keep, " if(pomp2_if) firstprivate(pomp2_new_task, pomp2_if)");
    hpi_bput(&c->pre, "\n{ POMP2_%s_begin(" H(r) ", pomp2_new_task);", U, r);
    hpi_bline(&c->pre, c->u, c->lr);
    hpi_bput(&c->post, " POMP2_%s_end(" H(r) "); }"
                       " POMP2_%s_create_end(" H(r) ", pomp2_old_task); } }", U, r, U, r);
    return NULL;
}

/* taskgroup: opari2 2.0.7 has no POMP2 call for it; hprof's own pair
 * (libhprof/pomp2.c) times the wait at its end, from the block's last
 * statement until the construct is left. */
static const char *hpi_plan_taskgroup(hpi_ctx *c)
{
    int r;

    if ((r = hpi_new_region(c, "taskgroup")) < 0)
        return hpi_oom;
    hpi_bput(&c->pre, "{ POMP2_Task_handle pomp2_old_task = 0;");
    hpi_bline(&c->pre, c->u, c->l1);
    hpi_bpragma(&c->pre, "taskgroup", c->o, NULL, NULL);
    hpi_bput(&c->pre, "\n{");
    hpi_bline(&c->pre, c->u, c->lr);
    hpi_bput(&c->post, " hprof_pomp2_taskgroup_wait_begin(" H(r) ", &pomp2_old_task, __hprof_ctc(%d)); }"
                       " hprof_pomp2_taskgroup_wait_end(" H(r) ", pomp2_old_task); }", r, r, r);
    return NULL;
}

/* barrier, taskwait, flush */
static const char *hpi_plan_standalone(hpi_ctx *c)
{
    const char *w = c->o->words[0];
    const char *W = w[0] == 'b' ? "Barrier" : w[1] == 'a' ? "Taskwait" : "Flush";
    const char *X = w[0] == 't' ? "end" : "exit";
    int r;

    if ((r = hpi_new_region(c, w)) < 0)
        return hpi_oom;
    if (w[0] == 'f')
        hpi_bput(&c->pre, "{ POMP2_Flush_enter(" H(r) ", __hprof_ctc(%d));", r, r);
    else
        hpi_bput(&c->pre, "{ POMP2_Task_handle pomp2_old_task; POMP2_%s_%s(" H(r)
                          ", &pomp2_old_task, __hprof_ctc(%d));", W, w[0] == 'b' ? "enter" : "begin", r, r);
    hpi_bline(&c->pre, c->u, c->l1);
    hpi_bpragma(&c->pre, w, c->o, NULL, NULL);
    if (w[0] == 'f')
        hpi_bput(&c->pre, "\n POMP2_Flush_exit(" H(r) "); }", r);
    else
        hpi_bput(&c->pre, "\n POMP2_%s_%s(" H(r) ", pomp2_old_task); }", W, X, r);
    hpi_bline(&c->pre, c->u, c->lr);
    return NULL;
}

/* The opener replaces the pragma; the closer starts a line of its own
 * (as line e1) after the statement: clang's -Wmisleading-indentation
 * takes code right after a loop body on its line for a statement meant
 * to be in the loop. */
static const char *hpi_plan_edits(hpi_ctx *c)
{
    hpi_buf cl = { 0 };

    /* a directive's replacement ends before its newline: drop the last
     * "\n" of the #line so the newline of the source ends that line */
    if (!c->d->op && c->pre.n && c->pre.p[c->pre.n - 1] == '\n')
        c->pre.p[--c->pre.n] = 0;
    if (hpi_add_edit(c->u, c->d->start, c->d->end, c->d->start, 1, hpi_btake(&c->pre)) < 0)
        return hpi_oom;
    if (!c->st)
        return NULL;
    hpi_bline(&cl, c->u, c->e1);
    hpi_bput(&cl, "%s", c->post.p ? c->post.p : "");
    if (cl.oom) {
        free(cl.p);
        return hpi_oom;
    }
    if (hpi_add_edit(c->u, c->st->e, c->st->e, c->d->start, 0, hpi_btake(&cl)) < 0)
        return hpi_oom;
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
    int i;

    if ((why = hpi_unrewritten(o)) != NULL)
        return why;
    for (i = 0; kinds[i].word; i++)
        if (strcmp(o->words[0], kinds[i].word) == 0)
            break;
    if (!kinds[i].word)
        return "construct not rewritten";
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
    why = kinds[i].fn(&c);
    free(c.ex.p);
    if (!why && (c.pre.oom || c.post.oom))
        why = hpi_oom;
    if (!why)
        why = hpi_plan_edits(&c);
    if (why == hpi_oom)
        pl->oom = 1;
    free(c.pre.p);
    free(c.post.p);
    return why;
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
                 const hpi_stmt *macros, size_t nmacros)
{
    hpi_plan pl;
    hpi_secs secs[64];
    size_t i, nsecs = 0;

    memset(&pl, 0, sizeof pl);
    pl.u = u;
    pl.stmts = stmts;
    pl.nstmts = nstmts;
    if (hpi_find_prags(&pl, macros, nmacros) < 0)
        pl.oom = 1;
    for (i = 0; i < pl.nprags && !pl.oom; i++) {
        const hpi_prag *d = &pl.prags[i];
        hpi_omp o;
        const char *why;
        if (hpi_omp_parse(d->text, &o) < 0) {
            hpi_note_unparsed(&pl, d);
            hpi_omp_clear(&o);
            continue;
        }
        why = hpi_plan_dir(&pl, d, &o, secs, &nsecs);
        if (why && hpi_omp_note(u, d->l1, why) < 0)
            pl.oom = 1;
        hpi_omp_clear(&o);
    }
    for (i = 0; i < pl.nprags; i++)
        free(pl.prags[i].text);
    free(pl.prags);
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
