/*
 * force.c - a bench kernel shaped like CoMD's neighbour-list force loop
 * (ljForce/eamForce): atoms binned in cells, each step an MPI halo
 * exchange of the boundary cell layers with the neighbour ranks, then an
 * OpenMP parallel loop over the atoms, a middle loop over the 27
 * neighbour cells and an innermost call-free loop over the atoms of one
 * cell (ATOMS_PER_CELL = 4: entered tens of millions of times, a few
 * iterations each), plus a tiny pair-potential function called once per
 * (atom, neighbour cell), and a tiny static function of a header
 * (force.h's zero_vec3, CoMD's zeroReal3 of mytype.h) called once per
 * atom.  It stresses what CoMD's `for@eam.c:269` does to a profiler: a
 * hot innermost loop and hot tiny leaf procedures of the file and of a
 * header.
 *
 * Layout: each rank owns NX x NY x NZ cells (a slab in x, periodic in y and
 * z), ranks in a ring in x (1 rank: its own neighbour).  Atoms never change
 * cells (the moves are tiny), so the cell lists are fixed.
 *
 * Output (rank 0): "kernel force SECONDS" (the slowest rank's time of the
 * steps, halo exchange included, set-up and checksum excluded) and
 * "checksum force E" (the total energy, summed in a fixed order: identical
 * plain and instrumented, for any number of threads).
 * usage: force [STEPS]   (default 150; run with 2 ranks)
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#define NX 8
#define NY 16
#define NZ 16
#define ATOMS_PER_CELL 4
#define CUTOFF2 2.5
#define DT 1e-5

#include "force.h"   /* vec3, zero_vec3 */

/* Cells with one ghost layer on each side in x: index x in [0, NX + 2). */
static vec3 pos[NX + 2][NY][NZ][ATOMS_PER_CELL];
static vec3 frc[NX][NY][NZ][ATOMS_PER_CELL];
static double energy[NX][NY][NZ][ATOMS_PER_CELL];

/* lj_scale - the pair potential's energy from the summed inverse powers
 * of one neighbour cell (the tiny leaf procedure). */
static double lj_scale(double s6, double s12)
{
    return 4.0 * (s12 - s6);
}

/* place_atoms - a jittered fcc lattice, deterministic for a rank. */
static void place_atoms(int rank)
{
    static const double fcc[ATOMS_PER_CELL][3] = {
        {0.35, 0.35, 0.35}, {1.15, 1.15, 0.35}, {1.15, 0.35, 1.15}, {0.35, 1.15, 1.15}};
    unsigned long s = 12345u + (unsigned long)rank * 7919u;
    for (int x = 1; x <= NX; x++)
        for (int y = 0; y < NY; y++)
            for (int z = 0; z < NZ; z++)
                for (int a = 0; a < ATOMS_PER_CELL; a++) {
                    double j[3];
                    for (int k = 0; k < 3; k++) {
                        s = s * 6364136223846793005ul + 1442695040888963407ul;
                        j[k] = (double)(s >> 40) / (double)(1ul << 24);
                    }
                    pos[x][y][z][a].x = (x - 1) * 1.6 + fcc[a][0] + 0.1 * j[0];
                    pos[x][y][z][a].y = y * 1.6 + fcc[a][1] + 0.1 * j[1];
                    pos[x][y][z][a].z = z * 1.6 + fcc[a][2] + 0.1 * j[2];
                }
}

/* halo_exchange - the first and last owned layers to the ghost layers of
 * the left and right neighbours (x shifted by the slab width). */
static void halo_exchange(int rank, int size)
{
    int left = (rank + size - 1) % size, right = (rank + 1) % size;
    int n = NY * NZ * ATOMS_PER_CELL * 3;
    MPI_Sendrecv(pos[1], n, MPI_DOUBLE, left, 1, pos[NX + 1], n, MPI_DOUBLE, right, 1,
                 MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Sendrecv(pos[NX], n, MPI_DOUBLE, right, 2, pos[0], n, MPI_DOUBLE, left, 2,
                 MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    double w = NX * 1.6;
    for (int y = 0; y < NY; y++)
        for (int z = 0; z < NZ; z++)
            for (int a = 0; a < ATOMS_PER_CELL; a++) {
                pos[NX + 1][y][z][a].x += w;
                pos[0][y][z][a].x -= w;
            }
}

/* atom_force - force and energy of atom a of owned cell (x, y, z) from
 * the atoms of the 27 neighbour cells (minimum image in y and z). */
static void atom_force(int x, int y, int z, int a)
{
    const vec3 p = pos[x][y][z][a];
    vec3 fa;
    double e = 0;
    zero_vec3(&fa);
    for (int nb = 0; nb < 27; nb++) {
        int cx = x + nb / 9 - 1, cy = (y + (nb / 3) % 3 - 1 + NY) % NY, cz = (z + nb % 3 - 1 + NZ) % NZ;
        double sy = (y + (nb / 3) % 3 - 1 < 0) ? -NY * 1.6 : (y + (nb / 3) % 3 - 1 >= NY) ? NY * 1.6 : 0;
        double sz = (z + nb % 3 - 1 < 0) ? -NZ * 1.6 : (z + nb % 3 - 1 >= NZ) ? NZ * 1.6 : 0;
        const vec3 *c = pos[cx][cy][cz];
        double s6 = 0, s12 = 0;
        for (int b = 0; b < ATOMS_PER_CELL; b++) {
            double dx = p.x - c[b].x, dy = p.y - c[b].y - sy, dz = p.z - c[b].z - sz;
            double r2 = dx * dx + dy * dy + dz * dz;
            if (r2 > CUTOFF2 || r2 == 0.0)
                continue;
            double i2 = 1.0 / r2, i6 = i2 * i2 * i2;
            double f = (48.0 * i6 * i6 - 24.0 * i6) * i2;
            fa.x += f * dx;
            fa.y += f * dy;
            fa.z += f * dz;
            s6 += i6;
            s12 += i6 * i6;
        }
        e += lj_scale(s6, s12);
    }
    frc[x - 1][y][z][a] = fa;
    energy[x - 1][y][z][a] = 0.5 * e;
}

/* compute_forces - the parallel loop over the owned atoms. */
static void compute_forces(void)
{
#pragma omp parallel for schedule(static)
    for (int i = 0; i < NX * NY * NZ * ATOMS_PER_CELL; i++) {
        int a = i % ATOMS_PER_CELL, c = i / ATOMS_PER_CELL;
        atom_force(c / (NY * NZ) + 1, (c / NZ) % NY, c % NZ, a);
    }
}

/* advance - a tiny, clamped move of every owned atom (it stays in its cell). */
static void advance(void)
{
    for (int x = 0; x < NX; x++)
        for (int y = 0; y < NY; y++)
            for (int z = 0; z < NZ; z++)
                for (int a = 0; a < ATOMS_PER_CELL; a++) {
                    vec3 *p = &pos[x + 1][y][z][a];
                    const vec3 f = frc[x][y][z][a];
                    p->x += DT * (f.x > 1 ? 1 : f.x < -1 ? -1 : f.x);
                    p->y += DT * (f.y > 1 ? 1 : f.y < -1 ? -1 : f.y);
                    p->z += DT * (f.z > 1 ? 1 : f.z < -1 ? -1 : f.z);
                }
}

/* total_energy - the owned atoms' energy, summed in a fixed order. */
static double total_energy(void)
{
    double e = 0;
    for (int x = 0; x < NX; x++)
        for (int y = 0; y < NY; y++)
            for (int z = 0; z < NZ; z++)
                for (int a = 0; a < ATOMS_PER_CELL; a++)
                    e += energy[x][y][z][a];
    return e;
}

int main(int argc, char **argv)
{
    int provided, rank, size;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int steps = argc > 1 ? atoi(argv[1]) : 150;
    place_atoms(rank);
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = MPI_Wtime();
    for (int s = 0; s < steps; s++) {
        halo_exchange(rank, size);
        compute_forces();
        advance();
    }
    double t = MPI_Wtime() - t0, tmax = 0, e = total_energy(), esum = 0;
    MPI_Reduce(&t, &tmax, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
    MPI_Reduce(&e, &esum, 1, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
    if (rank == 0) {
        printf("kernel force %.6f\n", tmax);
        printf("checksum force %.10e\n", esum);
    }
    MPI_Finalize();
    return 0;
}
