/*
 * omp_pragma.c - finds `#pragma omp` directives in a source file
 * (hp_omp_pragma.h), when OpenMP sites are resolved at the end of a run.
 */
#include <assert.h>
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "hp_omp_pragma.h"

static const char *const single_dirs[] = {"single", NULL};
static const char *const ordered_dirs[] = {"ordered", NULL};
static const char *const atomic_dirs[] = {"atomic", NULL};
static const char *const taskwait_dirs[] = {"taskwait", "taskgroup", NULL};
static const char *const loop_end_dirs[] = {"for", "sections", NULL};
static const char *const region_dirs[] = {"parallel", NULL};
static const char *const task_dirs[] = {"task", "taskloop", NULL};

/* The directives of a region's or a task's records (keyed by entry). */
static const char *const *entry_directives(const char *name)
{
    if (strncmp(name, "task", 4) == 0)
        return task_dirs;   /* "task", "task create" */
    return region_dirs;     /* "parallel", "fork", "join", "implicit barrier" */
}

enum { NEAREST, FIRST_OWN, NEXT };

/* How the call sites of construct `name` are placed: at the next
 * directive of their kind from the call's line (gcc gives the call that
 * starts a single, an ordered block or an atomic update, and the end of a
 * taskgroup, the line of a statement before the construct; a taskwait's
 * is its own), or the nearest (a loop's end: the region's line or the
 * loop body's); NULL when the call's line is right. */
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
    *how = NEAREST;
    if (strcmp(name, "implicit barrier") == 0)
        return loop_end_dirs;
    return NULL;
}

static int by_value(const void *a, const void *b)
{
    int x = *(const int *)a, y = *(const int *)b;
    return (x > y) - (x < y);
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

/* Does the line hold `#pragma omp D` for a D in directives? */
static int is_directive(const char *line, const char *const *directives)
{
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

/* The line of `file` holding `#pragma omp D` for a D in directives, from
 * the function's first own line to its last: the one nearest to `near`
 * (the earlier on a tie), the first at or after `near`, or the first that
 * is itself an own line (how); 0 if none. */
static int directive_line(const char *file, const int *lines, int n, int near,
                          const char *const *directives, int how)
{
    int lo = lines[0], hi = lines[n - 1];
    if (!file || lo <= 0 || hi < lo)
        return 0;
    FILE *f = fopen(file, "r");
    if (!f)
        return 0;
    char buf[512];
    int lineno = 0, best = 0, at_start = 1;
    while (fgets(buf, sizeof buf, f)) {
        /* a line longer than buf continues: only its start is looked at */
        int starts = at_start;
        at_start = strchr(buf, '\n') != NULL;
        if (!starts)
            continue;
        if (++lineno > hi)
            break;
        if (lineno < lo || !is_directive(buf, directives))
            continue;
        if ((how == NEAREST && (!best || abs(lineno - near) < abs(best - near))) ||
            (how == NEXT && !best && lineno >= near) ||
            (how == FIRST_OWN && !best && is_own(lines, n, lineno)))
            best = lineno;
    }
    fclose(f);
    return best;
}

void hp_omp_pragma_place(const char *file, const int *lines, int n, int entry,
                         const char **name, int *line)
{
    assert(lines && n > 0);
    int how;
    const char *const *dirs = call_directives(*name, &how);
    int at = 0;
    if (entry) {
        at = directive_line(file, lines, n, 0, entry_directives(*name), FIRST_OWN);
        if (!at)
            at = lines[0];
    } else if (dirs) {
        at = directive_line(file, lines, n, *line, dirs, how);
        if (!at && how == NEXT)
            at = directive_line(file, lines, n, *line, dirs, NEAREST);
    }
    if (at)
        *line = at;
}
