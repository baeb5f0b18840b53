/*
 * fork_if.c - a region forked through __kmpc_fork_call_if, the entry
 * point LLVM 17 and later emit for a parallel region with an if clause
 * (clang 14 does not: tests/ompt/src/teams.c has its if() regions).  The
 * call is written out here, so this program is built with -lhprof only
 * (libomp 14 has no __kmpc_fork_call_if: libhprof's runs the region
 * through the older entry points).  Ground truth, 2 threads
 * (OMP_NUM_THREADS): the region body() forked once with the condition
 * true (2 threads) and once false (1 thread): "parallel" 3 times over the
 * threads (2 on thread 0), keyed by the outlined function body() (the
 * line of its first instruction, its one statement at MARK:fif-body), as
 * clang's regions are; output "fork_if: 1 2".
 */
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>

typedef void (*microtask)(int32_t *gtid, int32_t *tid, ...);
void __kmpc_fork_call_if(void *loc, int32_t argc, microtask fn, int32_t cond, void *args);

static int hits[2];

static void body(int32_t *gtid __attribute__((unused)), int32_t *tid __attribute__((unused)),
                 int *which)
{
    __atomic_fetch_add(&hits[*which], 1, __ATOMIC_RELAXED); /* MARK:fif-body */
}

int main(int argc, char **argv)
{
    int one = 1, zero = 0, provided, rank;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    __kmpc_fork_call_if(NULL, 1, (microtask)body, 1, &one);
    __kmpc_fork_call_if(NULL, 1, (microtask)body, 0, &zero);
    if (rank == 0)
        printf("fork_if: %d %d\n", hits[0], hits[1]);
    MPI_Finalize();
    return 0;
}
