/*
 * shares.c - hprof integration test (tests/shares/run.sh): every share has
 * a denominator that nothing exceeds.  Built at tier 1
 * (-finstrument-functions) with OpenMP; 2 ranks x 2 threads.  main spins
 * PRE_MS=200 ms (spin, before MPI_Init: a slow start-up), then a parallel
 * region (shares-par) where each of the 2 threads spins PAR_MS=150 ms,
 * then an MPI_Barrier.
 * Ground truth per rank: wall >= 0.35 s (the window starts with the
 * process, so it covers the work before MPI_Init); main's time <= wall;
 * 2 threads record, so the run's thread time is 2 x wall per rank, the
 * root row of hprof-query carries it (100%), main's share of it is its
 * own time over it (about 50%) and no row exceeds 100%; the region's time
 * summed over its threads is about 2 x 150 ms per rank.  Prints "ok" on rank 0.  A loaded machine
 * stretches the spins and the gaps around main, so each rank prints its
 * own times on stderr: "shares: rank R main M s, region G s, spins S s"
 * (main from its start to before MPI_Finalize; the master's time around
 * the region; its 2 threads' spins summed).
 */
#include <mpi.h>
#include <omp.h>
#include <stdio.h>
#include <time.h>

#define PRE_MS 200
#define PAR_MS 150

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}

__attribute__((noinline)) static void spin(int ms)
{
    double end = now() + ms * 1e-3;
    while (now() < end)
        ;
}

int main(int argc, char **argv)
{
    int rank;
    double t0 = now(), spins = 0;
    spin(PRE_MS);
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    double r0 = now();
#pragma omp parallel num_threads(2) reduction(+ : spins) /* MARK:shares-par */
    {
        double s0 = now();
        spin(PAR_MS);
        spins += now() - s0;
    }
    double region = now() - r0;
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0)
        printf("ok\n");
    fprintf(stderr, "shares: rank %d main %.6f s, region %.6f s, spins %.6f s\n", rank, now() - t0,
            region, spins);
    MPI_Finalize();
    return 0;
}
