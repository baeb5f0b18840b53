/*
 * omp.c - the POMP2 rewriting of OpenMP directives (--omp), following
 * OPARI2's transformation so that code instrumented here and code
 * instrumented by opari2 feed the same POMP2 runtime:
 *
 *   parallel      { fork; #pragma omp parallel ... { begin; BODY
 *                   implicit barrier; end; } join; }
 *   for/sections  { enter; #pragma omp for ... nowait LOOP
 *                   [implicit barrier if it had no nowait] exit; }
 *   parallel for  split: parallel part (if, num_threads, default, shared,
 *                 private, firstprivate, copyin, proc_bind, reduction)
 *                 and for part (schedule, ordered, collapse, lastprivate,
 *                 linear); lastprivate items made shared on the parallel
 *   single, master, critical, atomic, flush, ordered, barrier, taskwait,
 *   task (create begin/end around, begin/end inside), section
 *
 * Every opener stays on the line of its pragma: the text before the pragma
 * goes on the pragma's line, the pragma is re-emitted on a line of its own
 * after "#line L", and "#line" restores the numbering after it.  Region
 * handles are __hprof_pomp_h[i], reached through the function __hprof_pr(i)
 * so that default(none) regions need no extra clause; the ctc strings are
 * opari2's ("LEN*regionType=...*sscl=FILE:L1:L2*escl=FILE:E:E*...**") and
 * are registered by a constructor through POMP2_Assign_handle.  Pragmas
 * that cannot be rewritten safely (_Pragma, unknown constructs or
 * clauses, pragmas separated from their statement by other directives)
 * stay exactly as they were, with a note for --list.
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

typedef struct hpi_plan {
    hpi_unit *u;
    const hpi_stmt *stmts;
    size_t nstmts;
    int oom;
} hpi_plan;

static int hpi_note(hpi_unit *u, unsigned line, const char *why)
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

/* The statement right after directive d (other omp pragmas in between
 * allowed); NULL with *why set when there is none we can wrap. */
static const hpi_stmt *hpi_stmt_after(hpi_plan *pl, const hpi_dir *d, const char **why)
{
    const hpi_src *s = &pl->u->src;
    size_t at = d->end + 1, lo = 0, hi = pl->nstmts, best = HPI_NONE, i;

    for (;;) {
        size_t p = hpi_src_next_nonspace(s, at);
        const hpi_dir *x;
        if (p >= s->len) {
            *why = "no statement follows";
            return NULL;
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
    const hpi_src *s = &pl->u->src;
    size_t i;
    int n = 0;

    for (i = 0; i < s->ndirs; i++) {
        const hpi_dir *d = &s->dirs[i];
        hpi_omp o;
        char *t;
        if (d->start < st->s || d->end > st->e)
            continue;
        if (!(t = hpi_dir_text(s, d)))
            continue;
        if (hpi_omp_parse(t, &o) == 0 && o.nwords == 1 && strcmp(o.words[0], "section") == 0)
            n++;
        hpi_omp_clear(&o);
        free(t);
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
                    o->cl[j].arg && hpi_list_has(strchr(o->cl[j].arg, ':') && strcmp(o->cl[j].name, "reduction") == 0
                                                     ? strchr(o->cl[j].arg, ':') + 1 : o->cl[j].arg, item))
                    return 1;
            p = strchr(p, ',');
            if (p)
                p++;
        }
    }
    return 0;
}

static const char *const hpi_par_cl[] = {
    "if", "num_threads", "default", "shared", "private", "firstprivate", "copyin",
    "proc_bind", "reduction", NULL
};
static const char *const hpi_for_cl[] = {
    "schedule", "ordered", "collapse", "lastprivate", "linear", "nowait", NULL
};
static const char *const hpi_sec_cl[] = { "lastprivate", "nowait", NULL };

/* Plans one directive; returns the reason it stays as it is, or NULL. */
static const char *hpi_plan_dir(hpi_plan *pl, const hpi_dir *d, hpi_omp *o,
                                hpi_secs *secs, size_t *nsecs)
{
    hpi_unit *u = pl->u;
    const hpi_src *s = &u->src;
    unsigned l1 = hpi_src_line(s, d->start), l2 = hpi_src_line(s, d->end ? d->end - 1 : 0);
    const hpi_stmt *st = NULL;
    const char *why = NULL;
    hpi_buf pre = { 0 }, post = { 0 }, ex = { 0 };
    char words[64];
    unsigned e1 = l2;
    int r, standalone = 0, nowait = hpi_has(o, "nowait") >= 0;
    const char *w0 = o->words[0];

    if (o->nwords == 1)
        snprintf(words, sizeof words, "%s", w0);
    else if (o->nwords == 2)
        snprintf(words, sizeof words, "%s %s", w0, o->words[1]);
    else
        return "construct not rewritten";
    if (o->nwords == 2 && !(strcmp(w0, "parallel") == 0 &&
                            (strcmp(o->words[1], "for") == 0 || strcmp(o->words[1], "sections") == 0)))
        return "construct not rewritten";
    if (strcmp(w0, "barrier") == 0 || strcmp(w0, "taskwait") == 0 || strcmp(w0, "flush") == 0) {
        standalone = 1;
        if (o->ncl > (strcmp(w0, "flush") == 0 && o->ncl && !o->cl[0].name[0]))
            return "clauses not rewritten";
    } else if (strcmp(w0, "ordered") == 0 && o->ncl) {
        return "ordered with clauses not rewritten";
    } else if (strcmp(w0, "parallel") == 0 || strcmp(w0, "for") == 0 || strcmp(w0, "sections") == 0 ||
               strcmp(w0, "section") == 0 || strcmp(w0, "single") == 0 || strcmp(w0, "master") == 0 ||
               strcmp(w0, "critical") == 0 || strcmp(w0, "atomic") == 0 || strcmp(w0, "ordered") == 0 ||
               strcmp(w0, "task") == 0) {
        ;
    } else {
        return "construct not rewritten";
    }
    if (!standalone) {
        if (!(st = hpi_stmt_after(pl, d, &why)))
            return why;
        e1 = hpi_src_line(s, st->e - 1);
    }
    hpi_ctc_extra(&ex, o);

    if (strcmp(w0, "parallel") == 0) {
        static const char *const ok_for[] = {
            "if", "num_threads", "default", "shared", "private", "firstprivate", "copyin",
            "proc_bind", "reduction", "schedule", "ordered", "collapse", "lastprivate", "linear", NULL
        };
        static const char *const ok_sec[] = {
            "if", "num_threads", "default", "shared", "private", "firstprivate", "copyin",
            "proc_bind", "reduction", "lastprivate", NULL
        };
        int k, fr = 0, is_for = o->nwords == 2 && strcmp(o->words[1], "for") == 0;
        int is_sec = o->nwords == 2 && !is_for;
        const char *type = is_for ? "parallelfor" : is_sec ? "parallelsections" : "parallel";
        if (!hpi_only(o, o->nwords == 1 ? hpi_par_cl : is_for ? ok_for : ok_sec))
            return "clauses not rewritten";
        if ((k = hpi_has(o, "if")) >= 0 && (!o->cl[k].arg || strchr(o->cl[k].arg, ':')))
            return "if clause with a modifier not rewritten";
        if (o->nwords == 2 && hpi_last_conflict(o))
            return "lastprivate items also private/firstprivate/reduction: not split";
        if (is_sec)
            hpi_bput(&ex, "*numSections=%d", hpi_count_sections(pl, st));
        r = hpi_add_region(u, type, l1, l2, e1, ex.p);
        if (r < 0)
            goto oom;
        hpi_bput(&pre, "{ int pomp2_num_threads = ");
        if ((k = hpi_has(o, "num_threads")) >= 0 && o->cl[k].arg)
            hpi_bput(&pre, "(%s);", o->cl[k].arg);
        else
            hpi_bput(&pre, "__hprof_omp_max_threads();");
        hpi_bput(&pre, " int pomp2_if = ");
        if ((k = hpi_has(o, "if")) >= 0)
            hpi_bput(&pre, "(int)(%s);", o->cl[k].arg);
        else
            hpi_bput(&pre, "1;");
        hpi_bput(&pre, " POMP2_Task_handle pomp2_old_task; POMP2_Parallel_fork(" H(r)
                       ", pomp2_if, pomp2_num_threads, &pomp2_old_task, __hprof_ctc(%d));", r, r);
        hpi_bline(&pre, u, l1);
        {
            static const char *const keep[] = {
                "default", "shared", "private", "firstprivate", "copyin", "proc_bind", "reduction", NULL
            };
            hpi_bpragma(&pre, "parallel", o, keep, " if(pomp2_if) num_threads(pomp2_num_threads)");
        }
        /* lastprivate items of a split construct: shared on the parallel */
        for (k = 0; o->nwords == 2 && k < o->ncl; k++) {
            const char *p;
            if (strcmp(o->cl[k].name, "lastprivate") != 0 || !o->cl[k].arg)
                continue;
            for (p = o->cl[k].arg; p && *p;) {
                char item[128];
                size_t n;
                int j, dup = 0;
                p = hpi_skipsp(p);
                for (n = 0; hpi_id(p[n]) && n + 1 < sizeof item; n++)
                    item[n] = p[n];
                item[n] = 0;
                for (j = 0; j < o->ncl; j++)
                    if (strcmp(o->cl[j].name, "shared") == 0 && o->cl[j].arg &&
                        hpi_list_has(o->cl[j].arg, item))
                        dup = 1;
                if (n && !dup)
                    hpi_bput(&pre, " shared(%s)", item);
                p = strchr(p, ',');
                if (p)
                    p++;
            }
        }
        hpi_bput(&pre, "\n{ POMP2_Parallel_begin(" H(r) ");", r);
        if (o->nwords == 2) {
            hpi_bput(&pre, " { POMP2_%s_enter(" H(r) ", __hprof_ctc(%d));", is_for ? "For" : "Sections", r, r);
            hpi_bline(&pre, u, l1);
            hpi_bpragma(&pre, is_for ? "for" : "sections", o, is_for ? hpi_for_cl : hpi_sec_cl, " nowait");
            fr = 1;
            if (is_sec && *nsecs < 64) {
                secs[*nsecs].s = st->s;
                secs[*nsecs].e = st->e;
                secs[(*nsecs)++].region = r;
            }
        }
        hpi_bline(&pre, u, l2 + 1);
        if (fr) {
            hpi_ibar(&post, u, r, e1);
            hpi_bput(&post, " POMP2_%s_exit(" H(r) "); }", is_for ? "For" : "Sections", r);
        }
        if (!fr)   /* a split construct's barrier is the for's (as opari2) */
            hpi_ibar(&post, u, r, e1);
        hpi_bput(&post, " POMP2_Parallel_end(" H(r) "); } POMP2_Parallel_join(" H(r)
                        ", pomp2_old_task); }", r, r);
    } else if (strcmp(w0, "for") == 0 || strcmp(w0, "sections") == 0) {
        static const char *const ok_for[] = {
            "private", "firstprivate", "lastprivate", "reduction", "schedule", "ordered",
            "collapse", "linear", "nowait", NULL
        };
        int is_for = w0[0] == 'f';
        if (!hpi_only(o, ok_for) || (!is_for && (hpi_has(o, "schedule") >= 0 || hpi_has(o, "ordered") >= 0 ||
                                                 hpi_has(o, "collapse") >= 0 || hpi_has(o, "linear") >= 0)))
            return "clauses not rewritten";
        if (!is_for)
            hpi_bput(&ex, "*numSections=%d", hpi_count_sections(pl, st));
        if ((r = hpi_add_region(u, w0, l1, l2, e1, ex.p)) < 0)
            goto oom;
        hpi_bput(&pre, "{ POMP2_%s_enter(" H(r) ", __hprof_ctc(%d));", is_for ? "For" : "Sections", r, r);
        hpi_bline(&pre, u, l1);
        hpi_bpragma(&pre, w0, o, NULL, nowait ? "" : " nowait");
        hpi_bline(&pre, u, l2 + 1);
        if (!nowait)
            hpi_ibar(&post, u, r, e1);
        hpi_bput(&post, " POMP2_%s_exit(" H(r) "); }", is_for ? "For" : "Sections", r);
        if (!is_for && *nsecs < 64) {
            secs[*nsecs].s = st->s;
            secs[*nsecs].e = st->e;
            secs[(*nsecs)++].region = r;
        }
    } else if (strcmp(w0, "section") == 0) {
        size_t i, best = HPI_NONE;
        for (i = 0; i < *nsecs; i++)
            if (secs[i].s < d->start && d->end < secs[i].e &&
                (best == HPI_NONE || secs[i].s > secs[best].s))
                best = i;
        if (o->ncl)
            return "clauses not rewritten";
        if (best == HPI_NONE)
            return "its sections construct is not rewritten";
        r = secs[best].region;
        hpi_bput(&pre, "#pragma omp section\n{ POMP2_Section_begin(" H(r) ", __hprof_ctc(%d));", r, r);
        hpi_bline(&pre, u, l2 + 1);
        hpi_bput(&post, " POMP2_Section_end(" H(r) "); }", r);
    } else if (strcmp(w0, "single") == 0) {
        static const char *const ok[] = { "private", "firstprivate", "nowait", "allocate", NULL };
        if (!hpi_only(o, ok))
            return "clauses not rewritten (copyprivate cannot take nowait)";
        if ((r = hpi_add_region(u, w0, l1, l2, e1, ex.p)) < 0)
            goto oom;
        hpi_bput(&pre, "{ POMP2_Single_enter(" H(r) ", __hprof_ctc(%d));", r, r);
        hpi_bline(&pre, u, l1);
        hpi_bpragma(&pre, w0, o, NULL, nowait ? "" : " nowait");
        hpi_bput(&pre, "\n{ POMP2_Single_begin(" H(r) ");", r);
        hpi_bline(&pre, u, l2 + 1);
        hpi_bput(&post, " POMP2_Single_end(" H(r) "); }", r);
        if (!nowait)
            hpi_ibar(&post, u, r, e1);
        hpi_bput(&post, " POMP2_Single_exit(" H(r) "); }", r);
    } else if (strcmp(w0, "master") == 0) {
        if (o->ncl)
            return "clauses not rewritten";
        if ((r = hpi_add_region(u, w0, l1, l2, e1, ex.p)) < 0)
            goto oom;
        hpi_bput(&pre, "#pragma omp master\n{ POMP2_Master_begin(" H(r) ", __hprof_ctc(%d));", r, r);
        hpi_bline(&pre, u, l2 + 1);
        hpi_bput(&post, " POMP2_Master_end(" H(r) "); }", r);
    } else if (strcmp(w0, "critical") == 0 || strcmp(w0, "ordered") == 0) {
        const char *W = w0[0] == 'c' ? "Critical" : "Ordered";
        if (o->ncl && !(w0[0] == 'c' && o->ncl == 1 && strcmp(o->cl[0].name, "hint") == 0))
            return "clauses not rewritten";
        if ((r = hpi_add_region(u, w0, l1, l2, e1, ex.p)) < 0)
            goto oom;
        hpi_bput(&pre, "{ POMP2_%s_enter(" H(r) ", __hprof_ctc(%d));", W, r, r);
        hpi_bline(&pre, u, l1);
        hpi_bpragma(&pre, w0, o, NULL, NULL);
        hpi_bput(&pre, "\n{ POMP2_%s_begin(" H(r) ");", W, r);
        hpi_bline(&pre, u, l2 + 1);
        hpi_bput(&post, " POMP2_%s_end(" H(r) "); } POMP2_%s_exit(" H(r) "); }", W, r, W, r);
    } else if (strcmp(w0, "atomic") == 0) {
        if ((r = hpi_add_region(u, w0, l1, l2, e1, ex.p)) < 0)
            goto oom;
        hpi_bput(&pre, "{ POMP2_Atomic_enter(" H(r) ", __hprof_ctc(%d));", r, r);
        hpi_bline(&pre, u, l1);
        hpi_bpragma(&pre, w0, o, NULL, NULL);
        hpi_bline(&pre, u, l2 + 1);
        hpi_bput(&post, " POMP2_Atomic_exit(" H(r) "); }", r);
    } else if (strcmp(w0, "task") == 0) {
        static const char *const ok[] = {
            "if", "final", "untied", "default", "mergeable", "private", "firstprivate",
            "shared", "depend", "priority", "in_reduction", "allocate", "detach", "affinity", NULL
        };
        static const char *const keep[] = {
            "final", "untied", "default", "mergeable", "private", "firstprivate",
            "shared", "depend", "priority", "in_reduction", "allocate", "detach", "affinity", NULL
        };
        int k = hpi_has(o, "if");
        const char *U = hpi_has(o, "untied") >= 0 ? "Untied_task" : "Task";
        const char *arg = k >= 0 ? o->cl[k].arg : NULL;
        if (!hpi_only(o, ok))
            return "clauses not rewritten";
        if (k >= 0 && !arg)
            return "if clause not rewritten";
        if (arg && strchr(arg, ':')) {   /* if(task: expr) */
            const char *c = strchr(arg, ':');
            if (strncmp(hpi_skipsp(arg), "task", 4) != 0)
                return "if clause with a modifier not rewritten";
            arg = c + 1;
        }
        if ((r = hpi_add_region(u, w0, l1, l2, e1, ex.p)) < 0)
            goto oom;
        hpi_bput(&pre, "{ int pomp2_if = ");
        if (arg)
            hpi_bput(&pre, "(int)(%s);", arg);
        else
            hpi_bput(&pre, "1;");
        hpi_bput(&pre, " { POMP2_Task_handle pomp2_old_task = 0; POMP2_Task_handle pomp2_new_task = 0;"
                       " if (pomp2_if) POMP2_%s_create_begin(" H(r) ", &pomp2_new_task, &pomp2_old_task,"
                       " pomp2_if, __hprof_ctc(%d));", U, r, r);
        hpi_bline(&pre, u, l1);
        hpi_bpragma(&pre, w0, o, keep, " if(pomp2_if) firstprivate(pomp2_new_task, pomp2_if)");
        hpi_bput(&pre, "\n{ if (pomp2_if) POMP2_%s_begin(" H(r) ", pomp2_new_task);", U, r);
        hpi_bline(&pre, u, l2 + 1);
        hpi_bput(&post, " if (pomp2_if) POMP2_%s_end(" H(r) "); }"
                        " if (pomp2_if) POMP2_%s_create_end(" H(r) ", pomp2_old_task); } }", U, r, U, r);
    } else {   /* barrier, taskwait, flush */
        const char *W = w0[0] == 'b' ? "Barrier" : w0[1] == 'a' ? "Taskwait" : "Flush";
        const char *X = w0[0] == 'f' ? "exit" : w0[0] == 'b' ? "exit" : "end";
        if ((r = hpi_add_region(u, w0, l1, l2, e1, ex.p)) < 0)
            goto oom;
        if (w0[0] == 'f') {
            hpi_bput(&pre, "{ POMP2_Flush_enter(" H(r) ", __hprof_ctc(%d));", r, r);
        } else {
            hpi_bput(&pre, "{ POMP2_Task_handle pomp2_old_task; POMP2_%s_%s(" H(r)
                           ", &pomp2_old_task, __hprof_ctc(%d));", W, w0[0] == 'b' ? "enter" : "begin", r, r);
        }
        hpi_bline(&pre, u, l1);
        hpi_bpragma(&pre, w0, o, NULL, NULL);
        if (w0[0] == 'f')
            hpi_bput(&pre, "\n POMP2_Flush_exit(" H(r) "); }", r);
        else
            hpi_bput(&pre, "\n POMP2_%s_%s(" H(r) ", pomp2_old_task); }", W, X, r);
        hpi_bline(&pre, u, l2 + 1);
    }
    free(ex.p);
    if (pre.oom || post.oom)
        goto oom;
    /* the replacement ends before the directive's newline: drop the last
     * "\n" of the #line so the newline of the source ends that line */
    if (pre.n && pre.p[pre.n - 1] == '\n')
        pre.p[--pre.n] = 0;
    if (hpi_add_edit(u, d->start, d->end, d->start, 1, hpi_btake(&pre)) < 0)
        goto oom;
    /* the closer starts a line of its own (as line e1): clang's
     * -Wmisleading-indentation takes code right after a loop body on its
     * line for a statement meant to be in the loop */
    if (st) {
        hpi_buf c = { 0 };
        hpi_bline(&c, u, e1);
        hpi_bput(&c, "%s", post.p ? post.p : "");
        free(post.p);
        memset(&post, 0, sizeof post);
        if (c.oom || hpi_add_edit(u, st->e, st->e, d->start, 0, hpi_btake(&c)) < 0) {
            free(c.p);
            goto oom;
        }
    }
    if (0)
        goto oom;
    free(post.p);
    return NULL;
oom:
    free(pre.p);
    free(post.p);
    free(ex.p);
    pl->oom = 1;
    return "out of memory";
}

int hpi_omp_has_pragmas(const hpi_src *s)
{
    size_t i;

    for (i = 0; i < s->ndirs; i++) {
        const char *t = s->text + s->dirs[i].start + 1;
        const char *end = s->text + s->dirs[i].end;
        while (t < end && (*t == ' ' || *t == '\t'))
            t++;
        if (end - t > 6 && strncmp(t, "pragma", 6) == 0) {
            t += 6;
            while (t < end && (*t == ' ' || *t == '\t'))
                t++;
            if (end - t >= 3 && strncmp(t, "omp", 3) == 0 && (end - t == 3 || !hpi_id(t[3])))
                return 1;
        }
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

int hpi_omp_plan(hpi_unit *u, const hpi_stmt *stmts, size_t nstmts)
{
    hpi_plan pl;
    hpi_secs secs[64];
    size_t i, nsecs = 0;

    pl.u = u;
    pl.stmts = stmts;
    pl.nstmts = nstmts;
    pl.oom = 0;
    for (i = 0; i < u->src.ndirs && !pl.oom; i++) {
        const hpi_dir *d = &u->src.dirs[i];
        char *t = hpi_dir_text(&u->src, d);
        hpi_omp o;
        const char *why;
        if (!t)
            return -1;
        if (hpi_omp_parse(t, &o) < 0) {
            if (strstr(t, "omp") && hpi_omp_has_pragmas(&u->src)) {
                const char *p = t + 1;
                while (*p == ' ')
                    p++;
                if (strncmp(p, "pragma", 6) == 0 && strstr(p, " omp") && !strstr(p, "omp inst") &&
                    hpi_note(u, hpi_src_line(&u->src, d->start), "not understood") < 0)
                    pl.oom = 1;
            }
            hpi_omp_clear(&o);
            free(t);
            continue;
        }
        why = hpi_plan_dir(&pl, d, &o, secs, &nsecs);
        if (why && hpi_note(u, hpi_src_line(&u->src, d->start), why) < 0)
            pl.oom = 1;
        hpi_omp_clear(&o);
        free(t);
    }
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
