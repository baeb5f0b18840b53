/*
 * tests/live/live.c - ground truth for live snapshots (HPROF_LIVE,
 * tests/live/run.sh).  Every rank runs ITERS iterations (argv[1]): an
 * OpenMP parallel region of 2 threads, each spinning SPIN_MS (argv[2]) ms,
 * then one MPI_Allreduce (MARK:l-allreduce).  After each Allreduce rank 0
 * prints "iter N NS" (N iterations done, NS the CLOCK_REALTIME time in
 * ns), flushed: at any time T, its MPI_Allreduce count is the N of its
 * last line with NS <= T.  Each rank counts ITERS Allreduce calls and
 * ITERS parallel regions in all.  With argv[3] = FILE (not "-"), each rank
 * R writes its pid to FILE<R> before the first iteration (the test kills
 * ranks with SIGKILL).  With argv[4] = R, rank R spins 3 x SPIN_MS: it falls
 * behind, and the others wait for it in MPI_Allreduce.
 */
#include <string.h>
#include <mpi.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

static long long now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static double spin(double ms)
{
    double x = 0;
    long long end = now_ns() + (long long)(ms * 1e6);
    while (now_ns() < end)
        x += 1e-9;
    return x;
}

int main(int argc, char **argv)
{
    int rank, iters = argc > 1 ? atoi(argv[1]) : 60;
    int slow = argc > 4 ? atoi(argv[4]) : -1;
    double spin_ms = argc > 2 ? atof(argv[2]) : 20, sum = 0;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank == slow)
        spin_ms *= 3;
    if (argc > 3 && strcmp(argv[3], "-") != 0) {
        char name[4096];
        snprintf(name, sizeof name, "%s%d", argv[3], rank);
        FILE *f = fopen(name, "w");
        fprintf(f, "%d\n", (int)getpid());
        fclose(f);
    }
    for (int i = 1; i <= iters; i++) {
        double local = 0;
#pragma omp parallel num_threads(2) reduction(+ : local)
        local += spin(spin_ms);
        MPI_Allreduce(&local, &sum, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD); /* MARK:l-allreduce */
        if (rank == 0) {
            printf("iter %d %lld\n", i, now_ns());
            fflush(stdout);
        }
    }
    MPI_Finalize();
    return sum < 0;
}
