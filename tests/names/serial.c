/*
 * serial.c - a program without MPI that writes lines of its own to stdout
 * and stderr (tests/names/run.sh): with HPROF_SUMMARY=off, stderr must be
 * exactly these lines, however many runs start in the same second.
 * Ground truth: STEPS calls of step().
 */
#include <stdio.h>

#define STEPS 1000

static volatile long sink;

__attribute__((noinline)) static void step(long i)
{
    sink += i;
}

int main(void)
{
    for (long i = 0; i < STEPS; i++)
        step(i);
    printf("serial: %d steps\n", STEPS);
    fprintf(stderr, "serial: the program's own stderr line\n");
    return 0;
}
