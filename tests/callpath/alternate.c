/*
 * alternate.c - tier-0 call paths (tests/callpath/run.sh) of one MPI call
 * site reached through different frames in turn, where a walk remembered
 * from the last call of the site (callpath.c's memo) would be wrong if it
 * were reused without checking the stack: two callers whose frames lie at
 * the same stack addresses (phase_a, phase_b: same depth, same frame
 * size, called in turn from one loop of main), and a recursion reaching
 * the site at depths 1 and 2 in turn.
 * Ground truth per rank, argument N (default 20), HPROF_CALLPATH=3: the
 * MPI_Allreduce (MARK:alt-allreduce) in exchange() is called N times under
 * main -> phase_a (MARK:alt-main-a, MARK:alt-a-call), N times under each
 * of main -> phase_b at two lines (MARK:alt-main-b, MARK:alt-main-b2;
 * MARK:alt-b-call), N times under
 * main -> descend (MARK:alt-main-d, MARK:alt-d-call: depth 1) and N times
 * under descend -> descend (MARK:alt-d-rec, MARK:alt-d-call: depth 2).
 * Rank 0 prints the calls each function made, as counted here.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

static volatile int calls_a, calls_b, calls_d1, calls_d2;
static int total;

static __attribute__((noinline)) void exchange(void)
{
    int one = 1, sum = 0;
    MPI_Allreduce(&one, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD); /* MARK:alt-allreduce */
    total += sum;
}

static __attribute__((noinline)) void phase_a(void)
{
    exchange(); /* MARK:alt-a-call */
    calls_a++;
}

static __attribute__((noinline)) void phase_b(void)
{
    exchange(); /* MARK:alt-b-call */
    calls_b++;
}

static __attribute__((noinline)) void descend(int depth)
{
    if (depth > 1) {
        descend(depth - 1); /* MARK:alt-d-rec */
        calls_d2++;
    } else {
        exchange(); /* MARK:alt-d-call */
        calls_d1++;
    }
}

int main(int argc, char **argv)
{
    int rank, n = argc > 1 ? atoi(argv[1]) : 20;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    for (int i = 0; i < n; i++) {
        phase_a(); /* MARK:alt-main-a */
        phase_b(); /* MARK:alt-main-b */
        phase_b(); /* MARK:alt-main-b2 */
        descend(1); /* MARK:alt-main-d */
        descend(2); /* MARK:alt-main-d2 */
    }
    if (rank == 0)
        printf("alternate: a %d b %d depth1 %d depth2 %d\n", calls_a, calls_b,
               calls_d1 - calls_d2, calls_d2);
    MPI_Finalize();
    return total > 0 ? 0 : 1;
}
