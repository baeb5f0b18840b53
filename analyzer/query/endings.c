/*
 * endings.c - how the ranks of a run ended (endings.h): the ranks with no
 * records, and the others grouped by what ended them.
 */
#include <stdlib.h>
#include <string.h>
#include "endings.h"
#include "hp_format.h"

#define MAX_KINDS 16

typedef struct ending {
    char what[32];
    char ranks[256];
    size_t len;
    unsigned n;
} ending;

/* Appends rank r to a list "0, 2, 5" kept under its size ("..." past it). */
static void list_add(char *list, size_t *len, size_t cap, unsigned *n, long long r)
{
    if (*len + 24 >= cap) {
        if (!strstr(list, "..."))
            *len += (size_t)snprintf(list + *len, cap - *len, ", ...");
        (*n)++;
        return;
    }
    *len += (size_t)snprintf(list + *len, cap - *len, "%s%lld", *n ? ", " : "", r);
    (*n)++;
}

static ending *ending_of(ending *e, unsigned *ne, const char *what)
{
    for (unsigned i = 0; i < *ne; i++)
        if (strcmp(e[i].what, what) == 0)
            return &e[i];
    if (*ne == MAX_KINDS)
        return NULL;
    ending *k = &e[(*ne)++];
    memset(k, 0, sizeof *k);
    snprintf(k->what, sizeof k->what, "%s", what);
    return k;
}

static long long run_ranks(sqlite3 *db)
{
    sqlite3_stmt *st;
    long long n = -1;
    if (sqlite3_prepare_v2(db, "SELECT value FROM run WHERE key = 'nranks'", -1, &st, NULL) ==
        SQLITE_OK && sqlite3_step(st) == SQLITE_ROW)
        n = sqlite3_column_int64(st, 0);
    sqlite3_finalize(st);
    return n;
}

int hpq_print_endings(FILE *out, sqlite3 *db)
{
    sqlite3_stmt *st;
    ending kinds[MAX_KINDS];
    unsigned nkinds = 0, nmissing = 0;
    char missing[256] = "", buf[32];
    size_t mlen = 0;
    long long n = run_ranks(db), next = 0;
    if (n < 0 || sqlite3_prepare_v2(db, "SELECT rank, flags FROM rank ORDER BY rank", -1, &st,
                                    NULL) != SQLITE_OK)
        return -1;
    while (sqlite3_step(st) == SQLITE_ROW) {
        long long r = sqlite3_column_int64(st, 0);
        for (; next < r && next < n; next++)
            list_add(missing, &mlen, sizeof missing, &nmissing, next);
        next = r + 1;
        const char *what = hp_rank_ending((uint32_t)sqlite3_column_int64(st, 1), buf, sizeof buf);
        ending *e = what ? ending_of(kinds, &nkinds, what) : NULL;
        if (e)
            list_add(e->ranks, &e->len, sizeof e->ranks, &e->n, r);
    }
    sqlite3_finalize(st);
    for (; next < n; next++)
        list_add(missing, &mlen, sizeof missing, &nmissing, next);
    if (nmissing)
        fprintf(out, "missing:   %s %s of %lld %s no records in this profile\n",
                nmissing == 1 ? "rank" : "ranks", missing, n, nmissing == 1 ? "has" : "have");
    if (nkinds) {
        fputs("ended:     ", out);
        for (unsigned i = 0; i < nkinds; i++)
            fprintf(out, "%s%s %s by %s", i ? "; " : "", kinds[i].n == 1 ? "rank" : "ranks",
                    kinds[i].ranks, kinds[i].what);
        fputs(" (their records end there)\n", out);
    }
    return 0;
}
