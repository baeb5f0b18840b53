/*
 * cxx.c - what hprof-instrument knows of C++: which files are C++ (by
 * suffix), which cursors are procedures (methods, constructors, function
 * templates, lambdas) and which scopes hold them, the display name of a
 * procedure (qualified as a demangler writes it: "solver::Field<T>::sum()
 * const", a lambda "main::{lambda(int)#1}::operator()(int) const"), and
 * what cannot take a probe (constexpr bodies, calls whose value a
 * statement expression would copy).  Templates are named and probed once,
 * as written, never per instantiation.
 */
#include <stdlib.h>
#include <string.h>

#include <clang-c/Index.h>

#include "hp_names.h"
#include "hpi.h"
#include "hpi_collect.h"

int hpi_cxx_file(const char *path)
{
    static const char *const suffixes[] = {
        ".cpp", ".cc", ".cxx", ".C", ".c++", ".cp", ".CPP", ".CC", NULL
    };
    size_t n = strlen(path), i;

    for (i = 0; suffixes[i]; i++) {
        size_t m = strlen(suffixes[i]);
        if (n > m && strcmp(path + n - m, suffixes[i]) == 0)
            return 1;
    }
    return 0;
}

int hpi_cxx_function_kind(enum CXCursorKind k)
{
    return k == CXCursor_CXXMethod || k == CXCursor_Constructor || k == CXCursor_Destructor ||
           k == CXCursor_ConversionFunction || k == CXCursor_FunctionTemplate;
}

int hpi_cxx_scope_kind(enum CXCursorKind k)
{
    return k == CXCursor_Namespace || k == CXCursor_ClassDecl || k == CXCursor_StructDecl ||
           k == CXCursor_UnionDecl || k == CXCursor_ClassTemplate ||
           k == CXCursor_ClassTemplatePartialSpecialization || k == CXCursor_LinkageSpec;
}

/* A growable string; on failure it stays NULL and the walk is out of memory. */
typedef struct hpi_str {
    char *s;
    size_t n, cap;
} hpi_str;

static void hpi_str_add(hpi_str *b, const char *t)
{
    size_t m = strlen(t);

    if (b->n + m + 1 > b->cap) {
        size_t cap = (b->n + m + 1) * 2;
        char *p = realloc(b->s, cap);
        if (!p)
            return;
        b->s = p;
        b->cap = cap;
    }
    memcpy(b->s + b->n, t, m + 1);
    b->n += m;
}

/* The scopes around c, outermost first: "ns::Class<T>::" ("" at the top). */
static void hpi_cxx_scopes(hpi_str *b, CXCursor c)
{
    CXCursor p = clang_getCursorSemanticParent(c);
    enum CXCursorKind k = clang_getCursorKind(p);
    CXString s;
    const char *t;

    if (clang_Cursor_isNull(p) || k == CXCursor_TranslationUnit || !hpi_cxx_scope_kind(k))
        return;
    hpi_cxx_scopes(b, p);
    if (k == CXCursor_LinkageSpec)
        return;
    s = k == CXCursor_ClassTemplate ? clang_getCursorDisplayName(p) : clang_getCursorSpelling(p);
    t = clang_getCString(s);
    if (k == CXCursor_Namespace && (!t || !*t))
        t = "(anonymous namespace)";
    hpi_str_add(b, t ? t : "?");
    hpi_str_add(b, "::");
    clang_disposeString(s);
}

static void hpi_cxx_param(hpi_str *b, CXCursor parm, int first)
{
    CXString s = clang_getTypeSpelling(clang_getCursorType(parm));

    if (!first)
        hpi_str_add(b, ", ");
    hpi_str_add(b, clang_getCString(s));
    clang_disposeString(s);
}

/* A lambda's parameters are its ParmDecl children. */
static enum CXChildVisitResult hpi_cxx_parm_kid(CXCursor c, CXCursor p, CXClientData d)
{
    hpi_str *b = d;

    (void)p;
    if (clang_getCursorKind(c) == CXCursor_ParmDecl)
        hpi_cxx_param(b, c, b->s[b->n - 1] == '(');
    return CXChildVisit_Continue;
}

/* The parameter types of function or lambda c: "(int, double)". */
static void hpi_cxx_params(hpi_str *b, CXCursor c)
{
    int i, n = clang_Cursor_getNumArguments(c);

    hpi_str_add(b, "(");
    if (!b->s)
        return;
    if (clang_getCursorKind(c) == CXCursor_LambdaExpr)
        clang_visitChildren(c, hpi_cxx_parm_kid, b);
    for (i = 0; i < n; i++)
        hpi_cxx_param(b, clang_Cursor_getArgument(c, i), i == 0);
    hpi_str_add(b, ")");
}

/* 1 when fn is a function of C language linkage (main, extern "C"):
 * its symbol is not mangled.  Asked of plain functions only (clang does
 * not mangle what lies in a template). */
static int hpi_cxx_c_linkage(CXCursor fn)
{
    CXString m;
    const char *t;
    int c;

    if (clang_getCursorKind(fn) != CXCursor_FunctionDecl)
        return 0;
    m = clang_Cursor_getMangling(fn);
    t = clang_getCString(m);
    c = t && *t && strncmp(t, "_Z", 2) != 0;
    clang_disposeString(m);
    return c;
}

/* 1 when fn is, or lies in, a template: it has no symbol of its own. */
static int hpi_cxx_in_template(CXCursor fn)
{
    CXCursor c;

    for (c = fn; !clang_Cursor_isNull(c) && clang_getCursorKind(c) != CXCursor_TranslationUnit;
         c = clang_getCursorSemanticParent(c)) {
        enum CXCursorKind k = clang_getCursorKind(c);
        if (k == CXCursor_FunctionTemplate || k == CXCursor_ClassTemplate ||
            k == CXCursor_ClassTemplatePartialSpecialization)
            return 1;
    }
    return 0;
}

/* The demangled symbol of fn (as the runtime names it at tiers 0 and 1),
 * or NULL for a template or without a demangler. */
static char *hpi_cxx_demangled(CXCursor fn)
{
    CXString m;
    char *d;

    if (hpi_cxx_in_template(fn))
        return NULL;
    m = clang_Cursor_getMangling(fn);
    d = hp_name_display(clang_getCString(m), NULL, HP_LANG_CXX);
    clang_disposeString(m);
    if (d && strncmp(d, "_Z", 2) == 0) {   /* not demangled */
        free(d);
        return NULL;
    }
    return d;
}

/* The name of fn as written, for a template: "solver::Field<T>::sum() const". */
static char *hpi_cxx_written_name(CXCursor fn, const char *name)
{
    enum CXCursorKind k = clang_getCursorKind(fn);
    hpi_str b = {NULL, 0, 0};

    hpi_cxx_scopes(&b, fn);
    if (name && (k == CXCursor_Constructor || k == CXCursor_Destructor) && strchr(name, '<')) {
        /* Field<T>::Field<T>(int): a demangler writes Field<double>::Field(int) */
        char *dup = strdup(name);
        if (dup) {
            *strchr(dup, '<') = 0;
            hpi_str_add(&b, dup);
            free(dup);
        }
    } else {
        hpi_str_add(&b, name ? name : "?");
    }
    if (k == CXCursor_FunctionTemplate) {
        /* clang gives a template's parameters only as the display name */
        CXString disp = clang_getCursorDisplayName(fn);
        const char *t = strchr(clang_getCString(disp), '(');
        hpi_str_add(&b, t ? t : "()");
        clang_disposeString(disp);
    } else {
        hpi_cxx_params(&b, fn);
    }
    if (clang_CXXMethod_isConst(fn))
        hpi_str_add(&b, " const");
    return b.s ? b.s : strdup("?");
}

char *hpi_cxx_name(CXCursor fn)
{
    CXString s = clang_getCursorSpelling(fn);
    const char *name = clang_getCString(s);
    char *d;

    if (name && (strcmp(name, "main") == 0 || hpi_cxx_c_linkage(fn)))
        d = strdup(name);   /* main and extern "C" functions as they are */
    else if (!(d = hpi_cxx_demangled(fn)))
        d = hpi_cxx_written_name(fn, name);
    clang_disposeString(s);
    return d;
}

char *hpi_cxx_callee_name(CXCursor ref)
{
    CXCursor tpl = clang_getSpecializedCursorTemplate(ref);

    /* a function template's specialization: its one procedure site */
    return hpi_cxx_name(clang_Cursor_isNull(tpl) ? ref : tpl);
}

int hpi_cxx_cheap_call(CXCursor ref)
{
    static const char *const cheap[] = {
        "size", "data", "begin", "end", "cbegin", "cend", "rbegin", "rend", "empty",
        "front", "back", "get", NULL
    };
    CXString s;
    const char *n;
    int i, yes = 0;

    if (clang_getCursorKind(ref) != CXCursor_CXXMethod ||
        !clang_Location_isInSystemHeader(clang_getCursorLocation(ref)))
        return 0;
    s = clang_getCursorSpelling(ref);
    n = clang_getCString(s);
    yes = n && strncmp(n, "operator", 8) == 0 && !hpi_is_ident(n[8]);
    for (i = 0; n && cheap[i] && !yes; i++)
        yes = strcmp(n, cheap[i]) == 0;
    clang_disposeString(s);
    return yes;
}

/* 1 when the word w (an identifier) occurs in the code of [a, e). */
static int hpi_cxx_word(const hpi_src *src, size_t a, size_t e, const char *w)
{
    size_t m = strlen(w), i;

    for (i = a; i + m <= e; i++)
        if (src->cls[i] == HPI_C_CODE && memcmp(src->text + i, w, m) == 0 &&
            (i == 0 || !hpi_is_ident(src->text[i - 1])) && !hpi_is_ident(src->text[i + m]))
            return 1;
    return 0;
}

static char *hpi_cxx_lambda_name(hpi_walk *w, CXCursor lam, const char *outer, int nth)
{
    const hpi_src *src = &w->u->src;
    hpi_str b = {NULL, 0, 0}, p = {NULL, 0, 0};
    char num[32];
    size_t s, e;

    hpi_cxx_params(&p, lam);
    hpi_str_add(&b, outer);
    hpi_str_add(&b, "::{lambda");
    hpi_str_add(&b, p.s ? p.s : "()");
    snprintf(num, sizeof num, "#%d}::operator()", nth);
    hpi_str_add(&b, num);
    hpi_str_add(&b, p.s ? p.s : "()");
    /* const unless mutable: the word between the lambda's start and its body */
    if (!(hpi_range(w, lam, &s, &e) == 0 && hpi_cxx_word(src, s, e, "mutable")))
        hpi_str_add(&b, " const");
    free(p.s);
    if (!b.s)
        w->oom = 1;
    return b.s;
}

/* Defers lambda lam, met in the body of the procedure being walked: it is
 * walked later as a procedure of its own, numbered as gcc numbers
 * closures (in order, among the closures of the same procedure). */
void hpi_cxx_defer_lambda(hpi_walk *w, CXCursor lam)
{
    hpi_lambda *l;
    size_t i;
    int nth = 1;

    /* gcc numbers every closure of the function, whatever its parameters */
    for (i = 0; i < w->lambdas.n; i++)
        nth += strcmp(((hpi_lambda *)w->lambdas.v)[i].outer, w->func) == 0;
    if (!(l = hpi_push(w, &w->lambdas, sizeof *l)))
        return;
    l->cur = lam;
    l->outer = hpi_strdup(w, w->func);
    l->name = hpi_cxx_lambda_name(w, lam, w->func, nth);
}

const char *hpi_cxx_proc_skip(hpi_walk *w, CXCursor fn, size_t body)
{
    size_t s, e;

    if (hpi_range(w, fn, &s, &e) < 0 || s >= body)
        return NULL;
    if (hpi_cxx_word(&w->u->src, s, body, "constexpr") || hpi_cxx_word(&w->u->src, s, body, "consteval"))
        return "constexpr: a probe would make it unusable in constant expressions (C++)";
    return NULL;
}

/* The first cursor under c of kind OverloadedDeclRef, if any. */
static enum CXChildVisitResult hpi_cxx_find_overload(CXCursor c, CXCursor p, CXClientData d)
{
    (void)p;
    if (clang_getCursorKind(c) == CXCursor_OverloadedDeclRef) {
        *(CXCursor *)d = c;
        return CXChildVisit_Break;
    }
    return clang_getCursorKind(c) == CXCursor_UnexposedExpr || clang_getCursorKind(c) == CXCursor_DeclRefExpr
               ? CXChildVisit_Recurse
               : CXChildVisit_Break;
}

CXCursor hpi_cxx_callee(hpi_walk *w, CXCursor call)
{
    CXCursor ref = clang_getCursorReferenced(call), ov = clang_getNullCursor();

    (void)w;
    if (clang_getCursorKind(ref) == CXCursor_FunctionDecl)
        return ref;
    /* in a template, a call with a dependent argument names its callee
     * by an unresolved lookup: one function of that name is the callee */
    clang_visitChildren(call, hpi_cxx_find_overload, &ov);
    if (!clang_Cursor_isNull(ov) && clang_getNumOverloadedDecls(ov) == 1 &&
        clang_getCursorKind(clang_getOverloadedDecl(ov, 0)) == CXCursor_FunctionDecl)
        return clang_getOverloadedDecl(ov, 0);
    return ref;
}

const char *hpi_cxx_call_skip(CXCursor ref)
{
    CXType t = clang_getCanonicalType(clang_getCursorResultType(ref));

    if (t.kind == CXType_Void || (t.kind >= CXType_FirstBuiltin && t.kind <= CXType_LastBuiltin) ||
        t.kind == CXType_Pointer || t.kind == CXType_Enum)
        return NULL;
    return "returns a class, a reference or a dependent type: a statement expression "
           "would copy it (C++)";
}

size_t hpi_cxx_decl_start(const hpi_src *src, size_t off, size_t body)
{
    for (;;) {
        size_t i = off, lvl = 0;
        if (!(off + 8 <= body && memcmp(src->text + off, "template", 8) == 0 &&
              !hpi_is_ident(src->text[off + 8])))
            return off;
        for (i = off + 8; i < body; i++) {
            if (src->cls[i] != HPI_C_CODE)
                continue;
            if (src->text[i] == '<')
                lvl++;
            else if (src->text[i] == '>' && lvl > 0 && --lvl == 0)
                break;
        }
        if (i >= body)
            return (size_t)-1;
        off = hpi_src_next_nonspace(src, i + 1);
    }
}

size_t hpi_cxx_lambda_attr(hpi_walk *w, CXCursor lam, size_t body)
{
    const hpi_src *src = &w->u->src;
    size_t s, e, i;
    int depth = 0;

    if (hpi_range(w, lam, &s, &e) < 0 || s >= body)
        return (size_t)-1;
    for (i = s; i + 1 < body; i++) {
        char c = src->text[i];
        if (src->cls[i] != HPI_C_CODE)
            continue;
        if (c == '(' || c == '[' || c == '{')
            depth++;
        else if (c == ')' || c == ']' || c == '}')
            depth--;
        else if (depth == 0 && c == '-' && src->text[i + 1] == '>')
            return i;   /* before the trailing return type */
    }
    return body;
}

void hpi_cxx_free(hpi_walk *w)
{
    size_t i;

    for (i = 0; i < w->lambdas.n; i++) {
        hpi_lambda *l = &((hpi_lambda *)w->lambdas.v)[i];
        free(l->outer);
        free(l->name);
    }
    free(w->lambdas.v);
}
