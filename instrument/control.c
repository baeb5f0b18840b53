/*
 * control.c - the control pragmas of hprof-instrument:
 *
 *   #pragma hprof region begin NAME   -> hprof_region_begin("NAME");
 *   #pragma hprof region end NAME     -> hprof_region_end("NAME");
 *   #pragma hprof off / on            -> hprof_collect(0); / hprof_collect(1);
 *   #pragma hprof noinstrument ... #pragma hprof instrument
 *                                     -> no probes of any kind in between
 *
 * and the seed's aliases "#pragma omp inst begin(NAME)", "end(NAME)",
 * "on", "off", "init", "final" (the last two do nothing).  Each pragma is
 * replaced by its call on the same line (a pragma continued over several
 * lines keeps its newlines), so every line keeps its number; the
 * noinstrument pragmas are left as they are.  A pragma outside any
 * function body, an unknown "#pragma hprof WORD" or a malformed one is
 * left as it is after a warning on stderr
 * ("hprof-instrument: FILE:LINE: warning: ...").
 */
#include <stdlib.h>
#include <string.h>

#include "hpi.h"
#include "hprof_probe.h"

static int hpi_cid(char c)
{
    return c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
}

static const char *hpi_csp(const char *p)
{
    while (*p == ' ' || *p == '\t')
        p++;
    return p;
}

/* p starts with word w (as a whole identifier): the text after it. */
static const char *hpi_word(const char *p, const char *w)
{
    size_t n = strlen(w);
    return strncmp(p, w, n) == 0 && !hpi_cid(p[n]) ? hpi_csp(p + n) : NULL;
}

static void hpi_warn(const hpi_unit *u, unsigned line, const char *what, const char *text)
{
    fprintf(stderr, "hprof-instrument: %s:%u: warning: %s: %s\n", u->src.path, line, what, text);
}

/* A region name: "quoted" or the text up to the end (or to `stop`). */
static char *hpi_name(const char *p, char stop)
{
    const char *e;
    char *r;

    p = hpi_csp(p);
    if (*p == '"') {
        e = strchr(p + 1, '"');
        if (!e || e == p + 1)
            return NULL;
        p++;
    } else {
        e = stop ? strchr(p, stop) : p + strlen(p);
        if (!e)
            return NULL;
        while (e > p && (e[-1] == ' ' || e[-1] == '\t'))
            e--;
    }
    if (e == p)
        return NULL;
    if (!(r = malloc((size_t)(e - p) * 2 + 3)))
        return NULL;
    {
        size_t n = 0;
        r[n++] = '"';
        for (; p < e; p++) {
            if (*p == '"' || *p == '\\')
                r[n++] = '\\';
            r[n++] = *p;
        }
        r[n++] = '"';
        r[n] = 0;
    }
    return r;
}

static int hpi_cedit(hpi_unit *u, const hpi_dir *d, const char *call)
{
    size_t i, n = strlen(call), nl = 0;
    hpi_edit *e;
    char *text;

    for (i = d->start; i < d->end; i++)
        nl += u->src.text[i] == '\n';
    if (!(text = malloc(n + nl + 1)))
        return -1;
    memcpy(text, call, n);
    memset(text + n, '\n', nl);
    text[n + nl] = 0;
    if (u->nedits == u->ecap) {
        size_t c = u->ecap ? u->ecap * 2 : 32;
        hpi_edit *p = realloc(u->edits, c * sizeof *p);
        if (!p) {
            free(text);
            return -1;
        }
        u->edits = p;
        u->ecap = c;
    }
    e = &u->edits[u->nedits++];
    e->off = d->start;
    e->end = d->end;
    e->key = d->start;
    e->open = 1;
    e->text = text;
    return 0;
}

/* 1 when line is inside the body of a procedure site. */
static int hpi_in_function(const hpi_unit *u, unsigned line)
{
    size_t i;

    for (i = 0; i < u->nsites; i++)
        if (u->sites[i].kind == HPROF_SITE_PROCEDURE && u->sites[i].line < line &&
            line < u->sites[i].end_line)
            return 1;
    return 0;
}

enum { C_NONE, C_BEGIN, C_END, C_OFF, C_ON, C_NOP, C_NOINST, C_INST, C_BAD };

/* Classifies directive text t; *name gets the quoted region name. */
static int hpi_classify(const char *t, char **name, const char **why)
{
    const char *p = hpi_csp(t), *q;

    *name = NULL;
    *why = NULL;
    if (*p++ != '#')
        return C_NONE;
    p = hpi_csp(p);
    if (!(p = hpi_word(p, "pragma")))
        return C_NONE;
    if ((q = hpi_word(p, "hprof"))) {
        const char *r;
        if ((r = hpi_word(q, "region"))) {
            int k = (q = hpi_word(r, "begin")) ? C_BEGIN : (q = hpi_word(r, "end")) ? C_END : C_BAD;
            if (k == C_BAD) {
                *why = "expected \"region begin NAME\" or \"region end NAME\"; pragma left as is";
                return C_BAD;
            }
            if (!(*name = hpi_name(q, 0))) {
                *why = "region without a name; pragma left as is";
                return C_BAD;
            }
            return k;
        }
        if ((r = hpi_word(q, "off")) && !*r)
            return C_OFF;
        if ((r = hpi_word(q, "on")) && !*r)
            return C_ON;
        if ((r = hpi_word(q, "noinstrument")) && !*r)
            return C_NOINST;
        if ((r = hpi_word(q, "instrument")) && !*r)
            return C_INST;
        *why = "unknown #pragma hprof; pragma left as is";
        return C_BAD;
    }
    if ((q = hpi_word(p, "omp")) && (q = hpi_word(q, "inst"))) {
        const char *r;
        int k = (r = hpi_word(q, "begin")) ? C_BEGIN : (r = hpi_word(q, "end")) ? C_END : C_NONE;
        if (k != C_NONE) {
            if (*r == '(' && (*name = hpi_name(r + 1, ')')))
                return k;
            *why = "expected \"omp inst begin(NAME)\" or \"end(NAME)\"; pragma left as is";
            return C_BAD;
        }
        if ((r = hpi_word(q, "on")) && !*r)
            return C_ON;
        if ((r = hpi_word(q, "off")) && !*r)
            return C_OFF;
        if (((r = hpi_word(q, "init")) || (r = hpi_word(q, "final"))) && !*r)
            return C_NOP;
        *why = "unknown #pragma omp inst; pragma left as is";
        return C_BAD;
    }
    return C_NONE;
}

int hpi_control(hpi_unit *u)
{
    size_t i, j, k;
    unsigned noinst = 0;   /* line of the open noinstrument pragma, 0 if none */
    unsigned *ranges = NULL;  /* pairs of lines (first, last) without probes */
    size_t nranges = 0;
    size_t nomp = u->nedits;  /* the POMP2 edits; the control edits follow */

    for (i = 0; i < u->src.ndirs; i++) {
        const hpi_dir *d = &u->src.dirs[i];
        unsigned line = hpi_src_line(&u->src, d->start);
        char *t = hpi_dir_text(&u->src, d), *name, buf[64], *call = NULL;
        const char *why;
        int c, rc = 0;

        if (!t)
            goto oom;
        c = hpi_classify(t, &name, &why);
        if (c == C_BAD) {
            hpi_warn(u, line, why, t);
        } else if (c == C_NOINST) {
            if (!noinst)
                noinst = line;
        } else if (c == C_INST) {
            if (noinst) {
                unsigned *p = realloc(ranges, (nranges + 1) * 2 * sizeof *p);
                if (!p) {
                    free(t);
                    goto oom;
                }
                ranges = p;
                ranges[2 * nranges] = noinst;
                ranges[2 * nranges++ + 1] = line;
                noinst = 0;
            }
        } else if (c != C_NONE && !hpi_in_function(u, line)) {
            hpi_warn(u, line, "control pragma outside a function body; left as is", t);
        } else if (c == C_BEGIN || c == C_END) {
            call = malloc(strlen(name) + 32);
            if (call)
                sprintf(call, "hprof_region_%s(%s);", c == C_BEGIN ? "begin" : "end", name);
            rc = call ? hpi_cedit(u, d, call) : -1;
        } else if (c == C_OFF || c == C_ON || c == C_NOP) {
            snprintf(buf, sizeof buf, "%s", c == C_NOP ? ";" : c == C_ON ? "hprof_collect(1);"
                                                                         : "hprof_collect(0);");
            rc = hpi_cedit(u, d, buf);
        }
        free(call);
        free(name);
        free(t);
        if (rc < 0)
            goto oom;
    }
    if (noinst) {
        unsigned *p = realloc(ranges, (nranges + 1) * 2 * sizeof *p);
        if (!p)
            goto oom;
        ranges = p;
        ranges[2 * nranges] = noinst;
        ranges[2 * nranges++ + 1] = u->src.nlines + 1;
    }
    /* no probes, no POMP2 rewriting between noinstrument and instrument */
    for (k = 0; k < nranges; k++) {
        unsigned a = ranges[2 * k], b = ranges[2 * k + 1];
        for (i = 0; i < u->nsites; i++)
            if (u->sites[i].line > a && u->sites[i].line < b && !u->sites[i].skip)
                u->sites[i].skip = "between #pragma hprof noinstrument and instrument";
        for (i = j = 0; i < u->nedits; i++) {
            unsigned l = hpi_src_line(&u->src, u->edits[i].key);
            if (i >= nomp || !(l > a && l < b))
                u->edits[j++] = u->edits[i];
            else
                free(u->edits[i].text);
        }
        nomp -= u->nedits - j;
        u->nedits = j;
    }
    free(ranges);
    return 0;
oom:
    free(ranges);
    return -1;
}
