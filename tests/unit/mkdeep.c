/*
 * mkdeep.c - writes a profile with a deep, large calling-context tree,
 * the shape an interpreter's recursion gives (Lua's test suite: 10^6
 * nodes, depth ~300), for the database-size test (test_deep.sh).
 *
 * One rank, one thread: NODES nodes below the root in chains of DEPTH
 * nodes; chain c visits sites (c mod S) + 1, then ((c / S + d) mod S) + 1
 * at its depth d (S = NSITES procedure sites f1..fS of deep.c, lines 1..S),
 * so every chain is a distinct calling context and the merged tree keeps
 * all NODES nodes.  Every node is called once; a node at chain depth d
 * takes (DEPTH - d + 1) ms, so children never exceed their parent and the
 * profile passes hprof-query --check.
 *
 *   mkdeep OUT.hpf NODES DEPTH
 */
#include <stdio.h>
#include <stdlib.h>
#include "hp_profile.h"

#define NSITES 1000u

static int write_file(const char *path, const hp_buf *b)
{
    FILE *f = fopen(path, "wb");
    if (!f || fwrite(b->data, 1, b->len, f) != b->len || fclose(f) != 0) {
        perror(path);
        return 1;
    }
    return 0;
}

int main(int argc, char **argv)
{
    if (argc != 4) {
        fprintf(stderr, "usage: mkdeep OUT.hpf NODES DEPTH\n");
        return 2;
    }
    uint32_t nodes = (uint32_t)strtoul(argv[2], NULL, 10), depth = (uint32_t)strtoul(argv[3], NULL, 10);
    if (nodes < 1 || depth < 1 || depth >= NSITES) {
        fprintf(stderr, "mkdeep: NODES must be positive, DEPTH in 1..%u\n", NSITES - 1);
        return 2;
    }
    /* strings: "", "deep.c", then f1..fNSITES */
    char **strings = calloc(NSITES + 2, sizeof *strings);
    hp_site_rec *sites = calloc(NSITES + 1, sizeof *sites);
    hp_node_rec *recs = calloc((size_t)nodes + 1, sizeof *recs);
    if (!strings || !sites || !recs)
        return 1;
    strings[0] = "";
    strings[1] = "deep.c";
    sites[0] = (hp_site_rec){0, HP_KIND_ROOT, 0, 0, 0, 0, 0, HP_NONE, HP_NONE, 0, 0, 0, 0};
    for (uint32_t s = 1; s <= NSITES; s++) {
        char name[32];
        snprintf(name, sizeof name, "f%u", s);
        strings[s + 1] = strdup(name);
        sites[s] = (hp_site_rec){s, HP_KIND_PROCEDURE, s + 1, s + 1, 1, s, s, HP_NONE, HP_NONE,
                                 0, 0, 0, 0};
    }
    double root_time = 0;
    for (uint32_t i = 1; i <= nodes; i++) {
        uint32_t c = (i - 1) / depth, d = (i - 1) % depth + 1;   /* chain, depth in it */
        uint32_t site = d == 1 ? c % NSITES + 1 : (c / NSITES + d) % NSITES + 1;
        double t = (depth - d + 1) * 1e-3;
        recs[i] = (hp_node_rec){i, d == 1 ? 0 : i - 1, site, 0, 1, t, t, t, 1};
        if (d == 1)
            root_time += t;
    }
    recs[0] = (hp_node_rec){0, HP_NONE, 0, 0, 1, root_time, root_time, root_time, 1};
    char *args[] = {"./deep"};
    hp_run_info run = {1, HP_CLOCK_TSC, 2.5e9, 1000000000ull,
                       1000000000ull + (uint64_t)(root_time * 1e9), "./deep", 1, args};
    hp_rank_data rd = {{0, 1, 100, 0, 0, run.start_ns, run.end_ns, root_time, 0.0, 0, "node0", {{0, 0}}},
                       NSITES + 2, strings, NSITES + 1, sites, nodes + 1, recs, 0, NULL, 0, NULL, 0, NULL, 0, NULL};
    hp_buf b = {0};
    hp_encode_preamble(&b);
    hp_encode_run(&b, &run);
    hp_encode_rank(&b, &rd);
    hp_encode_end(&b, 1, b.len);
    if (b.failed) {
        fprintf(stderr, "mkdeep: out of memory\n");
        return 1;
    }
    int rc = write_file(argv[1], &b);
    hp_buf_free(&b);
    for (uint32_t s = 1; s <= NSITES; s++)
        free(strings[s + 1]);
    free(strings);
    free(sites);
    free(recs);
    return rc;
}
