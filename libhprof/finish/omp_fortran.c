/*
 * omp_fortran.c - OpenMP directives in Fortran source text
 * (hp_omp_fortran.h): where a construct starts and ends, for the
 * placement of the OpenMP sites of gfortran code (omp_pragma.c), whose
 * runtime calls gfortran often puts at the line of a neighbouring
 * statement.
 */
#include <ctype.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>
#include "hp_omp_fortran.h"

#define KEY_MAX 32
#define LOOP_DEPTH 64

int hp_omp_fortran_file(const char *file)
{
    static const char *const fixed[] = {".f", ".F", ".for", ".FOR", ".ftn", ".FTN", NULL};
    static const char *const free_form[] = {".f90", ".F90", ".f95", ".F95", ".f03", ".F03",
                                            ".f08", ".F08", NULL};
    const char *dot = file ? strrchr(file, '.') : NULL;
    for (int i = 0; dot && fixed[i]; i++)
        if (strcmp(dot, fixed[i]) == 0)
            return HP_FORTRAN_FIXED;
    for (int i = 0; dot && free_form[i]; i++)
        if (strcmp(dot, free_form[i]) == 0)
            return HP_FORTRAN_FREE;
    return 0;
}

static const char *skip_blanks(const char *p)
{
    while (*p == ' ' || *p == '\t')
        p++;
    return p;
}

/* The text after a line's sentinel (`!$omp` first non-blank; `c$omp`,
 * `*$omp` in column 1), or NULL. */
static const char *after_sentinel(const char *line)
{
    const char *p = skip_blanks(line);
    if (*p == '!' && strncasecmp(p + 1, "$omp", 4) == 0)
        return p + 5;
    if ((line[0] == 'c' || line[0] == 'C' || line[0] == '*') && strncasecmp(line + 1, "$omp", 4) == 0)
        return line + 5;
    return NULL;
}

/* The first word of a directive that starts on this line, or NULL (no
 * directive, or a continuation: `!$omp&`). */
static const char *directive_word(const char *line)
{
    const char *p = after_sentinel(line);
    if (!p)
        return NULL;
    p = skip_blanks(p);
    return isalpha((unsigned char)*p) ? p : NULL;
}

/* Does p start with `word` as a whole word (case-insensitive)? */
static int word_is(const char *p, const char *word)
{
    size_t n = strlen(word);
    return strncasecmp(p, word, n) == 0 && !isalnum((unsigned char)p[n]) && p[n] != '_';
}

static const char *next_word(const char *p)
{
    while (isalnum((unsigned char)*p) || *p == '_')
        p++;
    return skip_blanks(p);
}

int hp_omp_fortran_is_directive(const char *line, const char *const *directives)
{
    const char *p = directive_word(line);
    for (int i = 0; p && directives[i]; i++)
        if (word_is(p, directives[i]) || (strcmp(directives[i], "for") == 0 && word_is(p, "do")))
            return 1;
    return 0;
}

/* The construct's name as one lowercase word: "do", "paralleldo",
 * "single", ... (a combined parallel construct's two words). */
static void construct_key(const char *p, char *key)
{
    size_t k = 0;
    for (int w = 0; w < 2 && *p; w++) {
        const char *end = next_word(p);
        for (const char *c = p; c < end && k + 1 < KEY_MAX; c++)
            if (isalnum((unsigned char)*c) || *c == '_')
                key[k++] = (char)tolower((unsigned char)*c);
        key[k] = '\0';
        if (w == 0 && strcmp(key, "parallel") != 0)
            break;
        if (w == 1 && !word_is(p, "do") && !word_is(p, "sections") && !word_is(p, "workshare")) {
            key[strlen("parallel")] = '\0';   /* parallel with clauses */
            break;
        }
        p = end;
    }
}

/* Is the line `!$omp end KEY`? */
static int ends(const char *line, const char *key)
{
    const char *p = directive_word(line);
    char k[KEY_MAX];
    if (!p || !word_is(p, "end"))
        return 0;
    construct_key(next_word(p), k);
    return strcmp(k, key) == 0;
}

static const char *line_at(char *const *text, int lo, int l)
{
    const char *t = text[l - lo];
    return t ? t : "";
}

/* A line of code: not blank, not a comment (a directive is one; in
 * fixed form, so is any line with c, C or * in column 1). */
static int is_code(const char *line, int form)
{
    const char *p = skip_blanks(line);
    if (!*p || *p == '!')
        return 0;
    return form != HP_FORTRAN_FIXED || !(line[0] == 'c' || line[0] == 'C' || line[0] == '*');
}

/* The statement's label (0 if none) and its text after the label. */
static const char *statement(const char *line, int *label)
{
    const char *p = skip_blanks(line);
    *label = 0;
    while (isdigit((unsigned char)*p))
        *label = *label * 10 + (*p++ - '0');
    return skip_blanks(p);
}

/* A DO statement: `do`, `do 10 ...`, `do i = ...`, `do while`, `name: do`;
 * its terminating label in *end (0: ends at an END DO). */
static int is_do(const char *p, int *end)
{
    const char *colon = strchr(p, ':');
    if (colon && colon[1] != ':' && isalpha((unsigned char)*p)) {
        const char *q = p;
        while (isalnum((unsigned char)*q) || *q == '_')
            q++;
        if (skip_blanks(q) == colon)
            p = skip_blanks(colon + 1);
    }
    if (strncasecmp(p, "do", 2) != 0 || (isalnum((unsigned char)p[2]) && !isdigit((unsigned char)p[2])) ||
        p[2] == '_')
        return 0;
    *end = 0;
    for (p = skip_blanks(p + 2); isdigit((unsigned char)*p); p++)
        *end = *end * 10 + (*p - '0');
    return 1;
}

static int is_end_do(const char *p)
{
    return strncasecmp(p, "enddo", 5) == 0 ||
           (word_is(p, "end") && word_is(skip_blanks(p + 3), "do"));
}

/* The last line of the DO loop that follows line l (a `!$omp do`), and
 * the `!$omp end do` right after it if there is one; 0 if none. */
static int loop_end(char *const *text, int lo, int hi, int l, const char *key, int form)
{
    int stack[LOOP_DEPTH], depth = 0, started = 0;
    for (int m = l + 1; m <= hi; m++) {
        const char *line = line_at(text, lo, m);
        if (!is_code(line, form))
            continue;
        int label, end;
        const char *p = statement(line, &label);
        if (is_do(p, &end) && depth < LOOP_DEPTH) {
            stack[depth++] = end;
            started = 1;
        } else if (!started) {
            return 0;       /* no loop after the directive */
        } else if (is_end_do(p) && depth > 0 && stack[depth - 1] == 0) {
            depth--;
        }
        while (label && depth > 0 && stack[depth - 1] == label)
            depth--;
        if (started && depth == 0) {
            for (int n = m + 1; n <= hi; n++)
                if (ends(line_at(text, lo, n), key))
                    return n;
                else if (is_code(line_at(text, lo, n), form) || directive_word(line_at(text, lo, n)))
                    break;
            return m;
        }
    }
    return 0;
}

int hp_omp_fortran_construct_end(char *const *text, int lo, int hi, int l, int form)
{
    const char *p = directive_word(line_at(text, lo, l));
    char key[KEY_MAX];
    if (!p)
        return hi;
    construct_key(p, key);
    int nested = 0;
    for (int m = l + 1; m <= hi; m++) {
        const char *line = line_at(text, lo, m);
        const char *q = directive_word(line);
        char k[KEY_MAX];
        if (!q)
            continue;
        if (ends(line, key) && nested-- == 0)
            return m;
        construct_key(q, k);
        nested += strcmp(k, key) == 0;
    }
    if (strcmp(key, "do") == 0 || strcmp(key, "paralleldo") == 0) {
        int m = loop_end(text, lo, hi, l, key, form);
        if (m)
            return m;
    }
    return hi;
}

/* Does a directive line end in `&` (before a trailing comment)? */
static int continues(const char *line)
{
    const char *p = after_sentinel(line), *amp = NULL;
    for (; p && *p && *p != '!'; p++)
        if (*p == '&')
            amp = p;
        else if (*p != ' ' && *p != '\t')
            amp = NULL;
    return amp != NULL;
}

int hp_omp_fortran_directive_start(char *const *text, int lo, int hi, int l)
{
    int m = l;
    if (l < lo || l > hi)
        return l;
    while (m > lo && after_sentinel(line_at(text, lo, m)) &&
           (!directive_word(line_at(text, lo, m)) || continues(line_at(text, lo, m - 1))) &&
           after_sentinel(line_at(text, lo, m - 1)))
        m--;
    return directive_word(line_at(text, lo, m)) ? m : l;
}
