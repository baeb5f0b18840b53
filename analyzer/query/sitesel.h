/*
 * sitesel.h - resolving the SITE argument of hprof-query (--comm, --ranks,
 * --threads) to merged nodes of the database: a node id "#N" / "N", a
 * site id "site:N" (the site column of --flat), a label as the reports
 * print it ("parallel@eam.c:327": one of the constructs of a line),
 * "file:line", or a function or MPI name.
 */
#ifndef HPQ_SITESEL_H
#define HPQ_SITESEL_H

#include <stddef.h>
#include <sqlite3.h>

enum hpq_want { HPQ_WANT_ONE, HPQ_WANT_COMM, HPQ_WANT_OMP };

typedef struct hpq_sel {
    char *nodes;   /* SQL list of merged node ids, e.g. "3,7,12" */
    char *label;   /* what was selected, for titles */
} hpq_sel;

/* HPQ_WANT_COMM selects every communication site matched by `spec`;
 * HPQ_WANT_OMP the OpenMP construct at it (a parallel region wins over
 * the barrier, fork and join records of the same line, a loop's line
 * names the loop);
 * HPQ_WANT_ONE needs the match to be a single site (a procedure whose
 * name is `spec` wins over the sites inside it).  Returns 0, or -1 with a
 * one-line message in err. */
int hpq_select(sqlite3 *db, const char *db_path, const char *spec, enum hpq_want want,
               hpq_sel *sel, char *err, size_t errlen);
void hpq_sel_free(hpq_sel *sel);

/* An SQL condition on the comm row `alias` (a name, or "" for the table
 * itself) of db: the row belongs to one of the nodes of the SQL list
 * `nodes`, found through comm_range (a node's rows are one range of comm
 * ids: no pass over the table), or by node alone when comm is aggregate
 * mode's virtual table (it reads a node's rows by node).  malloc'ed; NULL
 * without memory. */
char *hpq_comm_rows_of(sqlite3 *db, const char *nodes, const char *alias);

/* Is `comm` the virtual table of aggregate mode (db/detail.h), whose
 * rows of some nodes hprof_comm_sums sums in C (db/detail_sums.h)? */
int hpq_comm_is_virtual(sqlite3 *db);

/* Is s one or more decimal digits and nothing else? */
int hpq_is_number(const char *s);

#endif
