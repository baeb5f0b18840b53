/*
 * table.c - in-memory result tables and their three renderings (see
 * table.h): aligned text, CSV and JSON.
 */
#include <assert.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "table.h"

hpq_table *hpq_table_new(int ncols, const char *const *names)
{
    hpq_table *t = calloc(1, sizeof *t);
    if (!t)
        return NULL;
    t->ncols = ncols;
    t->names = calloc((size_t)ncols, sizeof *t->names);
    t->decimals = calloc((size_t)ncols, sizeof *t->decimals);
    t->text = calloc((size_t)ncols, sizeof *t->text);
    if (!t->names || !t->decimals || !t->text) {
        hpq_table_free(t);
        return NULL;
    }
    for (int c = 0; c < ncols; c++) {
        t->names[c] = strdup(names[c] ? names[c] : "");
        t->decimals[c] = -1;
        if (!t->names[c])
            t->failed = 1;
    }
    return t;
}

void hpq_table_free(hpq_table *t)
{
    if (!t)
        return;
    for (size_t i = 0; i < t->nrows * (size_t)t->ncols; i++)
        free(t->cells[i].s);
    for (int c = 0; t->names && c < t->ncols; c++)
        free(t->names[c]);
    free(t->names);
    free(t->decimals);
    free(t->text);
    free(t->cells);
    free(t);
}

void hpq_table_decimals(hpq_table *t, int col, int decimals)
{
    t->decimals[col] = decimals;
}

void hpq_table_text_heading(hpq_table *t, int col, const char *heading)
{
    assert(col >= 0 && col < t->ncols);
    t->text[col].heading = heading;
}

void hpq_table_text_hide(hpq_table *t, int col)
{
    assert(col >= 0 && col < t->ncols);
    t->text[col].hidden = 1;
}

void hpq_table_text_bytes(hpq_table *t, int col)
{
    assert(col >= 0 && col < t->ncols);
    t->text[col].bytes = 1;
}

void hpq_format_bytes(double bytes, char *buf, size_t len)
{
    static const char *const units[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB"};
    size_t u = 0;
    double v = bytes;
    while (fabs(v) >= 999.5 && u + 1 < sizeof units / sizeof units[0]) {
        v /= 1024;
        u++;
    }
    int decimals = u == 0 || fabs(v) >= 99.95 ? 0 : fabs(v) >= 9.995 ? 1 : 2;
    snprintf(buf, len, "%.*f %s", decimals, v, units[u]);
}

void hpq_table_add_row(hpq_table *t)
{
    if (t->failed)
        return;
    if (t->nrows == t->cap) {
        size_t cap = t->cap ? t->cap * 2 : 64;
        hpq_cell *cells = realloc(t->cells, cap * (size_t)t->ncols * sizeof *cells);
        if (!cells) {
            t->failed = 1;
            return;
        }
        t->cells = cells;
        t->cap = cap;
    }
    memset(t->cells + t->nrows * (size_t)t->ncols, 0, (size_t)t->ncols * sizeof *t->cells);
    t->nrows++;
}

static hpq_cell *last_cell(hpq_table *t, int col)
{
    if (t->failed || t->nrows == 0)
        return NULL;
    return &t->cells[(t->nrows - 1) * (size_t)t->ncols + (size_t)col];
}

const hpq_cell *hpq_cell_at(const hpq_table *t, size_t row, int col)
{
    return &t->cells[row * (size_t)t->ncols + (size_t)col];
}

void hpq_set_int(hpq_table *t, int col, int64_t v)
{
    hpq_cell *c = last_cell(t, col);
    if (c) {
        c->type = HPQ_INT;
        c->i = v;
    }
}

void hpq_set_real(hpq_table *t, int col, double v)
{
    hpq_cell *c = last_cell(t, col);
    if (c) {
        c->type = HPQ_REAL;
        c->d = v;
    }
}

void hpq_set_str(hpq_table *t, int col, const char *s)
{
    hpq_cell *c = last_cell(t, col);
    if (!c)
        return;
    free(c->s);
    c->s = strdup(s);
    c->type = HPQ_STR;
    if (!c->s) {
        c->type = HPQ_NULL;
        t->failed = 1;
    }
}

void hpq_set_cell(hpq_table *t, int col, const hpq_cell *from)
{
    if (from->type == HPQ_INT)
        hpq_set_int(t, col, from->i);
    else if (from->type == HPQ_REAL)
        hpq_set_real(t, col, from->d);
    else if (from->type == HPQ_STR)
        hpq_set_str(t, col, from->s);
}

void hpq_set_column(hpq_table *t, int col, sqlite3_stmt *st, int from)
{
    switch (sqlite3_column_type(st, from)) {
    case SQLITE_INTEGER:
        hpq_set_int(t, col, sqlite3_column_int64(st, from));
        break;
    case SQLITE_FLOAT:
        hpq_set_real(t, col, sqlite3_column_double(st, from));
        break;
    case SQLITE_NULL:
        break;
    default: /* text; blobs are shown as their bytes */
        hpq_set_str(t, col, (const char *)sqlite3_column_text(st, from));
        break;
    }
}

/* The cell as text: `text` selects the human rendering of reals. */
static const char *cell_text(const hpq_table *t, int col, const hpq_cell *c, int text,
                             char *buf, size_t len)
{
    if (text && t->text[col].bytes && (c->type == HPQ_INT || c->type == HPQ_REAL) &&
        (c->type == HPQ_INT || isfinite(c->d))) {
        hpq_format_bytes(c->type == HPQ_INT ? (double)c->i : c->d, buf, len);
        return buf;
    }
    switch (c->type) {
    case HPQ_INT:
        snprintf(buf, len, "%lld", (long long)c->i);
        return buf;
    case HPQ_REAL:
        if (!isfinite(c->d))
            return text ? "-" : "";
        if (text && t->decimals[col] >= 0)
            snprintf(buf, len, "%.*f", t->decimals[col], c->d);
        else
            snprintf(buf, len, "%.15g", c->d);
        return buf;
    case HPQ_STR:
        return c->s;
    default:
        return text ? "-" : "";
    }
}

/* A column is left-aligned when its first non-NULL cell is text. */
static int column_is_text(const hpq_table *t, int col)
{
    for (size_t r = 0; r < t->nrows; r++) {
        const hpq_cell *c = hpq_cell_at(t, r, col);
        if (c->type != HPQ_NULL)
            return c->type == HPQ_STR;
    }
    return 1;
}

/* ---- text output: control characters escaped ---- */

/* A label comes from the profile (a site, file or argument of the
 * program): its control characters (bytes below 0x20 and 0x7f) are written
 * as C escapes, so that it cannot move the terminal's cursor or forge a
 * line of the report. */
static int is_control(unsigned char c)
{
    return c < 0x20 || c == 0x7f;
}

/* Writes the escaped form of s to out (when out is not NULL) and returns
 * its length. */
static size_t escape_text(const char *s, char *out)
{
    size_t n = 0;
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        char esc[5];
        if (!is_control(*p)) {
            esc[0] = (char)*p;
            esc[1] = '\0';
        } else if (*p == '\n') {
            strcpy(esc, "\\n");
        } else if (*p == '\t') {
            strcpy(esc, "\\t");
        } else if (*p == '\r') {
            strcpy(esc, "\\r");
        } else {
            snprintf(esc, sizeof esc, "\\x%02x", *p);
        }
        size_t k = strlen(esc);
        if (out)
            memcpy(out + n, esc, k);
        n += k;
    }
    if (out)
        out[n] = '\0';
    return n;
}

/* s itself when it has no control characters, else a malloc'ed escaped
 * copy in *copy (the caller frees it); "?" when memory ran out. */
static const char *text_form(const char *s, char **copy)
{
    *copy = NULL;
    const unsigned char *p = (const unsigned char *)s;
    while (*p && !is_control(*p))
        p++;
    if (!*p)
        return s;
    *copy = malloc(escape_text(s, NULL) + 1);
    if (!*copy)
        return "?";
    escape_text(s, *copy);
    return *copy;
}

void hpq_print_text_string(FILE *out, const char *s)
{
    char *copy;
    fputs(text_form(s, &copy), out);
    free(copy);
}

static size_t text_width(const char *s)
{
    char *copy;
    size_t n = strlen(text_form(s, &copy));
    free(copy);
    return n;
}

/* Writes s in at most width bytes: whole when it fits, else its start
 * and its end around "..." (a label's file:line stays readable), not
 * cutting a UTF-8 sequence. */
static void put_elided(FILE *out, const char *s, size_t width)
{
    size_t len = strlen(s);
    if (len <= width || width < 8) {
        fputs(s, out);
        return;
    }
    size_t head = (width - 3) / 3, tail = width - 3 - head;
    while (head > 0 && ((unsigned char)s[head] & 0xc0) == 0x80)
        head--;
    const char *end = s + len - tail;
    while (*end && ((unsigned char)*end & 0xc0) == 0x80)
        end++;
    fprintf(out, "%.*s...%s", (int)head, s, end);
}

static void print_text_cell(FILE *out, const char *raw, size_t width, int left, int last)
{
    char *copy;
    const char *s = text_form(raw, &copy);
    if (left) {
        size_t len = strlen(s);
        put_elided(out, s, width);
        if (!last && len < width)
            fprintf(out, "%*s", (int)(width - len), "");
    } else {
        fprintf(out, "%*s", (int)width, s);
    }
    if (!last)
        fputs("  ", out);
    free(copy);
}

static const char *heading_of(const hpq_table *t, int c)
{
    return t->text[c].heading ? t->text[c].heading : t->names[c];
}

/* Shortens the widest text column until the visible columns fit in
 * t->text_width (a text column keeps at least 16 bytes). */
static void fit_widths(const hpq_table *t, size_t *width, const int *left)
{
    size_t total = 0;
    int shown = 0;
    for (int c = 0; c < t->ncols; c++)
        if (!t->text[c].hidden) {
            total += width[c];
            shown++;
        }
    total += shown > 1 ? 2 * (size_t)(shown - 1) : 0;
    if (t->text_width <= 0 || total <= (size_t)t->text_width)
        return;
    int widest = -1;
    for (int c = 0; c < t->ncols; c++)
        if (!t->text[c].hidden && left[c] && (widest < 0 || width[c] > width[widest]))
            widest = c;
    if (widest < 0 || width[widest] <= 16)
        return;
    size_t over = total - (size_t)t->text_width, room = width[widest] - 16;
    width[widest] -= over < room ? over : room;
}

/* The last visible column: printed without trailing padding. */
static int last_visible(const hpq_table *t)
{
    int last = -1;
    for (int c = 0; c < t->ncols; c++)
        if (!t->text[c].hidden)
            last = c;
    return last;
}

static void print_text(const hpq_table *t, FILE *out)
{
    char buf[64];
    size_t *width = calloc((size_t)t->ncols, sizeof *width);
    int *left = calloc((size_t)t->ncols, sizeof *left);
    int last = last_visible(t);
    if (!width || !left)
        goto done;
    for (int c = 0; c < t->ncols; c++) {
        width[c] = text_width(heading_of(t, c));
        left[c] = column_is_text(t, c);
    }
    for (size_t r = 0; r < t->nrows; r++)
        for (int c = 0; c < t->ncols; c++) {
            size_t n = text_width(cell_text(t, c, hpq_cell_at(t, r, c), 1, buf, sizeof buf));
            if (n > width[c])
                width[c] = n;
        }
    fit_widths(t, width, left);
    for (int c = 0; c < t->ncols; c++)
        if (!t->text[c].hidden)
            print_text_cell(out, heading_of(t, c), width[c], left[c], c == last);
    fputc('\n', out);
    for (size_t r = 0; r < t->nrows; r++) {
        for (int c = 0; c < t->ncols; c++)
            if (!t->text[c].hidden)
                print_text_cell(out, cell_text(t, c, hpq_cell_at(t, r, c), 1, buf, sizeof buf),
                                width[c], left[c], c == last);
        fputc('\n', out);
    }
done:
    free(width);
    free(left);
}

static void print_csv_field(FILE *out, const char *s)
{
    if (!strpbrk(s, ",\"\r\n")) {
        fputs(s, out);
        return;
    }
    fputc('"', out);
    for (; *s; s++) {
        if (*s == '"')
            fputc('"', out);
        fputc(*s, out);
    }
    fputc('"', out);
}

static void print_csv(const hpq_table *t, FILE *out)
{
    char buf[64];
    for (int c = 0; c < t->ncols; c++) {
        if (c)
            fputc(',', out);
        print_csv_field(out, t->names[c]);
    }
    fputc('\n', out);
    for (size_t r = 0; r < t->nrows; r++) {
        for (int c = 0; c < t->ncols; c++) {
            if (c)
                fputc(',', out);
            print_csv_field(out, cell_text(t, c, hpq_cell_at(t, r, c), 0, buf, sizeof buf));
        }
        fputc('\n', out);
    }
}

void hpq_print_json_string(FILE *out, const char *s)
{
    fputc('"', out);
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        if (*p == '"' || *p == '\\')
            fprintf(out, "\\%c", *p);
        else if (*p == '\n')
            fputs("\\n", out);
        else if (*p == '\t')
            fputs("\\t", out);
        else if (*p < 0x20)
            fprintf(out, "\\u%04x", *p);
        else
            fputc(*p, out);
    }
    fputc('"', out);
}

static void print_json_value(const hpq_table *t, int col, const hpq_cell *c, FILE *out)
{
    char buf[64];
    if (c->type == HPQ_STR)
        hpq_print_json_string(out, c->s);
    else if (c->type == HPQ_NULL || (c->type == HPQ_REAL && !isfinite(c->d)))
        fputs("null", out);
    else
        fputs(cell_text(t, col, c, 0, buf, sizeof buf), out);
}

void hpq_print_json_row(const hpq_table *t, size_t row, FILE *out)
{
    assert(row < t->nrows);
    fputc('{', out);
    for (int c = 0; c < t->ncols; c++) {
        if (c)
            fputs(", ", out);
        hpq_print_json_string(out, t->names[c]);
        fputs(": ", out);
        print_json_value(t, c, hpq_cell_at(t, row, c), out);
    }
    fputc('}', out);
}

static void print_json(const hpq_table *t, FILE *out)
{
    fputc('[', out);
    for (size_t r = 0; r < t->nrows; r++) {
        fputs(r ? ",\n  " : "\n  ", out);
        hpq_print_json_row(t, r, out);
    }
    fputs(t->nrows ? "\n]\n" : "]\n", out);
}

int hpq_table_print(const hpq_table *t, FILE *out, hpq_format format)
{
    if (t->failed)
        return -1;
    if (format == HPQ_CSV)
        print_csv(t, out);
    else if (format == HPQ_JSON || format == HPQ_HATCHET)
        print_json(t, out);
    else
        print_text(t, out);
    return 0;
}

/* ---- sorting (--sort) ---- */

typedef struct sort_key {
    const hpq_table *t;
    int col, desc;
} sort_key;

static sort_key the_key;     /* qsort has no context argument; one sort at a time */

/* NULL cells last whatever the direction; numbers by value, strings by
 * strcmp; the earlier row first among equals (the sort is stable). */
static int compare_rows(const void *a, const void *b)
{
    size_t ra = *(const size_t *)a, rb = *(const size_t *)b;
    const hpq_cell *x = hpq_cell_at(the_key.t, ra, the_key.col);
    const hpq_cell *y = hpq_cell_at(the_key.t, rb, the_key.col);
    int c = 0;
    if ((x->type == HPQ_NULL) != (y->type == HPQ_NULL))
        return x->type == HPQ_NULL ? 1 : -1;
    if (x->type == HPQ_STR || y->type == HPQ_STR) {
        c = strcmp(x->s ? x->s : "", y->s ? y->s : "");
    } else if (x->type != HPQ_NULL) {
        double dx = x->type == HPQ_INT ? (double)x->i : x->d;
        double dy = y->type == HPQ_INT ? (double)y->i : y->d;
        c = dx < dy ? -1 : dx > dy;
    }
    if (c && the_key.desc)
        c = -c;
    return c ? c : (ra > rb) - (ra < rb);
}

int hpq_table_column(const hpq_table *t, const char *name)
{
    for (int c = 0; c < t->ncols; c++)
        if (strcmp(t->names[c], name) == 0)
            return c;
    return -1;
}

int hpq_table_sort(hpq_table *t, int col, int desc)
{
    assert(col >= 0 && col < t->ncols);
    size_t n = t->nrows, w = (size_t)t->ncols;
    size_t *order = malloc((n + 1) * sizeof *order);
    hpq_cell *cells = malloc((n * w + 1) * sizeof *cells);
    if (!order || !cells) {
        free(order);
        free(cells);
        return -1;
    }
    for (size_t r = 0; r < n; r++)
        order[r] = r;
    the_key = (sort_key){t, col, desc};
    qsort(order, n, sizeof *order, compare_rows);
    for (size_t r = 0; r < n; r++)
        memcpy(&cells[r * w], &t->cells[order[r] * w], w * sizeof *cells);
    free(t->cells);
    t->cells = cells;
    t->cap = n;
    free(order);
    return 0;
}
