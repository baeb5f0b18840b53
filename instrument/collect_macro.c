/*
 * collect_macro.c - the macro invocations of the unit as the site walk
 * needs them: which invocation starts or ends at an offset, whether a
 * macro expands to a _Pragma (and how many loops its collapse clause
 * binds), whether a site made by a macro can be wrapped, and the notes
 * for omp _Pragmas made by macros that --omp leaves as they are; call
 * statements made by statement macros (used without ';', or declaring).
 */
#include <stdlib.h>
#include <string.h>

#include <clang-c/Index.h>

#include "hpi.h"
#include "hpi_collect.h"

hpi_macro *hpi_macro_at(hpi_walk *w, size_t start)
{
    hpi_macro *m = w->macros.v, *best = NULL;
    size_t lo = 0, hi = w->macros.n;

    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (m[mid].start < start)
            lo = mid + 1;
        else
            hi = mid;
    }
    for (; lo < w->macros.n && m[lo].start == start; lo++)
        if (!best || m[lo].end > best->end)
            best = &m[lo];
    return best;
}

int hpi_macro_ends_at(hpi_walk *w, size_t end)
{
    size_t lo = 0, hi = w->macros.n;

    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (w->mends[mid] < end)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < w->macros.n && w->mends[lo] == end;
}

/* ---- macros that expand to _Pragma -------------------------------- */

int hpi_mdef_cmp(const void *a, const void *b)
{
    return strcmp(((const hpi_mdef *)a)->name, ((const hpi_mdef *)b)->name);
}

static const hpi_mdef *hpi_mdef_find(hpi_walk *w, const char *name)
{
    hpi_mdef key;

    key.name = name;
    if (!w->defs.n)   /* bsearch must not get a NULL array */
        return NULL;
    return bsearch(&key, w->defs.v, w->defs.n, sizeof key, hpi_mdef_cmp);
}

/* 1 when the definition d (or a macro it uses) contains _Pragma; the
 * definition's text is appended to buf for the collapse clause. */
static int hpi_def_pragma(hpi_walk *w, CXCursor d, int depth, char *buf, size_t len)
{
    CXToken *t = NULL;
    unsigned n = 0, i;
    int found = 0;

    if (depth > 4)
        return 0;
    clang_tokenize(w->tu, clang_getCursorExtent(d), &t, &n);
    for (i = 1; i < n && !found; i++) {
        CXString s = clang_getTokenSpelling(w->tu, t[i]);
        const char *p = clang_getCString(s);
        size_t have = strlen(buf);
        if (have + strlen(p) + 2 < len) {
            strcat(buf, " ");
            strcat(buf, p);
        }
        if (strcmp(p, "_Pragma") == 0)
            found = 1;
        else if (clang_getTokenKind(t[i]) == CXToken_Identifier) {
            const hpi_mdef *m = hpi_mdef_find(w, p);
            if (m && !clang_equalCursors(m->cur, d))
                found = hpi_def_pragma(w, m->cur, depth + 1, buf, len);
        }
        clang_disposeString(s);
    }
    for (; i < n; i++) {  /* the rest, for clauses after the _Pragma */
        CXString s = clang_getTokenSpelling(w->tu, t[i]);
        const char *p = clang_getCString(s);
        if (strlen(buf) + strlen(p) + 2 < len) {
            strcat(buf, " ");
            strcat(buf, p);
        }
        clang_disposeString(s);
    }
    clang_disposeTokens(w->tu, t, n);
    return found;
}

int hpi_macro_pragma(hpi_walk *w, hpi_macro *m)
{
    if (m->pragma < 0) {
        char buf[2048] = "";
        size_t n = m->end - m->start;
        m->pragma = hpi_def_pragma(w, m->def, 0, buf, sizeof buf);
        if (n < sizeof buf - strlen(buf) - 2) {
            strcat(buf, " ");
            strncat(buf, w->u->src.text + m->start, n);
        }
        m->collapse = hpi_pragma_collapse(buf);
        m->parallel = hpi_pragma_parallel(buf);
    }
    return m->pragma;
}

/* The reason a site at [s, e) made (partly) by a macro cannot be wrapped,
 * or NULL when the whole invocation is exactly the site's code (its
 * largest node with that range is an expression for calls; no other node
 * shares its range for loops). */
const char *hpi_macro_check(hpi_walk *w, size_t s, size_t e, int loop)
{
    hpi_macro *m = hpi_macro_at(w, s);
    const hpi_anc *a = w->anc.v;
    size_t i;

    if (!m)
        return NULL;
    if (e < m->end)
        return "part of a macro expansion";
    if (!loop && e != m->end)
        return "part of a macro expansion";
    /* anc[n-1] is the site itself */
    for (i = w->anc.n - 1; i-- > 0;) {
        if (a[i].s != s || a[i].e != e)
            break;
        if (loop || !clang_isExpression(a[i].kind))
            return "macro expands to more than the site";
    }
    if (loop && w->prev_end != HPI_NONE && w->prev_end > s)
        return "macro expands to more than the loop";
    return NULL;
}

/* 1 when macro invocation m expands to an omp _Pragma. */
static int hpi_macro_omp(hpi_walk *w, hpi_macro *m)
{
    char buf[2048] = "";
    const char *p;

    if (!hpi_macro_pragma(w, m))
        return 0;
    hpi_def_pragma(w, m->def, 0, buf, sizeof buf);
    for (p = buf; (p = strstr(p, "_Pragma")) != NULL; p += 7) {
        const char *q = p + 7;
        while (*q == ' ' || *q == '(')
            q++;
        if (*q == '"' && strncmp(q + 1 + strspn(q + 1, " \t"), "omp", 3) == 0)
            return 1;
    }
    return 0;
}

/* The omp plan (the POMP2 rewriting with --omp, else only the split of
 * combined parallel loops), then with --omp a note for every macro
 * invocation that expands to an omp _Pragma (left as it is). */
int hpi_omp_macros(hpi_walk *w)
{
    hpi_stmt *ms = malloc((w->macros.n + 1) * sizeof *ms);
    size_t i;
    int rc;

    if (!ms)
        return -1;
    for (i = 0; i < w->macros.n; i++) {
        ms[i].s = ((hpi_macro *)w->macros.v)[i].start;
        ms[i].e = ((hpi_macro *)w->macros.v)[i].end;
    }
    if (w->stmts.n)
        qsort(w->stmts.v, w->stmts.n, sizeof(hpi_stmt), hpi_size_cmp);  /* by s */
    rc = hpi_omp_plan(w->u, w->stmts.v, w->stmts.n, ms, w->macros.n, w->o->omp);
    free(ms);
    for (i = 0; rc == 0 && w->o->omp && i < w->macros.n; i++) {
        hpi_macro *m = &((hpi_macro *)w->macros.v)[i];
        if (hpi_macro_omp(w, m)) {
            CXString n = clang_getCursorSpelling(m->def);
            char why[200];
            snprintf(why, sizeof why, "_Pragma from macro %s: left as is (not recorded)", clang_getCString(n));
            clang_disposeString(n);
            rc = hpi_omp_note(w->u, hpi_src_line(&w->u->src, m->start), why);
        }
    }
    return rc;
}

/* ---- statement macros ---------------------------------------------- */

static int hpi_word_at(const hpi_src *src, size_t off, const char *word)
{
    size_t n = strlen(word);

    return off + n <= src->len && strncmp(src->text + off, word, n) == 0 &&
           (off + n == src->len || !hpi_is_ident(src->text[off + n]));
}

const char *hpi_macro_stmt_end(hpi_walk *w, size_t e, int *semi)
{
    const hpi_src *src = &w->u->src;
    size_t n = hpi_src_next_nonspace(src, e);
    char c;

    *semi = 0;
    if (n >= src->len)
        return NULL;
    if (src->cls[n] == HPI_C_DIRECTIVE) {   /* the statement ends the line */
        *semi = 1;
        return NULL;
    }
    c = src->text[n];
    if (hpi_word_at(src, n, "else"))
        return "statement macro followed by else";
    /* the next statement or the end of the block: no ';' was written */
    if (c == '}' || c == '{' || hpi_is_ident(c))
        *semi = 1;
    return NULL;
}

void hpi_macro_decls(hpi_walk *w, const CXCursor *kids, size_t n)
{
    size_t i, j;

    for (i = 0; i < n; i++) {
        hpi_macro *m;
        size_t s, e;
        if (clang_getCursorKind(kids[i]) != CXCursor_DeclStmt ||
            hpi_range(w, kids[i], &s, &e) < 0)
            continue;
        m = hpi_macro_at(w, s);
        if (!m || e > m->end)
            continue;
        for (j = w->first_site; j < w->u->nsites; j++) {
            hpi_site *t = &w->u->sites[j];
            /* the wrapper would go around the whole invocation (calls in
             * its arguments are wrapped inside the argument's text) */
            if (t->wrap == HPI_WRAP_EXPR && !t->skip &&
                t->open_off == m->start && t->close_off == m->end)
                t->skip = "macro expands to a declaration";
        }
    }
}
