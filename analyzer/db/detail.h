/*
 * detail.h - the per rank/thread rows of a database merged without them
 * (aggregate mode, README.md "Aggregates and the format version"): its
 * `stat` and `comm` are virtual tables of the module hprof_rows, whose
 * rows are read from the database's per-node index (rankidx.h; the comm
 * records from the profile it points into) or, without one, from the
 * profile the database was merged from (run keys source_files and
 * source_id) the first time a query reads them: the same rows, with the
 * same numbers, that hprof-merge --detail stores.
 */
#ifndef HPF_DETAIL_H
#define HPF_DETAIL_H

#include <sqlite3.h>

/* The module's name, as the database's schema names it. */
#define HPF_DETAIL_MODULE "hprof_rows"

/* The schema of the two tables in aggregate mode. */
#define HPF_DETAIL_TABLES_SQL                                              \
    "CREATE VIRTUAL TABLE stat USING " HPF_DETAIL_MODULE "(stat);\n"       \
    "CREATE VIRTUAL TABLE comm USING " HPF_DETAIL_MODULE "(comm);\n"

/* Makes every SQLite connection this process opens from now on know the
 * module (sqlite3_auto_extension; once is enough, again is harmless).
 * 0, or -1. */
int hpf_detail_register(void);

#endif
