/*
 * neighbor.c - hprof integration test (tests/io/run.sh): per-neighbour
 * bytes of the neighbourhood collectives.  Needs exactly 4 ranks.
 *
 * Cartesian part: MPI_Cart_create(dims {2, 2}, periods {1, 0}, no
 * reorder), so rank r has coordinates (r / 2, r % 2).  Its neighbour
 * slots, in the order the standard fixes (per dimension: -1, then +1):
 * dimension 0 (periodic, size 2): P = (r + 2) % 4 twice; dimension 1 (not
 * periodic): Q = r ^ 1 on one side and MPI_PROC_NULL on the other.  Every
 * call makes one record per neighbour (count 1 per call, bytes of all its
 * slots) plus one record with peer -1 (the totals; count 1 per call):
 *   nb-allgather    MPI_Neighbor_allgather, 5 ints, 3 calls:
 *                   P 40/40 B, Q 20/20 B per call (sent/received)
 *   nb-alltoall     MPI_Neighbor_alltoall, 3 doubles per slot, 2 calls:
 *                   P 48/48, Q 24/24 per call
 *   nb-alltoallv    MPI_Neighbor_alltoallv, slot k sends (k/2 + 1)(r + 1)
 *                   ints (also to MPI_PROC_NULL slots, which get no
 *                   record) and receives what its neighbour sends it,
 *                   1 call: P 8 (r + 1) / 8 (P + 1), Q 8 (r + 1) / 8 (Q + 1)
 *   nb-ialltoall    MPI_Ineighbor_alltoall as nb-alltoall, completed by
 *                   MPI_Wait at nb-wait, 2 calls
 *   nb-iallgatherv  MPI_Ineighbor_allgatherv, rank x sends x % 2 + 1 ints
 *                   (to every slot), MPI_Waitall at nb-waitall, 1 call:
 *                   P 8 (r%2 + 1) / 8 (r%2 + 1), Q 4 (r%2 + 1) / 4 (2 - r%2)
 * Distributed graph part: MPI_Dist_graph_create_adjacent, rank r sends to
 * (r+1)%4 and (r+2)%4 and receives from (r+3)%4 and (r+2)%4:
 *   nb-dist-alltoall   MPI_Neighbor_alltoall, 4 ints per slot, 1 call:
 *                      (r+1)%4 16/0, (r+2)%4 16/16, (r+3)%4 0/16
 *   nb-dist-iallgather MPI_Ineighbor_allgather, 6 ints, MPI_Wait, 1 call:
 *                      (r+1)%4 24/0, (r+2)%4 24/24, (r+3)%4 0/24
 * Rank 0 prints a checksum of everything received (gathered).
 */
#include <mpi.h>
#include <stdio.h>

#define NAG 3
#define NA2A 2

static long sum_ints(const int *v, int n)
{
    long s = 0;
    for (int i = 0; i < n; i++)
        s += v[i];
    return s;
}

static double cartesian(int r)
{
    int dims[2] = {2, 2}, periods[2] = {1, 0}, slot[4];
    MPI_Comm cart;
    MPI_Request req[2];
    double acc = 0;
    MPI_Cart_create(MPI_COMM_WORLD, 2, dims, periods, 0, &cart);
    MPI_Cart_shift(cart, 0, 1, &slot[0], &slot[1]);
    MPI_Cart_shift(cart, 1, 1, &slot[2], &slot[3]);

    int ag_out[5], ag_in[4 * 5];
    for (int n = 0; n < NAG; n++) {
        for (int i = 0; i < 5; i++)
            ag_out[i] = 100 * r + 10 * n + i;
        for (int i = 0; i < 20; i++)
            ag_in[i] = 0;
        MPI_Neighbor_allgather(ag_out, 5, MPI_INT, ag_in, 5, MPI_INT, cart); /* MARK:nb-allgather */
        acc += sum_ints(ag_in, 20);
    }
    double a_out[4 * 3], a_in[4 * 3];
    for (int n = 0; n < NA2A; n++) {
        /* Both slots towards P carry the same data: which one arrives in
         * which slot is then irrelevant. */
        for (int k = 0; k < 4; k++)
            for (int i = 0; i < 3; i++)
                a_out[3 * k + i] = r + 0.5 * (k / 2) + 0.25 * i + n;
        MPI_Neighbor_alltoall(a_out, 3, MPI_DOUBLE, a_in, 3, MPI_DOUBLE, cart); /* MARK:nb-alltoall */
        for (int i = 0; i < 12; i++)
            acc += slot[i / 3] == MPI_PROC_NULL ? 0 : a_in[i];
    }
    int scounts[4], rcounts[4], sdispls[4], rdispls[4], v_out[64], v_in[64];
    for (int k = 0, so = 0, ro = 0; k < 4; k++) {
        int from = slot[k] == MPI_PROC_NULL ? 0 : slot[k];
        scounts[k] = (k / 2 + 1) * (r + 1);
        rcounts[k] = (k / 2 + 1) * (from + 1);
        sdispls[k] = so;
        rdispls[k] = ro;
        so += scounts[k];
        ro += rcounts[k];
    }
    for (int i = 0; i < 64; i++) {
        v_out[i] = r * 1000 + i % 7;
        v_in[i] = 0;
    }
    MPI_Neighbor_alltoallv(v_out, scounts, sdispls, MPI_INT, v_in, rcounts, rdispls, MPI_INT, cart); /* MARK:nb-alltoallv */
    acc += sum_ints(v_in, 64);
    for (int n = 0; n < NA2A; n++) {
        for (int k = 0; k < 4; k++)
            for (int i = 0; i < 3; i++)
                a_out[3 * k + i] = 2 * r + (k / 2) + i + n;
        MPI_Ineighbor_alltoall(a_out, 3, MPI_DOUBLE, a_in, 3, MPI_DOUBLE, cart, &req[0]); /* MARK:nb-ialltoall */
        MPI_Wait(&req[0], MPI_STATUS_IGNORE); /* MARK:nb-wait */
        for (int i = 0; i < 12; i++)
            acc += slot[i / 3] == MPI_PROC_NULL ? 0 : a_in[i];
    }
    int g_out[2] = {r + 1, -r}, g_counts[4], g_displs[4], g_in[16] = {0};
    for (int k = 0, at = 0; k < 4; k++) {
        g_counts[k] = slot[k] == MPI_PROC_NULL ? 3 : slot[k] % 2 + 1;
        g_displs[k] = at;
        at += g_counts[k];
    }
    MPI_Ineighbor_allgatherv(g_out, r % 2 + 1, MPI_INT, g_in, g_counts, g_displs, MPI_INT, cart, &req[1]); /* MARK:nb-iallgatherv */
    MPI_Waitall(1, &req[1], MPI_STATUSES_IGNORE); /* MARK:nb-waitall */
    for (int k = 0; k < 4; k++)
        if (slot[k] != MPI_PROC_NULL)
            acc += sum_ints(g_in + g_displs[k], g_counts[k]);
    MPI_Comm_free(&cart);
    return acc;
}

static double dist_graph(int r)
{
    int sources[2] = {(r + 3) % 4, (r + 2) % 4}, dests[2] = {(r + 1) % 4, (r + 2) % 4};
    MPI_Comm g;
    MPI_Request req;
    int weights[2] = {1, 1};
    MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 2, sources, weights, 2, dests, weights,
                                   MPI_INFO_NULL, 0, &g);
    int out[8], in[8] = {0};
    for (int i = 0; i < 8; i++)
        out[i] = 10 * r + i;
    MPI_Neighbor_alltoall(out, 4, MPI_INT, in, 4, MPI_INT, g); /* MARK:nb-dist-alltoall */
    long acc = sum_ints(in, 8);
    int gout[6], gin[12] = {0};
    for (int i = 0; i < 6; i++)
        gout[i] = 7 * r + i;
    MPI_Ineighbor_allgather(gout, 6, MPI_INT, gin, 6, MPI_INT, g, &req); /* MARK:nb-dist-iallgather */
    MPI_Wait(&req, MPI_STATUS_IGNORE);
    acc += sum_ints(gin, 12);
    MPI_Comm_free(&g);
    return (double)acc;
}

int main(int argc, char **argv)
{
    int r, size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &r);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (size != 4) {
        if (r == 0)
            fprintf(stderr, "neighbor: needs 4 ranks\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    double mine[2] = {cartesian(r), dist_graph(r)}, all[8];
    MPI_Gather(mine, 2, MPI_DOUBLE, all, 2, MPI_DOUBLE, 0, MPI_COMM_WORLD);
    if (r == 0)
        for (int q = 0; q < 4; q++)
            printf("neighbor: rank %d cartesian %.2f dist graph %.0f\n", q, all[2 * q],
                   all[2 * q + 1]);
    MPI_Finalize();
    return 0;
}
