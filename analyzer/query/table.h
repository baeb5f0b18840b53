/*
 * table.h - result tables of hprof-query, built in memory and then
 * printed as aligned text, CSV (RFC 4180 quoting) or JSON (an array of
 * objects), so every report supports every output format.
 */
#ifndef HPQ_TABLE_H
#define HPQ_TABLE_H

#include <stdint.h>
#include <stdio.h>
#include <sqlite3.h>

/* HPQ_HATCHET: nested JSON of the top-down listing only (hatchet.c);
 * a table printed in it is printed as JSON. */
typedef enum hpq_format { HPQ_TEXT, HPQ_CSV, HPQ_JSON, HPQ_HATCHET } hpq_format;
typedef enum hpq_type { HPQ_NULL, HPQ_INT, HPQ_REAL, HPQ_STR } hpq_type;

typedef struct hpq_cell {
    hpq_type type;
    int64_t i;
    double d;
    char *s;
} hpq_cell;

/* How text output shows a column (CSV and JSON show every column under
 * its name, values as they are). */
typedef struct hpq_text_col {
    const char *heading;    /* a static string instead of the name, or NULL */
    int hidden;             /* left out */
    int bytes;              /* a number of bytes: with a unit (hpq_format_bytes) */
} hpq_text_col;

typedef struct hpq_table {
    int ncols;
    char **names;
    int *decimals;      /* REAL columns in text output: digits after the point, -1 = %g */
    hpq_text_col *text; /* per column: its text presentation */
    int text_width;     /* text output at most this wide (the widest text column
                           shortened in the middle, "..."); 0: no limit */
    size_t nrows, cap;
    hpq_cell *cells;    /* nrows x ncols, row-major */
    int failed;         /* an allocation failed; printing reports it */
} hpq_table;

/* NULL when out of memory. */
hpq_table *hpq_table_new(int ncols, const char *const *names);
void hpq_table_free(hpq_table *t);
void hpq_table_decimals(hpq_table *t, int col, int decimals);
/* Text output only: column col headed `heading` (a static string), or
 * left out. */
void hpq_table_text_heading(hpq_table *t, int col, const char *heading);
void hpq_table_text_hide(hpq_table *t, int col);
void hpq_table_text_bytes(hpq_table *t, int col);
/* A number of bytes for people: "512 B", "25.8 KiB", "3.05 MiB", "1.20 GiB"
 * (binary units, 3 significant digits; below 1000 in a unit). */
void hpq_format_bytes(double bytes, char *buf, size_t len);

/* Appends an all-NULL row; the setters below fill the last row. */
void hpq_table_add_row(hpq_table *t);
void hpq_set_int(hpq_table *t, int col, int64_t v);
void hpq_set_real(hpq_table *t, int col, double v);
void hpq_set_str(hpq_table *t, int col, const char *s);
/* Copies a cell of another table (a NULL leaves the cell NULL). */
void hpq_set_cell(hpq_table *t, int col, const hpq_cell *from);
/* Copies column `from` of the statement's current row into column `col`. */
void hpq_set_column(hpq_table *t, int col, sqlite3_stmt *st, int from);
const hpq_cell *hpq_cell_at(const hpq_table *t, size_t row, int col);

/* Prints the table; returns -1 (and prints nothing) if the table is
 * incomplete because memory ran out. */
/* s with its control characters escaped (\n, \t, \r, \xHH), as text
 * output shows every label. */
void hpq_print_text_string(FILE *out, const char *s);
/* s as a JSON string literal, quotes included. */
void hpq_print_json_string(FILE *out, const char *s);
int hpq_table_print(const hpq_table *t, FILE *out, hpq_format format);
/* One row as a JSON object {"column": value, ...}, no newline: for a
 * report whose JSON document holds more than its table. */
void hpq_print_json_row(const hpq_table *t, size_t row, FILE *out);

/* The index of the column called `name`, or -1. */
int hpq_table_column(const hpq_table *t, const char *name);
/* Reorders the rows by column `col`, descending when `desc`: NULLs last,
 * ties in their former order.  0, or -1 when out of memory (t unchanged). */
int hpq_table_sort(hpq_table *t, int col, int desc);

#endif
