/*
 * recursion.c - ground truth for recursion folding (tests/tiers/run.sh):
 * direct recursion (fib) and mutual recursion (is_even/is_odd).
 *
 * Known counts per rank: fib(FIB_N) makes 2*F(FIB_N+1)-1 calls; each of the
 * EO_REPS calls is_even(EO_N) (EO_N even) makes EO_N/2+1 calls of is_even
 * and EO_N/2 calls of is_odd.  The program measures the wall time of the
 * outermost fib call and of all EO_REPS outermost is_even calls with
 * MPI_Wtime and prints it on stderr as "recursion-wall: fib SECONDS" and
 * "recursion-wall: even SECONDS" (stderr, so stdout stays identical with
 * and without instrumentation); the profile's inclusive time of the
 * outermost activation must equal it.
 *
 * usage: mpirun -np N recursion
 */
#include <mpi.h>
#include <stdio.h>

#define FIB_N 30
#define EO_N 10000
#define EO_REPS 200

static long fib(int n) /* proc-fib */
{
    if (n < 2)
        return n;
    return fib(n - 1) + fib(n - 2); /* fib-self */
}

static int is_odd(unsigned n);

static int is_even(unsigned n) /* proc-even */
{
    if (n == 0)
        return 1;
    return is_odd(n - 1); /* even-calls-odd */
}

static int is_odd(unsigned n) /* proc-odd */
{
    if (n == 0)
        return 0;
    return is_even(n - 1); /* odd-calls-even */
}

int main(int argc, char **argv)
{
    int rank, evens = 0;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);

    double t0 = MPI_Wtime();
    long f = fib(FIB_N); /* main-calls-fib */
    double t_fib = MPI_Wtime() - t0;

    t0 = MPI_Wtime();
    for (int i = 0; i < EO_REPS; i++)
        evens += is_even(EO_N); /* main-calls-even */
    double t_even = MPI_Wtime() - t0;

    fprintf(stderr, "recursion-wall: rank %d fib %.9f\n", rank, t_fib);
    fprintf(stderr, "recursion-wall: rank %d even %.9f\n", rank, t_even);
    long sums[2] = {f, evens}, tot[2];
    MPI_Reduce(sums, tot, 2, MPI_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
    if (rank == 0)
        printf("recursion: fib(%d) summed over ranks %ld, even results %ld\n", FIB_N, tot[0],
               tot[1]);
    MPI_Finalize();
    return 0;
}
