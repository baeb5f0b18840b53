/*
 * collect_tiny.c - the policy's tiny rule (policy.c: no call, no loop
 * but short ones of constant trip count) applied to a function body libclang sees but that is no site: the
 * functions defined in the program's own headers.  For C they are kept
 * by name (hpi_unit.hdr_tiny), so that policy.c leaves their calls
 * unprobed as it does for the tiny procedures of the file (CoMD's
 * zeroReal3 in mytype.h); for C++ tier 1 cxx_headers.c asks the same
 * question.
 */
#include <stdlib.h>
#include <string.h>

#include <clang-c/Index.h>

#include "hpi.h"
#include "hpi_collect.h"

/* A call the policy does not count: math.h's arithmetic, assert()'s
 * failure, a builtin, the C++ standard library's cheap methods. */
static int hpi_cheap_callee(CXCursor ref)
{
    CXString s;
    int yes;

    if (hpi_cxx_cheap_call(ref))
        return 1;
    if (clang_getCursorKind(ref) != CXCursor_FunctionDecl)
        return 0;
    s = clang_getCursorSpelling(ref);
    yes = strncmp(clang_getCString(s), "__builtin", 9) == 0 ||
          (clang_Location_isInSystemHeader(clang_getCursorLocation(ref)) &&
           (hpi_math_call(clang_getCString(s)) || hpi_assert_call(clang_getCString(s))));
    clang_disposeString(s);
    return yes;
}

/* The walk of a body: whether it has loops (1: only short ones, 2: one
 * that is not short) or calls; iters, the iterations
 * of the loops around the cursor visited. */
typedef struct hpi_tiny_walk {
    int loops, call;
    long iters;
} hpi_tiny_walk;

static enum CXChildVisitResult hpi_tiny_kid(CXCursor c, CXCursor p, CXClientData d)
{
    hpi_tiny_walk *t = d;
    enum CXCursorKind k = clang_getCursorKind(c);

    (void)p;
    if (k == CXCursor_ForStmt || k == CXCursor_WhileStmt || k == CXCursor_DoStmt ||
        k == CXCursor_CXXForRangeStmt) {
        long trip = hpi_const_trip(c), saved = t->iters;
        if (trip < 0 || (t->iters *= trip > 0 ? trip : 1) > HPI_TINY_ITERS)
            t->loops = 2;   /* a loop that is not short (policy.c) */
        else if (!t->loops)
            t->loops = 1;
        clang_visitChildren(c, hpi_tiny_kid, t);
        t->iters = saved;
        return CXChildVisit_Continue;
    }
    if (k == CXCursor_LambdaExpr ||
        (k == CXCursor_CallExpr && !hpi_cheap_callee(clang_getCursorReferenced(c))))
        t->call = 1;
    return CXChildVisit_Recurse;
}

/* 1 when fn's body is tiny by policy.c's rule: no call but cheap ones,
 * no loop but short ones (the pragmas of a header are invisible: libclang parses without
 * -fopenmp). */
int hpi_body_tiny(CXCursor fn)
{
    hpi_tiny_walk t = {0, 0, 1};

    clang_visitChildren(fn, hpi_tiny_kid, &t);
    return !t.call && t.loops < 2;
}

/* Notes function definition fn of one of the program's headers (C): its
 * name goes to hdr_tiny when its body is tiny. */
void hpi_header_fn(hpi_walk *w, CXCursor fn)
{
    hpi_unit *u = w->u;
    CXString name;

    if (!hpi_body_tiny(fn))
        return;
    if (u->nhdr_tiny == u->hdr_cap) {
        size_t cap = u->hdr_cap ? u->hdr_cap * 2 : 32;
        char **p = realloc(u->hdr_tiny, cap * sizeof *p);
        if (!p) {
            w->oom = 1;
            return;
        }
        u->hdr_tiny = p;
        u->hdr_cap = cap;
    }
    name = clang_getCursorSpelling(fn);
    u->hdr_tiny[u->nhdr_tiny] = hpi_strdup(w, clang_getCString(name));
    clang_disposeString(name);
    if (u->hdr_tiny[u->nhdr_tiny])
        u->nhdr_tiny++;
}

int hpi_header_tiny(const hpi_unit *u, const char *name)
{
    size_t i;

    for (i = 0; i < u->nhdr_tiny; i++)
        if (strcmp(u->hdr_tiny[i], name) == 0)
            return 1;
    return 0;
}

void hpi_header_free(hpi_unit *u)
{
    size_t i;

    for (i = 0; i < u->nhdr_tiny; i++)
        free(u->hdr_tiny[i]);
    free(u->hdr_tiny);
    u->hdr_tiny = NULL;
    u->nhdr_tiny = u->hdr_cap = 0;
}
