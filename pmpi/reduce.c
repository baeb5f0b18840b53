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

/* Sends the encoded bytes of b to `to` (an empty message when failed:
 * the receiver never waits forever); 0, or -1 when b failed. */
int hp_reduce_send(const hp_buf *b, int failed, int to, int tag, MPI_Comm comm)
{
    int rc = failed || b->failed ? -1 : 0;
    PMPI_Send(b->data, rc == 0 ? (int)b->len : 0, MPI_BYTE, to, tag, comm);
    return rc;
}

/* The next message of `tag` from `from`, whatever its length, in *data
 * (malloc'd, *len bytes); -1 when it is empty (the sender failed) or
 * memory runs out (the message is received all the same). */
int hp_reduce_recv(int from, int tag, MPI_Comm comm, unsigned char **data, size_t *len)
{
    MPI_Status st;
    MPI_Message msg;
    int n = 0;
    PMPI_Mprobe(from, tag, comm, &msg, &st);
    PMPI_Get_count(&st, MPI_BYTE, &n);
    *len = n > 0 ? (size_t)n : 0;
    *data = malloc(n > 0 ? (size_t)n : 1);
    if (!*data) {
        PMPI_Mrecv(NULL, 0, MPI_BYTE, &msg, MPI_STATUS_IGNORE);
        return -1;
    }
    PMPI_Mrecv(*data, n, MPI_BYTE, &msg, MPI_STATUS_IGNORE);
    return n > 0 ? 0 : -1;
}

static int send_table(const hp_agg *a, int to, MPI_Comm comm)
{
    hp_buf b = {0};
    hp_agg_encode(&b, a);
    int rc = hp_reduce_send(&b, 0, to, TAG_SUMMARY, comm);
    hp_buf_free(&b);
    return rc;
}

static int recv_and_merge(hp_agg *a, int from, MPI_Comm comm)
{
    unsigned char *data;
    size_t len;
    int rc = hp_reduce_recv(from, TAG_SUMMARY, comm, &data, &len);
    hp_agg part;
    if (rc == 0) {
        rc = hp_agg_decode(&part, data, len) == 0 ? hp_agg_merge(a, &part) : -1;
        hp_agg_free(&part);     /* what a failed decode had read too */
    }
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
