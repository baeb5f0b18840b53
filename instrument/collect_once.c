/*
 * collect_once.c - finds the procedures of the unit that the compiler
 * inlines because they are called once: static, named exactly once in the
 * whole unit, by a direct call from another function (hpi_site.once).
 *
 * Tier 1 needs to know them: -finstrument-functions hooks pass the
 * function's address, so the function can no longer be removed after
 * inlining, and gcc and clang then stop inlining it into its one caller
 * (an interpreter's loop in a function that main calls once runs 1.3x
 * slower for it).  tier1.c gives such procedures a source probe instead
 * of the hooks.
 */
#include <stdlib.h>
#include <string.h>

#include <clang-c/Index.h>

#include "hpi.h"
#include "hpi_collect.h"
#include "hprof_probe.h"

/* A static function defined in the main file and what names it. */
typedef struct hpi_once {
    CXCursor canon;      /* its canonical declaration */
    unsigned refs;       /* expressions naming it (a call's callee too) */
    unsigned calls;      /* direct calls of it */
    int self;            /* one of the calls is inside itself */
} hpi_once;

typedef struct hpi_once_walk {
    hpi_once *f;
    size_t n;
    CXCursor cur;        /* the function being visited, or a null cursor */
} hpi_once_walk;

static hpi_once *hpi_once_find(hpi_once_walk *o, CXCursor ref)
{
    CXCursor canon;
    size_t i;

    if (clang_getCursorKind(ref) != CXCursor_FunctionDecl)
        return NULL;
    canon = clang_getCanonicalCursor(ref);
    for (i = 0; i < o->n; i++)
        if (clang_equalCursors(o->f[i].canon, canon))
            return &o->f[i];
    return NULL;
}

static enum CXChildVisitResult hpi_once_visit(CXCursor c, CXCursor p, CXClientData d)
{
    hpi_once_walk *o = d;
    enum CXCursorKind k = clang_getCursorKind(c);
    hpi_once *f;

    (void)p;
    if (clang_Location_isInSystemHeader(clang_getCursorLocation(c)))
        return CXChildVisit_Continue;
    if (k == CXCursor_FunctionDecl) {
        CXCursor outer = o->cur;
        o->cur = clang_getCanonicalCursor(c);
        clang_visitChildren(c, hpi_once_visit, o);
        o->cur = outer;
        return CXChildVisit_Continue;
    }
    if (k == CXCursor_DeclRefExpr && (f = hpi_once_find(o, clang_getCursorReferenced(c))))
        f->refs++;
    if (k == CXCursor_CallExpr && (f = hpi_once_find(o, clang_getCursorReferenced(c)))) {
        f->calls++;
        if (!clang_Cursor_isNull(o->cur) && clang_equalCursors(o->cur, f->canon))
            f->self = 1;
    }
    return CXChildVisit_Recurse;
}

/* Sets hpi_site.once on the procedure site named after function fn. */
static void hpi_once_mark(hpi_walk *w, CXCursor fn)
{
    CXString s = clang_getCursorSpelling(fn);
    const char *name = clang_getCString(s);
    size_t i;

    for (i = 0; name && i < w->u->nsites; i++)
        if (w->u->sites[i].kind == HPROF_SITE_PROCEDURE && strcmp(w->u->sites[i].name, name) == 0)
            w->u->sites[i].once = 1;
    clang_disposeString(s);
}

int hpi_collect_once(hpi_walk *w)
{
    const CXCursor *fn = w->funcs.v;
    hpi_once_walk o;
    size_t i;

    o.f = calloc(w->funcs.n + 1, sizeof *o.f);
    if (!o.f)
        return -1;
    o.n = 0;
    o.cur = clang_getNullCursor();
    for (i = 0; i < w->funcs.n; i++)
        if (clang_Cursor_getStorageClass(fn[i]) == CX_SC_Static)
            o.f[o.n++].canon = clang_getCanonicalCursor(fn[i]);
    if (o.n)
        clang_visitChildren(clang_getTranslationUnitCursor(w->tu), hpi_once_visit, &o);
    for (i = 0; i < o.n; i++)
        if (o.f[i].calls == 1 && o.f[i].refs == 1 && !o.f[i].self)
            hpi_once_mark(w, o.f[i].canon);
    free(o.f);
    return 0;
}
