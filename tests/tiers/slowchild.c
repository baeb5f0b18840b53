/*
 * slowchild.c - ground truth for the time of a throttled procedure
 * (tests/tiers/run.sh): `step` is called STEPS times (hot and tiny:
 * throttled, counted exactly) and calls `slow` every SLOW_EVERY-th time,
 * which spins SLOW_US microseconds (never throttled).  A throttled step
 * must still hold all of slow's time: its inclusive time lies between the
 * time the program measured inside its slow calls and the wall time of the
 * loop of steps.  The program reports both on stderr:
 *     "slowchild: rank R loop SECONDS slow SECONDS"
 *
 * usage: mpirun -np N slowchild
 */
#include <mpi.h>
#include <stdio.h>
#include <time.h>

#define STEPS 1000000
#define SLOW_EVERY 1000
#define SLOW_US 20

/* The program's own clock inside slow's calls, from its first statement
 * to its last: within what hprof measures of them whatever the load (a
 * clock read around the call would also hold a preemption in the call's
 * path, which a throttled step's estimate does not see). */
static double slow_seconds;
static volatile unsigned sink;

static void slow(void) /* proc-slow */
{
    struct timespec t0, t;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    do
        clock_gettime(CLOCK_MONOTONIC, &t);
    while ((double)(t.tv_sec - t0.tv_sec) * 1e6 + (double)(t.tv_nsec - t0.tv_nsec) / 1e3 < SLOW_US);
    slow_seconds += (double)(t.tv_sec - t0.tv_sec) + (double)(t.tv_nsec - t0.tv_nsec) * 1e-9;
}

static void step(unsigned i) /* proc-step */
{
    sink += i;
    if (i % SLOW_EVERY == 0)
        slow(); /* call-slow */
}

int main(int argc, char **argv)
{
    int rank;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    double t0 = MPI_Wtime();
    for (unsigned i = 0; i < STEPS; i++) /* loop-steps */
        step(i); /* call-step */
    double loop = MPI_Wtime() - t0;
    fprintf(stderr, "slowchild: rank %d loop %.6f slow %.6f\n", rank, loop, slow_seconds);
    if (rank == 0)
        printf("steps %u\n", (unsigned)STEPS);
    MPI_Finalize();
    return 0;
}
