/*
 * qlive.c - live snapshots (qlive.h): the files of PATH.live/, their
 * merge into a temporary database, and their place in a dead run's merge.
 */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include "db/db.h"
#include "hp_format.h"
#include "qlive.h"

static int is_dir(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

void hpq_live_dir(const char *path, char *buf, size_t len)
{
    size_t n = strlen(path);
    while (n > 1 && path[n - 1] == '/')
        n--;
    if (is_dir(path) && n > 5 && strncmp(path + n - 5, ".live", 5) == 0)
        snprintf(buf, len, "%.*s", (int)n, path);
    else if (n > 4 && strncmp(path + n - 4, ".hpf", 4) == 0)
        snprintf(buf, len, "%.*s.live", (int)(n - 4), path);
    else
        snprintf(buf, len, "%.*s.live", (int)n, path);
}

/* Is name "rank<N>.hpf"?  Then *rank is N. */
static int snapshot_name(const char *name, uint32_t *rank)
{
    size_t n = strlen(name);
    if (n < 9 || strncmp(name, "rank", 4) != 0 || strcmp(name + n - 4, ".hpf") != 0)
        return 0;
    size_t digits = strspn(name + 4, "0123456789");
    if (digits == 0 || digits > 9 || 4 + digits != n - 4)
        return 0;
    *rank = (uint32_t)strtoul(name + 4, NULL, 10);
    return 1;
}

static int by_name(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The snapshots of dir, in name order, as an input named NAME.hpf. */
static int find_snapshots(const char *dir, hpf_input *in, char *err, size_t errlen)
{
    DIR *d = opendir(dir);
    struct dirent *e;
    char path[4096];
    uint32_t rank;
    memset(in, 0, sizeof *in);
    if (!d) {
        snprintf(err, errlen, "%s: %s (no live snapshot yet, or the run has ended: "
                 "HPROF_LIVE)", dir, strerror(errno));
        return -1;
    }
    int rc = 0;
    while (rc == 0 && (e = readdir(d)) != NULL) {
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        if (snapshot_name(e->d_name, &rank))
            rc = hpf_input_add_file(in, path);
    }
    closedir(d);
    size_t n = strlen(dir);
    if (rc == 0 && !(in->name = malloc(n + 1)))
        rc = -1;
    if (rc != 0) {
        snprintf(err, errlen, "out of memory");
        hpf_input_free(in);
        return -1;
    }
    snprintf(in->name, n + 1, "%.*s.hpf", (int)(n - 5), dir);
    if (!in->nfiles) {
        snprintf(err, errlen, "%s: no rank has written a snapshot yet", dir);
        hpf_input_free(in);
        return -1;
    }
    qsort(in->files, in->nfiles, sizeof *in->files, by_name);
    return 0;
}

static uint64_t now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* "live: 4 ranks; snapshot ages 0.4 0.3 1.1 0.2 s; no snapshot yet: rank 3" */
static void live_header(const hpf_profile *p, char *buf, size_t len)
{
    uint64_t now = now_ns();
    size_t at = (size_t)snprintf(buf, len, "live: %u ranks; snapshot age (s) by rank:", p->nranks);
    uint32_t none = 0;
    for (uint32_t r = 0; r < p->nranks && at < len; r++) {
        const hp_rank_info *ri = &p->ranks[r].info;
        if (ri->flags & HP_RANKF_MISSING) {
            none++;
            at += (size_t)snprintf(buf + at, len - at, " -");
        } else {
            double age = now > ri->end_ns ? (double)(now - ri->end_ns) / 1e9 : 0.0;
            at += (size_t)snprintf(buf + at, len - at, " %.1f", age);
        }
    }
    if (!none || at >= len)
        return;
    at += (size_t)snprintf(buf + at, len - at, "; no snapshot yet: rank%s", none > 1 ? "s" : "");
    for (uint32_t r = 0, listed = 0; r < p->nranks && at < len; r++)
        if (p->ranks[r].info.flags & HP_RANKF_MISSING)
            at += (size_t)snprintf(buf + at, len - at, "%s %u", listed++ ? "," : "", r);
}

/* The template of a frame's temporary database: in $TMPDIR (a job's
 * private or node-local folder), /tmp without it. */
static void temp_template(char *buf, size_t len)
{
    const char *dir = getenv("TMPDIR");
    if (!dir || !*dir)
        dir = "/tmp";
    size_t n = strlen(dir);
    while (n > 1 && dir[n - 1] == '/')
        n--;
    snprintf(buf, len, "%.*s/hprof-live-XXXXXX", (int)n, dir);
}

int hpq_live_open(const char *path, sqlite3 **db, char **db_path, char *header, size_t hlen,
                  char *err, size_t errlen)
{
    char dir[4096], tmpl[4200];
    hpf_input in;
    hpf_profile p;
    hpf_db_summary sum;
    *db = NULL;
    *db_path = NULL;
    hpq_live_dir(path, dir, sizeof dir);
    temp_template(tmpl, sizeof tmpl);
    if (find_snapshots(dir, &in, err, errlen))
        return -1;
    int rc = hpf_read_input(&in, &p, err, errlen);
    if (rc == 0) {
        live_header(&p, header, hlen);
        hpq_live_rates(&p, header, hlen);
        int fd = mkstemp(tmpl);
        if (fd < 0) {
            snprintf(err, errlen, "%s: %s", tmpl, strerror(errno));
            rc = -1;
        } else {
            close(fd);
            rc = hpf_input_db_write(&in, &p, tmpl, 1, &sum, err, errlen);
        }
        hpf_free(&p);
    }
    hpf_input_free(&in);
    if (rc == 0 && sqlite3_open_v2(tmpl, db, SQLITE_OPEN_READONLY, NULL) != SQLITE_OK) {
        snprintf(err, errlen, "%s: cannot open", tmpl);
        rc = -1;
    }
    if (rc == 0 && !(*db_path = strdup(tmpl)))
        rc = -1;
    if (rc != 0) {
        sqlite3_close(*db);
        *db = NULL;
        unlink(tmpl);
    }
    return rc;
}

static int listed(const hpf_input *in, const char *path)
{
    for (uint32_t i = 0; i < in->nfiles; i++)
        if (strcmp(in->files[i], path) == 0)
            return 1;
    return 0;
}

/* Adds the NAME.rank<N>.hpf beside in->name (NAME.hpf) not yet listed:
 * a rank that wrote its own file when it died removed its snapshot. */
static int add_own_files(hpf_input *in)
{
    char dir[4096], path[4400];
    const char *slash = strrchr(in->name, '/');
    const char *base = slash ? slash + 1 : in->name;
    size_t blen = strlen(base) - 4;   /* NAME without .hpf */
    snprintf(dir, sizeof dir, "%.*s", slash ? (int)(slash - in->name) : 1,
             slash ? in->name : ".");
    DIR *d = opendir(dir);
    struct dirent *e;
    int rc = 0;
    if (!d)
        return 0;
    while (rc == 0 && (e = readdir(d)) != NULL) {
        uint32_t rank;
        if (strncmp(e->d_name, base, blen) != 0 || strncmp(e->d_name + blen, ".rank", 5) != 0 ||
            !snapshot_name(e->d_name + blen + 1, &rank))
            continue;
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        if (!listed(in, path))
            rc = hpf_input_add_file(in, path);
    }
    closedir(d);
    qsort(in->files, in->nfiles, sizeof *in->files, by_name);
    return rc;
}

int hpq_live_as_run(const char *path, hpf_input *in, char *err, size_t errlen)
{
    char dir[4096];
    struct stat st;
    memset(in, 0, sizeof *in);
    if (stat(path, &st) == 0)
        return 0;
    hpq_live_dir(path, dir, sizeof dir);
    if (!is_dir(dir) || find_snapshots(dir, in, err, errlen))
        return is_dir(dir) ? -1 : 0;
    /* a rank that wrote its own file when it died: that file, not its
     * snapshot (mpirun ends the others with SIGTERM when one is killed) */
    size_t n = strlen(in->name) - 4;
    for (uint32_t i = 0; i < in->nfiles; i++) {
        char own[4400];
        uint32_t rank;
        snapshot_name(strrchr(in->files[i], '/') + 1, &rank);
        snprintf(own, sizeof own, "%.*s.rank%u.hpf", (int)n, in->name, rank);
        char *copy = stat(own, &st) == 0 ? strdup(own) : NULL;
        if (copy) {
            free(in->files[i]);
            in->files[i] = copy;
        }
    }
    if (add_own_files(in)) {
        snprintf(err, errlen, "out of memory");
        hpf_input_free(in);
        return -1;
    }
    return 1;
}

/* Rank N of path NAME.rank<N>.hpf, or UINT32_MAX. */
static uint32_t rank_of_part(const char *path)
{
    const char *dot = strrchr(path, '.');
    const char *r = dot;
    while (r && r > path && r[-1] >= '0' && r[-1] <= '9')
        r--;
    if (!dot || r == dot || r - path < 5 || strncmp(r - 5, ".rank", 5) != 0)
        return UINT32_MAX;
    return (uint32_t)strtoul(r, NULL, 10);
}

static int has_rank(const hpf_input *in, uint32_t rank)
{
    for (uint32_t i = 0; i < in->nfiles; i++)
        if (rank_of_part(in->files[i]) == rank)
            return 1;
    return 0;
}

int hpq_live_add_to_parts(hpf_input *in)
{
    char dir[4096], path[4400];
    uint32_t rank;
    if (in->nfiles == 0 || rank_of_part(in->files[0]) == UINT32_MAX)
        return 0;   /* one whole profile, not a dead run's parts */
    hpq_live_dir(in->name, dir, sizeof dir);
    DIR *d = opendir(dir);
    if (!d)
        return 0;
    struct dirent *e;
    int rc = 0;
    while (rc == 0 && (e = readdir(d)) != NULL)
        if (snapshot_name(e->d_name, &rank) && !has_rank(in, rank)) {
            snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
            rc = hpf_input_add_file(in, path);
        }
    closedir(d);
    return rc;
}

static int is_snapshot_path(const char *path, uint32_t *rank)
{
    const char *slash = strrchr(path, '/');
    return slash && slash - path > 5 && strncmp(slash - 5, ".live", 5) == 0 &&
           snapshot_name(slash + 1, rank);
}

void hpq_live_note(const hpf_input *in, const hpf_profile *p, char *buf, size_t len)
{
    size_t at = strlen(buf);
    uint32_t rank;
    for (uint32_t i = 0; i < in->nfiles && at < len; i++) {
        if (!is_snapshot_path(in->files[i], &rank) || rank >= p->nranks)
            continue;
        const hp_rank_info *ri = &p->ranks[rank].info;
        double before = p->run.end_ns > ri->end_ns ? (double)(p->run.end_ns - ri->end_ns) / 1e9 : 0;
        at += (size_t)snprintf(buf + at, len - at, "%srank %u: live snapshot from %.1f s before "
                               "the end", at ? "; " : "", rank, before);
    }
}
