/*
 * omp_pragma.c - finds `#pragma omp` directives in a source file
 * (hp_omp_pragma.h), when OpenMP sites are resolved at the end of a run.
 */
#include <assert.h>
#include <ctype.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "hp_omp_fortran.h"
#include "hp_omp_pragma.h"

static const char *const single_dirs[] = {"single", NULL};
static const char *const ordered_dirs[] = {"ordered", NULL};
static const char *const atomic_dirs[] = {"atomic", NULL};
static const char *const taskwait_dirs[] = {"taskwait", "taskgroup", NULL};
static const char *const loop_end_dirs[] = {"for", "sections", NULL};
static const char *const worksharing_dirs[] = {"for", "sections", "single", NULL};
static const char *const barrier_dirs[] = {"barrier", NULL};
static const char *const region_dirs[] = {"parallel", NULL};
static const char *const task_dirs[] = {"task", "taskloop", NULL};
static const char *const reduction_dirs[] = {"for", "sections", "parallel", NULL};
/* the directives that may begin a loop construct, alone or combined (a
 * `sections` is one to libomp: its OMPT loop record is at its pragma) */
static const char *const loop_start_dirs[] = {"for", "do", "simd", "loop", "distribute", "parallel", "teams", "target", "taskloop", "sections", NULL};

/* The directives of a region's or a task's records (keyed by entry). */
static const char *const *entry_directives(const char *name)
{
    if (strncmp(name, "task", 4) == 0)
        return task_dirs;   /* "task", "task create" */
    return region_dirs;     /* "parallel", "fork", "join", "implicit barrier" */
}

enum { NEAREST, FIRST_OWN, NEXT, AROUND_OR_NEXT, AROUND_OR_LAST };

/* How the call sites of construct `name` are placed: at the next
 * directive of their kind from the call's line (gcc gives the call that
 * starts a single, an ordered block or an atomic update, and the end of a
 * taskgroup, the line of a statement before the construct; a taskwait's
 * is its own), or at the construct whose statement holds the call's line,
 * else the last one before it, else the next (a dynamic loop's or
 * sections' end: the loop body's line, the statement after the loop, or
 * the region's); NULL when the call's line is right. */
static const char *const *call_directives(const char *name, int *how)
{
    *how = NEXT;
    if (strcmp(name, "single") == 0)
        return single_dirs;
    if (strcmp(name, "ordered") == 0 || strcmp(name, "ordered wait") == 0)
        return ordered_dirs;
    if (strcmp(name, "atomic") == 0)
        return atomic_dirs;
    if (strcmp(name, "taskwait") == 0)
        return taskwait_dirs;
    *how = AROUND_OR_LAST;
    if (strcmp(name, "implicit barrier") == 0)
        return loop_end_dirs;
    return NULL;
}

static int by_value(const void *a, const void *b)
{
    int x = *(const int *)a, y = *(const int *)b;
    return (x > y) - (x < y);
}

/* A source file read once per resolution (a run's OpenMP sites of one
 * file would otherwise each read it up to their lines): its text with
 * every newline made a NUL, and where each line starts. */
typedef struct file_text {
    char *path;
    char *text;
    char **line;   /* line[i]: line i + 1 */
    int nlines;
} file_text;

static file_text *files;
static size_t nfiles;

static int read_whole(const char *path, file_text *ft)
{
    FILE *f = fopen(path, "r");
    size_t cap = 0, len = 0;
    char *text = NULL;
    if (!f)
        return -1;
    for (;;) {
        if (len + 4096 + 1 > cap) {
            char *more = realloc(text, cap = cap ? cap * 2 : 65536);
            if (!more) {
                free(text);
                fclose(f);
                return -1;
            }
            text = more;
        }
        size_t got = fread(text + len, 1, cap - len - 1, f);
        len += got;
        if (got == 0)
            break;
    }
    fclose(f);
    text[len] = '\0';
    int n = 0;
    for (size_t i = 0; i < len; i++)
        n += text[i] == '\n';
    n += len > 0 && text[len - 1] != '\n';
    ft->line = malloc(((size_t)n + 1) * sizeof *ft->line);
    if (!ft->line) {
        free(text);
        return -1;
    }
    ft->nlines = 0;
    for (size_t i = 0; i < len;) {
        ft->line[ft->nlines++] = text + i;
        char *nl = memchr(text + i, '\n', len - i);
        if (!nl)
            break;
        *nl = '\0';
        i = (size_t)(nl - text) + 1;
    }
    ft->text = text;
    return 0;
}

/* The file's lines, read at its first use in this resolution; NULL when
 * it cannot be read. */
static const file_text *file_lines(const char *path)
{
    for (size_t i = 0; i < nfiles; i++)
        if (strcmp(files[i].path, path) == 0)
            return files[i].text ? &files[i] : NULL;
    file_text *more = realloc(files, (nfiles + 1) * sizeof *files);
    if (!more)
        return NULL;
    files = more;
    file_text *ft = &files[nfiles];
    memset(ft, 0, sizeof *ft);
    if (!(ft->path = strdup(path)))
        return NULL;
    nfiles++;
    if (read_whole(path, ft) != 0) {
        ft->text = NULL;
        return NULL;
    }
    return ft;
}

void hp_omp_pragma_forget(void)
{
    for (size_t i = 0; i < nfiles; i++) {
        free(files[i].path);
        free(files[i].text);
        free(files[i].line);
    }
    free(files);
    files = NULL;
    nfiles = 0;
}

/* Lines lo..hi of a source file. */
typedef struct source {
    char *const *text;   /* text[i]: line lo + i */
    int lo, hi;
    int fortran;         /* HP_FORTRAN_FREE or _FIXED: `!$omp` directives */
} source;

/* Lines lo..hi of file (hi lowered to the file's end); 0 if done. */
static int load_source(const char *file, int lo, int hi, source *src)
{
    const file_text *ft = file && lo > 0 && hi >= lo ? file_lines(file) : NULL;
    if (!ft || ft->nlines < lo)
        return -1;
    src->lo = lo;
    src->hi = hi < ft->nlines ? hi : ft->nlines;
    src->text = ft->line + (lo - 1);
    src->fortran = hp_omp_fortran_file(file);
    return 0;
}

/* The text of a line, "" when unknown. */
static const char *text_of(const source *src, int line)
{
    const char *t = line >= src->lo && line <= src->hi ? src->text[line - src->lo] : NULL;
    return t ? t : "";
}

static const char *skip_space(const char *p)
{
    while (*p == ' ' || *p == '\t')
        p++;
    return p;
}

/* p after `word` and at least one blank, or NULL. */
static const char *after_word(const char *p, const char *word)
{
    size_t n = strlen(word);
    if (strncmp(p, word, n) != 0 || (p[n] != ' ' && p[n] != '\t'))
        return NULL;
    return skip_space(p + n);
}

/* Does the line hold `#pragma omp D` (or Fortran's `!$omp D`) for a D in
 * directives? */
static int is_directive(const source *src, const char *line, const char *const *directives)
{
    if (src->fortran)
        return hp_omp_fortran_is_directive(line, directives);
    const char *p = skip_space(line);
    if (*p++ != '#')
        return 0;
    p = skip_space(p);
    if (!(p = after_word(p, "pragma")) || !(p = after_word(p, "omp")))
        return 0;
    for (int i = 0; directives[i]; i++) {
        size_t n = strlen(directives[i]);
        if (strncmp(p, directives[i], n) == 0 && !isalnum((unsigned char)p[n]) &&
            p[n] != '_')
            return 1;
    }
    return 0;
}

static int is_own(const int *lines, int n, int line)
{
    return bsearch(&line, lines, (size_t)n, sizeof *lines, by_value) != NULL;
}

const char *hp_omp_pragma_literal_end(const char *c)
{
    char quote = *c++;
    for (; *c && *c != quote; c++)
        if (*c == '\\' && c[1])
            c++;
    return *c ? c : c - 1;
}

/* The last line of the statement that the directive at line p applies
 * to: its block's closing brace or its statement's semicolon (ignoring
 * those inside parentheses, comments and literals, and the lines of
 * nested directives). */
static int statement_end(const source *src, int p)
{
    if (src->fortran)
        return hp_omp_fortran_construct_end(src->text, src->lo, src->hi, p, src->fortran);
    int paren = 0, brace = 0, comment = 0;
    for (int l = p + 1; l <= src->hi; l++) {
        const char *c = text_of(src, l);
        if (!comment && *skip_space(c) == '#')
            continue;
        for (; *c; c++) {
            if (comment) {
                if (c[0] == '*' && c[1] == '/')
                    comment = 0, c++;
                continue;
            }
            if (c[0] == '/' && c[1] == '/')
                break;
            if (c[0] == '/' && c[1] == '*') {
                comment = 1;
                c++;
            } else if (*c == '"' || *c == '\'') {
                c = hp_omp_pragma_literal_end(c);
            } else if (*c == '(') {
                paren++;
            } else if (*c == ')') {
                paren--;
            } else if (*c == '{') {
                brace++;
            } else if ((*c == '}' && --brace <= 0 && paren <= 0) ||
                       (*c == ';' && brace == 0 && paren <= 0)) {
                return l;
            }
        }
    }
    return src->hi;
}

/* The line holding `#pragma omp D` for a D in directives, from the
 * function's first own line to its last: the one nearest to `near` (the
 * earlier on a tie), the first at or after `near`, the first that is
 * itself an own line, or the innermost whose statement holds `near`, else
 * the first after it or the last before it, then the other (how); 0 if
 * none. */
static int directive_line(const source *src, const int *lines, int n, int near,
                          const char *const *directives, int how)
{
    int best = 0, next = 0, last = 0;
    int around = how == AROUND_OR_NEXT || how == AROUND_OR_LAST;
    for (int l = src->lo; l <= src->hi; l++) {
        if (!is_directive(src, text_of(src, l), directives))
            continue;
        if ((how == NEAREST && (!best || abs(l - near) < abs(best - near))) ||
            (how == NEXT && !best && l >= near) ||
            (how == FIRST_OWN && !best && is_own(lines, n, l)) ||
            (around && l <= near && statement_end(src, l) >= near))
            best = l;
        if (around && l > near && !next)
            next = l;
        if (around && l <= near)
            last = l;
    }
    if (best || !around)
        return best;
    if (how == AROUND_OR_LAST)
        return last ? last : next;
    return next ? next : last;
}

/* A GOMP_barrier call not on a barrier directive's line ends a
 * worksharing construct: its implicit barrier, at that construct. */
static int construct_end_barrier(const source *src, const int *lines, int n, int line)
{
    if (is_directive(src, text_of(src, line), barrier_dirs))
        return 0;
    return directive_line(src, lines, n, line, worksharing_dirs, AROUND_OR_NEXT);
}

/* Does the directive at line p (continued over lines ending in a backslash)
 * have a reduction clause? */
static int has_reduction(const source *src, int p)
{
    for (int l = p; l <= src->hi; l++) {
        const char *t = text_of(src, l), *r = t;
        while ((r = strstr(r, "reduction")) != NULL) {
            int word_start = r == t || !(isalnum((unsigned char)r[-1]) || r[-1] == '_');
            r = skip_space(r + strlen("reduction"));
            if (word_start && *r == '(')
                return 1;
        }
        size_t len = strlen(t);
        if (len == 0 || t[len - 1] != '\\')
            return 0;
    }
    return 0;
}

/* gcc combines a reduction of several variables (or of a type with no
 * atomic instruction) under GOMP_atomic_start/end, at a line of the
 * construct's body: the for, sections or parallel directive whose
 * statement holds `line` below the directive itself and has a reduction
 * clause, when no atomic directive lies in that statement (else the call
 * may be its atomic's).  (An atomic update after the construct gets the
 * directive's own line: it stays an atomic, at the next atomic.)  0 if
 * none. */
static int reduction_construct(const source *src, int line)
{
    int best = 0;
    for (int l = src->lo; l < line && l <= src->hi; l++)
        if (is_directive(src, text_of(src, l), reduction_dirs) &&
            statement_end(src, l) >= line && has_reduction(src, l))
            best = l;
    if (!best)
        return 0;
    for (int l = best + 1, end = statement_end(src, best); l <= end; l++)
        if (is_directive(src, text_of(src, l), atomic_dirs))
            return 0;
    return best;
}

void hp_omp_pragma_place(const char *file, const int *lines, int n, int entry,
                         const char **name, int *line)
{
    assert(lines && n > 0);
    source src;
    int how, at = 0;
    const char *const *dirs = call_directives(*name, &how);
    if (load_source(file, lines[0], lines[n - 1], &src) != 0) {
        if (entry)
            *line = lines[0];
        return;
    }
    if (entry) {
        at = directive_line(&src, lines, n, 0, entry_directives(*name), FIRST_OWN);
        if (!at)
            at = lines[0];
    } else if (strcmp(*name, "atomic") == 0 && (at = reduction_construct(&src, *line)) != 0) {
        *name = "reduction";
    } else if (dirs) {
        at = directive_line(&src, lines, n, *line, dirs, how);
        if (!at && how == NEXT)
            at = directive_line(&src, lines, n, *line, dirs, NEAREST);
    } else if (strcmp(*name, "barrier") == 0) {
        at = construct_end_barrier(&src, lines, n, *line);
        if (at)
            *name = "implicit barrier";
    }
    if (at)
        *line = at;
}

int hp_omp_pragma_at(const char *file, int line, const char *directive)
{
    source src;
    const char *p;
    if (load_source(file, line, line, &src) != 0 || src.fortran)
        return 0;
    if (directive)
        return is_directive(&src, text_of(&src, line), (const char *const[]){directive, NULL});
    p = skip_space(text_of(&src, line));
    if (*p++ != '#')
        return 0;
    p = after_word(skip_space(p), "pragma");
    return p && after_word(p, "omp") != NULL;
}

const char *hp_omp_pragma_line_text(const char *file, int line)
{
    source src;
    return load_source(file, line, line, &src) == 0 && line <= src.hi ? text_of(&src, line) : NULL;
}

int hp_omp_pragma_function_end(const char *file, int decl_line)
{
    source src;
    if (decl_line < 2 || load_source(file, decl_line - 1, INT_MAX, &src) != 0 || src.fortran)
        return 0;
    /* the header's parentheses balance; its body is the first block */
    return statement_end(&src, decl_line - 1);
}

int hp_omp_pragma_loop_on_line(const char *file, int line)
{
    source src;
    return load_source(file, line, line, &src) == 0 &&
           is_directive(&src, text_of(&src, line), loop_start_dirs);
}

void hp_omp_pragma_directive_start(const char *file, int *line)
{
    source src;
    int lo = *line > 8 ? *line - 8 : 1;
    if (!hp_omp_fortran_file(file) || load_source(file, lo, *line, &src) != 0)
        return;
    *line = hp_omp_fortran_directive_start(src.text, src.lo, src.hi, *line);
}
