/*
 * rewrite.c - a program that rewrites its process title before it exits,
 * the way servers do (Redis, nginx): it overwrites its argv strings and
 * the environ strings behind them with 'X', and setenv's HPROF_OUTPUT to
 * a path that cannot be written - when its first argument is "rewrite"
 * (without it, tests/writes/run.sh uses it as a plain program for the
 * checks of full disks and long paths).  Built twice by the script:
 * serially with -finstrument-functions, and with -DWITH_MPI under mpirun.
 *
 * Ground truth: step() is called STEPS = 1000 times (per rank); the
 * profile goes to the HPROF_OUTPUT the run started with, its run table
 * says program = this program's path and argv = "PATH rewrite alpha", and
 * the summary's title line names PATH, not the rewritten title.
 * stdout: "rewrite: sum 499500" (serial) or "rewrite: rank R sum 499500"
 * per rank (MPI), the same with and without hprof.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#ifdef WITH_MPI
#include <mpi.h>
#endif

#define STEPS 1000

extern char **environ;

static long step(long i)
{
    return i;
}

/* Overwrite every argv and environ string, as a process title does. */
static void rewrite_title(int argc, char **argv)
{
    for (int i = 0; i < argc; i++)
        memset(argv[i], 'X', strlen(argv[i]));
    for (char **e = environ; *e; e++)
        memset(*e, 'X', strlen(*e));
    setenv("HPROF_OUTPUT", "/nonexistent-hprof-garbage/x.hpf", 1);
}

int main(int argc, char **argv)
{
    int rank = 0;
#ifdef WITH_MPI
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
#endif
    long sum = 0;
    for (long i = 0; i < STEPS; i++)
        sum += step(i);
#ifdef WITH_MPI
    printf("rewrite: rank %d sum %ld\n", rank, sum);
    fflush(stdout);
    MPI_Barrier(MPI_COMM_WORLD);
#else
    printf("rewrite: sum %ld\n", sum);
#endif
    if (argc > 1 && strcmp(argv[1], "rewrite") == 0)
        rewrite_title(argc, argv);
#ifdef WITH_MPI
    MPI_Finalize();
#endif
    (void)rank;
    return 0;
}
