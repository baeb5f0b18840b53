/*
 * bench/livesnap.c - the time of one live snapshot (HPROF_LIVE,
 * hp_live.h) of a 10^6-node tree (argv[1] nodes): the records read while
 * a thread of the process keeps adding calls to them, then written as a
 * rank's file (argv[2], default /tmp/hprof-livesnap.hpf); argv[3] "quiet":
 * no thread recording meanwhile (on 2 cores it takes one).  Prints
 * "nodes N read_ms R write_ms W bytes B" for the best of 5 (bench/live.sh).
 */
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "hp_clock.h"
#include "hp_config.h"
#include "hp_finish.h"
#include "hp_process.h"
#include "hp_site.h"
#include "hp_snapshot.h"
#include "hp_thread.h"

static atomic_int stop;

static double now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

/* A tree of about n nodes: 1000 sites, each a child of the root with
 * children of its own, on the calling thread. */
static hp_thread *grow_tree(uint32_t n)
{
    enum { WIDTH = 1000 };
    uint32_t sites[WIDTH];
    char name[32];
    for (int i = 0; i < WIDTH; i++) {
        snprintf(name, sizeof name, "f%d", i);
        sites[i] = hp_site_add_static(HP_KIND_PROCEDURE, name, name, "bench.c", 10 + i, 10 + i,
                                      HP_NONE, HP_NONE);
    }
    hp_thread *t = hp_thread_self();
    for (uint32_t i = 0; t->nnodes < n; i++) {
        uint32_t top = hp_cct_child(t, HP_ROOT_NODE, sites[i % WIDTH]);
        uint32_t below = hp_cct_child(t, top, sites[(i / WIDTH) % WIDTH]);
        hp_node_add(hp_node_at(t, below), 100);
    }
    return t;
}

/* Keeps calling into the tree's first nodes while the snapshots read. */
static void *keep_recording(void *arg)
{
    hp_thread *t = arg;
    while (!atomic_load(&stop))
        for (uint32_t i = 2; i < 1000; i++)
            hp_node_add(hp_node_at(t, i), 50);
    return NULL;
}

int main(int argc, char **argv)
{
    uint32_t n = argc > 1 ? (uint32_t)strtoul(argv[1], NULL, 10) : 1000000;
    const char *out = argc > 2 ? argv[2] : "/tmp/hprof-livesnap.hpf";
    double best_read = 1e9, best_write = 1e9;
    long bytes = 0;
    hp_process_no_exit_report();
    hp_cfg.live = 1;
    hp_records_set_max_nodes(2ull * n);
    hp_thread *t = grow_tree(n);
    pthread_t other;
    int busy = !(argc > 3 && strcmp(argv[3], "quiet") == 0);
    if (busy)
        pthread_create(&other, NULL, keep_recording, t);
    for (int k = 0; k < 5; k++) {
        hp_rank_data rd;
        hp_run_info run = {1, (uint32_t)hp_clock_kind(), hp_clock_ticks_per_sec(), 0, 0,
                           NULL, 0, NULL};
        memset(&rd, 0, sizeof rd);
        double t0 = now_ms();
        if (hp_snapshot_live(&rd, hp_ticks()) != 0)
            return 1;
        double t1 = now_ms();
        rd.info.host = strdup("bench");
        unlink(out);
        if (hp_finish_write_local_at(&rd, &run, out) != 0)
            return 1;
        double t2 = now_ms();
        best_read = t1 - t0 < best_read ? t1 - t0 : best_read;
        best_write = t2 - t1 < best_write ? t2 - t1 : best_write;
        FILE *f = fopen(out, "rb");
        if (f && fseek(f, 0, SEEK_END) == 0)
            bytes = ftell(f);
        if (f)
            fclose(f);
        hp_rank_data_free(&rd);
    }
    atomic_store(&stop, 1);
    if (busy)
        pthread_join(other, NULL);
    unlink(out);
    printf("nodes %u read_ms %.1f write_ms %.1f bytes %ld\n", t->nnodes, best_read, best_write,
           bytes);
    return 0;
}
