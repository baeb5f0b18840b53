/*
 * locals.c - hprof integration test (tests/io/run.sh): local MPI calls are
 * counted and timed at their call sites, which are call sites (kind
 * 'call', flag HP_SITEF_MPI = 64), not communication statements, and
 * have no communication records; their time is part of the rank's MPI
 * time.  Runs on 2 ranks; every rank makes, at the marked lines:
 *   loc-type-vector  MPI_Type_vector   NT = 5 calls
 *   loc-type-commit  MPI_Type_commit   NT
 *   loc-type-free    MPI_Type_free     NT
 *   loc-comm-group   MPI_Comm_group    1
 *   loc-group-incl   MPI_Group_incl    NG = 4
 *   loc-group-free   MPI_Group_free    NG + 1
 *   loc-dims-create  MPI_Dims_create   ND = 3
 *   loc-cart-shift   MPI_Cart_shift    2 (one per dimension)
 *   loc-comm-rank    MPI_Comm_rank     NR = 7
 * plus one MPI_Cart_create and one MPI_Allreduce (communication
 * statements).  Rank 0 prints what the calls returned.
 */
#include <mpi.h>
#include <stdio.h>

#define NT 5
#define NG 4
#define ND 3
#define NR 7

int main(int argc, char **argv)
{
    int r, size, sum = 0, total = 0;
    MPI_Init(&argc, &argv);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm_rank(MPI_COMM_WORLD, &r);

    for (int i = 0; i < NT; i++) {
        MPI_Datatype v;
        int tsize = 0;
        MPI_Type_vector(i + 1, 2, 3, MPI_INT, &v); /* MARK:loc-type-vector */
        MPI_Type_commit(&v); /* MARK:loc-type-commit */
        PMPI_Type_size(v, &tsize);
        sum += tsize;
        MPI_Type_free(&v); /* MARK:loc-type-free */
    }

    MPI_Group world, sub[NG];
    MPI_Comm_group(MPI_COMM_WORLD, &world); /* MARK:loc-comm-group */
    for (int i = 0; i < NG; i++) {
        int members[1] = {i % size}, gsize = 0;
        MPI_Group_incl(world, 1, members, &sub[i]); /* MARK:loc-group-incl */
        PMPI_Group_size(sub[i], &gsize);
        sum += gsize;
    }
    for (int i = 0; i <= NG; i++)
        MPI_Group_free(i < NG ? &sub[i] : &world); /* MARK:loc-group-free */

    int dims[2] = {0, 0};
    for (int i = 0; i < ND; i++) {
        dims[0] = dims[1] = 0;
        MPI_Dims_create(size * (i + 1), 2, dims); /* MARK:loc-dims-create */
        sum += dims[0] * 10 + dims[1];
    }
    int cdims[2] = {0, 0}, periods[2] = {1, 0}, src, dst;
    MPI_Dims_create(size, 2, cdims);
    MPI_Comm cart;
    MPI_Cart_create(MPI_COMM_WORLD, 2, cdims, periods, 0, &cart);
    for (int d = 0; d < 2; d++) {
        MPI_Cart_shift(cart, d, 1, &src, &dst); /* MARK:loc-cart-shift */
        sum += src + dst;
    }
    MPI_Comm_free(&cart);
    for (int i = 0; i < NR; i++) {
        int me = -1;
        MPI_Comm_rank(MPI_COMM_WORLD, &me); /* MARK:loc-comm-rank */
        sum += me;
    }
    MPI_Allreduce(&sum, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (r == 0)
        printf("locals: %d ranks, checksum %d\n", size, total);
    MPI_Finalize();
    return 0;
}
