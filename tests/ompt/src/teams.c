/*
 * teams.c - regions clang forks otherwise than through a plain
 * __kmpc_fork_call (tests/ompt/run.sh): a host teams construct
 * (__kmpc_fork_teams: libomp begins a team per league member, reported
 * with no code address) and parallel regions with an if clause (clang 14:
 * __kmpc_fork_call when true, __kmpc_serialized_parallel and a direct call
 * of the outlined function when false; LLVM 17 calls __kmpc_fork_call_if).
 * Each region is keyed at its pragma's line.  Ground truth, REPS times
 * each, counts over the threads:
 *   teams num_teams(TEAMS)   MARK:teams-region  "parallel" TEAMS x REPS
 *   parallel if (true)       MARK:if-true        "parallel" NT x REPS
 *   parallel if (false)      MARK:if-false       "parallel" REPS
 * with NT = 2 threads (OMP_NUM_THREADS), and no other "parallel" site.
 */
#include <mpi.h>
#include <omp.h>
#include <stdio.h>

#define REPS 3
#define TEAMS 2

int main(int argc, char **argv)
{
    int provided, rank, teams = 0, on = 0, off = 0;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    int yes = argc > 0, no = argc > 1000;
    for (int r = 0; r < REPS; r++) {
#pragma omp teams num_teams(TEAMS) reduction(+ : teams) /* MARK:teams-region */
        teams += omp_get_team_num() + 1;
#pragma omp parallel if (yes) reduction(+ : on) /* MARK:if-true */
        on += omp_get_thread_num() + 1;
#pragma omp parallel if (no) reduction(+ : off) /* MARK:if-false */
        off += omp_get_num_threads();
    }
    if (rank == 0)
        printf("teams: teams %d, if-true %d, if-false %d\n", teams, on, off);
    MPI_Finalize();
    return 0;
}
