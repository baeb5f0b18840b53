/*
 * nesting.c - OMPT constructs with a body are frames around the records
 * made in it (tests/ompt/run.sh).  One region of NT = 2 threads (1 rank):
 *  - a worksharing loop, schedule(static, 1), of NT iterations: each
 *    thread runs one, which takes a critical section held HOLD_MS, inside
 *    which a user region "in-critical" of INNER_MS;
 *  - a dynamic loop with nowait of DYN iterations, each a user region
 *    "in-dynamic" of DYN_MS;
 *  - a single whose body makes an undeferred task (if(0): it runs at
 *    once, on the thread that makes it) of a user region "in-task" of
 *    TASK_MS;
 *  - a master construct with a user region "in-master" of MASTER_MS.
 * Ground truth, per node (parent -> child), counts over the threads:
 *   parallel -> loop@nest-loop        NT (one per thread)
 *   loop@nest-loop -> critical         NT, HOLD_MS each
 *   loop@nest-loop -> critical wait    NT (0 and ~HOLD_MS)
 *   critical -> in-critical            NT, INNER_MS each
 *   parallel -> loop@nest-dynamic      NT; -> in-dynamic DYN in all
 *   parallel -> single                 1, >= TASK_MS
 *   single -> task create, single -> task   1 each, the task TASK_MS
 *   task -> in-task                    1, TASK_MS
 *   parallel -> master -> in-master    1 each, MASTER_MS
 * and no record of these constructs anywhere else.  Built plain too: the
 * user API is then reached through weak references.
 *
 * Its own measurement (tests/omp/src/truth.h, per thread) of the times
 * above, which load stretches: "critical" (first to last statement inside
 * the critical section), "task" and "master" (likewise in their bodies),
 * and each user region's spin: "in-critical", "in-dynamic", "in-task",
 * "in-master".
 */
#include <mpi.h>
#include <omp.h>
#include <stdio.h>
#include <time.h>

#include "hprof.h"
#include "../../omp/src/truth.h"

#pragma weak hprof_region_begin
#pragma weak hprof_region_end

#define NT 2
#define HOLD_MS 20
#define INNER_MS 10
#define DYN 6
#define DYN_MS 2
#define TASK_MS 30
#define MASTER_MS 10

static volatile double sink;

/* Busy for ms milliseconds of wall time. */
static void spin(int ms)
{
    struct timespec a, b;
    double x = 0;
    clock_gettime(CLOCK_MONOTONIC, &a);
    do {
        for (int i = 0; i < 1000; i++)
            x += i * 0.5;
        clock_gettime(CLOCK_MONOTONIC, &b);
    } while ((b.tv_sec - a.tv_sec) * 1000.0 + (b.tv_nsec - a.tv_nsec) / 1e6 < ms);
    sink = x;
}

enum { CRITICAL, TASK, MASTER, IN_CRITICAL, IN_DYNAMIC, IN_TASK, IN_MASTER };
static const char *const truth_names[] = {"critical",    "task",    "master", "in-critical",
                                          "in-dynamic", "in-task", "in-master"};

/* A user region of ms milliseconds (no region without hprof), timed as
 * quantity q. */
static void region(const char *name, int ms, int q)
{
    if (hprof_region_begin)
        hprof_region_begin(name);
    double t0 = truth_now();
    spin(ms);
    truth_add(q, omp_get_thread_num(), truth_now() - t0);
    if (hprof_region_end)
        hprof_region_end(name);
}

int main(int argc, char **argv)
{
    int provided, rank, crit = 0, dyn = 0, tasks = 0, masters = 0;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
#pragma omp parallel num_threads(NT) /* MARK:nest-region */
    {
#pragma omp for schedule(static, 1) /* MARK:nest-loop */
        for (int i = 0; i < NT; i++) {
#pragma omp critical /* MARK:nest-critical */
            {
                double t0 = truth_now();
                spin(HOLD_MS - INNER_MS);
                region("in-critical", INNER_MS, IN_CRITICAL);
                crit++;
                truth_add(CRITICAL, omp_get_thread_num(), truth_now() - t0);
            }
        }
#pragma omp for schedule(dynamic) nowait /* MARK:nest-dynamic */
        for (int i = 0; i < DYN; i++) {
            region("in-dynamic", DYN_MS, IN_DYNAMIC);
#pragma omp atomic
            dyn++;
        }
#pragma omp single /* MARK:nest-single */
        {
#pragma omp task if (0) /* MARK:nest-task */
            {
                double t0 = truth_now();
                region("in-task", TASK_MS, IN_TASK);
                tasks++;
                truth_add(TASK, omp_get_thread_num(), truth_now() - t0);
            }
        }
#pragma omp master /* MARK:nest-master */
        {
            double t0 = truth_now();
            region("in-master", MASTER_MS, IN_MASTER);
            masters++;
            truth_add(MASTER, omp_get_thread_num(), truth_now() - t0);
        }
    }
    if (rank == 0)
        printf("nesting: critical %d, dynamic %d, tasks %d, master %d\n", crit, dyn, tasks, masters);
    truth_write(rank, truth_names, 7);
    MPI_Finalize();
    return 0;
}
