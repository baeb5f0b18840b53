/*
 * hp_crash.h - the records of a process that dies.  Handlers for the
 * signals that end a process (SIGTERM, SIGINT, SIGHUP, SIGXCPU, SIGUSR1,
 * SIGUSR2, and the faults SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGABRT) have
 * this process's records written before it ends, then hand the signal to
 * whatever had it before: the default action (the same exit status, the
 * same core dump) or the program's own handler.  A program that handles
 * one of the asynchronous signals itself decides: its handler runs, and
 * nothing is written unless it ends the process through exit().
 *
 * The writing is done by a thread started with the runtime, in an
 * ordinary context (the writer allocates and reads debug information,
 * which a signal handler must not do); the signalled thread only wakes it
 * through a pipe and waits for it, at most HP_CRASH_WAIT_MS, so a writer
 * stuck on a lock the dying thread holds cannot keep the process alive.
 * HPROF_SIGNALS=0 installs no handler.
 */
#ifndef HP_CRASH_H
#define HP_CRASH_H

#include <stdint.h>

#define HP_CRASH_WAIT_MS 10000

/* Writes the records of a dying process.  flags are HP_RANKF_* of the
 * rank: HP_RANKF_SIGNALED with the signal's number, or
 * HP_RANKF_UNFINALIZED. */
typedef void (*hp_crash_writer)(uint32_t flags);

/* Installs the handlers over the default actions and the handlers found
 * there now (again after MPI_Init, whose library installs its own),
 * and starts the writing thread once.  Idempotent. */
void hp_crash_arm(void);
/* The writer of this process (the MPI layer's, once MPI is started; the
 * serial one before). */
void hp_crash_set_writer(hp_crash_writer w);
/* The process's records are being written by the end of run (MPI_Finalize,
 * MPI_Abort, exit): 1 if the caller now owns the writing, 0 if a dying
 * thread's writer has it already (then write nothing).  Until the owner
 * calls hp_crash_release, a request signal (SIGTERM...) does not end the
 * process: on the owner's thread it is held, on another its handler
 * waits (at most HP_CRASH_WAIT_MS). */
int hp_crash_claim(void);
/* The claimed writing is over.  exits: the end of run is the program's
 * exit(), which goes on with its status, and a signal that came meanwhile
 * is spent; otherwise such a signal takes its course now. */
void hp_crash_release(int exits);

/* _exit() (or an MPI library that ends the process with it, as Open MPI
 * does on an MPI error under MPI_ERRORS_ARE_FATAL) before the records are
 * written: the writing thread writes them with flags and this thread
 * waits for it; async-signal-safe.  Nothing in a forked child. */
void hp_crash_write_before_exit(uint32_t flags);

/* Puts back the dispositions the handlers replaced, before MPI_Init: the
 * MPI library installs its own crash report only where it finds none
 * (Open MPI), and hp_crash_arm then chains to it. */
void hp_crash_disarm(void);

/* exit() without MPI_Finalize: the writer writes this rank's records,
 * flagged HP_RANKF_UNFINALIZED, unless they are written already. */
void hp_crash_write_unfinalized(void);

#endif
