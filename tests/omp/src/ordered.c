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
 *
 * Its own measurement (truth.h, per thread): "ord_wait" from the start of
 * an iteration to the first statement inside its ordered block,
 * "ord_hold" from there to the end of the block's last statement; "work"
 * the thread's time in the region (first to last statement) less the
 * times it may wait: the ordered waits, the single with its barrier, and
 * the barrier after the loop.  That is the work column of hprof-query
 * --threads (region less waits): the loop has nowait and the barrier is
 * explicit, so that the time in libgomp's loop iteration calls (work for
 * hprof, and it may be long: libgomp hands on the ordered turn there) is
 * work for the program too.
 */
#include <mpi.h>
#include <omp.h>
#include <stdio.h>
#include <time.h>

#include "truth.h"

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

enum { ORD_WAIT, ORD_HOLD, WORK };
static const char *const truth_names[] = {"ord_wait", "ord_hold", "work"};

int main(int argc, char **argv)
{
    int provided, rank, nt = 0, next = 0, in_order = 1;
    long double sum = 0;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
#pragma omp parallel /* MARK:ord-region */
    {
        double first = truth_now(), waits = 0, mark;
        int t = omp_get_thread_num();
#pragma omp single
        nt = omp_get_num_threads();
        mark = truth_now();
        waits += mark - first;
#pragma omp for ordered schedule(static, 1) nowait
        for (int i = 0; i < ITERS; i++) {
            double t0 = truth_now(), t1, t2;
#pragma omp ordered /* MARK:ord-ordered */
            {
                t1 = truth_now();
                spin_ms(HOLD_MS);
                in_order &= i == next;
                next++;
                t2 = truth_now();
            }
            truth_add(ORD_WAIT, t, t1 - t0);
            truth_add(ORD_HOLD, t, t2 - t1);
            waits += t1 - t0;
        }
        mark = truth_now();
#pragma omp barrier
        waits += truth_now() - mark;
        for (int k = 0; k < ATOMICS * (t + 1); k++) {
#pragma omp atomic /* MARK:ord-atomic */
            sum += 1.0L;
        }
        for (int k = 0; k < FLUSHES * (t + 1); k++) {
#pragma omp flush /* MARK:ord-flush */
        }
        truth_add(WORK, t, truth_now() - first - waits);
    }
    if (rank == 0)
        printf("ordered: %d threads, %d iterations in order %d, atomic sum %.0Lf\n", nt, next,
               in_order, sum);
    truth_write(rank, truth_names, 3);
    MPI_Finalize();
    return 0;
}
