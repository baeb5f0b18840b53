/*
 * endings.h - the header lines of hprof-query's default report about a
 * run that did not end normally: which ranks have no records, and how
 * each of the others ended (MPI_Abort, a signal, exit without
 * MPI_Finalize), from the rank table's flags (hp_format.h, HP_RANKF_*).
 */
#ifndef HPQ_ENDINGS_H
#define HPQ_ENDINGS_H

#include <stdio.h>
#include <sqlite3.h>

/* Prints "missing:" and "ended:" lines (nothing for a run that ended
 * normally with every rank).  0, or -1 when the database cannot be read. */
int hpq_print_endings(FILE *out, sqlite3 *db);

#endif
