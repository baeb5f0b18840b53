/*
 * ordered.c - ground truth for ordered blocks, atomics and flushes.  A team
 * of NT threads runs ITERS iterations of an ordered loop with
 * schedule(static, 1), each holding the ordered block HOLD_MS and doing
 * nothing outside it: the holds sum to ITERS x HOLD_MS; iteration i waits
 * for the min(i, NT - 1) iterations before it, so the waits sum to HOLD_MS
 * x sum over i < ITERS of min(i, NT - 1) (the threads meet at a barrier
 * first).  Then thread t makes ATOMICS x (t + 1) atomic updates of a long
 * double (not lock-free: gcc calls GOMP_atomic_start/end) and FLUSHES x
 * (t + 1) flushes.  The output depends on NT only.
 */
#include <mpi.h>
#include <omp.h>
#include <stdio.h>
#include <time.h>

#define HOLD_MS 10
#define ITERS 20
#define ATOMICS 100
#define FLUSHES 10

static void spin_ms(double ms)
{
    struct timespec a, b;
    clock_gettime(CLOCK_MONOTONIC, &a);
    do
        clock_gettime(CLOCK_MONOTONIC, &b);
    while ((double)(b.tv_sec - a.tv_sec) * 1e3 + (double)(b.tv_nsec - a.tv_nsec) / 1e6 < ms);
}

int main(int argc, char **argv)
{
    int provided, rank, nt = 0, next = 0, in_order = 1;
    long double sum = 0;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
#pragma omp parallel /* MARK:ord-region */
    {
        int t = omp_get_thread_num();
#pragma omp single
        nt = omp_get_num_threads();
#pragma omp for ordered schedule(static, 1)
        for (int i = 0; i < ITERS; i++) {
#pragma omp ordered /* MARK:ord-ordered */
            {
                spin_ms(HOLD_MS);
                in_order &= i == next;
                next++;
            }
        }
        for (int k = 0; k < ATOMICS * (t + 1); k++) {
#pragma omp atomic /* MARK:ord-atomic */
            sum += 1.0L;
        }
        for (int k = 0; k < FLUSHES * (t + 1); k++) {
#pragma omp flush /* MARK:ord-flush */
        }
    }
    if (rank == 0)
        printf("ordered: %d threads, %d iterations in order %d, atomic sum %.0Lf\n", nt, next,
               in_order, sum);
    MPI_Finalize();
    return 0;
}
