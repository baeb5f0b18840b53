/*
 * mkcheck.c - writes small known OpenMP+MPI profiles for the test of
 * hprof-query --check (test_check.sh): one that satisfies every rule and
 * variants that each break one rule (check.h) by changing a few numbers.
 *
 *   mkcheck OUT.hpf VARIANT
 *
 * The good profile, one rank of two threads, wall 10 s, MPI time 1 s:
 *   thread 0: root 10 > main 10 > parallel@app.c:20 6 > { implicit barrier 1,
 *             task create@22 0.5 (4 calls), task@22 2 (2 runs), taskwait 1.5 },
 *             main > MPI_Allreduce 1 (2 calls)
 *   thread 1: root 6 > main (the forking context: not run here, 0 calls)
 *             > parallel@app.c:20 6 > { implicit barrier 2, task@22 2 (2 runs) }
 * Variants (what changes, and the rule it breaks):
 *   a        task create 3.5 s: children of the region 8 s > 6 s
 *   b        taskwait 5.5 s: waits in the region 6.5 s > 6 s (and a, c)
 *   c        thread 1's task 5 s: tasks and waits of the region 7 s > 6 s (and a)
 *   d        thread 1 runs 1 task: 4 creations, 3 executions
 *   d-abort  the same in a rank that called MPI_Abort: not compared, ok
 *   e        MPI time 11 s: MPI share 110% of wall x 1 thread
 *   e-root   thread 1 runs main for 12 s > wall 10 s
 *   e-overflow (holds) thread 0's <overflow> node (events past HPROF_MAX_NODES,
 *            a child of the root) 4 s: its time lies inside main's, it is
 *            no top-level node of its own
 *   f        MPI_Allreduce min 0.6 s > max 0.4 s
 *   untied   (holds) thread 1 ran only fragments (1 s) of tasks that thread 0
 *            resumed and completed: thread 1's task@22 1 s with 0 runs,
 *            thread 0's 3 s with 4 runs
 *   f-zero   MPI_Allreduce 1 s with 0 calls (only task nodes may: untied)
 *   untied-max (holds) thread 0's task@22 3 s > 2 runs x max 1 s (its time
 *            holds fragments of tasks completed and counted elsewhere)
 *   f-max    MPI_Allreduce 1.5 s > 2 calls x max 0.5 s (only task nodes may)
 *   nested   (holds) thread 0's task@22 runs one more task@22 (0.5 s) nested in
 *            it, created there: 5 creations, 5 executions; --threads shows
 *            task_time 2 s on thread 0 (the nested task is inside it), 3 tasks
 */
#include <stdio.h>
#include <string.h>
#include "hp_profile.h"

#define NOSITE HP_NONE
#define COUNT(a) (uint32_t)(sizeof(a) / sizeof(a)[0])

static char *strings[] = {"", "main", "app.c", "parallel", "implicit barrier", "task create",
                          "task", "taskwait", "MPI_Allreduce", "<overflow>"};
static hp_site_rec sites[] = {
    /* id kind name func file line end parent callee flags module res offset */
    {0, HP_KIND_ROOT, 0, 0, 0, 0, 0, NOSITE, NOSITE, 0, 0, 0, 0},
    {1, HP_KIND_PROCEDURE, 1, 1, 2, 10, 90, NOSITE, NOSITE, 0, 0, 0, 0},
    {2, HP_KIND_OMP, 3, 1, 2, 20, 30, 1, NOSITE, 0, 0, 0, 0},
    {3, HP_KIND_OMP, 4, 1, 2, 20, 20, 2, NOSITE, 0, 0, 0, 0},
    {4, HP_KIND_OMP, 5, 1, 2, 22, 22, 2, NOSITE, 0, 0, 0, 0},
    {5, HP_KIND_OMP, 6, 1, 2, 22, 23, 2, NOSITE, 0, 0, 0, 0},
    {6, HP_KIND_OMP, 7, 1, 2, 24, 24, 2, NOSITE, 0, 0, 0, 0},
    {7, HP_KIND_COMM, 8, 1, 2, 40, 40, 1, NOSITE, HP_SITEF_COLLECTIVE, 0, 0, 0},
    {8, HP_KIND_OVERFLOW, 9, 0, 0, 0, 0, NOSITE, NOSITE, 0, 0, 0, 0},
};
static hp_node_rec nodes[] = {
    /* id parent site thread count time min max timed */
    {0, HP_NONE, 0, 0, 1, 10.0, 10.0, 10.0, 1},
    {1, 0, 1, 0, 1, 10.0, 10.0, 10.0, 1},
    {2, 1, 2, 0, 1, 6.0, 6.0, 6.0, 1},
    {3, 2, 3, 0, 1, 1.0, 1.0, 1.0, 1},
    {4, 2, 4, 0, 4, 0.5, 0.125, 0.125, 4},
    {5, 2, 5, 0, 2, 2.0, 1.0, 1.0, 2},
    {6, 2, 6, 0, 1, 1.5, 1.5, 1.5, 1},
    {7, 1, 7, 0, 2, 1.0, 0.5, 0.5, 2},
    {8, HP_NONE, 0, 1, 1, 6.0, 6.0, 6.0, 1},
    {9, 8, 1, 1, 0, 0.0, 0.0, 0.0, 0},
    {10, 9, 2, 1, 1, 6.0, 6.0, 6.0, 1},
    {11, 10, 3, 1, 1, 2.0, 2.0, 2.0, 1},
    {12, 10, 5, 1, 2, 2.0, 1.0, 1.0, 2},
    {13, 5, 4, 0, 0, 0.0, 0.0, 0.0, 0},   /* nested: a creation in a task */
    {14, 5, 5, 0, 0, 0.0, 0.0, 0.0, 0},   /* nested: a task run in a task */
    {15, 0, 8, 0, 0, 0.0, 0.0, 0.0, 0},   /* e-overflow */
};
static hp_comm_rec comms[] = {
    /* node peer count sent recv tran sync min max */
    {7, HP_PEER_ALL, 2, 16, 16, 1.0, 0.0, 0.5, 0.5},
};

static void set_node(uint32_t id, uint64_t count, double time, double min, double max)
{
    nodes[id].count = nodes[id].timed = count;
    nodes[id].time = time;
    nodes[id].min = min;
    nodes[id].max = max;
}

/* Applies a variant to the good profile; returns -1 for an unknown name. */
static int apply_variant(const char *v, hp_rank_info *ri)
{
    if (strcmp(v, "ok") == 0)
        return 0;
    if (strcmp(v, "a") == 0)
        set_node(4, 4, 3.5, 0.5, 1.0);
    else if (strcmp(v, "b") == 0)
        set_node(6, 1, 5.5, 5.5, 5.5);
    else if (strcmp(v, "c") == 0)
        set_node(12, 2, 5.0, 2.0, 3.0);
    else if (strcmp(v, "d") == 0 || strcmp(v, "d-abort") == 0) {
        set_node(12, 1, 2.0, 2.0, 2.0);
        if (strcmp(v, "d-abort") == 0)
            ri->flags |= HP_RANKF_ABORTED;
    } else if (strcmp(v, "e") == 0)
        ri->mpi_time = 11.0;
    else if (strcmp(v, "e-root") == 0)
        set_node(9, 1, 12.0, 12.0, 12.0);
    else if (strcmp(v, "e-overflow") == 0)
        set_node(15, 5, 4.0, 0.5, 1.0);
    else if (strcmp(v, "f") == 0)
        set_node(7, 2, 1.0, 0.6, 0.4);
    else if (strcmp(v, "untied") == 0) {
        set_node(12, 0, 1.0, 0.0, 0.0);
        set_node(5, 4, 3.0, 0.5, 1.0);
    } else if (strcmp(v, "f-zero") == 0)
        set_node(7, 0, 1.0, 0.0, 0.0);
    else if (strcmp(v, "untied-max") == 0)
        set_node(5, 2, 3.0, 1.0, 1.0);
    else if (strcmp(v, "f-max") == 0)
        set_node(7, 2, 1.5, 0.5, 0.5);
    else if (strcmp(v, "nested") == 0) {
        set_node(13, 1, 0.125, 0.125, 0.125);
        set_node(14, 1, 0.5, 0.5, 0.5);
    }
    else
        return -1;
    return 0;
}

int main(int argc, char **argv)
{
    static char *argv_run[] = {"./app"};
    hp_run_info run = {1, HP_CLOCK_TSC, 2.5e9, 1000000000ull, 11000000000ull, "./app", 1,
                       argv_run};
    hp_rank_data rank = {{0, 2, 100, 0, 2, 1000000000ull, 11000000000ull, 10.0, 1.0, 0,
                          "node0", {{0, 0}}},
                         COUNT(strings), strings, COUNT(sites), sites, COUNT(nodes), nodes,
                         COUNT(comms), comms, 0, NULL, 0, NULL, 0, NULL};
    hp_buf b = {0};
    FILE *f;

    if (argc != 3 || apply_variant(argv[2], &rank.info) != 0) {
        fprintf(stderr, "usage: mkcheck OUT.hpf ok|a|b|c|d|d-abort|e|e-root|f|f-zero|f-max|untied|untied-max|nested\n");
        return 2;
    }
    hp_encode_preamble(&b);
    hp_encode_run(&b, &run);
    hp_encode_rank(&b, &rank);
    hp_encode_end(&b, 1, b.len);
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
