/* list_nest.c - site-table test: nested loops, calls in loops, MPI
 * communication statements and a named communication wrapper. */
#include <mpi.h>

void exchange(int *b, int n, int peer);
int helper(int x);

void exchange(int *b, int n, int peer)
{
    MPI_Sendrecv_replace(b, n, MPI_INT, peer, 0, peer, 0,
                         MPI_COMM_WORLD, MPI_STATUS_IGNORE);
}

int helper(int x)
{
    int k = 0;
    while (x > 1) {
        x /= 2;
        k++;
    }
    return k;
}

int main(int argc, char **argv)
{
    int rank, size, i, j, b[4] = {0};
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    for (i = 0; i < 3; i++) {
        for (j = 0; j < 2; j++) {
            b[j] += helper(i + j);
            MPI_Allreduce(MPI_IN_PLACE, b, 4, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
        }
        exchange(b, 4, (rank + 1) % size);
    }
    do {
        i--;
    } while (helper(i) > 0);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Finalize();
    return b[0] == -1;
}
