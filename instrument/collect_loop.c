/*
 * collect_loop.c - the loop sites: where a loop's probe opens (before the
 * pragmas that bind the loop, which must stay right before it), which
 * loops take no probe (do { } while (0), loops bound by collapse or made
 * by macros), and the walk into a loop's header and body.
 */
#include <stdlib.h>
#include <string.h>

#include <clang-c/Index.h>

#include "hpi.h"
#include "hpi_collect.h"
#include "hprof_probe.h"

/* Finds where the probe of a loop starting at s opens: before the
 * #pragma lines, _Pragma operators and pragma macros that bind the loop
 * (so they still directly precede it).  *line is set to the line of the
 * opener when it must sit on a line of its own; *bound when an OpenMP-like
 * pragma binds the loop, with the number of loops it binds in *collapse;
 * *par when that pragma has a parallel part (parallel for, ...). */
static size_t hpi_loop_open(hpi_walk *w, size_t s, unsigned *line, int *bound, int *collapse,
                            int *par)
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
                *par |= d->parallel;
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
            *par |= m->parallel;
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
                *par |= hpi_pragma_parallel(buf);
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

/* 1 when a loop pragma binds the loop at s across conditional
 * directives (#pragma omp for, #if, the loop): no probe can go between
 * them, nor around them (its closer would be inside the #if). */
static int hpi_pragma_across_if(hpi_walk *w, size_t s)
{
    const hpi_src *src = &w->u->src;
    size_t p = hpi_src_prev_nonspace(src, s);
    int conds = 0;

    while (p != HPI_NONE && src->cls[p] == HPI_C_DIRECTIVE) {
        const hpi_dir *d = hpi_src_dir_at(src, p);
        if (!d)
            return 0;
        if (d->kind == HPI_D_PRAGMA_LOOP)
            return conds > 0;
        if (d->kind != HPI_D_IF && d->kind != HPI_D_ELSE && d->kind != HPI_D_ENDIF)
            return 0;
        conds++;
        p = hpi_src_prev_nonspace(src, d->start);
    }
    return 0;
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

void hpi_walk_loop(hpi_walk *w, CXCursor c)
{
    enum CXCursorKind k = clang_getCursorKind(c);
    const char *name = k == CXCursor_ForStmt || k == CXCursor_CXXForRangeStmt ? "for" : k == CXCursor_WhileStmt ? "while" : "do";
    const hpi_src *src = &w->u->src;
    size_t s, e, open, close, after;
    unsigned line = 0;
    int bound = 0, collapse = 1, idx = -1, inner = 0, saved = w->parent, par = 0;
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
        open = hpi_loop_open(w, s, &line, &bound, &collapse, &par);
    if ((m = hpi_macro_at(w, s)) != NULL) {
        skip = hpi_macro_check(w, s, e, 1);
        if (!skip && hpi_macro_pragma(w, m)) {
            bound = 1;
            par |= m->parallel;
            if (collapse && (m->collapse == 0 || m->collapse > collapse))
                collapse = m->collapse;
        }
    } else if (strncmp(src->text + s, name, strlen(name)) != 0) {
        skip = "loop keyword from a macro";
    }
    after = hpi_src_next_nonspace(src, e);
    if (after < src->len && src->text[after] == ';' && src->cls[after] == HPI_C_CODE)
        close = after + 1;
    if (!skip && !inner && hpi_pragma_across_if(w, open)) {
        skip = "a loop pragma binds it across #if/#else/#endif";
        bound = 1;
    }
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
        w->u->sites[idx].par_bound = par;
        w->u->sites[idx].trip = hpi_const_trip(c);
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
