/*
 * many_sites.c - hprof integration test (tests/mpi/run.sh): a program with
 * 40 distinct MPI call sites (MPI_Send to MPI_PROC_NULL, lines MARK:ms-01
 * .. MARK:ms-40), all run REPS = 3 times, for HPROF_MAX_NODES, the
 * environment checks (bad values, HPROF_SUMMARY=off/full) and the profile
 * output file handling.  Rank 0 prints how many sends each rank made.
 * Any number of ranks (run.sh uses 2).
 */
#include <mpi.h>
#include <stdio.h>

#define REPS 3

static int sites(const int *buf)
{
    MPI_Send(buf, 1, MPI_INT, MPI_PROC_NULL, 1, MPI_COMM_WORLD); /* MARK:ms-01 */
    MPI_Send(buf, 1, MPI_INT, MPI_PROC_NULL, 2, MPI_COMM_WORLD); /* MARK:ms-02 */
    MPI_Send(buf, 1, MPI_INT, MPI_PROC_NULL, 3, MPI_COMM_WORLD); /* MARK:ms-03 */
    MPI_Send(buf, 1, MPI_INT, MPI_PROC_NULL, 4, MPI_COMM_WORLD); /* MARK:ms-04 */
    MPI_Send(buf, 1, MPI_INT, MPI_PROC_NULL, 5, MPI_COMM_WORLD); /* MARK:ms-05 */
    MPI_Send(buf, 1, MPI_INT, MPI_PROC_NULL, 6, MPI_COMM_WORLD); /* MARK:ms-06 */
    MPI_Send(buf, 1, MPI_INT, MPI_PROC_NULL, 7, MPI_COMM_WORLD); /* MARK:ms-07 */
    MPI_Send(buf, 1, MPI_INT, MPI_PROC_NULL, 8, MPI_COMM_WORLD); /* MARK:ms-08 */
    MPI_Send(buf, 1, MPI_INT, MPI_PROC_NULL, 9, MPI_COMM_WORLD); /* MARK:ms-09 */
    MPI_Send(buf, 1, MPI_INT, MPI_PROC_NULL, 10, MPI_COMM_WORLD); /* MARK:ms-10 */
    MPI_Send(buf, 1, MPI_INT, MPI_PROC_NULL, 11, MPI_COMM_WORLD); /* MARK:ms-11 */
    MPI_Send(buf, 1, MPI_INT, MPI_PROC_NULL, 12, MPI_COMM_WORLD); /* MARK:ms-12 */
    MPI_Send(buf, 1, MPI_INT, MPI_PROC_NULL, 13, MPI_COMM_WORLD); /* MARK:ms-13 */
    MPI_Send(buf, 1, MPI_INT, MPI_PROC_NULL, 14, MPI_COMM_WORLD); /* MARK:ms-14 */
    MPI_Send(buf, 1, MPI_INT, MPI_PROC_NULL, 15, MPI_COMM_WORLD); /* MARK:ms-15 */
    MPI_Send(buf, 1, MPI_INT, MPI_PROC_NULL, 16, MPI_COMM_WORLD); /* MARK:ms-16 */
    MPI_Send(buf, 1, MPI_INT, MPI_PROC_NULL, 17, MPI_COMM_WORLD); /* MARK:ms-17 */
    MPI_Send(buf, 1, MPI_INT, MPI_PROC_NULL, 18, MPI_COMM_WORLD); /* MARK:ms-18 */
    MPI_Send(buf, 1, MPI_INT, MPI_PROC_NULL, 19, MPI_COMM_WORLD); /* MARK:ms-19 */
    MPI_Send(buf, 1, MPI_INT, MPI_PROC_NULL, 20, MPI_COMM_WORLD); /* MARK:ms-20 */
    MPI_Send(buf, 1, MPI_INT, MPI_PROC_NULL, 21, MPI_COMM_WORLD); /* MARK:ms-21 */
    MPI_Send(buf, 1, MPI_INT, MPI_PROC_NULL, 22, MPI_COMM_WORLD); /* MARK:ms-22 */
    MPI_Send(buf, 1, MPI_INT, MPI_PROC_NULL, 23, MPI_COMM_WORLD); /* MARK:ms-23 */
    MPI_Send(buf, 1, MPI_INT, MPI_PROC_NULL, 24, MPI_COMM_WORLD); /* MARK:ms-24 */
    MPI_Send(buf, 1, MPI_INT, MPI_PROC_NULL, 25, MPI_COMM_WORLD); /* MARK:ms-25 */
    MPI_Send(buf, 1, MPI_INT, MPI_PROC_NULL, 26, MPI_COMM_WORLD); /* MARK:ms-26 */
    MPI_Send(buf, 1, MPI_INT, MPI_PROC_NULL, 27, MPI_COMM_WORLD); /* MARK:ms-27 */
    MPI_Send(buf, 1, MPI_INT, MPI_PROC_NULL, 28, MPI_COMM_WORLD); /* MARK:ms-28 */
    MPI_Send(buf, 1, MPI_INT, MPI_PROC_NULL, 29, MPI_COMM_WORLD); /* MARK:ms-29 */
    MPI_Send(buf, 1, MPI_INT, MPI_PROC_NULL, 30, MPI_COMM_WORLD); /* MARK:ms-30 */
    MPI_Send(buf, 1, MPI_INT, MPI_PROC_NULL, 31, MPI_COMM_WORLD); /* MARK:ms-31 */
    MPI_Send(buf, 1, MPI_INT, MPI_PROC_NULL, 32, MPI_COMM_WORLD); /* MARK:ms-32 */
    MPI_Send(buf, 1, MPI_INT, MPI_PROC_NULL, 33, MPI_COMM_WORLD); /* MARK:ms-33 */
    MPI_Send(buf, 1, MPI_INT, MPI_PROC_NULL, 34, MPI_COMM_WORLD); /* MARK:ms-34 */
    MPI_Send(buf, 1, MPI_INT, MPI_PROC_NULL, 35, MPI_COMM_WORLD); /* MARK:ms-35 */
    MPI_Send(buf, 1, MPI_INT, MPI_PROC_NULL, 36, MPI_COMM_WORLD); /* MARK:ms-36 */
    MPI_Send(buf, 1, MPI_INT, MPI_PROC_NULL, 37, MPI_COMM_WORLD); /* MARK:ms-37 */
    MPI_Send(buf, 1, MPI_INT, MPI_PROC_NULL, 38, MPI_COMM_WORLD); /* MARK:ms-38 */
    MPI_Send(buf, 1, MPI_INT, MPI_PROC_NULL, 39, MPI_COMM_WORLD); /* MARK:ms-39 */
    MPI_Send(buf, 1, MPI_INT, MPI_PROC_NULL, 40, MPI_COMM_WORLD); /* MARK:ms-40 */
    return 40;
}

int main(int argc, char **argv)
{
    int rank, size, buf[1] = {0}, n = 0, total;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    for (int k = 0; k < REPS; k++)
        n += sites(buf);
    MPI_Reduce(&n, &total, 1, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD); /* MARK:ms-reduce */
    if (rank == 0)
        printf("many_sites: %d ranks made %d sends to MPI_PROC_NULL\n", size, total);
    MPI_Finalize();
    return 0;
}
