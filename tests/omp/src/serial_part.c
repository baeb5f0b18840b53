/*
 * serial_part.c - ground truth for the loss of parallelism: the master
 * spins SERIAL_MS outside any parallel region, then a team of NT threads
 * spins PAR_MS each in one region.  While the master runs alone the other
 * NT - 1 threads idle: the loss is about SERIAL_MS x (NT - 1).
 *
 * Its own measurement (truth.h): "alone" on thread 0, the master's time
 * from main's start to the pragma and from after the region to before
 * MPI_Finalize (MPI_Init_thread and the serial spin in it); "work" per
 * thread, its spin inside the region.
 */
#include <mpi.h>
#include <omp.h>
#include <stdio.h>
#include <time.h>

#include "truth.h"

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

enum { ALONE, WORK };
static const char *const truth_names[] = {"alone", "work"};

int main(int argc, char **argv)
{
    int provided, nt = 0, rank;
    double t0 = truth_now();
    MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    spin_ms(SERIAL_MS);
    double alone = truth_now() - t0;
#pragma omp parallel /* MARK:sp-region */
    {
        double w0 = truth_now();
        spin_ms(PAR_MS);
        truth_add(WORK, omp_get_thread_num(), truth_now() - w0);
#pragma omp single
        nt = omp_get_num_threads();
    }
    t0 = truth_now();
    printf("serial_part: %d threads\n", nt);
    truth_add(ALONE, 0, alone + truth_now() - t0);
    truth_write(rank, truth_names, 2);
    MPI_Finalize();
    return 0;
}
