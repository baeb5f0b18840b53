/*
 * omp_clause.c - an omp pragma as hprof-instrument's POMP2 rewriting sees
 * it: the pragma's text on one line, parsed into directive words and
 * clauses; the questions the rewriting asks about the clauses; and the
 * growable text buffer with the pieces every rewriting writes (a #line
 * directive, a pragma re-emitted with a chosen set of its clauses, the
 * extra fields of opari2's ctc string).
 */
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "hpi.h"
#include "hpi_omp.h"

void hpi_bput(hpi_buf *b, const char *fmt, ...)
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

char *hpi_btake(hpi_buf *b)
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

int hpi_id(char c)
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

const char *hpi_skipsp(const char *p)
{
    while (*p == ' ')
        p++;
    return p;
}

/* Parses "#pragma omp WORDS [(name)] CLAUSES"; -1 if it is not one. */
int hpi_omp_parse(const char *t, hpi_omp *o)
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

void hpi_omp_clear(hpi_omp *o)
{
    int i;

    for (i = 0; i < o->ncl; i++)
        free(o->cl[i].arg);
    o->ncl = 0;
}

int hpi_has(const hpi_omp *o, const char *name)
{
    int i;

    for (i = 0; i < o->ncl; i++)
        if (strcmp(o->cl[i].name, name) == 0)
            return i;
    return -1;
}

/* 1 when every clause of o is in the NULL-terminated list. */
int hpi_only(const hpi_omp *o, const char *const *ok)
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

/* "\n#line N \"FILE\"\n" */
void hpi_bline(hpi_buf *b, const hpi_unit *u, unsigned line)
{
    const char *p;

    hpi_bput(b, "\n#line %u \"", line);
    for (p = u->src.path; *p; p++)
        hpi_bput(b, *p == '"' || *p == '\\' ? "\\%c" : "%c", *p);
    hpi_bput(b, "\"\n");
}

/* The pragma re-emitted: "#pragma omp WORDS" then the clauses of o that
 * pass keep (all when NULL), then extra. */
void hpi_bpragma(hpi_buf *b, const char *words, const hpi_omp *o,
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

void hpi_ctc_extra(hpi_buf *b, const hpi_omp *o)
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
const char *hpi_items(const hpi_clause *c)
{
    const char *k = strchr(c->arg, ':');

    return strcmp(c->name, "reduction") == 0 && k ? k + 1 : c->arg;
}

/* 1 when every item of the list is a plain name. */
int hpi_plain_items(const char *list)
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
int hpi_last_conflict(const hpi_omp *o)
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
void hpi_shared_items(hpi_buf *b, const hpi_omp *o, const char *name)
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
