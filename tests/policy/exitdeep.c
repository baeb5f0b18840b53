/*
 * exitdeep.c - exit() deep inside calls made from a loop (issue 25, Lua's
 * os.exit in a C function called from the interpreter's loop): the call
 * statement in main's loop is armed as a fast site after its first calls
 * (its probes open and close it inline), so the activation exit() leaves
 * open is one the runtime's own table does not hold.  Ground truth: main
 * calls step() N_STEPS times (MARK: stepcall), the last call leads to
 * leave() (MARK: leavecall), which spins and calls exit(0); every call,
 * the last one too, counts, and the open ones hold leave()'s time.
 */
#include <stdio.h>
#include <stdlib.h>

#define N_STEPS 5

__attribute__((noinline)) static void leave(void)
{
    volatile double s = 0;
    for (int i = 0; i < 2000000; i++)
        s += i;
    printf("leaving after %d steps\n", N_STEPS);
    fflush(stdout);
    exit(0);
}

__attribute__((noinline)) static void step(int n)
{
    volatile int x = n;
    if (x == N_STEPS - 1)
        leave(); /* MARK: leavecall */
}

int main(void)
{
    for (int i = 0; i < N_STEPS; i++)
        step(i); /* MARK: stepcall */
    return 1;
}
