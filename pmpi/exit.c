/*
 * exit.c - a rank that ends through _exit() before MPI_Finalize: Open MPI
 * ends a rank so on an MPI error under MPI_ERRORS_ARE_FATAL (its message
 * printed, then _exit with the error class as status: MPI_Send to rank
 * 99 exits 6), and so may a program.  Its records are written first, by
 * the crash path's writing thread (_exit may be called in a signal
 * handler), and the process then ends as it would have: the same status.
 * The MPI calls the rank was in are recorded as calls under way.
 */
#include <sys/syscall.h>
#include <unistd.h>
#include "hp_mpi.h"
#include "hp_crash.h"

/* Set by the process that calls _exit (a vfork child shares this memory:
 * its pid is not the writer's). */
static volatile pid_t exit_pid;
static volatile int exit_status;

int hp_exit_called(int *status)
{
    *status = exit_status;
    return exit_pid == getpid();
}

static __attribute__((noreturn)) void end_process(int status)
{
    if (hp_mpi_active) {
        exit_status = status;
        exit_pid = getpid();
        hp_crash_write_before_exit(HP_RANKF_UNFINALIZED);
    }
    for (;;)
        syscall(SYS_exit_group, status);
}

HP_MPI_API void _exit(int status)
{
    end_process(status);
}

HP_MPI_API void _Exit(int status)
{
    end_process(status);
}
