/*
 * regions.c - a bench kernel shaped like LULESH's time step: many short
 * `parallel for` regions in a row (LULESH -s 30 -i 100 forks 49,200), each
 * a few microseconds of streaming arithmetic over arrays of doubles, one
 * of every four a reduction.  OpenMP only: no MPI, run without mpirun.  It
 * stresses what a region costs on its own: the fork, the join and the
 * implicit barrier at the end, under OMP_WAIT_POLICY=passive (threads
 * that wait sleep in the kernel) as much as under active waiting.
 *
 * Output: "kernel regions SECONDS" (the steps), "regions regions R" (the
 * regions forked, counted by the program: 4 per step) and "checksum
 * regions H" (the reductions' sum, identical plain and instrumented).
 * usage: regions [STEPS]   (default 12,500 steps: 50,000 regions)
 */
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>

#define N 4096

static double x[N], v[N], f[N];

/* step - one time step: forces, velocities, positions, and the energy
 * (four regions); *regions counts them. */
static double step(double dt, long *regions)
{
    double energy = 0;
#pragma omp parallel for
    for (int i = 0; i < N; i++)
        f[i] = -0.5 * x[i] - 0.01 * v[i];
#pragma omp parallel for
    for (int i = 0; i < N; i++)
        v[i] += dt * f[i];
#pragma omp parallel for
    for (int i = 0; i < N; i++)
        x[i] += dt * v[i];
#pragma omp parallel for reduction(+ : energy)
    for (int i = 0; i < N; i++)
        energy += 0.5 * (v[i] * v[i] + 0.5 * x[i] * x[i]);
    *regions += 4;
    return energy;
}

int main(int argc, char **argv)
{
    long steps = argc > 1 ? atol(argv[1]) : 12500, regions = 0;
    for (int i = 0; i < N; i++) {
        x[i] = (double)(i % 97) / 97.0;
        v[i] = 0;
    }
    double sum = 0, t0 = omp_get_wtime();
    for (long s = 0; s < steps; s++)
        sum += step(1e-3, &regions);
    double t = omp_get_wtime() - t0;
    printf("kernel regions %.6f\n", t);
    printf("regions regions %ld\n", regions);
    printf("checksum regions %.6e\n", sum);
    return 0;
}
