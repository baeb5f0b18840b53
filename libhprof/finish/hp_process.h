/*
 * hp_process.h - what a profile says about the process (command line,
 * host, times, OpenMP team size), where it goes (a new file, never an
 * existing one), and the report of a process that never used MPI: written
 * at exit with plain file I/O, with the same summary.
 */
#ifndef HP_PROCESS_H
#define HP_PROCESS_H

#include <stddef.h>
#include "hp_profile.h"

/* argv of the process as read from /proc at start-up (MPI_Init may get
 * NULL arguments, and the program may rewrite its title later). */
void hp_process_command_line(hp_run_info *run);
/* Rank, host, pid, OpenMP team size and times of this process. */
void hp_process_rank_info(hp_rank_info *ri, uint32_t rank, uint64_t start_ns,
                          uint64_t start_ticks, uint64_t end_ticks);
/* The profile's path (path.c) from HPROF_OUTPUT (a file, or a directory:
 * existing or ending in "/") or the default name, with ".<tag>" before its
 * ".hpf" unless tag is NULL; never an existing file, never longer than
 * maxlen (a short name in the same directory, else in the current one;
 * each with one warning).  0, or -1 after one warning when no profile can
 * be written there (a device, a directory that does not exist). */
int hp_process_profile_path(const char *program, const char *tag, size_t maxlen, char *path,
                            size_t len);
/* The run's stamp: the time stamp and process id of default profile
 * names and the run's number (the first that HPROF_OUTPUT's name leaves
 * free), now or the run's once set; every rank of an MPI run uses rank
 * 0's. */
void hp_process_run_stamp(char *buf, size_t len);
void hp_process_set_run_stamp(const char *stamp);
/* The run's identity as one file-name word, "<stamp>-<number>", from the
 * stamp set (the same on every rank after hp_process_set_run_stamp). */
void hp_process_run_word(char *buf, size_t len);
/* s as one word of a POSIX shell (in single quotes unless it needs none). */
void hp_process_shell_quote(const char *s, char *buf, size_t len);
/* path itself if nothing is there, else path.1 (.2, ...) with a warning. */
void hp_process_unused_path(char *path, size_t len);
/* Writes all of b to path through path.partial, renamed when complete;
 * 0, or -1 with errno set and no file left behind. */
int hp_process_write_file(const char *path, const hp_buf *b);

/* MPI_Init and MPI_Finalize tell the exit handler what happened. */
void hp_process_mpi_started(void);
void hp_process_mpi_finished(void);
/* Installed once at start-up: writes the report of a process without MPI,
 * warns about one that initialized MPI but never finalized it. */
void hp_process_at_exit(void);
/* When the runtime started (the library's constructor, before main): the
 * start of every rank's wall window, so that main and whatever runs before
 * MPI_Init lie inside it. */
void hp_process_start(uint64_t *ns, uint64_t *ticks);
/* No report at exit (unit tests that drive the runtime directly). */
void hp_process_no_exit_report(void);

#endif
