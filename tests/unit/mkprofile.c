/*
 * mkprofile.c - writes a small, known two-rank profile with the encoder,
 * for the analyzer's shell tests (test_query.sh checks exact numbers
 * derived from the values below).
 *
 *   mkprofile [-r 0|1 | -m] OUT.hpf
 *
 * -r RANK writes the file that rank writes alone in a run that died
 * (NAME.rank<N>.hpf: its own records, the other rank an empty block
 * flagged missing), so the two -r files merge into the same run.
 * -m gives rank 1 a second site equal to MPI_Send@app.c:60 (two calls on
 * one line), with its own node under main and comm record: the merge
 * makes them one node, whose stat row sums both records.
 */
#include <stdio.h>
#include <string.h>
#include "hp_profile.h"

#define NOSITE HP_NONE
#define COUNT(a) (uint32_t)(sizeof(a) / sizeof(a)[0])

/* rank 0: one thread */
static char *strings0[] = {"", "main", "app.c", "MPI_Send", "MPI_Allreduce", "compute"};
static hp_site_rec sites0[] = {
    /* id kind name func file line end parent callee flags module res offset */
    {0, HP_KIND_ROOT, 0, 0, 0, 0, 0, NOSITE, NOSITE, 0, 0, 0, 0},
    {1, HP_KIND_PROCEDURE, 1, 1, 2, 10, 90, NOSITE, NOSITE, 0, 0, 0, 0},
    {2, HP_KIND_LOOP, 0, 1, 2, 20, 40, 1, NOSITE, 0, 0, 0, 0},
    {3, HP_KIND_COMM, 3, 1, 2, 42, 42, 2, NOSITE, 0, 0, 0, 0},
    {4, HP_KIND_COMM, 4, 1, 2, 50, 50, 1, NOSITE, HP_SITEF_COLLECTIVE, 0, 0, 0},
    {5, HP_KIND_PROCEDURE, 5, 5, 2, 100, 120, NOSITE, NOSITE, 0, 0, 0, 0},
};
static hp_node_rec nodes0[] = {
    /* id parent site thread count time min max timed */
    {0, HP_NONE, 0, 0, 1, 10.0, 10.0, 10.0, 1},
    {1, 0, 1, 0, 1, 10.0, 10.0, 10.0, 1},
    {2, 1, 2, 0, 5, 8.0, 1.5, 1.75, 5},
    {3, 2, 3, 0, 5, 1.5, 0.25, 0.375, 5},
    {4, 2, 5, 0, 5, 6.0, 1.0, 1.5, 5},
    {5, 1, 4, 0, 2, 0.5, 0.125, 0.375, 2},
};
static hp_comm_rec comms0[] = {
    /* node peer count sent recv tran sync min max */
    {3, 1, 5, 5000, 0, 1.0, 0.5, 0.1, 0.3},
    {5, HP_PEER_ALL, 2, 16, 16, 0.25, 0.25, 0.125, 0.375},
};

/* rank 1: two threads, sites in another order, one unresolved site and a
 * second MPI_Send statement */
static char *strings1[] = {"", "compute", "app.c", "MPI_Allreduce", "main", "MPI_Recv",
                           "/opt/lib/libapp.so", "MPI_Send", "/src/app.c"};
static hp_site_rec sites1[] = {
    {0, HP_KIND_ROOT, 0, 0, 0, 0, 0, NOSITE, NOSITE, 0, 0, 0, 0},
    {1, HP_KIND_PROCEDURE, 1, 1, 2, 100, 120, NOSITE, NOSITE, 0, 0, 0, 0},
    {2, HP_KIND_COMM, 3, 4, 2, 50, 50, 3, NOSITE, HP_SITEF_COLLECTIVE, 0, 0, 0},
    {3, HP_KIND_PROCEDURE, 4, 4, 2, 10, 90, NOSITE, NOSITE, 0, 0, 0, 0},
    {4, HP_KIND_LOOP, 0, 4, 2, 20, 40, 3, NOSITE, 0, 0, 0, 0},
    {5, HP_KIND_COMM, 5, 0, 0, 0, 0, NOSITE, NOSITE, HP_SITEF_DYNAMIC, 6, 0, 0x1a2b},
    {6, HP_KIND_COMM, 7, 4, 8, 60, 60, 3, NOSITE, 0, 0, 0, 0},
    {7, HP_KIND_COMM, 7, 4, 8, 60, 60, 3, NOSITE, 0, 0, 0, 0},     /* -m only */
};
static hp_node_rec nodes1[] = {
    {0, HP_NONE, 0, 0, 1, 12.0, 12.0, 12.0, 1},
    {1, 0, 3, 0, 1, 12.0, 12.0, 12.0, 1},
    {2, 1, 4, 0, 5, 9.0, 1.5, 2.0, 5},
    {3, 2, 5, 0, 5, 2.0, 0.25, 0.5, 5},
    {4, 2, 1, 0, 5, 6.5, 1.0, 1.5, 5},
    {5, 1, 2, 0, 2, 1.0, 0.25, 0.75, 2},
    {6, 1, 6, 0, 1, 0.25, 0.25, 0.25, 1},
    {7, HP_NONE, 0, 1, 1, 4.0, 4.0, 4.0, 1},
    {8, 7, 1, 1, 3, 3.5, 1.0, 1.5, 3},
    {9, 1, 7, 0, 2, 0.5, 0.125, 0.375, 2},     /* -m only */
};
static hp_comm_rec comms1[] = {
    {3, 0, 5, 0, 5000, 1.25, 0.75, 0.2, 0.3},
    {5, HP_PEER_ALL, 2, 16, 16, 0.5, 0.5, 0.25, 0.5},
    {6, 0, 1, 100, 0, 0.125, 0.125, 0.125, 0.125},
    {9, 0, 2, 200, 0, 0.25, 0.25, 0.125, 0.125},     /* -m only */
};

/* The block of a rank whose records are in another file (-r), as the
 * file a rank writes alone when another one aborts carries it. */
static void encode_missing_rank(hp_buf *b, uint32_t rank)
{
    char *empty[] = {""};
    hp_rank_data rd;
    memset(&rd, 0, sizeof rd);
    rd.info.rank = rank;
    rd.info.flags = HP_RANKF_MISSING;
    rd.info.host = "";
    rd.nstrings = 1;
    rd.strings = empty;
    hp_encode_rank(b, &rd);
}

static char *argv_run[] = {"./app", "-n", "5"};

int main(int argc, char **argv)
{
    hp_run_info run = {2, HP_CLOCK_TSC, 2.5e9, 1000000000ull, 13000000000ull, "./app", 3,
                       argv_run};
    hp_rank_data ranks[2] = {
        {{0, 1, 100, 0, 2, 1000000000ull, 11000000000ull, 10.0, 2.0, 0, "node0", {{0, 0}}},
         COUNT(strings0), strings0, COUNT(sites0), sites0, COUNT(nodes0), nodes0,
         COUNT(comms0), comms0, 0, NULL, 0, NULL, 0, NULL},
        {{1, 2, 200, 0, 2, 1000000000ull, 13000000000ull, 12.0, 3.0, 0, "node1", {{0, 0}}},
         COUNT(strings1), strings1, COUNT(sites1) - 1, sites1, COUNT(nodes1) - 1, nodes1,
         COUNT(comms1) - 1, comms1, 0, NULL, 0, NULL, 0, NULL},
    };
    hp_buf b = {0};
    FILE *f;
    int only = -1;              /* -r RANK: that rank's file alone */

    if (argc == 4 && strcmp(argv[1], "-r") == 0 && (argv[2][0] == '0' || argv[2][0] == '1') &&
        !argv[2][1]) {
        only = argv[2][0] - '0';
        argv += 2;
        argc -= 2;
    } else if (argc == 3 && strcmp(argv[1], "-m") == 0) {
        ranks[1].nsites++;
        ranks[1].nnodes++;
        ranks[1].ncomms++;
        argv++;
        argc--;
    }
    if (argc != 2) {
        fprintf(stderr, "usage: mkprofile [-r 0|1 | -m] OUT.hpf\n");
        return 2;
    }
    hp_encode_preamble(&b);
    hp_encode_run(&b, &run);
    for (int r = 0; r < 2; r++) {
        if (only < 0 || r == only)
            hp_encode_rank(&b, &ranks[r]);
        else
            encode_missing_rank(&b, (uint32_t)r);
    }
    hp_encode_end(&b, 2, b.len);
    if (b.failed || !(f = fopen(argv[1], "wb"))) {
        perror(argv[1]);
        return 1;
    }
    if (fwrite(b.data, 1, b.len, f) != b.len || fclose(f) != 0) {
        perror(argv[1]);
        return 1;
    }
    hp_buf_free(&b);
    return 0;
}
