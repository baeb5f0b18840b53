/*
 * complete.c - Tab completion of hprof-query -i (complete.h): commands,
 * node paths, site labels and formats, each a list of candidates that
 * start with the word being completed.
 */
#include "config.h"
#include <assert.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "complete.h"
#include "query/nodepath.h"

/* A growing list of candidates, NULL-terminated. */
typedef struct wordlist {
    char **w;
    size_t n, cap;
    int failed;
} wordlist;

static void add_word(wordlist *l, const char *prefix, const char *word)
{
    if (l->failed || l->n >= HPQ_COMPLETE_MAX)
        return;
    if (l->n + 2 > l->cap) {
        size_t cap = l->cap ? 2 * l->cap : 16;
        char **w = realloc(l->w, cap * sizeof *w);
        if (!w) {
            l->failed = 1;
            return;
        }
        l->w = w;
        l->cap = cap;
    }
    size_t a = strlen(prefix), b = strlen(word);
    char *s = malloc(a + b + 1);
    if (!s) {
        l->failed = 1;
        return;
    }
    memcpy(s, prefix, a);
    memcpy(s + a, word, b + 1);
    l->w[l->n++] = s;
    l->w[l->n] = NULL;
}

static int starts_with(const char *s, const char *prefix)
{
    return strncmp(s, prefix, strlen(prefix)) == 0;
}

/* Adds `prefix` + each first column of `sql` (parameters ?1: the word's
 * start, ?2 if it has one: a node id) that starts with `want`. */
static void add_query(wordlist *l, sqlite3 *db, const char *sql, const char *want,
                      int64_t node, const char *prefix)
{
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK)
        return;
    sqlite3_bind_text(st, 1, want, -1, SQLITE_STATIC);
    if (sqlite3_bind_parameter_count(st) >= 2)
        sqlite3_bind_int64(st, 2, node);
    while (sqlite3_step(st) == SQLITE_ROW) {
        const char *w = (const char *)sqlite3_column_text(st, 0);
        if (w && starts_with(w, want))
            add_word(l, prefix, w);
    }
    sqlite3_finalize(st);
}

/* A path of labels: the part up to the last '/' names a node (relative to
 * cur, or from the root when it starts with '/'), the rest starts one of
 * its children's labels. */
static void add_children(wordlist *l, sqlite3 *db, const char *db_path, int64_t cur,
                         const char *text)
{
    const char *slash = strrchr(text, '/');
    int64_t node = cur;
    char dir[1024], err[256];
    size_t dlen = slash ? (size_t)(slash - text) + 1 : 0;
    if (dlen >= sizeof dir)
        return;
    memcpy(dir, text, dlen);
    dir[dlen] = '\0';
    if (dlen > 1)
        dir[dlen - 1] = '\0';   /* "main/" names main */
    if (dlen && hpq_resolve_node(db, db_path, dir, cur, &node, err, sizeof err))
        return;
    if (dlen > 1)
        dir[dlen - 1] = '/';
    add_query(l, db, "SELECT DISTINCT s.label FROM node n JOIN site s ON s.id = n.site"
                     " WHERE n.parent = ?2 AND substr(s.label, 1, length(?1)) = ?1"
                     " ORDER BY s.label", text + dlen, node, dir);
}

char **hpq_complete(sqlite3 *db, const char *db_path, const hpq_cword *cmds, size_t ncmds,
                    int64_t cur, const char *line, int start, const char *text)
{
    static const char *const formats[] = {"text", "csv", "json"};
    wordlist l = {0};
    assert(line && text && start >= 0);
    size_t skip = strspn(line, " \t"), len = strcspn(line + skip, " \t");
    if ((size_t)start <= skip) {
        for (size_t i = 0; i < ncmds; i++)
            if (starts_with(cmds[i].name, text))
                add_word(&l, "", cmds[i].name);
    } else {
        hpq_carg arg = HPQ_C_NONE;
        for (size_t i = 0; i < ncmds; i++)
            if (strlen(cmds[i].name) == len && strncmp(cmds[i].name, line + skip, len) == 0)
                arg = cmds[i].arg;
        if (arg == HPQ_C_NODE)
            add_children(&l, db, db_path, cur, text);
        else if (arg == HPQ_C_SITE)
            add_query(&l, db, "SELECT DISTINCT label FROM site WHERE"
                              " substr(label, 1, length(?1)) = ?1 ORDER BY label",
                      text, 0, "");
        else if (arg == HPQ_C_FORMAT)
            for (size_t i = 0; i < sizeof formats / sizeof formats[0]; i++)
                if (starts_with(formats[i], text))
                    add_word(&l, "", formats[i]);
    }
    if (l.failed || l.n == 0) {
        hpq_complete_free(l.w);
        return NULL;
    }
    return l.w;
}

void hpq_complete_free(char **words)
{
    for (size_t i = 0; words && words[i]; i++)
        free(words[i]);
    free(words);
}
