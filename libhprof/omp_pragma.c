/*
 * omp_pragma.c - finds `#pragma omp` directives in a source file
 * (hp_omp_pragma.h), when OpenMP sites are resolved at the end of a run.
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "hp_omp_pragma.h"

static const char *const single_dirs[] = {"single", NULL};
static const char *const ordered_dirs[] = {"ordered", NULL};
static const char *const loop_end_dirs[] = {"for", "sections", NULL};

const char *const *hp_omp_pragma_directives(const char *name)
{
    if (!name)
        return NULL;
    if (strcmp(name, "single") == 0)
        return single_dirs;
    if (strcmp(name, "ordered") == 0 || strcmp(name, "ordered wait") == 0)
        return ordered_dirs;
    if (strcmp(name, "implicit barrier") == 0)
        return loop_end_dirs;
    return NULL;
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

int hp_omp_pragma_line(const char *file, int lo, int hi, int near,
                       const char *const *directives)
{
    if (!file || !directives || lo <= 0 || hi < lo)
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
        if (!best || abs(lineno - near) < abs(best - near))
            best = lineno;
    }
    fclose(f);
    return best;
}
