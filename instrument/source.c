/*
 * source.c - the text side of hprof-instrument: loads the source file,
 * classifies every byte (code, string, comment/space, preprocessor
 * directive), indexes lines, lists the directives (which pragmas bind a
 * loop, conditionals) and answers the small lexical questions the planner
 * asks (what precedes a statement, what follows it, is a range balanced).
 */
#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "hpi.h"

static int hpi_grow(void **p, size_t *cap, size_t need, size_t elt)
{
    size_t n = *cap ? *cap : 64;
    void *q;

    if (need <= *cap)
        return 0;
    while (n < need)
        n *= 2;
    q = realloc(*p, n * elt);
    if (!q)
        return -1;
    *p = q;
    *cap = n;
    return 0;
}

/* Words of an omp/acc directive that make it a loop construct. */
static int hpi_loop_word(const char *w, size_t n)
{
    static const char *const words[] = {
        "for", "simd", "taskloop", "distribute", "loop", "tile", "unroll", NULL
    };
    int i;

    for (i = 0; words[i]; i++)
        if (strlen(words[i]) == n && memcmp(words[i], w, n) == 0)
            return 1;
    return 0;
}

/* The n of "collapse(n)", "ordered(n)" or "tile(a,b)"; 1 if absent, 0 if
 * not a literal (a macro: bind every perfectly nested loop). */
int hpi_pragma_collapse(const char *t)
{
    static const char *const cl[] = { "collapse", "ordered", "tile", NULL };
    int i, best = 1;

    for (i = 0; cl[i]; i++) {
        const char *p = strstr(t, cl[i]);
        int n;
        if (!p)
            continue;
        p += strlen(cl[i]);
        while (*p == ' ' || *p == '\t')
            p++;
        if (*p != '(')
            continue;
        p++;
        while (*p == ' ')
            p++;
        if (!isdigit((unsigned char)*p))
            return 0;
        n = atoi(p);
        if (i == 2) /* tile(a, b, c): one loop per size */
            for (n = 1; *p && *p != ')'; p++)
                n += *p == ',';
        if (n > best)
            best = n;
    }
    return best;
}

/* 1 when the pragma text t (after "pragma", a _Pragma string, or the
 * tokens of a macro that makes one) is an omp pragma with the word
 * "parallel" after "omp": a combined construct with a parallel part
 * when it binds a loop. */
int hpi_pragma_parallel(const char *t)
{
    const char *omp = NULL, *p;

    for (p = t; (p = strstr(p, omp ? "parallel" : "omp")) != NULL; p++) {
        size_t n = omp ? 8 : 3;
        if ((p > t && (isalnum((unsigned char)p[-1]) || p[-1] == '_')) ||
            isalnum((unsigned char)p[n]) || p[n] == '_')
            continue;
        if (omp)
            return 1;
        omp = p;
    }
    return 0;
}

/* Kind of the pragma whose text (after "pragma") is t. */
int hpi_pragma_kind(const char *t)
{
    const char *p = t;
    int omp;

    while (*p == ' ' || *p == '\t')
        p++;
    omp = strncmp(p, "omp", 3) == 0 || strncmp(p, "acc", 3) == 0;
    if (!omp || isalnum((unsigned char)p[3]))
        return strncmp(p, "GCC ", 4) == 0 || strncmp(p, "clang ", 6) == 0 ||
               strncmp(p, "ivdep", 5) == 0 || strncmp(p, "unroll", 6) == 0 ||
               strncmp(p, "nounroll", 8) == 0 || strncmp(p, "vector", 6) == 0 ||
               strncmp(p, "loop_count", 10) == 0 || strncmp(p, "simd", 4) == 0
               ? HPI_D_PRAGMA_LOOP : HPI_D_OTHER;
    p += 3;
    while (*p == ' ' || *p == '\t')
        p++;
    if (strncmp(p, "inst", 4) == 0 && !isalnum((unsigned char)p[4]) && p[4] != '_')
        return HPI_D_OTHER;  /* the seed's "#pragma omp inst ..." (control.c) */
    /* directive words up to the first clause with '(' or the end */
    for (;;) {
        const char *w;
        while (*p == ' ' || *p == '\t' || *p == ',')
            p++;
        w = p;
        while (isalnum((unsigned char)*p) || *p == '_')
            p++;
        if (p == w || *p == '(')
            break;
        if (p - w == 6 && memcmp(w, "atomic", 6) == 0)
            return HPI_D_PRAGMA_ATOMIC;
        if (hpi_loop_word(w, (size_t)(p - w)))
            return HPI_D_PRAGMA_LOOP;
    }
    return HPI_D_PRAGMA_BLOCK;
}

/* Records the directive spanning [a, b). */
static int hpi_add_dir(hpi_src *s, size_t *cap, size_t a, size_t b, unsigned line)
{
    char buf[1024];
    size_t i, n = 0;
    const char *p;
    hpi_dir *d;

    if (hpi_grow((void **)&s->dirs, cap, s->ndirs + 1, sizeof *s->dirs) < 0)
        return -1;
    for (i = a; i < b && n + 1 < sizeof buf; i++) {
        char c = s->text[i];
        if (c == '\\' && i + 1 < b && s->text[i + 1] == '\n')
            c = ' ', i++;
        buf[n++] = c == '\t' || c == '\n' ? ' ' : c;
    }
    buf[n] = 0;
    d = &s->dirs[s->ndirs++];
    d->start = a;
    d->end = b;
    d->line = line;
    d->kind = HPI_D_OTHER;
    d->collapse = 1;
    d->parallel = 0;
    p = buf + 1;
    while (*p == ' ')
        p++;
    if (strncmp(p, "ifdef", 5) == 0 || strncmp(p, "ifndef", 6) == 0 ||
        (strncmp(p, "if", 2) == 0 && !isalnum((unsigned char)p[2])))
        d->kind = HPI_D_IF;
    else if (strncmp(p, "el", 2) == 0)
        d->kind = HPI_D_ELSE;
    else if (strncmp(p, "endif", 5) == 0)
        d->kind = HPI_D_ENDIF;
    else if (strncmp(p, "pragma", 6) == 0 && !isalnum((unsigned char)p[6])) {
        d->kind = hpi_pragma_kind(p + 6);
        d->collapse = hpi_pragma_collapse(p + 6);
        d->parallel = hpi_pragma_parallel(p + 6);
    }
    return 0;
}

/* 1 when the quote at i separates digits (C++14, C23: 1'000'000): the
 * token before it is a number, not a character literal's prefix (u8'a'). */
static int hpi_digit_sep(const hpi_src *s, size_t i)
{
    size_t j = i;

    while (j > 0 && (isalnum((unsigned char)s->text[j - 1]) || s->text[j - 1] == '\'' ||
                     s->text[j - 1] == '.' || s->text[j - 1] == '_'))
        j--;
    return j < i && isdigit((unsigned char)s->text[j]) && i + 1 < s->len &&
           isalnum((unsigned char)s->text[i + 1]);
}

/* One pass over the text: byte classes, line starts and directives. */
static int hpi_scan(hpi_src *s)
{
    size_t i = 0, lcap = 0, dcap = 0, dstart = 0;
    int bol = 1, indir = 0;
    unsigned line = 1;

    if (hpi_grow((void **)&s->line_off, &lcap, 1, sizeof *s->line_off) < 0)
        return -1;
    s->line_off[0] = 0;
    s->nlines = 1;
    while (i < s->len) {
        char c = s->text[i];
        unsigned char cl = indir ? HPI_C_DIRECTIVE : HPI_C_CODE;
        if (c == '\n') {
            s->cls[i++] = indir ? HPI_C_DIRECTIVE : HPI_C_SPACE;
            if (indir && !(i >= 2 && s->text[i - 2] == '\\')) {
                if (hpi_add_dir(s, &dcap, dstart, i - 1, line) < 0)
                    return -1;
                indir = 0;
            }
            if (hpi_grow((void **)&s->line_off, &lcap, s->nlines + 1, sizeof *s->line_off) < 0)
                return -1;
            s->line_off[s->nlines++] = i;
            if (!indir)
                line = s->nlines;
            bol = 1;
            continue;
        }
        if (c == '/' && i + 1 < s->len && s->text[i + 1] == '*') {
            size_t j = i + 2;
            while (j + 1 < s->len && !(s->text[j] == '*' && s->text[j + 1] == '/'))
                j++;
            j = j + 2 <= s->len ? j + 2 : s->len;
            for (; i < j; i++) {
                s->cls[i] = indir ? HPI_C_DIRECTIVE : HPI_C_SPACE;
                if (s->text[i] == '\n') {
                    if (hpi_grow((void **)&s->line_off, &lcap, s->nlines + 1, sizeof *s->line_off) < 0)
                        return -1;
                    s->line_off[s->nlines++] = i + 1;
                }
            }
            continue;
        }
        if (c == '/' && i + 1 < s->len && s->text[i + 1] == '/') {
            while (i < s->len && s->text[i] != '\n')
                s->cls[i++] = indir ? HPI_C_DIRECTIVE : HPI_C_SPACE;
            continue;
        }
        if (c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v') {
            s->cls[i++] = indir ? HPI_C_DIRECTIVE : HPI_C_SPACE;
            continue;
        }
        if (c == '#' && bol && !indir) {
            indir = 1;
            dstart = i;
            line = s->nlines;
            s->cls[i++] = HPI_C_DIRECTIVE;
            continue;
        }
        bol = 0;
        if (c == '\'' && hpi_digit_sep(s, i)) {
            s->cls[i++] = cl;
            continue;
        }
        if (c == '"' || c == '\'') {
            size_t j = i + 1;
            while (j < s->len && s->text[j] != c && s->text[j] != '\n')
                j += s->text[j] == '\\' ? 2 : 1;
            if (j >= s->len)
                j = s->len - 1;
            s->cls[i] = cl;
            for (i++; i < j; i++)
                s->cls[i] = indir ? HPI_C_DIRECTIVE : HPI_C_STRING;
            s->cls[i++] = cl;
            continue;
        }
        if (c == '\\' && i + 1 < s->len && s->text[i + 1] == '\n') {
            s->cls[i++] = indir ? HPI_C_DIRECTIVE : HPI_C_SPACE;
            continue;
        }
        s->cls[i++] = cl;
    }
    if (indir && hpi_add_dir(s, &dcap, dstart, s->len, line) < 0)
        return -1;
    return 0;
}

int hpi_src_load(hpi_src *s, const char *path, char *err, size_t errlen)
{
    FILE *fp = fopen(path, "rb");
    size_t cap = 0, n;
    char buf[65536];

    memset(s, 0, sizeof *s);
    s->path = path;
    if (!fp) {
        snprintf(err, errlen, "%s", strerror(errno));
        return -1;
    }
    while ((n = fread(buf, 1, sizeof buf, fp)) > 0) {
        if (hpi_grow((void **)&s->text, &cap, s->len + n + 1, 1) < 0) {
            fclose(fp);
            snprintf(err, errlen, "out of memory");
            return -1;
        }
        memcpy(s->text + s->len, buf, n);
        s->len += n;
    }
    fclose(fp);
    if (!s->text && !(s->text = calloc(1, 1))) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    s->text[s->len] = 0;
    s->cls = calloc(s->len + 1, 1);
    if (!s->cls || hpi_scan(s) < 0) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    return 0;
}

void hpi_src_free(hpi_src *s)
{
    free(s->text);
    free(s->cls);
    free(s->line_off);
    free(s->dirs);
    free(s->skipped);
    memset(s, 0, sizeof *s);
}

unsigned hpi_src_line(const hpi_src *s, size_t off)
{
    unsigned lo = 0, hi = s->nlines;

    while (hi - lo > 1) {
        unsigned mid = (lo + hi) / 2;
        if (s->line_off[mid] <= off)
            lo = mid;
        else
            hi = mid;
    }
    return lo + 1;
}

size_t hpi_src_line_start(const hpi_src *s, unsigned line)
{
    return line >= 1 && line <= s->nlines ? s->line_off[line - 1] : s->len;
}

size_t hpi_src_prev_nonspace(const hpi_src *s, size_t off)
{
    while (off > 0) {
        off--;
        if (s->cls[off] != HPI_C_SPACE)
            return off;
    }
    return (size_t)-1;
}

size_t hpi_src_next_nonspace(const hpi_src *s, size_t off)
{
    while (off < s->len && s->cls[off] == HPI_C_SPACE)
        off++;
    return off;
}

const hpi_dir *hpi_src_dir_at(const hpi_src *s, size_t off)
{
    size_t lo = 0, hi = s->ndirs;

    if (off >= s->len || s->cls[off] != HPI_C_DIRECTIVE)
        return NULL;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (s->dirs[mid].end < off)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < s->ndirs && s->dirs[lo].start <= off ? &s->dirs[lo] : NULL;
}

/* The skipped range containing off, or NULL. */
static const hpi_span *hpi_src_skipped_at(const hpi_src *s, size_t off)
{
    size_t lo = 0, hi = s->nskipped;

    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (s->skipped[mid].e <= off)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < s->nskipped && s->skipped[lo].s <= off ? &s->skipped[lo] : NULL;
}

size_t hpi_src_past_skipped(const hpi_src *s, size_t off)
{
    const hpi_span *k = hpi_src_skipped_at(s, off);

    return k ? k->e : off;
}

/* () [] {} over the code bytes of [a, b), those of skipped conditional
 * code too unless kept_only. */
static int hpi_src_balance(const hpi_src *s, size_t a, size_t b, int kept_only)
{
    char stack[256];
    int n = 0;
    size_t i;

    if (a > b || b > s->len)
        return 0;
    for (i = a; i < b; i++) {
        char c = s->text[i], want;
        if (kept_only && hpi_src_skipped_at(s, i)) {
            i = hpi_src_past_skipped(s, i) - 1;
            continue;
        }
        if (s->cls[i] != HPI_C_CODE)
            continue;
        if (c == '(' || c == '[' || c == '{') {
            if (n == (int)sizeof stack)
                return 0;
            stack[n++] = c;
            continue;
        }
        want = c == ')' ? '(' : c == ']' ? '[' : c == '}' ? '{' : 0;
        if (!want)
            continue;
        if (n == 0 || stack[n - 1] != want)
            return 0;
        n--;
    }
    return n == 0;
}

int hpi_src_balanced(const hpi_src *s, size_t a, size_t b)
{
    return hpi_src_balance(s, a, b, 0);
}

int hpi_src_balanced_kept(const hpi_src *s, size_t a, size_t b)
{
    return hpi_src_balance(s, a, b, 1);
}
