/*
 * complete.h - what Tab completes in hprof-query -i: the first word a
 * command name, the argument of a NODE command a path of labels (the
 * children of the node the path so far names, from the current node or
 * from / ), of a SITE command a site label, of format a format.  Pure
 * lookups on the database; interactive.c hands them to libedit.
 */
#ifndef HPQ_COMPLETE_H
#define HPQ_COMPLETE_H

#include <stddef.h>
#include <stdint.h>
#include <sqlite3.h>

/* What a command's argument completes to. */
typedef enum hpq_carg { HPQ_C_NONE, HPQ_C_NODE, HPQ_C_SITE, HPQ_C_FORMAT } hpq_carg;

typedef struct hpq_cword {
    const char *name;
    hpq_carg arg;
} hpq_cword;

/* The words that complete `text`, the word of `line` that starts at byte
 * `start`, with `cur` the current node: a malloc'ed NULL-terminated list
 * of malloc'ed strings, sorted, at most HPQ_COMPLETE_MAX; NULL when there
 * are none or memory ran out. */
#define HPQ_COMPLETE_MAX 1000
char **hpq_complete(sqlite3 *db, const char *db_path, const hpq_cword *cmds, size_t ncmds,
                    int64_t cur, const char *line, int start, const char *text);
void hpq_complete_free(char **words);

#endif
