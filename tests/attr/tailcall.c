/*
 * tailcall.c - hprof integration test (tests/attr/run.sh): attribution of
 * MPI calls made through a wrapper that tail-calls MPI_Allreduce.  With
 * tailwrap.c, on exactly 2 ranks.  Ground truth, per rank:
 *   - sum_all (tailwrap.c) is called NA times at MARK:call-a and NB times
 *     at MARK:call-b; its MPI_Allreduce is one site at tailwrap.c
 *     MARK:tail-jmp in function sum_all, with NA + NB = 8 calls, one
 *     record of peer -1 ("all") per call, 16 bytes sent and received each;
 *     no MPI_Allreduce site at the lines of MARK:call-a or MARK:call-b;
 *   - MPI_Allreduce called directly at MARK:direct, ND = 2 times, in main,
 *     16 bytes each way per call;
 *   - max_of (tailwrap.c) called NM = 4 times at MARK:call-m: its
 *     MPI_Allreduce at tailwrap.c MARK:not-tail, in max_of, 4 calls, 8
 *     bytes each way per call;
 *   - one thread calls MPI: the MPI share is MPI time / wall.
 * Rank 0 prints one checksum line.
 */
#include <mpi.h>
#include <stdio.h>

#define NA 3
#define NB 5
#define ND 2
#define NM 4

void sum_all(double *x, int n);
double max_of(double x);

int main(int argc, char **argv)
{
    int rank, size;
    double x[2], acc = 0;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (size != 2) {
        if (rank == 0)
            fprintf(stderr, "tailcall: needs exactly 2 ranks\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    for (int i = 0; i < NA; i++) {
        x[0] = rank + 1;
        x[1] = i;
        sum_all(x, 2); /* MARK:call-a */
        acc += x[0] + x[1];
    }
    for (int i = 0; i < NB; i++) {
        x[0] = 2 * rank;
        x[1] = i * i;
        sum_all(x, 2); /* MARK:call-b */
        acc += x[0] * x[1];
    }
    for (int i = 0; i < ND; i++) {
        x[0] = rank;
        x[1] = i;
        MPI_Allreduce(MPI_IN_PLACE, x, 2, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD); /* MARK:direct */
        acc += x[0] - x[1];
    }
    for (int i = 0; i < NM; i++)
        acc += max_of(rank + i); /* MARK:call-m */
    if (rank == 0)
        printf("tailcall: %d wrapper calls, checksum %.1f\n", NA + NB, acc);
    MPI_Finalize();
    return 0;
}
