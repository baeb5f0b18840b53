/*
 * collect.c - finds the sites of a unit with libclang: parses the main
 * file with the user's flags (without -fopenmp, so the bodies of OpenMP
 * regions stay visible), walks every function defined in it and records
 * procedures, loops, call statements and communication statements in
 * preorder (parents before children), together with the exact text
 * positions where their probes can go without changing what the code
 * means.  Anything it cannot wrap safely (macro-made code, goto into a
 * loop, unevaluated contexts, loops bound by collapse) is kept with a
 * reason instead of a probe.
 */
#include <fnmatch.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <clang-c/Index.h>

#include "hpi.h"
#include "hprof_probe.h"
#include "hp_filter.h"
#include "instrument/hpi_mpi_kinds.h"

#define HPI_NONE ((size_t)-1)

typedef struct hpi_macro {
    size_t start, end;   /* the invocation in the main file */
    CXCursor def;        /* its MacroDefinition */
    int pragma;          /* -1 not yet known, 0 no, 1 expands to a _Pragma */
    int collapse;
} hpi_macro;

typedef struct hpi_mdef {
    const char *name;    /* owned by the CXString below */
    CXString str;
    CXCursor cur;
} hpi_mdef;

typedef struct hpi_mark {
    size_t off;          /* where; HPI_NONE = from anywhere */
    size_t aux;          /* case: offset of its switch */
    char *name;          /* label or goto target */
} hpi_mark;

typedef struct hpi_anc {
    enum CXCursorKind kind;
    size_t s, e;         /* file range, s == HPI_NONE if unknown */
} hpi_anc;

typedef struct hpi_vec {
    void *v;
    size_t n, cap;
} hpi_vec;

typedef struct hpi_walk {
    hpi_unit *u;
    const hpi_opts *o;
    CXTranslationUnit tu;
    CXFile main;
    hp_filter *filter;
    hpi_vec macros;      /* hpi_macro, sorted by start */
    size_t *mends;       /* sorted ends */
    hpi_vec defs;        /* hpi_mdef, sorted by name */
    hpi_vec funcs;       /* CXCursor */
    hpi_vec anc;         /* hpi_anc: the path from the function down */
    hpi_vec labels, gotos, cases;   /* hpi_mark, current function */
    hpi_vec switches;    /* size_t offsets, innermost last */
    const char *func;
    int parent;          /* innermost procedure or loop site */
    int nosite;          /* > 0: record no sites here */
    size_t prev_end;     /* end of the previous statement of the block */
    CXCursor collapsed;  /* the next loop bound to an omp loop pragma */
    int collapse_left;
    size_t first_site;   /* the current function's procedure site */
    hpi_vec stmts;       /* hpi_stmt: statements of blocks, for --omp */
    int oom;
} hpi_walk;

static void *hpi_push(hpi_walk *w, hpi_vec *v, size_t elt)
{
    if (v->n == v->cap) {
        size_t n = v->cap ? v->cap * 2 : 32;
        void *p = realloc(v->v, n * elt);
        if (!p) {
            w->oom = 1;
            return NULL;
        }
        v->v = p;
        v->cap = n;
    }
    return (char *)v->v + elt * v->n++;
}

static char *hpi_strdup(hpi_walk *w, const char *s)
{
    char *d = strdup(s ? s : "");
    if (!d)
        w->oom = 1;
    return d;
}

/* ---- locations ---------------------------------------------------- */

static int hpi_off(hpi_walk *w, CXSourceLocation loc, size_t *off)
{
    CXFile f;
    unsigned line, col, o;

    clang_getFileLocation(loc, &f, &line, &col, &o);
    if (!f || !clang_File_isEqual(f, w->main) || o > w->u->src.len)
        return -1;
    *off = o;
    return 0;
}

static int hpi_range(hpi_walk *w, CXCursor c, size_t *s, size_t *e)
{
    CXSourceRange r = clang_getCursorExtent(c);

    if (hpi_off(w, clang_getRangeStart(r), s) < 0 || hpi_off(w, clang_getRangeEnd(r), e) < 0)
        return -1;
    return *s < *e ? 0 : -1;
}

static hpi_macro *hpi_macro_at(hpi_walk *w, size_t start)
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

static int hpi_macro_ends_at(hpi_walk *w, size_t end)
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

static int hpi_mdef_cmp(const void *a, const void *b)
{
    return strcmp(((const hpi_mdef *)a)->name, ((const hpi_mdef *)b)->name);
}

static const hpi_mdef *hpi_mdef_find(hpi_walk *w, const char *name)
{
    hpi_mdef key;

    key.name = name;
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

static int hpi_macro_pragma(hpi_walk *w, hpi_macro *m)
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
    }
    return m->pragma;
}

/* ---- sites -------------------------------------------------------- */

static int hpi_add_site(hpi_walk *w, int kind, const char *name, size_t s, size_t e)
{
    hpi_unit *u = w->u;
    hpi_site *t;

    if (u->nsites == u->cap) {
        size_t n = u->cap ? u->cap * 2 : 64;
        hpi_site *p = realloc(u->sites, n * sizeof *p);
        if (!p) {
            w->oom = 1;
            return -1;
        }
        u->sites = p;
        u->cap = n;
    }
    t = &u->sites[u->nsites];
    memset(t, 0, sizeof *t);
    t->kind = kind;
    t->name = hpi_strdup(w, name);
    t->func = hpi_strdup(w, kind == HPROF_SITE_PROCEDURE ? "" : w->func);
    t->line = hpi_src_line(&u->src, s);
    t->end_line = hpi_src_line(&u->src, e ? e - 1 : 0);
    t->parent = kind == HPROF_SITE_PROCEDURE ? -1 : w->parent;
    t->open_off = s;
    t->close_off = e;
    return (int)u->nsites++;
}

/* Is name in the NULL-terminated list (entries may be globs)? */
static int hpi_listed(const char *const *list, const char *name)
{
    int i;

    for (i = 0; list[i]; i++)
        if (fnmatch(list[i], name, 0) == 0)
            return 1;
    return 0;
}

/* HPROF_SITE_COMM, HPROF_SITE_CALL, or 0: no site (hprof_*: a region would outlive the call) */
static int hpi_call_kind(hpi_walk *w, const char *name)
{
    size_t i;

    for (i = 0; i < w->o->ncomm; i++)
        if (strcmp(name, w->o->comm[i]) == 0)
            return HPROF_SITE_COMM;
    if (!strncmp(name, "PMPI_", 5) || !strncmp(name, "__builtin", 9) || !strncmp(name, "hprof_", 6))
        return 0;
    if (strncmp(name, "MPI_", 4) == 0) {
        /* From the wrappers' spec: local calls (queries, datatypes, groups,
         * ...) are call statements; MPI_Init*, MPI_Finalize, MPI_Wtime and
         * the other unrecorded ones get no site. */
        if (hpi_listed(hpi_mpi_nosite, name))
            return 0;
        return hpi_listed(hpi_mpi_calls, name) ? HPROF_SITE_CALL : HPROF_SITE_COMM;
    }
    return HPROF_SITE_CALL;
}

/* ---- the walk ----------------------------------------------------- */

static enum CXChildVisitResult hpi_kid(CXCursor c, CXCursor p, CXClientData d)
{
    hpi_walk *w = ((void **)d)[0];
    hpi_vec *v = ((void **)d)[1];
    CXCursor *slot = hpi_push(w, v, sizeof c);

    (void)p;
    if (slot)
        *slot = c;
    return CXChildVisit_Continue;
}

static void hpi_kids(hpi_walk *w, CXCursor c, hpi_vec *v)
{
    void *d[2];

    d[0] = w;
    d[1] = v;
    memset(v, 0, sizeof *v);
    clang_visitChildren(c, hpi_kid, d);
}

static void hpi_walk_node(hpi_walk *w, CXCursor c);
static void hpi_push_stmt(hpi_walk *w, size_t s, size_t e);
static int hpi_has_body(enum CXCursorKind k);

static void hpi_walk_kid(hpi_walk *w, CXCursor c)
{
    hpi_anc *a = hpi_push(w, &w->anc, sizeof *a);

    if (!a)
        return;
    a->kind = clang_getCursorKind(c);
    if (hpi_range(w, c, &a->s, &a->e) < 0)
        a->s = a->e = HPI_NONE;
    else if (w->anc.n >= 2 && hpi_has_body(((hpi_anc *)w->anc.v)[w->anc.n - 2].kind))
        hpi_push_stmt(w, a->s, a->e);
    hpi_walk_node(w, c);
    w->anc.n--;
}

static void hpi_walk_kids(hpi_walk *w, CXCursor c)
{
    hpi_vec k;
    size_t i;

    hpi_kids(w, c, &k);
    for (i = 0; i < k.n; i++)
        hpi_walk_kid(w, ((CXCursor *)k.v)[i]);
    free(k.v);
}

static void hpi_walk_quiet(hpi_walk *w, CXCursor c)
{
    w->nosite++;
    hpi_walk_kids(w, c);
    w->nosite--;
}

/* The reason a site at [s, e) made (partly) by a macro cannot be wrapped,
 * or NULL when the whole invocation is exactly the site's code (its
 * largest node with that range is an expression for calls; no other node
 * shares its range for loops). */
static const char *hpi_macro_check(hpi_walk *w, size_t s, size_t e, int loop)
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

static int hpi_is_ident(char c)
{
    return c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
}

/* Finds where the probe of a loop starting at s opens: before the
 * #pragma lines, _Pragma operators and pragma macros that bind the loop
 * (so they still directly precede it).  *line is set to the line of the
 * opener when it must sit on a line of its own; *bound when an OpenMP-like
 * pragma binds the loop, with the number of loops it binds in *collapse. */
static size_t hpi_loop_open(hpi_walk *w, size_t s, unsigned *line, int *bound, int *collapse)
{
    const hpi_src *src = &w->u->src;
    size_t best = s, cur = s;
    int depth = 0, pending = 0;

    *line = 0;
    for (;;) {
        size_t p = hpi_src_prev_nonspace(src, cur);
        const hpi_dir *d;
        hpi_macro *m;
        size_t q;

        if (p == HPI_NONE)
            break;
        if (src->cls[p] == HPI_C_DIRECTIVE) {
            if (!(d = hpi_src_dir_at(src, p)))
                break;
            if (d->kind == HPI_D_ENDIF)
                depth++;
            else if (d->kind == HPI_D_IF && depth-- == 0)
                break;
            else if (d->kind == HPI_D_ELSE && depth == 0)
                break;
            else if (d->kind == HPI_D_PRAGMA_BLOCK || d->kind == HPI_D_PRAGMA_ATOMIC)
                break;
            else if (d->kind == HPI_D_PRAGMA_LOOP) {
                pending = 1;
                *bound = 1;
                if (*collapse && (d->collapse == 0 || d->collapse > *collapse))
                    *collapse = d->collapse;
            }
            if (depth == 0 && pending) {
                best = hpi_src_line_start(src, d->line);
                *line = d->line;
            }
            cur = d->start;
            continue;
        }
        if (depth != 0)
            break;
        /* a macro invocation that expands to _Pragma(...), with or
         * without arguments */
        m = NULL;
        for (q = 0; q < w->macros.n; q++) {
            hpi_macro *x = &((hpi_macro *)w->macros.v)[q];
            if (x->end == p + 1 && (!m || x->start < m->start))
                m = x;
        }
        if (m && hpi_macro_pragma(w, m)) {
            *bound = 1;
            if (*collapse && (m->collapse == 0 || m->collapse > *collapse))
                *collapse = m->collapse;
            best = cur = m->start;
            *line = 0;
            continue;
        }
        if (src->text[p] != ')')
            break;
        /* a literal _Pragma("...") */
        {
            int lvl = 0;
            size_t i = p + 1, id;
            while (i-- > 0) {
                if (src->cls[i] != HPI_C_CODE)
                    continue;
                if (src->text[i] == ')')
                    lvl++;
                else if (src->text[i] == '(' && --lvl == 0)
                    break;
            }
            if (i == HPI_NONE || lvl != 0)
                break;
            id = hpi_src_prev_nonspace(src, i);
            if (id == HPI_NONE || id < 6 || strncmp(src->text + id - 6, "_Pragma", 7) != 0 ||
                (id >= 7 && hpi_is_ident(src->text[id - 7])))
                break;
            {
                char buf[512];
                size_t n = p - i < sizeof buf ? p - i : sizeof buf - 1;
                int c;
                memcpy(buf, src->text + i + 1, n);
                buf[n] = 0;
                *bound = 1;
                c = hpi_pragma_collapse(buf);
                if (*collapse && (c == 0 || c > *collapse))
                    *collapse = c;
            }
            best = cur = id - 6;
            *line = 0;
        }
    }
    return best;
}

/* 1 when the do loop's condition is a constant 0: do { } while (0). */
static int hpi_do_while0(hpi_walk *w, CXCursor c)
{
    hpi_vec k;
    CXCursor cond;
    int zero = 0;

    hpi_kids(w, c, &k);
    if (k.n == 2) {
        cond = ((CXCursor *)k.v)[1];
        if (clang_getCursorKind(cond) == CXCursor_IntegerLiteral) {
            CXEvalResult r = clang_Cursor_Evaluate(cond);
            if (r) {
                zero = clang_EvalResult_getKind(r) == CXEval_Int && clang_EvalResult_getAsLongLong(r) == 0;
                clang_EvalResult_dispose(r);
            }
        }
    }
    free(k.v);
    return zero;
}

/* 1 when an earlier site of this function has the same text: a macro
 * argument expanded twice. */
static int hpi_duplicate(hpi_walk *w, int kind, size_t open, size_t close)
{
    size_t j;

    for (j = w->first_site; j < w->u->nsites; j++)
        if (w->u->sites[j].kind == kind && w->u->sites[j].open_off == open &&
            w->u->sites[j].close_off == close && !w->u->sites[j].skip)
            return 1;
    return 0;
}

static void hpi_walk_loop(hpi_walk *w, CXCursor c)
{
    enum CXCursorKind k = clang_getCursorKind(c);
    const char *name = k == CXCursor_ForStmt ? "for" : k == CXCursor_WhileStmt ? "while" : "do";
    const hpi_src *src = &w->u->src;
    size_t s, e, open, close, after;
    unsigned line = 0;
    int bound = 0, collapse = 1, idx = -1, inner = 0, saved = w->parent;
    const char *skip = NULL;
    hpi_macro *m;
    hpi_vec kids;
    size_t i;

    if (clang_equalCursors(c, w->collapsed) && w->collapse_left > 0) {
        inner = 1;   /* bound to the enclosing loop's collapse clause */
        bound = 1;
        collapse = w->collapse_left;
    }
    if (hpi_range(w, c, &s, &e) < 0) {
        hpi_walk_kids(w, c);
        return;
    }
    if (k == CXCursor_DoStmt && hpi_do_while0(w, c)) {
        hpi_walk_kids(w, c);
        return;
    }
    open = s;
    close = e;
    if (!inner)
        open = hpi_loop_open(w, s, &line, &bound, &collapse);
    if ((m = hpi_macro_at(w, s)) != NULL) {
        skip = hpi_macro_check(w, s, e, 1);
        if (!skip && hpi_macro_pragma(w, m)) {
            bound = 1;
            if (collapse && (m->collapse == 0 || m->collapse > collapse))
                collapse = m->collapse;
        }
    } else if (strncmp(src->text + s, name, strlen(name)) != 0) {
        skip = "loop keyword from a macro";
    }
    after = hpi_src_next_nonspace(src, e);
    if (after < src->len && src->text[after] == ';' && src->cls[after] == HPI_C_CODE)
        close = after + 1;
    if (!skip && w->nosite)
        skip = "in a context that cannot take a probe";
    if (!skip && inner)
        skip = "bound to an enclosing loop's collapse/ordered clause";
    if (!skip && !hpi_src_balanced(src, open, close))
        skip = "unbalanced text (macros or conditional code)";
    if (!skip && hpi_duplicate(w, HPROF_SITE_LOOP, open, close))
        skip = "macro argument expanded more than once";
    if (!w->nosite) {
        idx = hpi_add_site(w, HPROF_SITE_LOOP, name, s, e);
        if (idx < 0)
            return;
        w->u->sites[idx].wrap = HPI_WRAP_BLOCK;
        w->u->sites[idx].open_off = open;
        w->u->sites[idx].close_off = close;
        w->u->sites[idx].open_line = line;
        w->u->sites[idx].skip = skip;
        w->parent = idx;
    }
    /* children: the header of a bound loop takes no probes; its body may
     * be the next loop of a collapse nest */
    hpi_kids(w, c, &kids);
    for (i = 0; i < kids.n; i++) {
        CXCursor kc = ((CXCursor *)kids.v)[i];
        int body = i + 1 == kids.n;
        if (body && bound && k == CXCursor_ForStmt && (collapse == 0 || collapse > 1)) {
            CXCursor next = kc;
            if (clang_getCursorKind(kc) == CXCursor_CompoundStmt) {
                hpi_vec in;
                hpi_kids(w, kc, &in);
                if (in.n == 1)
                    next = ((CXCursor *)in.v)[0];
                free(in.v);
            }
            if (clang_getCursorKind(next) == CXCursor_ForStmt) {
                w->collapsed = next;
                w->collapse_left = collapse == 0 ? 0x7fff : collapse - 1;
            }
        }
        w->prev_end = HPI_NONE;
        if (!body && bound) {
            w->nosite++;
            hpi_walk_kid(w, kc);
            w->nosite--;
        } else {
            hpi_walk_kid(w, kc);
        }
    }
    free(kids.v);
    w->parent = saved;
}

static void hpi_walk_call(hpi_walk *w, CXCursor c)
{
    CXCursor ref = clang_getCursorReferenced(c);
    CXString str;
    const char *name, *skip = NULL;
    const hpi_src *src = &w->u->src;
    size_t s, e;
    int kind, idx;

    if (w->o->omp && clang_getCursorKind(ref) == CXCursor_FunctionDecl &&
        hpi_range(w, c, &s, &e) == 0 && !hpi_macro_at(w, s)) {
        CXString ls = clang_getCursorSpelling(ref);
        const char *ln = clang_getCString(ls);
        if (ln && strncmp(ln, "omp_", 4) == 0 && hpi_omp_lock(w->u, ln, s) < 0)
            w->oom = 1;
        clang_disposeString(ls);
    }
    if (clang_getCursorKind(ref) != CXCursor_FunctionDecl ||
        clang_Location_isInSystemHeader(clang_getCursorLocation(ref))) {
        hpi_walk_kids(w, c);
        return;
    }
    str = clang_getCursorSpelling(ref);
    name = clang_getCString(str);
    kind = name && *name ? hpi_call_kind(w, name) : 0;
    if (kind == 0 || w->nosite || hpi_range(w, c, &s, &e) < 0) {
        clang_disposeString(str);
        hpi_walk_kids(w, c);
        return;
    }
    if (hpi_macro_at(w, s))
        skip = hpi_macro_check(w, s, e, 0);
    else if (src->text[e - 1] != ')' || !hpi_is_ident(src->text[s]) || hpi_macro_ends_at(w, e))
        skip = "call text made by a macro";
    if (!skip && !hpi_src_balanced(src, s, e))
        skip = "unbalanced text (macros or conditional code)";
    if (!skip && (hpi_duplicate(w, HPROF_SITE_CALL, s, e) || hpi_duplicate(w, HPROF_SITE_COMM, s, e)))
        skip = hpi_macro_at(w, s) ? "several calls made by one macro"
                                  : "macro argument expanded more than once";
    idx = hpi_add_site(w, kind, name, s, e);
    clang_disposeString(str);
    if (idx >= 0) {
        w->u->sites[idx].wrap = HPI_WRAP_EXPR;
        w->u->sites[idx].skip = skip;
    }
    hpi_walk_kids(w, c);
}

/* Local variables: the initializer takes probes, the type (VLA sizes,
 * typeof) and static initializers do not. */
static void hpi_walk_var(hpi_walk *w, CXCursor c)
{
    const hpi_src *src = &w->u->src;
    enum CX_StorageClass sc = clang_Cursor_getStorageClass(c);
    size_t name, s, e, eq = HPI_NONE, i;
    hpi_vec k;
    int lvl = 0;

    if (sc == CX_SC_Static || sc == CX_SC_Extern ||
        hpi_off(w, clang_getCursorLocation(c), &name) < 0 || hpi_range(w, c, &s, &e) < 0) {
        hpi_walk_quiet(w, c);
        return;
    }
    for (i = name; i < e; i++) {
        char ch = src->text[i];
        if (src->cls[i] != HPI_C_CODE)
            continue;
        if (ch == '(' || ch == '[')
            lvl++;
        else if (ch == ')' || ch == ']')
            lvl--;
        else if (ch == '=' && lvl == 0) {
            eq = i;
            break;
        }
    }
    hpi_kids(w, c, &k);
    for (i = 0; i < k.n; i++) {
        CXCursor kc = ((CXCursor *)k.v)[i];
        size_t ks, ke;
        if (eq != HPI_NONE && hpi_range(w, kc, &ks, &ke) == 0 && ks > eq) {
            hpi_walk_kid(w, kc);
        } else {
            w->nosite++;
            hpi_walk_kid(w, kc);
            w->nosite--;
        }
    }
    free(k.v);
}

static void hpi_add_mark(hpi_walk *w, hpi_vec *v, size_t off, size_t aux, const char *name)
{
    hpi_mark *m = hpi_push(w, v, sizeof *m);

    if (m) {
        m->off = off;
        m->aux = aux;
        m->name = name ? hpi_strdup(w, name) : NULL;
    }
}

/* The label a goto or &&label names (its LabelRef child). */
static void hpi_mark_ref(hpi_walk *w, CXCursor c, size_t off)
{
    hpi_vec k;
    size_t i;

    hpi_kids(w, c, &k);
    for (i = 0; i < k.n; i++) {
        CXCursor kc = ((CXCursor *)k.v)[i];
        if (clang_getCursorKind(kc) == CXCursor_LabelRef) {
            CXString s = clang_getCursorSpelling(kc);
            hpi_add_mark(w, &w->gotos, off, 0, clang_getCString(s));
            clang_disposeString(s);
        }
    }
    free(k.v);
}

/* A statement at [s, e) that an omp pragma (#pragma or _Pragma) may
 * precede, for --omp: e goes past the ';' of an expression statement. */
static void hpi_push_stmt(hpi_walk *w, size_t s, size_t e)
{
    const hpi_src *src = &w->u->src;
    size_t after = hpi_src_next_nonspace(src, e);
    hpi_stmt *st;

    if (!w->o->omp || hpi_macro_at(w, s) || !(st = hpi_push(w, &w->stmts, sizeof *st)))
        return;
    st->s = s;
    st->e = after < src->len && src->text[after] == ';' && src->cls[after] == HPI_C_CODE ? after + 1 : e;
}

/* 1 for the statements whose sub-statements need not be blocks: an omp
 * pragma before such a body gets the braces of its rewriting. */
static int hpi_has_body(enum CXCursorKind k)
{
    return k == CXCursor_IfStmt || k == CXCursor_ForStmt || k == CXCursor_WhileStmt ||
           k == CXCursor_DoStmt || k == CXCursor_LabelStmt || k == CXCursor_CaseStmt ||
           k == CXCursor_DefaultStmt || k == CXCursor_SwitchStmt;
}

static void hpi_walk_compound(hpi_walk *w, CXCursor c)
{
    const hpi_src *src = &w->u->src;
    hpi_vec k;
    size_t i, prev = HPI_NONE;

    hpi_kids(w, c, &k);
    for (i = 0; i < k.n; i++) {
        CXCursor kc = ((CXCursor *)k.v)[i];
        size_t s, e, p;
        int atomic = 0;
        if (hpi_range(w, kc, &s, &e) == 0) {
            p = hpi_src_prev_nonspace(src, s);
            if (p != HPI_NONE && src->cls[p] == HPI_C_DIRECTIVE) {
                const hpi_dir *d = hpi_src_dir_at(src, p);
                atomic = d && d->kind == HPI_D_PRAGMA_ATOMIC;
            }
            hpi_push_stmt(w, s, e);
        } else {
            e = HPI_NONE;
        }
        w->prev_end = prev;
        w->nosite += atomic;
        hpi_walk_kid(w, kc);
        w->nosite -= atomic;
        prev = e;
    }
    w->prev_end = HPI_NONE;
    free(k.v);
}

static void hpi_walk_node(hpi_walk *w, CXCursor c)
{
    enum CXCursorKind k = clang_getCursorKind(c);
    size_t s, e;

    if (w->oom)
        return;
    switch (k) {
    case CXCursor_ForStmt:
    case CXCursor_WhileStmt:
    case CXCursor_DoStmt:
        hpi_walk_loop(w, c);
        break;
    case CXCursor_CallExpr:
        hpi_walk_call(w, c);
        break;
    case CXCursor_CompoundStmt:
        hpi_walk_compound(w, c);
        break;
    case CXCursor_VarDecl:
        hpi_walk_var(w, c);
        break;
    case CXCursor_UnaryExpr:            /* sizeof, _Alignof */
    case CXCursor_GenericSelectionExpr:
    case CXCursor_GCCAsmStmt:
    case CXCursor_StaticAssert:
        hpi_walk_quiet(w, c);
        break;
    case CXCursor_LabelStmt: {
        CXString str = clang_getCursorSpelling(c);
        if (hpi_range(w, c, &s, &e) == 0)
            hpi_add_mark(w, &w->labels, s, 0, clang_getCString(str));
        clang_disposeString(str);
        hpi_walk_kids(w, c);
        break;
    }
    case CXCursor_GotoStmt:
        hpi_mark_ref(w, c, hpi_range(w, c, &s, &e) == 0 ? s : HPI_NONE);
        break;
    case CXCursor_AddrLabelExpr:
        hpi_mark_ref(w, c, HPI_NONE);
        break;
    case CXCursor_SwitchStmt: {
        size_t *sw = hpi_push(w, &w->switches, sizeof *sw);
        if (sw)
            *sw = hpi_range(w, c, &s, &e) == 0 ? s : HPI_NONE;
        hpi_walk_kids(w, c);
        w->switches.n--;
        break;
    }
    case CXCursor_CaseStmt:
    case CXCursor_DefaultStmt:
        if (w->switches.n && hpi_range(w, c, &s, &e) == 0)
            hpi_add_mark(w, &w->cases, s, ((size_t *)w->switches.v)[w->switches.n - 1], NULL);
        hpi_walk_kids(w, c);
        break;
    default:
        hpi_walk_kids(w, c);
        break;
    }
}

static void hpi_free_marks(hpi_vec *v)
{
    size_t i;

    for (i = 0; i < v->n; i++)
        free(((hpi_mark *)v->v)[i].name);
    v->n = 0;
}

static int hpi_inside(size_t off, const hpi_site *t)
{
    return off != HPI_NONE && off >= t->open_off && off < t->close_off;
}

/* Loops that a goto or an outer switch's case label jumps into get no
 * probe: jumping past a cleanup variable's declaration is an error. */
static void hpi_check_jumps(hpi_walk *w, size_t first)
{
    const hpi_mark *g = w->gotos.v, *l = w->labels.v, *cs = w->cases.v;
    size_t i, j, q;

    for (i = first; i < w->u->nsites; i++) {
        hpi_site *t = &w->u->sites[i];
        if (t->kind != HPROF_SITE_LOOP || t->skip)
            continue;
        for (j = 0; j < w->gotos.n && !t->skip; j++)
            for (q = 0; q < w->labels.n; q++)
                if (g[j].name && l[q].name && strcmp(g[j].name, l[q].name) == 0 &&
                    hpi_inside(l[q].off, t) && !hpi_inside(g[j].off, t))
                    t->skip = "a goto from outside jumps into the loop";
        for (j = 0; j < w->cases.n && !t->skip; j++)
            if (hpi_inside(cs[j].off, t) && !hpi_inside(cs[j].aux, t))
                t->skip = "a case label of an outer switch is inside the loop";
    }
}

static void hpi_walk_function(hpi_walk *w, CXCursor fn)
{
    const hpi_src *src = &w->u->src;
    CXString str = clang_getCursorSpelling(fn);
    const char *name = clang_getCString(str);
    hpi_vec k;
    CXCursor body;
    size_t s, e, loc, first = w->u->nsites;
    int idx;

    if (!hp_filter_allows(w->filter, name, src->path)) {
        clang_disposeString(str);
        return;
    }
    hpi_kids(w, fn, &k);
    if (k.n == 0 || clang_getCursorKind(((CXCursor *)k.v)[k.n - 1]) != CXCursor_CompoundStmt) {
        free(k.v);
        clang_disposeString(str);
        return;
    }
    body = ((CXCursor *)k.v)[k.n - 1];
    free(k.v);
    if (hpi_range(w, body, &s, &e) < 0) {
        clang_disposeString(str);
        return;
    }
    idx = hpi_add_site(w, HPROF_SITE_PROCEDURE, name, s, e);
    clang_disposeString(str);
    if (idx < 0)
        return;
    if (hpi_off(w, clang_getCursorLocation(fn), &loc) == 0 && loc < s)
        w->u->sites[idx].line = hpi_src_line(src, loc);
    w->u->sites[idx].wrap = HPI_WRAP_PROC;
    w->u->sites[idx].open_off = s + 1;
    if (hpi_macro_at(w, s) || src->text[s] != '{' || src->text[e - 1] != '}')
        w->u->sites[idx].skip = "function body made by a macro";
    w->func = w->u->sites[idx].name;
    w->first_site = first;
    w->parent = idx;
    w->nosite = 0;
    w->prev_end = HPI_NONE;
    w->collapsed = clang_getNullCursor();
    w->collapse_left = 0;
    w->anc.n = 0;
    hpi_walk_kid(w, body);
    hpi_check_jumps(w, first);
    hpi_free_marks(&w->labels);
    hpi_free_marks(&w->gotos);
    w->cases.n = 0;
}

/* ---- the translation unit ----------------------------------------- */

static enum CXChildVisitResult hpi_top(CXCursor c, CXCursor p, CXClientData d)
{
    hpi_walk *w = d;
    enum CXCursorKind k = clang_getCursorKind(c);
    size_t off;

    (void)p;
    if (k == CXCursor_MacroDefinition) {
        hpi_mdef *m = hpi_push(w, &w->defs, sizeof *m);
        if (m) {
            m->str = clang_getCursorSpelling(c);
            m->name = clang_getCString(m->str);
            m->cur = c;
        }
    } else if (k == CXCursor_MacroExpansion) {
        hpi_macro *m;
        size_t s, e;
        if (hpi_range(w, c, &s, &e) == 0 && (m = hpi_push(w, &w->macros, sizeof *m))) {
            m->start = s;
            m->end = e;
            m->def = clang_getCursorReferenced(c);
            m->pragma = -1;
            m->collapse = 1;
        }
    } else if (k == CXCursor_FunctionDecl && clang_isCursorDefinition(c) &&
               hpi_off(w, clang_getCursorLocation(c), &off) == 0) {
        CXCursor *f = hpi_push(w, &w->funcs, sizeof c);
        if (f)
            *f = c;
    }
    return CXChildVisit_Continue;
}

static int hpi_macro_cmp(const void *a, const void *b)
{
    const hpi_macro *x = a, *y = b;
    return x->start < y->start ? -1 : x->start > y->start;
}

static int hpi_size_cmp(const void *a, const void *b)
{
    size_t x = *(const size_t *)a, y = *(const size_t *)b;
    return x < y ? -1 : x > y;
}

/* The first error libclang reports, as "LINE:COL: message". */
static int hpi_diag_error(CXTranslationUnit tu, char *err, size_t errlen)
{
    unsigned i, n = clang_getNumDiagnostics(tu);

    for (i = 0; i < n; i++) {
        CXDiagnostic d = clang_getDiagnostic(tu, i);
        if (clang_getDiagnosticSeverity(d) >= CXDiagnostic_Error) {
            CXString m = clang_getDiagnosticSpelling(d);
            unsigned line, col;
            clang_getFileLocation(clang_getDiagnosticLocation(d), NULL, &line, &col, NULL);
            snprintf(err, errlen, "%u:%u: %s", line, col, clang_getCString(m));
            clang_disposeString(m);
            clang_disposeDiagnostic(d);
            return 1;
        }
        clang_disposeDiagnostic(d);
    }
    return 0;
}

static void hpi_walk_free(hpi_walk *w)
{
    size_t i;

    for (i = 0; i < w->defs.n; i++)
        clang_disposeString(((hpi_mdef *)w->defs.v)[i].str);
    free(w->defs.v);
    free(w->macros.v);
    free(w->mends);
    free(w->funcs.v);
    free(w->stmts.v);
    free(w->anc.v);
    hpi_free_marks(&w->labels);
    hpi_free_marks(&w->gotos);
    free(w->labels.v);
    free(w->gotos.v);
    free(w->cases.v);
    free(w->switches.v);
    if (w->filter)
        hp_filter_free(w->filter);
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

/* --omp: the POMP2 plan, then a note for every macro invocation that
 * expands to an omp _Pragma (left as it is). */
static int hpi_omp_macros(hpi_walk *w)
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
    qsort(w->stmts.v, w->stmts.n, sizeof(hpi_stmt), hpi_size_cmp);  /* by s */
    rc = hpi_omp_plan(w->u, w->stmts.v, w->stmts.n, ms, w->macros.n);
    free(ms);
    for (i = 0; rc == 0 && i < w->macros.n; i++) {
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

/* The compiler flags libclang gets: the preprocessor and language ones;
 * -fopenmp becomes -D_OPENMP (libclang 14 hides the bodies of OpenMP
 * regions from the C API when it parses OpenMP). */
static int hpi_clang_args(const hpi_opts *o, const char **args, int max)
{
    static const char *const with_arg[] = {
        "-I", "-D", "-U", "-include", "-imacros", "-isystem", "-iquote",
        "-idirafter", "-isysroot", "--sysroot", NULL
    };
    int i, n = 0, omp = 0, j;

    for (i = 0; i < o->ncflags && n + 4 < max; i++) {
        const char *a = o->cflags[i];
        int taken = 0;
        if (strncmp(a, "-fopenmp", 8) == 0 || strcmp(a, "-qopenmp") == 0) {
            omp = 1;
            continue;
        }
        for (j = 0; with_arg[j]; j++) {
            size_t l = strlen(with_arg[j]);
            if (strncmp(a, with_arg[j], l) == 0) {
                args[n++] = a;
                if (a[l] == 0 && i + 1 < o->ncflags)
                    args[n++] = o->cflags[++i];
                taken = 1;
                break;
            }
        }
        if (!taken && (strncmp(a, "-std=", 5) == 0 || strcmp(a, "-ansi") == 0 ||
                       strcmp(a, "-nostdinc") == 0 || strcmp(a, "-funsigned-char") == 0 ||
                       strcmp(a, "-fsigned-char") == 0 || strcmp(a, "-m32") == 0 ||
                       strcmp(a, "-m64") == 0 || strcmp(a, "-pthread") == 0))
            args[n++] = a;
    }
    if (omp)
        args[n++] = "-D_OPENMP=201511";
    args[n++] = "-ferror-limit=1";
    args[n++] = "-Wno-everything";
    return n;
}

int hpi_collect(hpi_unit *u, const hpi_opts *o, char *err, size_t errlen)
{
    hpi_walk w;
    CXIndex idx;
    const char **args;
    int nargs, rc = -1;
    size_t i;
    enum CXErrorCode ec;

    memset(&w, 0, sizeof w);
    w.u = u;
    w.o = o;
    if (o->filter && !(w.filter = hp_filter_load(o->filter, err, errlen)))
        return -1;
    args = calloc((size_t)o->ncflags * 2 + 8, sizeof *args);
    if (!args) {
        snprintf(err, errlen, "out of memory");
        hpi_walk_free(&w);
        return -1;
    }
    nargs = hpi_clang_args(o, args, o->ncflags * 2 + 8);
    idx = clang_createIndex(0, 0);
    ec = clang_parseTranslationUnit2(idx, o->file, args, nargs, NULL, 0,
                                     CXTranslationUnit_DetailedPreprocessingRecord, &w.tu);
    if (ec != CXError_Success || !w.tu) {
        snprintf(err, errlen, "libclang could not parse it (error %d)", (int)ec);
        goto out;
    }
    if (hpi_diag_error(w.tu, err, errlen))
        goto out;
    w.main = clang_getFile(w.tu, o->file);
    if (!w.main) {
        snprintf(err, errlen, "libclang lost the main file");
        goto out;
    }
    clang_visitChildren(clang_getTranslationUnitCursor(w.tu), hpi_top, &w);
    if (w.oom)
        goto oom;
    qsort(w.macros.v, w.macros.n, sizeof(hpi_macro), hpi_macro_cmp);
    qsort(w.defs.v, w.defs.n, sizeof(hpi_mdef), hpi_mdef_cmp);
    w.mends = malloc((w.macros.n + 1) * sizeof *w.mends);
    if (!w.mends)
        goto oom;
    for (i = 0; i < w.macros.n; i++)
        w.mends[i] = ((hpi_macro *)w.macros.v)[i].end;
    qsort(w.mends, w.macros.n, sizeof *w.mends, hpi_size_cmp);
    for (i = 0; i < w.funcs.n && !w.oom; i++)
        hpi_walk_function(&w, ((CXCursor *)w.funcs.v)[i]);
    if (w.oom)
        goto oom;
    if (o->omp && hpi_omp_macros(&w) < 0)
        goto oom;
    rc = 0;
    goto out;
oom:
    snprintf(err, errlen, "out of memory");
out:
    if (w.tu)
        clang_disposeTranslationUnit(w.tu);
    clang_disposeIndex(idx);
    free(args);
    hpi_walk_free(&w);
    return rc;
}
