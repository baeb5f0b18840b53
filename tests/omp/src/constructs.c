/*
 * constructs.c - exact counts for the OpenMP event sources: REPS times a
 * parallel region with two single constructs (one execution each per
 * region), an explicit barrier (one per thread and region), a dynamic loop
 * (its end barrier), NTASK tasks created by one thread and a taskwait, a
 * named critical section nested in an unnamed one, a nest lock taken twice,
 * omp_test_lock, and a nested parallel region (a team of one unless
 * OMP_MAX_ACTIVE_LEVELS > 1); then REPS combined `parallel for
 * schedule(dynamic)` and `parallel sections`.  The output depends only on
 * REPS, NTASK and the team size.
 */
#include <mpi.h>
#include <omp.h>
#include <stdio.h>

#define REPS 5
#define NTASK 8
#define N 64

int main(int argc, char **argv)
{
    int provided, rank, nt = 0;
    long sum = 0, tasks = 0, crit = 0, nested = 0, singles = 0, tested = 0;
    long nlocked = 0;   /* not crit: the critical section and the lock race */
    long loop[N] = {0}, sec[2] = {0};
    omp_nest_lock_t nl;
    omp_lock_t tl;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    omp_init_nest_lock(&nl);
    omp_init_lock(&tl);
    for (int r = 0; r < REPS; r++) {
#pragma omp parallel reduction(+ : sum) /* MARK:con-region */
        {
#pragma omp single /* MARK:con-single1 */
            singles++;
#pragma omp single nowait /* MARK:con-single2 */
            {
                singles++;
                nt = omp_get_num_threads();
            }
#pragma omp barrier /* MARK:con-barrier */
#pragma omp for schedule(dynamic, 1) /* MARK:con-dyn */
            for (int i = 0; i < N; i++)
                sum += i;
#pragma omp single /* MARK:con-tasks */
            {
                for (int k = 0; k < NTASK; k++) {
#pragma omp task /* MARK:con-task */
                    {
#pragma omp atomic
                        tasks++;
                    }
                }
#pragma omp taskwait /* MARK:con-taskwait */
            }
#pragma omp critical /* MARK:con-crit-outer */
            {
#pragma omp critical(inner) /* MARK:con-crit-inner */
                crit++;
            }
            omp_set_nest_lock(&nl); /* MARK:con-nest-lock */
            omp_set_nest_lock(&nl);
            nlocked++;
            omp_unset_nest_lock(&nl);
            omp_unset_nest_lock(&nl);
            while (!omp_test_lock(&tl)) /* MARK:con-test-lock */
                ;
            tested++;
            omp_unset_lock(&tl);
#pragma omp parallel num_threads(2) /* MARK:con-nested */
            {
#pragma omp atomic
                nested++;
            }
        }
#pragma omp parallel for schedule(dynamic, 4) /* MARK:con-pfor */
        for (int i = 0; i < N; i++)
            loop[i]++;
#pragma omp parallel sections /* MARK:con-psections */
        {
#pragma omp section
            sec[0]++;
#pragma omp section
            sec[1]++;
        }
    }
    omp_destroy_lock(&tl);
    omp_destroy_nest_lock(&nl);
    long lsum = 0;
    for (int i = 0; i < N; i++)
        lsum += loop[i];
    if (rank == 0)
        printf("constructs: %d threads, sum %ld, singles %ld, tasks %ld, crit %ld, "
               "tested %ld, nested %s, loop %ld, sections %ld %ld\n",
               nt, sum, singles, tasks, crit + nlocked, tested,
               nested >= (long)REPS * nt ? "ok" : "short", lsum, sec[0], sec[1]);
    MPI_Finalize();
    return 0;
}
