/*
 * omp_follow.c - the worksharing construct a barrier call ends, from the
 * statement that follows the call (hp_omp_follow.h): the source between
 * a statement boundary and that statement is read as tokens, and the
 * construct is the one whose statement the following one comes right
 * after, or the last of the serial `for` whose increment follows.
 */
#include <assert.h>
#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include "hp_omp_follow.h"
#include "hp_omp_fortran.h"
#include "hp_omp_pragma.h"

#define MAX_LINES 4000      /* source read past the statement that follows */
#define READ_STEP 64        /* lines read at a time to find a loop's end */
#define MAX_BACK 64         /* lines looked back for a directive to start at */
#define MAX_NEST 64         /* parentheses tracked */

/* A token of C source: an identifier or a number ('w'), a string or
 * character literal ('s'), a preprocessor line with its continuations
 * ('#'), else the punctuation character itself. */
typedef struct token {
    char kind;
    int line;           /* 1-based */
    int col;            /* 1-based, in bytes, like gcc's DWARF columns */
    const char *text;   /* its first character */
    int len;            /* characters; for '#', the lines it spans */
} token;

typedef struct tokens {
    token *v;
    int n, cap;
} tokens;

static int push(tokens *t, char kind, int line, const char *text, const char *start, int len)
{
    if (t->n == t->cap) {
        int cap = t->cap ? 2 * t->cap : 1024;
        token *v = realloc(t->v, (size_t)cap * sizeof *v);
        if (!v)
            return -1;
        t->v = v;
        t->cap = cap;
    }
    t->v[t->n++] = (token){kind, line, (int)(start - text) + 1, start, len};
    return 0;
}

static int is_word_char(char c)
{
    return isalnum((unsigned char)c) || c == '_';
}

/* Does a line end in a backslash (a preprocessor line continued)? */
static int continued(const char *text)
{
    size_t n = strlen(text);
    while (n > 0 && isspace((unsigned char)text[n - 1]))
        n--;
    return n > 0 && text[n - 1] == '\\';
}

/* Tokens of one line, outside comments (*comment: inside a block
 * comment, carried from line to line). */
static int tokenize_line(tokens *t, int line, const char *text, int *comment)
{
    for (const char *c = text; *c; c++) {
        if (*comment) {
            if (c[0] == '*' && c[1] == '/')
                *comment = 0, c++;
        } else if (c[0] == '/' && c[1] == '/') {
            break;
        } else if (c[0] == '/' && c[1] == '*') {
            *comment = 1;
            c++;
        } else if (*c == '"' || *c == '\'') {
            const char *end = hp_omp_pragma_literal_end(c);
            if (push(t, 's', line, text, c, (int)(end - c) + 1) != 0)
                return -1;
            c = end;
        } else if (is_word_char(*c)) {
            const char *end = c;
            while (is_word_char(end[1]))
                end++;
            if (push(t, 'w', line, text, c, (int)(end - c) + 1) != 0)
                return -1;
            c = end;
        } else if (!isspace((unsigned char)*c) && push(t, *c, line, text, c, 1) != 0) {
            return -1;
        }
    }
    return 0;
}

/* The source read as tokens so far: lines from its start to next - 1. */
typedef struct reader {
    const char *file;
    int next;           /* the next line to read */
    int last;           /* the last line it may read */
    int comment;        /* inside a block comment at `next` */
    tokens t;
} reader;

/* Reads the lines up to hi (at most r->last); 0 when it read any, -1 at
 * the file's or the reader's end, or out of memory. */
static int read_to(reader *r, int hi)
{
    int from = r->next;
    for (; r->next <= hi && r->next <= r->last; r->next++) {
        const char *text = hp_omp_pragma_line_text(r->file, r->next);
        if (!text) {
            r->last = r->next - 1;
            break;
        }
        const char *first = text;
        while (isspace((unsigned char)*first))
            first++;
        if (!r->comment && *first == '#') {
            int span = 1;
            while (continued(text) && (text = hp_omp_pragma_line_text(r->file, r->next + span)))
                span++;
            if (push(&r->t, '#', r->next, first, first, span) != 0)
                return -1;
            r->next += span - 1;
        } else if (tokenize_line(&r->t, r->next, text, &r->comment) != 0) {
            return -1;
        }
    }
    return r->next > from ? 0 : -1;
}

static int is_word(const token *k, const char *word)
{
    return k->kind == 'w' && (size_t)k->len == strlen(word) && strncmp(k->text, word, k->len) == 0;
}

/* The index of the token that closes the parenthesis or brace at open,
 * -1 if none. */
static int closing(const tokens *t, int open)
{
    char o = t->v[open].kind, c = o == '(' ? ')' : '}';
    int depth = 0;
    assert(o == '(' || o == '{');
    for (int i = open; i < t->n; i++) {
        depth += (t->v[i].kind == o) - (t->v[i].kind == c);
        if (depth == 0)
            return i;
    }
    return -1;
}

/* The index of the last token of the statement that starts at first
 * (past the directives before it), -1 if unknown: a block's closing
 * brace, or the `;` or the block that ends it outside parentheses, an
 * `else` or a do-while's `while` continuing it. */
static int statement_end(const tokens *t, int first)
{
    while (first < t->n && t->v[first].kind == '#')
        first++;
    if (first >= t->n)
        return -1;
    int is_do = is_word(&t->v[first], "do"), paren = 0;
    for (int i = first; i < t->n; i++) {
        char k = t->v[i].kind;
        int end = -1;
        if (k == '(')
            paren++;
        else if (k == ')')
            paren--;
        else if (k == '{' && paren == 0 && (end = closing(t, i)) < 0)
            return -1;
        else if (k == ';' && paren == 0)
            end = i;
        if (end < 0)
            continue;
        const token *next = end + 1 < t->n ? &t->v[end + 1] : NULL;
        if (next && (is_word(next, "else") || (is_do && is_word(next, "while") && k == '{'))) {
            i = end;
            continue;
        }
        return end;
    }
    return -1;
}

/* Is the directive of token d one of `directives`, without `nowait`
 * (one that ends in a barrier)? */
static int ends_in_barrier(const char *file, const token *d, const char *const *directives)
{
    int found = 0;
    for (int i = 0; directives[i] && !found; i++)
        found = hp_omp_pragma_at(file, d->line, directives[i]);
    for (int l = d->line; found && l < d->line + d->len; l++) {
        const char *text = hp_omp_pragma_line_text(file, l), *w = text;
        while (w && (w = strstr(w, "nowait")) != NULL) {
            if ((w == text || !is_word_char(w[-1])) && !is_word_char(w[6]))
                return 0;
            w += 6;
        }
    }
    return found;
}

/* The OpenMP directive whose statement ends at token end (the last
 * before it: the innermost), if it is one of `directives` that ends in a barrier;
 * -1 otherwise. */
static int construct_ending_at(const char *file, const tokens *t, int end,
                               const char *const *directives)
{
    for (int d = end - 1; d >= 0; d--)
        if (t->v[d].kind == '#' && hp_omp_pragma_at(file, t->v[d].line, NULL) &&
            statement_end(t, d + 1) == end)
            return ends_in_barrier(file, &t->v[d], directives) ? d : -1;
    return -1;
}

/* The '(' of the `for` whose increment holds token p, -1 if p is in no
 * increment. */
static int increment_of(const tokens *t, int p)
{
    int open[MAX_NEST], semis[MAX_NEST], depth = 0;
    for (int i = 0; i < p; i++) {
        char k = t->v[i].kind;
        if (k == '#') {
            depth = 0;          /* a directive starts a statement */
        } else if (k == '(') {
            if (depth == MAX_NEST)
                return -1;      /* deeper than tracked: no proof */
            open[depth] = i;
            semis[depth++] = 0;
        } else if (k == ')' && depth > 0) {
            depth--;
        } else if (k == ';' && depth > 0) {
            semis[depth - 1]++;
        }
    }
    for (int j = depth - 1; j >= 0; j--)
        if (open[j] > 0 && is_word(&t->v[open[j] - 1], "for"))
            return semis[j] == 2 ? open[j] : -1;
    return -1;
}

/* The token that closes the parenthesis or brace at open, reading on
 * as far as needed; -1 if none. */
static int closing_read(reader *r, int open)
{
    int close;
    while ((close = closing(&r->t, open)) < 0 && read_to(r, r->next + READ_STEP) == 0)
        ;
    return close;
}

/* Rule 1: the construct that is the last statement of the body of the
 * `for` whose header opens at token open. */
static int last_of_loop(reader *r, int open, const char *const *directives)
{
    int close = closing_read(r, open), body = close + 1;
    if (close < 0 || (body >= r->t.n && read_to(r, r->next + READ_STEP) != 0))
        return -1;
    const token *first = &r->t.v[body];
    if (first->kind == '#')     /* the body is the construct */
        return ends_in_barrier(r->file, first, directives) ? body : -1;
    int end = first->kind == '{' ? closing_read(r, body) : -1;
    if (end <= body + 1)
        return -1;
    return construct_ending_at(r->file, &r->t, end - 1, directives);
}

/* Rule 2: the construct whose statement ends right before the first
 * token of line `line` (which must start at or before col). */
static int before_line(const char *file, const tokens *t, int line, int col,
                       const char *const *directives)
{
    int q = 0;
    while (q < t->n && t->v[q].line < line)
        q++;
    if (q == 0 || q >= t->n || t->v[q].line != line || t->v[q].col > col)
        return -1;
    char k = t->v[q - 1].kind;
    if (k != ';' && k != '}')
        return -1;
    return construct_ending_at(file, t, q - 1, directives);
}

/* A line at or before `from` that holds a directive (a statement
 * boundary to read from), else from itself. */
static int start_line(const char *file, int from)
{
    for (int l = from; l > 0 && l > from - MAX_BACK; l--)
        if (hp_omp_pragma_at(file, l, NULL))
            return l;
    return from;
}

int hp_omp_follow_construct(const char *file, int from, int line, int col,
                            const char *const *directives)
{
    if (!file || from <= 0 || line < from || col <= 0 || !directives ||
        hp_omp_fortran_file(file))
        return 0;   /* (C only: Fortran has no `for` nor braces) */
    reader r = {file, start_line(file, from), line + MAX_LINES, 0, {0}};
    int d = -1;
    if (read_to(&r, line) == 0) {
        const tokens *t = &r.t;
        int p = 0;
        while (p < t->n && (t->v[p].line < line || (t->v[p].line == line && t->v[p].col < col)))
            p++;
        int open = p < t->n ? increment_of(t, p) : -1;
        d = open >= 0 ? last_of_loop(&r, open, directives)
                      : before_line(file, t, line, col, directives);
    }
    int at = d >= 0 ? r.t.v[d].line : 0;
    free(r.t.v);
    return at;
}
