/*
 * aggmerge.c - the cost of one round of the aggregated run mode's
 * reduction (pmpi/reduce_tree.c) without MPI: a synthetic rank of N nodes
 * (a tree of S sites, a comm record per comm node) is made an aggregate,
 * encoded (the message), decoded and merged into another rank's; prints
 * the message's bytes and the time per round and per node, for the model
 * in DESIGN.md ("The aggregated run mode").
 * With OUT and RANKS it also writes the merged tree as the aggregated
 * profile of a run of RANKS ranks (synthetic totals), for timing
 * hprof-query on it.
 * usage: bench/aggmerge [NODES [SITES [ROUNDS [OUT.hpf RANKS]]]]
 *        (default 5000 500 20)
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "hp_aggtree.h"

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* Rank r: node i's parent is node (i - 1) / 4 (a 4-ary tree), its site
 * i % sites; a comm record (a peer of the ring) on every third node. */
static void make_rank(hp_rank_data *rd, uint32_t r, uint32_t n, uint32_t sites)
{
    memset(rd, 0, sizeof *rd);
    rd->info.rank = r;
    rd->info.threads = 1;
    rd->info.wall = 10;
    rd->info.host = strdup("node");
    rd->nstrings = sites + 2;
    rd->strings = calloc(rd->nstrings, sizeof *rd->strings);
    rd->strings[0] = strdup("");
    rd->strings[1] = strdup("bench.c");
    for (uint32_t s = 0; s < sites; s++) {
        char name[32];
        snprintf(name, sizeof name, "MPI_Call%u", s);
        rd->strings[s + 2] = strdup(name);
    }
    rd->nsites = sites + 1;
    rd->sites = calloc(rd->nsites, sizeof *rd->sites);
    for (uint32_t s = 0; s < rd->nsites; s++) {
        hp_site_rec *x = &rd->sites[s];
        x->id = s;
        x->kind = s ? HP_KIND_COMM : HP_KIND_ROOT;
        x->name = s ? s + 1 : 0;
        x->file = s ? 1 : 0;
        x->line = s;
        x->parent = x->callee = HP_NONE;
    }
    rd->nnodes = n;
    rd->nodes = calloc(n, sizeof *rd->nodes);
    rd->comms = calloc(n / 3 + 1, sizeof *rd->comms);
    for (uint32_t i = 0; i < n; i++) {
        hp_node_rec *x = &rd->nodes[i];
        x->id = i;
        x->parent = i ? (i - 1) / 4 : HP_NONE;
        x->site = i ? 1 + i % sites : 0;
        x->count = x->timed = 10;
        /* 4 children of a fifth of their parent's time each: within it */
        x->time = i == 0 ? 0 : x->parent == 0 ? 1e-3 * (1.0 + r % 7) : rd->nodes[x->parent].time / 5;
        x->min = x->max = x->time / 10;
        if (i && i % 3 == 0)
            rd->comms[rd->ncomms++] = (hp_comm_rec){i, (int32_t)(r + 1), 10, 800, 800,
                                                    x->time / 2, 0, x->min / 2, x->max / 2};
    }
}

/* The file rank 0 would write for a run of nranks ranks whose tree is a;
 * each rank's totals an equal share of the root's time. */
static int write_profile(const char *path, const hp_aggprof *a, uint32_t nranks)
{
    hp_rank_total *tot = calloc(nranks, sizeof *tot);
    char *argv0 = "bench";
    hp_run_info run = {nranks, HP_CLOCK_MONOTONIC, 1e9, 0, 1, argv0, 1, &argv0};
    hp_buf b = {0};
    if (!tot)
        return -1;
    for (uint32_t r = 0; r < nranks; r++) {
        tot[r] = (hp_rank_total){.rank = r, .threads = 1, .mpi_threads = 1, .wall = 10,
                                 .time = a->nodes[0].time / nranks};
        snprintf(tot[r].host, sizeof tot[r].host, "node%u", r / 64);
    }
    hp_encode_agg_preamble(&b);
    hp_encode_run(&b, &run);
    hp_rank_totals_encode(&b, tot, nranks);
    hp_aggprof_encode(&b, a);
    hp_encode_end(&b, nranks, b.len);
    FILE *f = fopen(path, "wb");
    int rc = !b.failed && f && fwrite(b.data, 1, b.len, f) == b.len ? 0 : -1;
    if (f && fclose(f) != 0)
        rc = -1;
    printf("wrote %s: %zu bytes for %u ranks\n", path, b.len, nranks);
    hp_buf_free(&b);
    free(tot);
    return rc;
}

int main(int argc, char **argv)
{
    uint32_t n = argc > 1 ? (uint32_t)atoi(argv[1]) : 5000;
    uint32_t sites = argc > 2 ? (uint32_t)atoi(argv[2]) : 500;
    int rounds = argc > 3 ? atoi(argv[3]) : 20;
    hp_rank_data a, b;
    hp_rank_total ta, tb;
    hp_aggprof into, part, got;
    make_rank(&a, 0, n, sites);
    make_rank(&b, 1, n, sites);
    double t0 = now();
    if (hp_aggtree_from_rank(&into, &a, &ta) || hp_aggtree_from_rank(&part, &b, &tb))
        return 1;
    double t_build = (now() - t0) / 2;
    hp_buf msg = {0};
    double t_round = 0;
    for (int k = 0; k < rounds; k++) {
        t0 = now();
        msg.len = 0;
        hp_aggprof_encode(&msg, &part);
        if (msg.failed || hp_aggprof_decode(&got, msg.data, msg.len, NULL) ||
            hp_aggtree_merge(&into, &got))
            return 1;
        t_round += now() - t0;
        hp_aggprof_free(&got);
    }
    t_round /= rounds;
    printf("nodes %u, sites %u, comm classes %u: message %zu bytes (%.1f per node)\n",
           into.nnodes, into.nsites, into.ncomms, msg.len, (double)msg.len / into.nnodes);
    printf("one rank's aggregate: %.3f ms; one round (encode, decode, merge): %.3f ms,"
           " %.0f ns per node\n", 1e3 * t_build, 1e3 * t_round, 1e9 * t_round / into.nnodes);
    hp_buf_free(&msg);
    if (argc > 5 && write_profile(argv[4], &into, (uint32_t)atoi(argv[5])) != 0)
        return 1;
    hp_aggprof_free(&into);
    hp_aggprof_free(&part);
    hp_rank_data_free(&a);
    hp_rank_data_free(&b);
    return 0;
}
