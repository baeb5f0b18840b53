/*
 * collect_trip.c - the constant trip count of a counted for loop, for the
 * policy's tiny rule (policy.c): `for (m = 0; m < 5; m++)` runs 5 times
 * whatever the data, so a procedure whose loops are all that short is as
 * cheap as straight-line code; a loop whose bounds are not compile-time
 * constants may run any number of times.  Recognised: an init that sets
 * one variable to a constant (a declaration or an assignment), a condition
 * VAR < | <= | > | >= CONSTANT, and an increment VAR++, ++VAR, VAR += 1
 * (or the same decrements with > and >=).  Constants are what clang
 * evaluates (literals, macros, enumerators, constant arithmetic).
 */
#include <stdlib.h>
#include <string.h>

#include <clang-c/Index.h>

#include "hpi.h"
#include "hpi_collect.h"

static int hpi_eval(CXCursor c, long long *v)
{
    CXEvalResult r = clang_Cursor_Evaluate(c);
    int ok = 0;

    if (r) {
        if (clang_EvalResult_getKind(r) == CXEval_Int) {
            *v = clang_EvalResult_getAsLongLong(r);
            ok = 1;
        }
        clang_EvalResult_dispose(r);
    }
    return ok;
}

static enum CXChildVisitResult hpi_collect_kid(CXCursor c, CXCursor p, CXClientData d)
{
    CXCursor *k = d;
    int i;

    (void)p;
    for (i = 0; i < 4 && !clang_Cursor_isNull(k[i]); i++)
        ;
    if (i == 4) {
        k[4] = c;   /* a fifth child: not the shape we know */
        return CXChildVisit_Break;
    }
    k[i] = c;
    return CXChildVisit_Continue;
}

/* The first n children of c in k (null cursors past the last); the
 * number of children, n + 1 when there are more. */
static int hpi_children(CXCursor c, CXCursor *k, int n)
{
    CXCursor all[5];
    int i, m = 0;

    for (i = 0; i < 5; i++)
        all[i] = clang_getNullCursor();
    clang_visitChildren(c, hpi_collect_kid, all);
    for (i = 0; i < 5; i++)
        if (!clang_Cursor_isNull(all[i]))
            m++;
    for (i = 0; i < n; i++)
        k[i] = i < m ? all[i] : clang_getNullCursor();
    return m;
}

/* The spelling of the first tokens of c (up to max, each < 64 bytes, "" past
 * the end) in tok. */
static void hpi_tokens(CXCursor c, char tok[][64], int max)
{
    CXTranslationUnit tu = clang_Cursor_getTranslationUnit(c);
    CXToken *t = NULL;
    unsigned n = 0, i;

    for (i = 0; i < (unsigned)max; i++)
        tok[i][0] = 0;
    clang_tokenize(tu, clang_getCursorExtent(c), &t, &n);
    for (i = 0; i < n && i < (unsigned)max; i++) {
        CXString s = clang_getTokenSpelling(tu, t[i]);
        snprintf(tok[i], 64, "%s", clang_getCString(s));
        clang_disposeString(s);
    }
    if (t)
        clang_disposeTokens(tu, t, n);
}

/* The loop variable's name and start value from the init statement. */
static int hpi_trip_init(CXCursor init, char *var, size_t len, long long *lo)
{
    CXCursor k[2];
    CXString s;

    if (clang_getCursorKind(init) == CXCursor_DeclStmt) {
        if (hpi_children(init, k, 1) != 1 || clang_getCursorKind(k[0]) != CXCursor_VarDecl)
            return 0;
        s = clang_getCursorSpelling(k[0]);
        snprintf(var, len, "%s", clang_getCString(s));
        clang_disposeString(s);
        return hpi_children(k[0], k, 1) == 1 && hpi_eval(k[0], lo);
    }
    if (clang_getCursorKind(init) != CXCursor_BinaryOperator || hpi_children(init, k, 2) != 2)
        return 0;
    {
        char tok[3][64];
        hpi_tokens(init, tok, 3);
        if (strcmp(tok[1], "=") != 0)
            return 0;
        snprintf(var, len, "%s", tok[0]);
    }
    return hpi_eval(k[1], lo);
}

long hpi_const_trip(CXCursor loop)
{
    CXCursor k[4], ck[2];
    char var[64], cond[3][64], inc[3][64];
    long long lo, hi, n;
    int up, down;

    if (clang_getCursorKind(loop) != CXCursor_ForStmt || hpi_children(loop, k, 4) != 4 ||
        !hpi_trip_init(k[0], var, sizeof var, &lo))
        return -1;
    if (clang_getCursorKind(k[1]) != CXCursor_BinaryOperator || hpi_children(k[1], ck, 2) != 2 ||
        !hpi_eval(ck[1], &hi))
        return -1;
    hpi_tokens(k[1], cond, 3);
    hpi_tokens(k[2], inc, 3);
    if (strcmp(cond[0], var) != 0)
        return -1;
    up = (strcmp(inc[0], var) == 0 && (strcmp(inc[1], "++") == 0 ||
                                       (strcmp(inc[1], "+=") == 0 && strcmp(inc[2], "1") == 0))) ||
         (strcmp(inc[0], "++") == 0 && strcmp(inc[1], var) == 0);
    down = (strcmp(inc[0], var) == 0 && (strcmp(inc[1], "--") == 0 ||
                                         (strcmp(inc[1], "-=") == 0 && strcmp(inc[2], "1") == 0))) ||
           (strcmp(inc[0], "--") == 0 && strcmp(inc[1], var) == 0);
    if (up && strcmp(cond[1], "<") == 0)
        n = hi - lo;
    else if (up && strcmp(cond[1], "<=") == 0)
        n = hi - lo + 1;
    else if (down && strcmp(cond[1], ">") == 0)
        n = lo - hi;
    else if (down && strcmp(cond[1], ">=") == 0)
        n = lo - hi + 1;
    else
        return -1;
    return n < 0 ? 0 : n > 0x7fffffffLL ? 0x7fffffffL : (long)n;
}
