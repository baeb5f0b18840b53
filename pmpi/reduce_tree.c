/*
 * reduce_tree.c - the aggregated run mode (HPROF_AGGREGATE, hp_aggprof.h):
 * the same binomial tree as the summary's (reduce.c) carries each part's
 * merged calling-context tree with per-node distributions over ranks,
 * the ranks' totals are gathered, and rank 0 alone writes one file of
 * O(nodes) + O(ranks).  No rank ever holds another's records.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "hp_mpi.h"
#include "hp_aggtree.h"
#include "hp_config.h"
#include "hp_log.h"
#include "hp_process.h"

#define TAG_AGGREGATE 0x6871

int hp_aggregate_mode(int nranks)
{
    if (hp_cfg.aggregate == HP_AGGREGATE_AUTO)
        return nranks >= HP_AGGREGATE_AUTO_RANKS;
    return hp_cfg.aggregate == HP_AGGREGATE_BOTH ? 2 : hp_cfg.aggregate == HP_AGGREGATE_ON;
}

static int send_part(const hp_aggprof *a, int ok, int to, MPI_Comm comm)
{
    hp_buf b = {0};
    if (ok)
        hp_aggprof_encode(&b, a);
    int rc = hp_reduce_send(&b, !ok, to, TAG_AGGREGATE, comm);  /* empty: "failed" */
    hp_buf_free(&b);
    return rc;
}

static int recv_and_merge(hp_aggprof *a, int from, MPI_Comm comm)
{
    unsigned char *data;
    size_t len;
    int rc = hp_reduce_recv(from, TAG_AGGREGATE, comm, &data, &len);
    hp_aggprof part;
    if (rc == 0)
        rc = hp_aggprof_decode(&part, data, len, NULL) == 0 ? 0 : -1;
    free(data);
    if (rc == 0) {
        rc = hp_aggtree_merge(a, &part);
        hp_aggprof_free(&part);
    }
    return rc;
}

/* The binomial tree of reduce.c: rank 0 ends with every part merged;
 * rc 0 only on rank 0 with every part. */
static int reduce_parts(hp_aggprof *a, int ok, MPI_Comm comm, int rank, int size)
{
    for (int mask = 1; mask < size; mask <<= 1) {
        if (rank & mask)
            return send_part(a, ok, rank - mask, comm) == 0 ? 0 : -1;
        if (rank + mask < size && recv_and_merge(a, rank + mask, comm) != 0)
            ok = 0;
    }
    return ok ? 0 : -1;
}

static int write_file(const hp_aggprof *a, const hp_rank_total *tot, const hp_run_info *run,
                      const char *tag, char *path, size_t pathlen)
{
    hp_buf b = {0};
    if (hp_process_profile_path(run->program, tag, pathlen - 1, path, pathlen) != 0)
        return -1;
    hp_encode_agg_preamble(&b);
    hp_encode_run(&b, run);
    hp_rank_totals_encode(&b, tot, run->nranks);
    hp_aggprof_encode(&b, a);
    hp_encode_end(&b, run->nranks, b.len);
    int rc = b.failed ? (errno = ENOMEM, -1) : hp_process_write_file(path, &b);
    if (rc)
        hp_warn("cannot write profile %s: %s", path,
                errno == ENOMEM ? "out of memory" : strerror(errno));
    hp_buf_free(&b);
    return rc;
}

int hp_write_aggregate(const hp_rank_data *rd, const hp_run_info *run, const char *tag,
                       char *path, size_t pathlen)
{
    MPI_Comm comm;
    int rank, size, rc = -1;
    hp_aggprof a;
    hp_rank_total mine, *all = NULL;
    PMPI_Comm_dup(MPI_COMM_WORLD, &comm);
    PMPI_Comm_rank(comm, &rank);
    PMPI_Comm_size(comm, &size);
    int ok = hp_aggtree_from_rank(&a, rd, &mine) == 0;
    if (rank == 0)
        all = malloc((size_t)size * sizeof *all);
    PMPI_Gather(&mine, (int)sizeof mine, MPI_BYTE, all, (int)sizeof mine, MPI_BYTE, 0, comm);
    int merged = reduce_parts(&a, ok, comm, rank, size) == 0;
    if (rank == 0) {
        if (!merged || !all)
            hp_warn("cannot write the aggregated profile: a rank ran out of memory");
        else
            rc = write_file(&a, all, run, tag, path, pathlen);
    }
    PMPI_Bcast(&rc, 1, MPI_INT, 0, comm);
    hp_aggprof_free(&a);
    free(all);
    PMPI_Comm_free(&comm);
    return rc;
}
