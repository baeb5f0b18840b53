/*
 * teams.c - regions clang forks otherwise than through a plain
 * __kmpc_fork_call, or whose outlined function starts with inlined code
 * (tests/ompt/run.sh): a host teams construct (__kmpc_fork_teams: libomp
 * begins a team per league member, reported with no code address), a
 * parallel region in each team (libomp reports it at an address of its
 * own; its outlined function is a tail call), parallel regions with an if
 * clause (clang 14: __kmpc_fork_call when true, __kmpc_serialized_parallel
 * and a direct call of the outlined function when false; LLVM 17 calls
 * __kmpc_fork_call_if), and a region whose body is an inlined call of a
 * function defined above main.  Each region is keyed at its pragma's line
 * and named after main.  Ground truth, REPS times each, counts over the
 * threads, NT = 2 threads (OMP_NUM_THREADS):
 *   teams num_teams(TEAMS)   MARK:teams-region  "parallel" TEAMS x REPS
 *   parallel in each team    MARK:teams-inner   "parallel" >= TEAMS x REPS
 *                            (libomp gives each team 1 or more threads)
 *   parallel if (true)       MARK:if-true       "parallel" NT x REPS
 *   parallel if (false)      MARK:if-false      "parallel" REPS
 *   parallel, inlined body   MARK:inl-region    "parallel" NT x REPS
 * and no other "parallel" site.
 */
#include <mpi.h>
#include <omp.h>
#include <stdio.h>

#define REPS 3
#define TEAMS 2

static int inlined;

static void note(int *v)
{
    __atomic_fetch_add(v, 1, __ATOMIC_RELAXED);
}

int main(int argc, char **argv)
{
    int provided, rank, teams = 0, on = 0, off = 0, inner = 0;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    int yes = argc > 0, no = argc > 1000;
    for (int r = 0; r < REPS; r++) {
#pragma omp teams num_teams(TEAMS) reduction(+ : teams) /* MARK:teams-region */
        {
            teams += omp_get_team_num() + 1;
#pragma omp parallel num_threads(2) /* MARK:teams-inner */
            note(&inner);
        }
#pragma omp parallel if (yes) reduction(+ : on) /* MARK:if-true */
        on += omp_get_thread_num() + 1;
#pragma omp parallel if (no) reduction(+ : off) /* MARK:if-false */
        off += omp_get_num_threads();
#pragma omp parallel /* MARK:inl-region */
        note(&inlined);
    }
    if (rank == 0)
        printf("teams: teams %d, inner %s, if-true %d, if-false %d, inlined %d\n", teams,
               inner >= TEAMS * REPS ? "ok" : "short", on, off, inlined);
    MPI_Finalize();
    return 0;
}
