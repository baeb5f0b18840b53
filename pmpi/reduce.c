/*
 * reduce.c - cross-rank aggregation of the summary table by a binomial
 * tree: in round k, ranks with bit k set send their merged table to
 * rank - 2^k and drop out, so rank 0 ends with everything after log2(P)
 * rounds and never receives more than one table per round.
 */
#include <stdlib.h>
#include "hp_mpi.h"
#include "hp_summary.h"

#define TAG_SUMMARY 0x6870

static int send_table(const hp_agg *a, int to, MPI_Comm comm)
{
    hp_buf b = {0};
    hp_agg_encode(&b, a);
    int rc = b.failed ? -1 : 0;
    /* An empty message still goes, so the receiver never waits forever. */
    PMPI_Send(b.data, rc == 0 ? (int)b.len : 0, MPI_BYTE, to, TAG_SUMMARY, comm);
    hp_buf_free(&b);
    return rc;
}

static int recv_and_merge(hp_agg *a, int from, MPI_Comm comm)
{
    MPI_Status st;
    MPI_Message msg;
    int len = 0;
    PMPI_Mprobe(from, TAG_SUMMARY, comm, &msg, &st);
    PMPI_Get_count(&st, MPI_BYTE, &len);
    unsigned char *data = malloc(len > 0 ? (size_t)len : 1);
    if (!data) {
        PMPI_Mrecv(NULL, 0, MPI_BYTE, &msg, MPI_STATUS_IGNORE);
        return -1;
    }
    PMPI_Mrecv(data, len, MPI_BYTE, &msg, MPI_STATUS_IGNORE);
    hp_agg part;
    int rc = len > 0 && hp_agg_decode(&part, data, (size_t)len) == 0 ? 0 : -1;
    if (rc == 0)
        rc = hp_agg_merge(a, &part);
    hp_agg_free(&part);
    free(data);
    return rc;
}

int hp_reduce_summary(const hp_rank_data *rd, hp_agg *out)
{
    MPI_Comm comm;
    int rank, size, rc = hp_agg_from_rank(out, rd);
    PMPI_Comm_dup(MPI_COMM_WORLD, &comm);
    PMPI_Comm_rank(comm, &rank);
    PMPI_Comm_size(comm, &size);
    for (int mask = 1; mask < size; mask <<= 1) {
        if (rank & mask) {
            if (send_table(out, rank - mask, comm) != 0)
                rc = -1;
            break;
        }
        if (rank + mask < size && recv_and_merge(out, rank + mask, comm) != 0)
            rc = -1;
    }
    PMPI_Comm_free(&comm);
    return rc;
}
