/*
 * filter.c - parsing and matching of HPROF_FILTER rule files (hp_filter.h).
 */
#include <errno.h>
#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "hp_filter.h"

enum { ON_FUNCTION, ON_FILE, ON_LOOP, ON_CALL };

typedef struct rule {
    int include;     /* 1 include, 0 exclude */
    int on;          /* ON_*: what GLOB matches */
    unsigned line;   /* ON_LOOP, ON_CALL: the loop's or call's first line */
    char *glob;      /* ON_LOOP, ON_CALL: the file part of FILE:LINE */
} rule;

struct hp_filter {
    rule *rules;
    size_t n, cap;
};

static int add_rule(hp_filter *f, int include, int on, unsigned line, const char *glob)
{
    if (f->n == f->cap) {
        size_t cap = f->cap ? f->cap * 2 : 16;
        rule *r = realloc(f->rules, sizeof *r * cap);
        if (!r)
            return -1;
        f->rules = r;
        f->cap = cap;
    }
    if (!(f->rules[f->n].glob = strdup(glob)))
        return -1;
    f->rules[f->n].include = include;
    f->rules[f->n].on = on;
    f->rules[f->n].line = line;
    f->n++;
    return 0;
}

/* "FILE:LINE" of a loop or call rule (on): LINE a number > 0 after the
 * last ':'. */
static int add_line_rule(hp_filter *f, int include, int on, char *spec)
{
    char *colon = strrchr(spec, ':'), *end;
    if (!colon || colon == spec || !colon[1])
        return -1;
    unsigned long line = strtoul(colon + 1, &end, 10);
    if (*end || line == 0 || line > 0xffffffffUL)
        return -1;
    *colon = 0;
    return add_rule(f, include, on, (unsigned)line, spec) == 0 ? 0 : -2;
}

/* Parses one line; returns 0 (rule added or blank), -1 (syntax), -2 (memory). */
static int parse_line(hp_filter *f, char *line)
{
    char *save = NULL;
    char *action = strtok_r(line, " \t\r\n", &save);
    if (!action || action[0] == '#')
        return 0;
    char *what = strtok_r(NULL, " \t\r\n", &save);
    char *glob = strtok_r(NULL, " \t\r\n", &save);
    char *extra = strtok_r(NULL, " \t\r\n", &save);
    int include = strcmp(action, "include") == 0;
    if ((!include && strcmp(action, "exclude") != 0) || !what || !glob ||
        (extra && extra[0] != '#'))
        return -1;
    if (strcmp(what, "loop") == 0)
        return add_line_rule(f, include, ON_LOOP, glob);
    if (strcmp(what, "call") == 0)
        return add_line_rule(f, include, ON_CALL, glob);
    int on = strcmp(what, "file") == 0 ? ON_FILE : ON_FUNCTION;
    if (on == ON_FUNCTION && strcmp(what, "function") != 0)
        return -1;
    return add_rule(f, include, on, 0, glob) == 0 ? 0 : -2;
}

hp_filter *hp_filter_load(const char *path, char *err, size_t errlen)
{
    FILE *in = fopen(path, "r");
    if (!in) {
        snprintf(err, errlen, "%s: %s", path, strerror(errno));
        return NULL;
    }
    hp_filter *f = calloc(1, sizeof *f);
    char line[4096];
    unsigned lineno = 0;
    int rc = f ? 0 : -2;
    while (rc == 0 && fgets(line, sizeof line, in)) {
        lineno++;
        rc = parse_line(f, line);
    }
    fclose(in);
    if (rc == 0)
        return f;
    if (rc == -1)
        snprintf(err, errlen, "%s:%u: expected 'include|exclude function|file GLOB'"
                 " or 'include|exclude loop|call FILE:LINE'",
                 path, lineno);
    else
        snprintf(err, errlen, "%s: out of memory", path);
    hp_filter_free(f);
    return NULL;
}

int hp_filter_allows(const hp_filter *f, const char *func, const char *file)
{
    int allow = 1;
    if (!f)
        return 1;
    for (size_t i = 0; i < f->n; i++) {
        const rule *r = &f->rules[i];
        if (r->on == ON_LOOP || r->on == ON_CALL)
            continue;
        const char *subject = r->on == ON_FILE ? file : func;
        if (subject && fnmatch(r->glob, subject, 0) == 0)
            allow = r->include;
    }
    return allow;
}

int hp_filter_names(const hp_filter *f, const char *func)
{
    int verdict = -1;
    if (!f || !func)
        return -1;
    for (size_t i = 0; i < f->n; i++) {
        const rule *r = &f->rules[i];
        if (r->on == ON_FUNCTION && fnmatch(r->glob, func, 0) == 0)
            verdict = r->include;
    }
    return verdict;
}

/* What the rules of kind on (ON_LOOP, ON_CALL) say of the site starting
 * at line of file: 1 allowed, 0 excluded. */
static int allows_at(const hp_filter *f, int on, const char *file, unsigned line)
{
    int allow = 1;
    if (!f || !file)
        return 1;
    const char *base = strrchr(file, '/');
    base = base ? base + 1 : file;
    for (size_t i = 0; i < f->n; i++) {
        const rule *r = &f->rules[i];
        if (r->on == on && r->line == line &&
            (fnmatch(r->glob, file, 0) == 0 || fnmatch(r->glob, base, 0) == 0))
            allow = r->include;
    }
    return allow;
}

int hp_filter_allows_loop(const hp_filter *f, const char *file, unsigned line)
{
    return allows_at(f, ON_LOOP, file, line);
}

int hp_filter_allows_call(const hp_filter *f, const char *file, unsigned line)
{
    return allows_at(f, ON_CALL, file, line);
}

void hp_filter_free(hp_filter *f)
{
    if (!f)
        return;
    for (size_t i = 0; i < f->n; i++)
        free(f->rules[i].glob);
    free(f->rules);
    free(f);
}
