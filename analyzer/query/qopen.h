/*
 * qopen.h - how hprof-query gets its database: a profile is merged on
 * first use into the database next to it (so are the per-rank files of a
 * run that died); a database is opened read-only.
 */
#ifndef HPQ_OPEN_H
#define HPQ_OPEN_H

#include <stddef.h>
#include <sqlite3.h>

/* Opens the input: one .hpf profile or hprof database (told apart by
 * their first bytes), or a dying run's per-rank files (parts.h: named one
 * by one, or their directory).  On success returns 0 with *db open
 * read-only and *db_path (malloc'ed) naming the database; else -1 and a
 * message. */
int hpq_open(int npaths, char *const *paths, sqlite3 **db, char **db_path, char *err,
             size_t errlen);

/* The program that names hpq_open's notes on stderr ("NAME: merged ...");
 * hprof-query unless set. */
void hpq_open_set_program(const char *name);

#endif
