/*
 * cxx_headers.c - tier 1 of C++: the policy applied to the inline
 * functions of the program's own headers (accessors, small operators),
 * which tier1.c cannot mark in the text (it rewrites the main file only).
 * Each function defined in a header of the program (not a system header,
 * not under /usr/) is judged tiny by the policy's rule (collect_tiny.c);
 * hprof-cc passes the
 * names of the tiny ones to gcc's -finstrument-functions-exclude-function-
 * list.  gcc matches those names as substrings of a function's qualified
 * name ("Domain::x" for Domain::x(int)), so a name that is part of the
 * name of a function that keeps its hooks (one of the main file, a
 * header function that is not tiny, a template) is not passed: that
 * function stays hooked, and --tier=1 --list says why.
 */
#include <stdlib.h>
#include <string.h>

#include <clang-c/Index.h>

#include "hpi.h"
#include "hpi_collect.h"

/* gcc's name of function fn for the exclude list: its scopes and name
 * ("ns::Class::f"), or NULL for what gcc names otherwise (templates,
 * anonymous namespaces) or what the list cannot hold (a comma). */
static char *hpi_gcc_name(CXCursor fn)
{
    CXCursor c;
    char buf[1024] = "";

    if (clang_getCursorKind(fn) == CXCursor_FunctionTemplate)
        return NULL;
    for (c = clang_getCursorSemanticParent(fn); !clang_Cursor_isNull(c) &&
         clang_getCursorKind(c) != CXCursor_TranslationUnit; c = clang_getCursorSemanticParent(c)) {
        enum CXCursorKind k = clang_getCursorKind(c);
        CXString s;
        char tmp[1024];
        if (k == CXCursor_LinkageSpec)
            continue;
        if (k != CXCursor_Namespace && k != CXCursor_ClassDecl && k != CXCursor_StructDecl &&
            k != CXCursor_UnionDecl)
            return NULL;
        s = clang_getCursorSpelling(c);
        if (!*clang_getCString(s)) {
            clang_disposeString(s);
            return NULL;
        }
        snprintf(tmp, sizeof tmp, "%s::%s", clang_getCString(s), buf);
        memcpy(buf, tmp, sizeof buf);
        clang_disposeString(s);
    }
    {
        CXString s = clang_getCursorSpelling(fn);
        size_t n = strlen(buf);
        snprintf(buf + n, sizeof buf - n, "%s", clang_getCString(s));
        clang_disposeString(s);
    }
    return strchr(buf, ',') ? NULL : strdup(buf);
}

void hpi_cxx_header_fn(hpi_walk *w, CXCursor fn, int in_main)
{
    hpi_unit *u = w->u;
    hpi_hfunc *h;
    CXFile f;
    unsigned line;
    CXString file;

    if (u->nhfuncs == u->hcap) {
        size_t cap = u->hcap ? u->hcap * 2 : 64;
        hpi_hfunc *p = realloc(u->hfuncs, cap * sizeof *p);
        if (!p) {
            w->oom = 1;
            return;
        }
        u->hfuncs = p;
        u->hcap = cap;
    }
    h = &u->hfuncs[u->nhfuncs];
    memset(h, 0, sizeof *h);
    clang_getFileLocation(clang_getCursorLocation(fn), &f, &line, NULL, NULL);
    file = clang_getFileName(f);
    h->name = hpi_gcc_name(fn);
    h->display = hpi_cxx_name(fn);
    h->file = hpi_strdup(w, clang_getCString(file));
    clang_disposeString(file);
    h->line = line;
    h->main = in_main;
    h->tiny = hpi_body_tiny(fn);
    if (!h->display)
        w->oom = 1;
    u->nhfuncs++;
}

/* 1 when a function other than i that keeps its hooks has a name of which
 * i's name is a part (gcc would exclude it too). */
static int hpi_hfunc_clash(const hpi_unit *u, size_t i)
{
    size_t j;

    for (j = 0; j < u->nhfuncs; j++) {
        const hpi_hfunc *o = &u->hfuncs[j];
        if (j == i || !(o->main || !o->tiny || !o->name))
            continue;
        if (strstr(o->name ? o->name : o->display, u->hfuncs[i].name))
            return 1;
    }
    return 0;
}

void hpi_cxx_headers_decide(hpi_unit *u)
{
    size_t i;

    for (i = 0; i < u->nhfuncs; i++) {
        hpi_hfunc *h = &u->hfuncs[i];
        if (h->main || !h->tiny)
            continue;
        if (!h->name)
            h->kept = "tiny, but a template or in an anonymous namespace: gcc names it otherwise";
        else if (hpi_hfunc_clash(u, i))
            h->kept = "tiny, but its name is part of the name of a hooked procedure";
        else
            h->why = "tiny procedure of a header: excluded by name";
    }
}

void hpi_cxx_headers_list(const hpi_unit *u, FILE *fp)
{
    size_t i;

    for (i = 0; i < u->nhfuncs; i++) {
        const hpi_hfunc *h = &u->hfuncs[i];
        if (h->main || (!h->why && !h->kept))
            continue;
        fprintf(fp, "%s header procedure %s:%u %s: %s\n", h->why ? "unhooked" : "hooked",
                h->file, h->line, h->display, h->why ? h->why : h->kept);
    }
}

int hpi_cxx_headers_write(const hpi_unit *u, const char *path, char *err, size_t errlen)
{
    FILE *fp = fopen(path, "w");
    size_t i;
    int first = 1;

    if (!fp) {
        snprintf(err, errlen, "cannot write %s", path);
        return -1;
    }
    for (i = 0; i < u->nhfuncs; i++) {
        const hpi_hfunc *h = &u->hfuncs[i];
        size_t j;
        int dup = 0;
        if (!h->why)
            continue;
        for (j = 0; j < i && !dup; j++)   /* overloads share a name */
            dup = u->hfuncs[j].why && strcmp(u->hfuncs[j].name, h->name) == 0;
        if (dup)
            continue;
        fprintf(fp, "%s%s", first ? "" : ",", h->name);
        first = 0;
    }
    if (fclose(fp) != 0) {
        snprintf(err, errlen, "cannot write %s", path);
        return -1;
    }
    return 0;
}

void hpi_cxx_headers_free(hpi_unit *u)
{
    size_t i;

    for (i = 0; i < u->nhfuncs; i++) {
        free(u->hfuncs[i].name);
        free(u->hfuncs[i].display);
        free(u->hfuncs[i].file);
    }
    free(u->hfuncs);
    u->hfuncs = NULL;
    u->nhfuncs = u->hcap = 0;
}
