/*
 * neighbor.c - the byte accounting of the neighbourhood collectives
 * (MPI_Neighbor_* and MPI_Ineighbor_*): one record per neighbour, in world
 * ranks, with the bytes this rank sends to it and receives from it.  The
 * neighbours come from the communicator's topology, in the order the
 * standard fixes for the send and receive buffers:
 *   Cartesian   for each dimension, the -1 then the +1 neighbour
 *               (MPI_Cart_shift by 1); MPI_PROC_NULL ones at non-periodic
 *               borders keep their buffer slot but get no record;
 *   graph       MPI_Graph_neighbors, both directions;
 *   dist graph  sources (receive) and destinations (send) of
 *               MPI_Dist_graph_neighbors.
 * Each neighbour gets one record per call (count 1) with the bytes of all
 * its slots, like the per-peer records of the alltoall family.
 */
#include <assert.h>
#include <stdlib.h>
#include "hp_mpi.h"

#define SMALL_DEGREE 32

/* The in- and out-neighbours of this rank, ranks of the communicator. */
typedef struct neighbors {
    int nin, nout;
    int *in, *out;
    int stack[2 * SMALL_DEGREE];
} neighbors;

static int alloc_lists(neighbors *nb, int nin, int nout)
{
    nb->nin = nin;
    nb->nout = nout;
    if (nin <= SMALL_DEGREE && nout <= SMALL_DEGREE) {
        nb->in = nb->stack;
        nb->out = nb->stack + SMALL_DEGREE;
        return 0;
    }
    nb->in = malloc(sizeof(int) * (size_t)(nin + nout + 1));
    nb->out = nb->in ? nb->in + nin : NULL;
    return nb->in ? 0 : -1;
}

static void free_lists(neighbors *nb)
{
    if (nb->in && nb->in != nb->stack)
        free(nb->in);
}

static int cart_neighbors(MPI_Comm comm, neighbors *nb)
{
    int ndims = 0;
    PMPI_Cartdim_get(comm, &ndims);
    if (alloc_lists(nb, 2 * ndims, 2 * ndims) != 0)
        return -1;
    for (int d = 0; d < ndims; d++) {
        PMPI_Cart_shift(comm, d, 1, &nb->in[2 * d], &nb->in[2 * d + 1]);
        nb->out[2 * d] = nb->in[2 * d];
        nb->out[2 * d + 1] = nb->in[2 * d + 1];
    }
    return 0;
}

static int graph_neighbors(MPI_Comm comm, neighbors *nb)
{
    int me, n = 0;
    PMPI_Comm_rank(comm, &me);
    PMPI_Graph_neighbors_count(comm, me, &n);
    if (alloc_lists(nb, n, n) != 0)
        return -1;
    PMPI_Graph_neighbors(comm, me, n, nb->in);
    for (int i = 0; i < n; i++)
        nb->out[i] = nb->in[i];
    return 0;
}

static int dist_graph_neighbors(MPI_Comm comm, neighbors *nb)
{
    int nin = 0, nout = 0, weighted = 0;
    PMPI_Dist_graph_neighbors_count(comm, &nin, &nout, &weighted);
    if (alloc_lists(nb, nin, nout) != 0)
        return -1;
    int *w = malloc(sizeof(int) * (size_t)(nin + nout + 1));
    if (!w)
        return -1;
    PMPI_Dist_graph_neighbors(comm, nin, nb->in, w, nout, nb->out, w + nin);
    free(w);
    return 0;
}

/* Fills nb from comm's topology; -1 without one (the call itself fails
 * then) or without memory. */
static int neighbors_of(MPI_Comm comm, neighbors *nb)
{
    int topo = MPI_UNDEFINED;
    nb->in = NULL;
    if (comm == MPI_COMM_NULL || PMPI_Topo_test(comm, &topo) != MPI_SUCCESS)
        return -1;
    switch (topo) {
    case MPI_CART: return cart_neighbors(comm, nb);
    case MPI_GRAPH: return graph_neighbors(comm, nb);
    case MPI_DIST_GRAPH: return dist_graph_neighbors(comm, nb);
    default: return -1;
    }
}

/* Bytes for the k-th send or receive slot of the call. */
static uint64_t slot_bytes(const hp_coll_args *a, int k, int is_send)
{
    switch (a->rule) {
    case HP_COLL_NEIGHBOR_ALLGATHER:
    case HP_COLL_NEIGHBOR_ALLTOALL:
        return is_send ? hp_mpi_bytes(a->scount, a->stype) : hp_mpi_bytes(a->rcount, a->rtype);
    case HP_COLL_NEIGHBOR_ALLGATHERV:
        return is_send ? hp_mpi_bytes(a->scount, a->stype) : hp_mpi_bytes(a->rcounts[k], a->rtype);
    case HP_COLL_NEIGHBOR_ALLTOALLV:
        return is_send ? hp_mpi_bytes(a->scounts[k], a->stype)
                       : hp_mpi_bytes(a->rcounts[k], a->rtype);
    default: /* HP_COLL_NEIGHBOR_ALLTOALLW */
        return is_send ? hp_mpi_bytes(a->scounts[k], a->stypes[k])
                       : hp_mpi_bytes(a->rcounts[k], a->rtypes[k]);
    }
}

/* The bytes of one buffer slot, towards or from one world rank. */
typedef struct slot {
    int32_t peer;
    uint64_t sent, recv;
} slot;

static int by_peer(const void *x, const void *y)
{
    const slot *a = x, *b = y;
    return (a->peer > b->peer) - (a->peer < b->peer);
}

/* Appends the real (not MPI_PROC_NULL) slots of one direction to s. */
static int collect_slots(const hp_coll_args *a, const hp_rankmap *map, const int *ranks,
                         int n, int is_send, slot *s, int ns)
{
    for (int k = 0; k < n; k++) {
        if (ranks[k] == MPI_PROC_NULL)
            continue;
        int32_t peer = hp_world_in(map, ranks[k]);
        if (peer < 0)
            continue;  /* not translatable to a world rank */
        uint64_t b = slot_bytes(a, k, is_send);
        s[ns].peer = peer;
        s[ns].sent = is_send ? b : 0;
        s[ns].recv = is_send ? 0 : b;
        ns++;
    }
    return ns;
}

/* One record per neighbour and call, however many slots it has (a
 * neighbour in both lists, or twice in a periodic dimension of size 1 or
 * 2): the same rule as the alltoall family's per-peer records. */
static void record_by_peer(hp_thread *t, uint32_t node, slot *s, int ns, uint64_t *sent,
                           uint64_t *recv)
{
    qsort(s, (size_t)ns, sizeof *s, by_peer);
    for (int i = 0; i < ns;) {
        slot sum = s[i];
        for (i++; i < ns && s[i].peer == sum.peer; i++) {
            sum.sent += s[i].sent;
            sum.recv += s[i].recv;
        }
        hp_event_comm_bytes(t, node, sum.peer, sum.sent, sum.recv);
        *sent += sum.sent;
        *recv += sum.recv;
    }
}

void hp_mpi_neighbor_peers(hp_thread *t, uint32_t node, const hp_coll_args *a,
                           uint64_t *sent, uint64_t *recv)
{
    neighbors nb;
    assert(hp_coll_is_neighbor(a->rule));
    *sent = *recv = 0;
    if (neighbors_of(a->comm, &nb) != 0) {
        free_lists(&nb);
        return;
    }
    slot stack[2 * SMALL_DEGREE];
    int total = nb.nin + nb.nout;
    slot *s = total <= 2 * SMALL_DEGREE ? stack : malloc(sizeof *s * (size_t)total);
    if (s) {
        const hp_rankmap *map = hp_rankmap_of(a->comm);
        int ns = collect_slots(a, map, nb.out, nb.nout, 1, s, 0);
        ns = collect_slots(a, map, nb.in, nb.nin, 0, s, ns);
        record_by_peer(t, node, s, ns, sent, recv);
        if (s != stack)
            free(s);
    }
    free_lists(&nb);
}
