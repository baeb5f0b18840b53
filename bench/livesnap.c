/*
 * bench/livesnap.c - the CPU time of live snapshots (HPROF_LIVE, hp_live.h,
 * hp_snapshot_image.h) of a 10^6-node tree (argv[1] nodes): the records
 * read while a thread of the process keeps adding calls to the first
 * thousand of them, then written as a rank's file (argv[2], default
 * /tmp/hprof-livesnap.hpf); argv[3] "quiet": no thread recording meanwhile;
 * "grow": the other thread records in a tree of its own, and the first
 * thread's tree grows by ten nodes between snapshots (the second's records
 * move by ten: tests/live/run.sh checks the bytes with a small tree).
 * Nine snapshots as the live thread takes them, one after the other: the
 * first (every record new) and the median of the other eight, in CPU
 * milliseconds of the snapshotting thread (user + system: a loaded
 * machine's waits left out), and whether a last one, once nothing
 * records, is byte for byte what the end-of-run writer makes of the
 * records read from scratch (bench/live.sh).
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
#include "hp_snapshot_image.h"
#include "hp_thread.h"

static atomic_int stop;

enum { WIDTH = 1000 };
static uint32_t sites[WIDTH], comm_site;

static void add_sites(void)
{
    char name[32];
    for (int i = 0; i < WIDTH; i++) {
        snprintf(name, sizeof name, "f%d", i);
        sites[i] = hp_site_add_static(HP_KIND_PROCEDURE, name, name, "bench.c", 10 + i, 10 + i,
                                      HP_NONE, HP_NONE);
    }
    comm_site = hp_site_add_static(HP_KIND_COMM, "MPI_Allreduce", "f0", "bench.c", 5, 5, HP_NONE,
                                   HP_NONE);
}

/* The calling thread's tree grown to n nodes (at most WIDTH^2): WIDTH
 * children of the root with children of their own. */
static hp_thread *grow_tree(uint32_t n)
{
    static uint32_t next;
    hp_thread *t = hp_thread_self();
    for (; t->nnodes < n; next++) {
        uint32_t top = hp_cct_child(t, HP_ROOT_NODE, sites[next % WIDTH]);
        uint32_t below = hp_cct_child(t, top, sites[(next / WIDTH) % WIDTH]);
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

/* Calls WIDTH sites once under the root of a tree of its own, then keeps
 * calling the first ten and a communication site: most of its records
 * stand still while they move (the first thread's tree grows), and the
 * rank's MPI time is in them. */
static void *record_own_tree(void *unused)
{
    hp_thread *t = hp_thread_self();
    (void)unused;
    for (uint32_t i = 0; i < WIDTH; i++)
        hp_node_add(hp_node_at(t, hp_cct_child(t, HP_ROOT_NODE, sites[i])), 50);
    while (!atomic_load(&stop)) {
        for (uint32_t i = 0; i < 10; i++)
            hp_node_add(hp_node_at(t, hp_cct_child(t, HP_ROOT_NODE, sites[i])), 50);
        hp_node_add(hp_node_at(t, hp_cct_child(t, HP_ROOT_NODE, comm_site)), 70);
    }
    return NULL;
}

static double cpu_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static int by_value(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, by_value);
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

static long file_bytes(const char *path, unsigned char **data)
{
    FILE *f = fopen(path, "rb");
    long n = -1;
    if (f && fseek(f, 0, SEEK_END) == 0 && (n = ftell(f)) >= 0 && fseek(f, 0, SEEK_SET) == 0 &&
        (*data = malloc((size_t)n + 1)) && fread(*data, 1, (size_t)n, f) != (size_t)n)
        n = -1;
    if (f)
        fclose(f);
    return n;
}

/* Whether one more snapshot of the image (nothing recording now) is byte
 * for byte the file the end-of-run writer makes of a snapshot read from
 * scratch. */
static int same_as_whole_write(hp_snapshot_image *im, const hp_run_info *run, const char *out)
{
    char whole[4200];
    unsigned char *a = NULL, *b = NULL;
    hp_rank_info info = {0};
    hp_rank_data fresh;
    uint64_t start = hp_ticks();
    memset(&fresh, 0, sizeof fresh);
    fresh.info.host = strdup("bench");
    info.host = strdup("bench");
    snprintf(whole, sizeof whole, "%s.whole", out);
    unlink(whole);
    int rc = hp_snapshot_image_take(im, &info, start) || hp_snapshot_image_write(im, run, out) ||
             hp_snapshot_live(&fresh, hp_ticks(), NULL);
    fresh.info.end_ns = im->rd.info.end_ns; /* the same window */
    fresh.info.wall = im->rd.info.wall;
    rc = rc || hp_finish_write_local_at(&fresh, run, whole);
    hp_rank_data_free(&fresh);
    if (rc)
        return 0;
    long na = file_bytes(out, &a), nb = file_bytes(whole, &b);
    int same = na >= 0 && na == nb && memcmp(a, b, (size_t)na) == 0;
    free(a);
    free(b);
    unlink(whole);
    return same;
}

int main(int argc, char **argv)
{
    enum { SNAPSHOTS = 9 };
    uint32_t n = argc > 1 ? (uint32_t)strtoul(argv[1], NULL, 10) : 1000000;
    const char *out = argc > 2 ? argv[2] : "/tmp/hprof-livesnap.hpf";
    double read_ms[SNAPSHOTS], write_ms[SNAPSHOTS];
    hp_snapshot_image im;
    hp_run_info run = {1, (uint32_t)hp_clock_kind(), hp_clock_ticks_per_sec(), 0, 0, NULL, 0, NULL};
    hp_process_no_exit_report();
    hp_cfg.live = 1;
    hp_records_set_max_nodes(2ull * n + 16 * WIDTH);
    add_sites();
    hp_thread *t = grow_tree(n);
    pthread_t other;
    const char *mode = argc > 3 ? argv[3] : "busy";
    int busy = strcmp(mode, "quiet") != 0, growing = strcmp(mode, "grow") == 0;
    if (busy)
        pthread_create(&other, NULL, growing ? record_own_tree : keep_recording, t);
    memset(&im, 0, sizeof im);
    uint64_t start = hp_ticks();
    for (int k = 0; k < SNAPSHOTS; k++) {
        hp_rank_info info = {0};
        info.host = strdup("bench");
        double t0 = cpu_ms();
        if (hp_snapshot_image_take(&im, &info, start) != 0)
            return 1;
        double t1 = cpu_ms();
        if (hp_snapshot_image_write(&im, &run, out) != 0)
            return 1;
        double t2 = cpu_ms();
        read_ms[k] = t1 - t0;
        write_ms[k] = t2 - t1;
        usleep(100000); /* the snapshots' interval, shortened */
        if (growing)
            grow_tree(t->nnodes + 10);
    }
    atomic_store(&stop, 1);
    if (busy)
        pthread_join(other, NULL);
    int same = same_as_whole_write(&im, &run, out);
    unsigned char *data = NULL;
    long bytes = file_bytes(out, &data);
    free(data);
    unlink(out);
    printf("nodes %u first: read_ms %.1f write_ms %.1f; next %d (median): read_ms %.1f "
           "write_ms %.1f; bytes %ld; %s\n",
           t->nnodes, read_ms[0], write_ms[0], SNAPSHOTS - 1, median(read_ms + 1, SNAPSHOTS - 1),
           median(write_ms + 1, SNAPSHOTS - 1), bytes,
           same ? "same bytes as the end-of-run writer" : "DIFFERS from the end-of-run writer");
    hp_snapshot_image_free(&im);
    return !same;
}
