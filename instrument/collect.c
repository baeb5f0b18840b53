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
#include <stdlib.h>
#include <string.h>

#include <clang-c/Index.h>

#include "hpi.h"
#include "hpi_collect.h"
#include "hp_filter.h"

void *hpi_push(hpi_walk *w, hpi_vec *v, size_t elt)
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

char *hpi_strdup(hpi_walk *w, const char *s)
{
    char *d = strdup(s ? s : "");
    if (!d)
        w->oom = 1;
    return d;
}

/* ---- locations ---------------------------------------------------- */

static int hpi_span_cmp(const void *a, const void *b)
{
    const hpi_span *x = a, *y = b;

    return x->s < y->s ? -1 : x->s > y->s;
}

/* The conditional code of the main file the preprocessor leaves out, into
 * u->src.skipped (sorted); -1 when out of memory. */
static int hpi_collect_skipped(hpi_walk *w)
{
    hpi_src *s = &w->u->src;
    CXSourceRangeList *l = clang_getSkippedRanges(w->tu, w->main);
    unsigned i;

    if (!l)
        return 0;
    s->nskipped = 0;
    s->skipped = l->count ? malloc(l->count * sizeof *s->skipped) : NULL;
    if (l->count && !s->skipped) {
        clang_disposeSourceRangeList(l);
        return -1;
    }
    for (i = 0; i < l->count; i++) {
        hpi_span k;
        if (hpi_off(w, clang_getRangeStart(l->ranges[i]), &k.s) == 0 &&
            hpi_off(w, clang_getRangeEnd(l->ranges[i]), &k.e) == 0 && k.s < k.e)
            s->skipped[s->nskipped++] = k;
    }
    clang_disposeSourceRangeList(l);
    if (s->nskipped)
        qsort(s->skipped, s->nskipped, sizeof *s->skipped, hpi_span_cmp);
    return 0;
}

int hpi_off(hpi_walk *w, CXSourceLocation loc, size_t *off)
{
    CXFile f;
    unsigned line, col, o;

    clang_getFileLocation(loc, &f, &line, &col, &o);
    if (!f || !clang_File_isEqual(f, w->main) || o > w->u->src.len)
        return -1;
    *off = o;
    return 0;
}

int hpi_range(hpi_walk *w, CXCursor c, size_t *s, size_t *e)
{
    CXSourceRange r = clang_getCursorExtent(c);

    if (hpi_off(w, clang_getRangeStart(r), s) < 0 || hpi_off(w, clang_getRangeEnd(r), e) < 0)
        return -1;
    return *s < *e ? 0 : -1;
}

int hpi_is_ident(char c)
{
    return c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
}

/* ---- the translation unit ----------------------------------------- */

/* 1 when c lies in a header of the program: not the main file (the
 * caller has asked), not a system header, not an installed one (/usr/). */
static int hpi_own_header(CXCursor c)
{
    CXSourceLocation loc = clang_getCursorLocation(c);
    CXFile f;
    CXString name;
    int own;

    if (clang_Location_isInSystemHeader(loc))
        return 0;
    clang_getFileLocation(loc, &f, NULL, NULL, NULL);
    if (!f)
        return 0;
    name = clang_getFileName(f);
    own = strncmp(clang_getCString(name), "/usr/", 5) != 0;
    clang_disposeString(name);
    return own;
}

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
    } else if ((k == CXCursor_FunctionDecl || (w->o->cxx && hpi_cxx_function_kind(k))) &&
               clang_isCursorDefinition(c) && hpi_off(w, clang_getCursorLocation(c), &off) == 0) {
        CXCursor *f = hpi_push(w, &w->funcs, sizeof c);
        if (f)
            *f = c;
        if (w->o->cxx && w->o->tier1)
            hpi_cxx_header_fn(w, c, 1);
    } else if (w->o->cxx && (hpi_cxx_scope_kind(k) || k == CXCursor_UnexposedDecl) &&
               hpi_off(w, clang_getCursorLocation(c), &off) == 0) {
        /* C++: namespaces, classes of the file; extern "C" (libclang 14
         * shows a linkage specification as an unexposed declaration) */
        return CXChildVisit_Recurse;
    } else if (w->o->cxx && w->o->tier1 && hpi_own_header(c)) {
        /* tier 1 of C++: the functions of the program's own headers */
        if (hpi_cxx_scope_kind(k) || k == CXCursor_UnexposedDecl)
            return CXChildVisit_Recurse;
        if ((k == CXCursor_FunctionDecl || hpi_cxx_function_kind(k)) && clang_isCursorDefinition(c))
            hpi_cxx_header_fn(w, c, 0);
    } else if (!w->o->cxx && k == CXCursor_FunctionDecl && clang_isCursorDefinition(c) &&
               hpi_own_header(c)) {
        hpi_header_fn(w, c);   /* C: a function of the program's headers */
    }
    return CXChildVisit_Continue;
}

static int hpi_macro_cmp(const void *a, const void *b)
{
    const hpi_macro *x = a, *y = b;
    return x->start < y->start ? -1 : x->start > y->start;
}

int hpi_size_cmp(const void *a, const void *b)
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
    hpi_cxx_free(w);
    if (w->filter)
        hp_filter_free(w->filter);
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

    if (o->cxx) {
        args[n++] = "-x";
        args[n++] = "c++";
    }
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
    args = calloc((size_t)o->ncflags * 2 + 10, sizeof *args);
    if (!args) {
        snprintf(err, errlen, "out of memory");
        hpi_walk_free(&w);
        return -1;
    }
    nargs = hpi_clang_args(o, args, o->ncflags * 2 + 10);
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
    if (hpi_collect_skipped(&w) < 0)
        goto oom;
    clang_visitChildren(clang_getTranslationUnitCursor(w.tu), hpi_top, &w);
    if (w.oom)
        goto oom;
    if (w.macros.n)   /* qsort must not get a NULL array, even an empty one */
        qsort(w.macros.v, w.macros.n, sizeof(hpi_macro), hpi_macro_cmp);
    if (w.defs.n)
        qsort(w.defs.v, w.defs.n, sizeof(hpi_mdef), hpi_mdef_cmp);
    w.mends = malloc((w.macros.n + 1) * sizeof *w.mends);
    if (!w.mends)
        goto oom;
    for (i = 0; i < w.macros.n; i++)
        w.mends[i] = ((hpi_macro *)w.macros.v)[i].end;
    qsort(w.mends, w.macros.n, sizeof *w.mends, hpi_size_cmp);
    for (i = 0; i < w.funcs.n && !w.oom; i++)
        hpi_walk_function(&w, ((CXCursor *)w.funcs.v)[i]);
    /* C++ lambdas, nested ones found on the way too */
    for (i = 0; i < w.lambdas.n && !w.oom; i++) {
        hpi_lambda l = ((hpi_lambda *)w.lambdas.v)[i];
        hpi_walk_function_named(&w, l.cur, l.name);
    }
    if (w.oom)
        goto oom;
    if (hpi_omp_macros(&w) < 0)
        goto oom;
    if (o->tier1 && hpi_collect_once(&w) < 0)
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
