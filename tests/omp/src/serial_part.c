/*
 * serial_part.c - ground truth for the loss of parallelism: the master
 * spins SERIAL_MS outside any parallel region, then a team of NT threads
 * spins PAR_MS each in one region.  While the master runs alone the other
 * NT - 1 threads idle: the loss is about SERIAL_MS x (NT - 1).
 */
#include <mpi.h>
#include <omp.h>
#include <stdio.h>
#include <time.h>

#define SERIAL_MS 200
#define PAR_MS 50

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
    int provided, nt = 0;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided);
    spin_ms(SERIAL_MS);
#pragma omp parallel /* MARK:sp-region */
    {
        spin_ms(PAR_MS);
#pragma omp single
        nt = omp_get_num_threads();
    }
    printf("serial_part: %d threads\n", nt);
    MPI_Finalize();
    return 0;
}
