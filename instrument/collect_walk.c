/*
 * collect_walk.c - the walk of one function's body in preorder (parents
 * before children): procedure, call and communication sites, the
 * statements an omp pragma may precede, local variables whose type takes
 * no probe, and the labels, gotos and case labels that keep a probe off a
 * loop that is jumped into.
 */
#include <fnmatch.h>
#include <stdlib.h>
#include <string.h>

#include <clang-c/Index.h>

#include "hpi.h"
#include "hpi_collect.h"
#include "hprof_probe.h"
#include "hp_filter.h"
#include "instrument/hpi_mpi_kinds.h"

/* ---- sites -------------------------------------------------------- */

int hpi_add_site(hpi_walk *w, int kind, const char *name, size_t s, size_t e)
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
    t->start = s;
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

void hpi_kids(hpi_walk *w, CXCursor c, hpi_vec *v)
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

void hpi_walk_kid(hpi_walk *w, CXCursor c)
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

void hpi_walk_kids(hpi_walk *w, CXCursor c)
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

/* 1 when an earlier site of this function has the same text: a macro
 * argument expanded twice. */
int hpi_duplicate(hpi_walk *w, int kind, size_t open, size_t close)
{
    size_t j;

    for (j = w->first_site; j < w->u->nsites; j++)
        if (w->u->sites[j].kind == kind && w->u->sites[j].open_off == open &&
            w->u->sites[j].close_off == close && !w->u->sites[j].skip)
            return 1;
    return 0;
}

/* Makes the site of a call statement; 1 when it made one (not skipped). */
static int hpi_walk_call(hpi_walk *w, CXCursor c)
{
    CXCursor ref = w->o->cxx ? hpi_cxx_callee(w, c) : clang_getCursorReferenced(c);
    CXString str;
    const char *name, *skip = NULL;
    const hpi_src *src = &w->u->src;
    size_t s, e;
    int kind, idx, semi = 0;

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
        return 0;
    }
    if (w->o->cxx && hpi_range(w, c, &s, &e) == 0)
        skip = hpi_cxx_call_skip(ref);
    str = clang_getCursorSpelling(ref);
    name = clang_getCString(str);
    kind = name && *name ? hpi_call_kind(w, name) : 0;
    if (kind == 0 || w->nosite || hpi_range(w, c, &s, &e) < 0) {
        clang_disposeString(str);
        hpi_walk_kids(w, c);
        return 0;
    }
    if (skip) {
        /* C++: kept in the table with its reason */
    } else if (hpi_macro_at(w, s)) {
        skip = hpi_macro_check(w, s, e, 0);
        if (!skip)
            skip = hpi_macro_stmt_end(w, e, &semi);
    } else if (src->text[e - 1] != ')' || !hpi_is_ident(src->text[s]) || hpi_macro_ends_at(w, e))
        skip = "call text made by a macro";
    if (!skip && !hpi_src_balanced(src, s, e))
        skip = "unbalanced text (macros or conditional code)";
    if (!skip && (hpi_duplicate(w, HPROF_SITE_CALL, s, e) || hpi_duplicate(w, HPROF_SITE_COMM, s, e)))
        skip = hpi_macro_at(w, s) ? "several calls made by one macro"
                                  : "macro argument expanded more than once";
    if (w->o->cxx && kind == HPROF_SITE_CALL && strncmp(name, "MPI_", 4) != 0) {
        /* C++: named as its callee's procedure site is (cxx.c) */
        char *cxx = hpi_cxx_callee_name(ref);
        idx = cxx ? hpi_add_site(w, kind, cxx, s, e) : -1;
        free(cxx);
    } else {
        idx = hpi_add_site(w, kind, name, s, e);
    }
    clang_disposeString(str);
    if (idx >= 0) {
        w->u->sites[idx].wrap = HPI_WRAP_EXPR;
        w->u->sites[idx].skip = skip;
        w->u->sites[idx].semi = semi;
    }
    hpi_walk_kids(w, c);
    return idx >= 0 && !skip;
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
 * precede, for the omp plan: e goes past the ';' of an expression
 * statement. */
static void hpi_push_stmt(hpi_walk *w, size_t s, size_t e)
{
    const hpi_src *src = &w->u->src;
    size_t after = hpi_src_next_nonspace(src, e);
    hpi_stmt *st;

    if (hpi_macro_at(w, s) || !(st = hpi_push(w, &w->stmts, sizeof *st)))
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
    hpi_macro_decls(w, k.v, k.n);
    free(k.v);
}

/* The C library's arithmetic (math.h) that compilers turn into a few
 * instructions or a short leaf: a call of it is no call for the policy. */
static const char *const hpi_math_calls[] = {
    "sqrt", "cbrt", "hypot", "floor", "ceil", "trunc", "round", "rint", "nearbyint", "fabs",
    "fmin", "fmax", "fma", "fmod", "copysign", "exp", "exp2", "expm1", "log", "log2",
    "log10", "log1p", "pow", "sin", "cos", "tan", "asin", "acos", "atan", "atan2",
    "sinh", "cosh", "tanh", "erf", "erfc", NULL};

/* The C library's assertion failure functions, which the assert() macro
 * calls on its failure path only and which never return (glibc, musl,
 * BSD/macOS): a call of one is no call for the policy (it runs at most
 * once, ending the program). */
static const char *const hpi_assert_calls[] = {
    "__assert_fail", "__assert_perror_fail", "__assert", "__assert_rtn", "__assert2", NULL};

int hpi_assert_call(const char *name)
{
    size_t i;

    for (i = 0; hpi_assert_calls[i]; i++)
        if (strcmp(name, hpi_assert_calls[i]) == 0)
            return 1;
    return 0;
}

int hpi_math_call(const char *name)
{
    size_t n = strlen(name), i;

    for (i = 0; hpi_math_calls[i]; i++) {
        size_t m = strlen(hpi_math_calls[i]);
        if (strncmp(name, hpi_math_calls[i], m) == 0 &&
            (n == m || (n == m + 1 && (name[m] == 'f' || name[m] == 'l'))))
            return 1;
    }
    return 0;
}

/* A call expression (any: library, function pointer; not a __builtin nor
 * math.h's arithmetic or assert()'s failure from a system header) marks every loop and the
 * procedure around it as making calls, and, unless it is a call statement
 * of the program (own_site: hpi_walk_call made its site), as making one
 * that the policy cannot judge (calls_out) and that may record (opaque,
 * also where no site can be made). */
static void hpi_note_call(hpi_walk *w, CXCursor c, int own_site)
{
    CXCursor ref = clang_getCursorReferenced(c);
    CXString str = clang_getCursorSpelling(ref);
    const char *name = clang_getCString(str);
    int builtin = name && strncmp(name, "__builtin", 9) == 0;
    int math = name && clang_getCursorKind(ref) == CXCursor_FunctionDecl &&
               clang_Location_isInSystemHeader(clang_getCursorLocation(ref)) &&
               (hpi_math_call(name) || hpi_assert_call(name));
    int p;

    clang_disposeString(str);
    if (builtin || math || (w->o->cxx && hpi_cxx_cheap_call(ref)))
        return;
    for (p = w->parent; p >= 0; p = w->u->sites[p].parent) {
        if (!own_site)
            w->u->sites[p].opaque = 1;
        if (w->nosite)
            continue;
        w->u->sites[p].calls = 1;
        if (!own_site)
            w->u->sites[p].calls_out = 1;
    }
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
    case CXCursor_CXXForRangeStmt:
        hpi_walk_loop(w, c);
        break;
    case CXCursor_LambdaExpr:   /* C++: a procedure of its own, walked later */
        if (!w->nosite)
            hpi_cxx_defer_lambda(w, c);
        break;
    case CXCursor_CallExpr:
        hpi_note_call(w, c, hpi_walk_call(w, c));
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

void hpi_free_marks(hpi_vec *v)
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

/* Where the definition fn, whose body opens at body, starts in the main
 * file (its first specifier), or HPI_NONE. */
static size_t hpi_decl_start(hpi_walk *w, CXCursor fn, size_t body)
{
    size_t off;

    if (clang_getCursorKind(fn) == CXCursor_LambdaExpr)
        return hpi_cxx_lambda_attr(w, fn, body);
    if (hpi_off(w, clang_getRangeStart(clang_getCursorExtent(fn)), &off) < 0 || off >= body)
        return HPI_NONE;
    return w->o->cxx ? hpi_cxx_decl_start(&w->u->src, off, body) : off;
}

void hpi_walk_function(hpi_walk *w, CXCursor fn)
{
    CXString str;
    char *cxx;

    if (w->o->cxx && clang_CXXMethod_isDefaulted(fn))
        return;   /* = default: the compiler's code, no body to probe */
    str = clang_getCursorSpelling(fn);
    cxx = w->o->cxx ? hpi_cxx_name(fn) : NULL;

    if (w->o->cxx && !cxx)
        w->oom = 1;
    else
        hpi_walk_function_named(w, fn, cxx ? cxx : clang_getCString(str));
    free(cxx);
    clang_disposeString(str);
}

void hpi_walk_function_named(hpi_walk *w, CXCursor fn, const char *name)
{
    const hpi_src *src = &w->u->src;
    hpi_vec k;
    CXCursor body;
    size_t s, e, loc, first = w->u->nsites;
    int idx;

    if (!hp_filter_allows(w->filter, name, src->path))
        return;
    hpi_kids(w, fn, &k);
    if (k.n == 0 || clang_getCursorKind(((CXCursor *)k.v)[k.n - 1]) != CXCursor_CompoundStmt) {
        free(k.v);
        return;
    }
    body = ((CXCursor *)k.v)[k.n - 1];
    free(k.v);
    if (hpi_range(w, body, &s, &e) < 0)
        return;
    idx = hpi_add_site(w, HPROF_SITE_PROCEDURE, name, s, e);
    if (idx < 0)
        return;
    if (hpi_off(w, clang_getCursorLocation(fn), &loc) == 0 && loc < s)
        w->u->sites[idx].line = hpi_src_line(src, loc);
    w->u->sites[idx].decl_off = hpi_decl_start(w, fn, s);
    w->u->sites[idx].wrap = HPI_WRAP_PROC;
    w->u->sites[idx].open_off = s + 1;
    if (hpi_macro_at(w, s) || src->text[s] != '{' || src->text[e - 1] != '}')
        w->u->sites[idx].skip = "function body made by a macro";
    else if (w->o->cxx)
        w->u->sites[idx].skip = hpi_cxx_proc_skip(w, fn, s);
    w->func = w->u->sites[idx].name;
    w->first_site = first;
    w->parent = idx;
    /* C++: nothing inside a procedure that cannot take a probe (constexpr) */
    w->nosite = w->o->cxx && w->u->sites[idx].skip ? 1 : 0;
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
