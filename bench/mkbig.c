/*
 * mkbig.c - writes a large synthetic profile with the real encoder, for
 * the analyzer's scale benchmark (bench/scale.sh): by default the profile
 * of issue 12, 5,000 calling-context nodes per rank of which 507 are
 * communication nodes with 20 peers each.
 *
 *   mkbig [-n NODES] [-c COMMS] [-p PEERS] [-t THREADS] RANKS OUT.hpf
 *
 * Deterministic.  Each thread of a rank has its own tree of NODES/THREADS
 * nodes: node i (1..) hangs below node (i-1)/8; interior nodes are calls
 * of procedure sites f1..f500 (site (i mod 500) + 1, so siblings differ);
 * on thread 0 the last COMMS nodes (leaves) are communication statements
 * (MPI_Send/MPI_Recv at lines 1..64, site by i mod 64) each with PEERS
 * distinct peers (rank + 1 + k) mod RANKS.  A node's own time is
 * 1..10 ms by a hash of (rank, thread, node); rank 7 (or the last one) is
 * 50% slower; a communication node's time is its peers' tran + sync.
 * Ranks are written one at a time: memory stays that of one rank.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "hp_profile.h"

#define NPROC 500u      /* procedure sites f1..f500 */
#define NCOMMSITE 64u   /* communication sites, lines 1..64 of comm.c */
#define FANOUT 8u

typedef struct shape {
    uint32_t ranks, nodes, comms, peers, threads;
} shape;

/* strings: "", "big.c", "comm.c", "MPI_Send", "MPI_Recv", "main", f1..f500 */
#define STR_FIRST_PROC 6u

static uint32_t hash3(uint32_t a, uint32_t b, uint32_t c)
{
    uint32_t h = a * 2654435761u ^ (b + 0x9e3779b9u) * 40503u ^ c * 2246822519u;
    h ^= h >> 15;
    h *= 2654435761u;
    h ^= h >> 13;
    return h;
}

static void make_sites(char **strings, hp_site_rec *sites)
{
    strings[0] = "";
    strings[1] = "big.c";
    strings[2] = "comm.c";
    strings[3] = "MPI_Send";
    strings[4] = "MPI_Recv";
    strings[5] = "main";
    sites[0] = (hp_site_rec){0, HP_KIND_ROOT, 0, 0, 0, 0, 0, HP_NONE, HP_NONE, 0, 0, 0, 0};
    for (uint32_t s = 1; s <= NPROC; s++) {
        char name[16];
        snprintf(name, sizeof name, "f%u", s);
        strings[STR_FIRST_PROC + s - 1] = strdup(name);
        sites[s] = (hp_site_rec){s, HP_KIND_PROCEDURE, STR_FIRST_PROC + s - 1,
                                 STR_FIRST_PROC + s - 1, 1, 10 * s, 10 * s + 9, HP_NONE,
                                 HP_NONE, 0, 0, 0, 0};
    }
    for (uint32_t c = 0; c < NCOMMSITE; c++) {
        uint32_t id = NPROC + 1 + c;
        sites[id] = (hp_site_rec){id, HP_KIND_COMM, 3 + c % 2, 5, 2, c + 1, c + 1, HP_NONE,
                                  HP_NONE, 0, 0, 0, 0};
    }
}

/* Fills thread t's tree (nodes [first, first + n)) and, on thread 0, its
 * communication records; returns the number of comm records written. */
static uint32_t make_thread(const shape *sh, uint32_t rank, uint32_t t, uint32_t first,
                            uint32_t n, hp_node_rec *nodes, hp_comm_rec *comms)
{
    double slow = rank == (sh->ranks > 7 ? 7u : sh->ranks - 1) ? 1.5 : 1.0;
    uint32_t ncomm = t == 0 ? (sh->comms < n - 1 ? sh->comms : n - 1) : 0, nc = 0;
    uint32_t npeers = sh->peers < sh->ranks ? sh->peers : sh->ranks;
    for (uint32_t i = 0; i < n; i++) {
        uint32_t parent = i ? first + (i - 1) / FANOUT : HP_NONE;
        int is_comm = i >= n - ncomm;
        uint32_t site = i == 0 ? 0 : is_comm ? NPROC + 1 + i % NCOMMSITE : i % NPROC + 1;
        uint64_t count = 1 + i % 5;
        double own = (1 + hash3(rank, t, i) % 10) * 1e-3 * slow;
        if (is_comm) {
            own = 0;
            for (uint32_t k = 0; k < npeers; k++, nc++) {
                double tran = (1 + hash3(rank, i, k) % 100) * 1e-6;
                double sync = (hash3(k, rank, i) % 200) * 1e-6 * slow;
                comms[nc] = (hp_comm_rec){first + i, (int32_t)((rank + 1 + k) % sh->ranks),
                                          count, 1024u * (k + 1), 512u * (k + 1), tran, sync,
                                          (tran + sync) / (double)count,
                                          (tran + sync) / (double)count};
                own += tran + sync;
            }
        }
        nodes[first + i] = (hp_node_rec){first + i, parent, site, t, count, own, 0, 0, count};
    }
    /* inclusive times: children after their parents, so add bottom-up */
    for (uint32_t i = n - 1; i > 0; i--)
        nodes[first + (i - 1) / FANOUT].time += nodes[first + i].time;
    for (uint32_t i = 0; i < n; i++) {
        hp_node_rec *nd = &nodes[first + i];
        nd->min = nd->max = nd->time / (double)nd->count;
    }
    return nc;
}

static int write_rank(const shape *sh, uint32_t rank, char **strings, hp_site_rec *sites,
                      hp_node_rec *nodes, hp_comm_rec *comms, hp_buf *b)
{
    uint32_t per = sh->nodes / sh->threads, nn = 0, nc = 0;
    double wall = 0, mpi = 0;
    for (uint32_t t = 0; t < sh->threads; t++) {
        nc += make_thread(sh, rank, t, nn, per, nodes, comms + nc);
        if (nodes[nn].time > wall)
            wall = nodes[nn].time;
        nn += per;
    }
    for (uint32_t i = 0; i < nc; i++)
        mpi += comms[i].tran + comms[i].sync;
    uint64_t start = 1000000000ull;
    hp_rank_data rd = {{rank, sh->threads, 1000 + rank, 0, 0, start,
                        start + (uint64_t)(wall * 1e9), wall, mpi, 0, "node0", {{0, 0}}},
                       STR_FIRST_PROC + NPROC, strings, NPROC + NCOMMSITE + 1, sites,
                       nn, nodes, nc, comms, 0, NULL, 0, NULL, 0, NULL};
    char host[32];
    snprintf(host, sizeof host, "node%u", rank / 32);
    rd.info.host = host;
    hp_encode_rank(b, &rd);
    return b->failed ? -1 : 0;
}

static int usage(void)
{
    fprintf(stderr, "usage: mkbig [-n NODES] [-c COMMS] [-p PEERS] [-t THREADS] RANKS OUT.hpf\n");
    return 2;
}

int main(int argc, char **argv)
{
    shape sh = {0, 5000, 507, 20, 1};
    int opt;
    while ((opt = getopt(argc, argv, "n:c:p:t:")) != -1) {
        uint32_t v = (uint32_t)strtoul(optarg, NULL, 10);
        switch (opt) {
        case 'n': sh.nodes = v; break;
        case 'c': sh.comms = v; break;
        case 'p': sh.peers = v; break;
        case 't': sh.threads = v; break;
        default: return usage();
        }
    }
    if (argc - optind != 2)
        return usage();
    sh.ranks = (uint32_t)strtoul(argv[optind], NULL, 10);
    if (sh.ranks < 1 || sh.threads < 1 || sh.nodes / sh.threads < 2)
        return usage();
    char **strings = calloc(STR_FIRST_PROC + NPROC, sizeof *strings);
    hp_site_rec *sites = calloc(NPROC + NCOMMSITE + 1, sizeof *sites);
    hp_node_rec *nodes = calloc(sh.nodes, sizeof *nodes);
    hp_comm_rec *comms = calloc((size_t)sh.comms * sh.peers + 1, sizeof *comms);
    FILE *f = fopen(argv[optind + 1], "wb");
    if (!strings || !sites || !nodes || !comms || !f) {
        perror(argv[optind + 1]);
        return 1;
    }
    make_sites(strings, sites);
    char *args[] = {"./big"};
    hp_run_info run = {sh.ranks, HP_CLOCK_TSC, 2.5e9, 1000000000ull, 2000000000ull, "./big", 1,
                       args};
    hp_buf b = {0};
    uint64_t written = 0;
    int rc = 0;
    hp_encode_preamble(&b);
    hp_encode_run(&b, &run);
    for (uint32_t r = 0; r <= sh.ranks && rc == 0; r++) {
        if (r < sh.ranks)
            rc = write_rank(&sh, r, strings, sites, nodes, comms, &b);
        else
            hp_encode_end(&b, sh.ranks, written + b.len);
        if (rc == 0 && (b.failed || fwrite(b.data, 1, b.len, f) != b.len))
            rc = -1;
        written += b.len;
        b.len = 0;
    }
    if (fclose(f) != 0 || rc) {
        perror(argv[optind + 1]);
        return 1;
    }
    hp_buf_free(&b);
    for (uint32_t s = 0; s < NPROC; s++)
        free(strings[STR_FIRST_PROC + s]);
    free(strings);
    free(sites);
    free(nodes);
    free(comms);
    return 0;
}
