/*
 * parts.h - a run given as the files its ranks wrote alone.  When a run
 * dies (MPI_Abort, a signal, exit without MPI_Finalize), each rank that
 * could writes NAME.rank<N>.hpf: a whole-run profile holding its own
 * records, the other ranks marked missing.  These functions find a run's
 * files (named one by one, or a directory holding them), read them into
 * one profile with every rank that wrote its records, and say which
 * ranks have none.
 */
#ifndef HPF_PARTS_H
#define HPF_PARTS_H

#include <stddef.h>
#include "db.h"
#include "read/hpf_read.h"

typedef struct hpf_input {
    char **files;     /* the profiles to read, at least one */
    uint32_t nfiles;
    char *name;       /* the run's profile name: the file itself, or for
                         per-rank files NAME.hpf without ".rank<N>" */
} hpf_input;

/* The input that args (files, or one directory) name: one profile; or
 * the per-rank files of one run, every one named NAME.rank<N>.hpf with the
 * same NAME (a directory: the one run whose per-rank files it holds).
 * 0, or -1 with one line in err. */
int hpf_input_find(int nargs, char *const *args, hpf_input *in, char *err, size_t errlen);
/* Appends a copy of path to in's files; 0, or -1 out of memory. */
int hpf_input_add_file(hpf_input *in, const char *path);
void hpf_input_free(hpf_input *in);

/* Reads the input into one profile: each rank's block from the file that
 * holds its records (one file's node records are left in it:
 * hpf_read_lazy).  The files must be of one run (same rank count and
 * program); a rank in two files is an error.  0, or -1 with one line in
 * err and out left empty. */
int hpf_read_input(const hpf_input *in, hpf_profile *out, char *err, size_t errlen);

/* The identity of the input's content (hpf_file_identity of each file,
 * combined): a database records it to know whether it is up to date. */
int hpf_input_identity(const hpf_input *in, char *out, size_t len);

/* hpf_db_write of p (its comm records consumed), read from in, with in's
 * identity recorded. */
int hpf_input_db_write(const hpf_input *in, hpf_profile *p, const char *db_path,
                       int force, hpf_db_summary *sum, char *err, size_t errlen);

/* "rank 1 of 3 has no records (no file wrote them)" style note into buf:
 * the ranks of p that are missing, and those of them that left an
 * unfinished NAME.rank<N>.hpf.partial beside the files of run (the
 * run's profile name, or NULL); "" when none is missing. */
void hpf_missing_note(const hpf_profile *p, const char *run, char *buf, size_t len);

#endif
