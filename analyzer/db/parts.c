/*
 * parts.c - a run given as the files its ranks wrote alone (parts.h):
 * finding them by name or in a directory, reading them into one profile,
 * and naming the ranks that left none.
 */
#include <dirent.h>
#include <limits.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sqlite3.h>
#include "db.h"
#include "hp_format.h"
#include "parts.h"

/* Does path end in ".rank<N>.hpf"?  Then *prefix_len is the length of
 * what comes before ".rank" and *rank is N. */
static int rank_file(const char *path, size_t *prefix_len, uint32_t *rank)
{
    static const char ext[] = ".hpf";
    size_t n = strlen(path);
    if (n < 10 || strcmp(path + n - 4, ext) != 0)
        return 0;
    size_t end = n - 4, d = end;
    while (d > 0 && path[d - 1] >= '0' && path[d - 1] <= '9')
        d--;
    if (d == end || end - d > 9 || d < 5 || strncmp(path + d - 5, ".rank", 5) != 0)
        return 0;
    *prefix_len = d - 5;
    *rank = (uint32_t)strtoul(path + d, NULL, 10);
    return 1;
}

static char *run_name(const char *path, size_t prefix_len)
{
    char *name = malloc(prefix_len + 5);
    if (name) {
        memcpy(name, path, prefix_len);
        memcpy(name + prefix_len, ".hpf", 5);
    }
    return name;
}

int hpf_input_add_file(hpf_input *in, const char *path)
{
    char **f = realloc(in->files, (in->nfiles + 1) * sizeof *f);
    if (!f)
        return -1;
    in->files = f;
    if (!(f[in->nfiles] = strdup(path)))
        return -1;
    in->nfiles++;
    return 0;
}

void hpf_input_free(hpf_input *in)
{
    for (uint32_t i = 0; i < in->nfiles; i++)
        free(in->files[i]);
    free(in->files);
    free(in->name);
    memset(in, 0, sizeof *in);
}

static int by_name(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The run name of per-rank file path, for comparison. */
static int same_run(const char *a, const char *b)
{
    size_t la, lb;
    uint32_t ra, rb;
    return rank_file(a, &la, &ra) && rank_file(b, &lb, &rb) && la == lb &&
           strncmp(a, b, la) == 0;
}

/* The error for a directory whose per-rank files (in name order) are of
 * several runs: their names, and how to name the files of one. */
static int several_runs(const char *dir, const hpf_input *in, char *err, size_t errlen)
{
    size_t at = (size_t)snprintf(err, errlen, "%s: holds the per-rank files of several runs (",
                                 dir);
    const char *last = in->files[0];
    size_t plen = 0, n = 0;
    uint32_t rank;
    for (uint32_t i = 0; i < in->nfiles && at < errlen; i++) {
        if (i > 0 && same_run(last, in->files[i]))
            continue;
        last = in->files[i];
        rank_file(last, &plen, &rank);
        const char *base = strrchr(last, '/');
        base = base ? base + 1 : last;
        at += (size_t)snprintf(err + at, errlen - at, "%s%.*s.hpf", n++ ? ", " : "",
                               (int)(plen - (size_t)(base - last)), base);
    }
    if (at < errlen)
        snprintf(err + at, errlen - at, "): name the files of one, e.g. hprof-query %.*s.rank*.hpf",
                 (int)plen, last);
    return -1;
}

/* The per-rank files in dir (in name order), which must be of one run. */
static int find_in_directory(const char *dir, hpf_input *in, char *err, size_t errlen)
{
    DIR *d = opendir(dir);
    if (!d) {
        snprintf(err, errlen, "%s: %s", dir, strerror(errno));
        return -1;
    }
    const char *slash = dir[strlen(dir) - 1] == '/' ? "" : "/";
    struct dirent *e;
    char path[4096];
    int rc = 0;
    while (rc == 0 && (e = readdir(d)) != NULL) {
        size_t plen;
        uint32_t rank;
        snprintf(path, sizeof path, "%s%s%s", dir, slash, e->d_name);
        if (rank_file(e->d_name, &plen, &rank))
            rc = hpf_input_add_file(in, path);
    }
    closedir(d);
    if (rc != 0) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    if (!in->nfiles) {
        snprintf(err, errlen, "%s: no per-rank profile (NAME.rank<N>.hpf) in this directory",
                 dir);
        return -1;
    }
    qsort(in->files, in->nfiles, sizeof *in->files, by_name);
    size_t plen;
    uint32_t rank;
    rank_file(in->files[0], &plen, &rank);
    if (!(in->name = run_name(in->files[0], plen))) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    for (uint32_t i = 1; i < in->nfiles; i++)
        if (!same_run(in->files[0], in->files[i]))
            return several_runs(dir, in, err, errlen);
    return 0;
}

/* Files named one by one: all the per-rank files of one run. */
static int find_named(int nargs, char *const *args, hpf_input *in, char *err, size_t errlen)
{
    for (int i = 0; i < nargs; i++) {
        size_t plen;
        uint32_t rank;
        if (!rank_file(args[i], &plen, &rank)) {
            snprintf(err, errlen, "%s: not a per-rank profile (NAME.rank<N>.hpf): several "
                     "inputs must be the per-rank files of one run", args[i]);
            return -1;
        }
        if (!in->name && !(in->name = run_name(args[i], plen)))
            goto oom;
        if (strncmp(in->name, args[i], plen) != 0 || strlen(in->name) != plen + 4) {
            snprintf(err, errlen, "%s: not a file of the run %s (NAME.rank<N>.hpf)", args[i],
                     in->name);
            return -1;
        }
        if (hpf_input_add_file(in, args[i]))
            goto oom;
    }
    return 0;
oom:
    snprintf(err, errlen, "out of memory");
    return -1;
}

int hpf_input_find(int nargs, char *const *args, hpf_input *in, char *err, size_t errlen)
{
    struct stat st;
    int rc;
    memset(in, 0, sizeof *in);
    if (nargs == 1 && stat(args[0], &st) == 0 && S_ISDIR(st.st_mode))
        rc = find_in_directory(args[0], in, err, errlen);
    else if (nargs == 1)
        rc = hpf_input_add_file(in, args[0]) || !(in->name = strdup(args[0])) ? -1 : 0;
    else
        rc = find_named(nargs, args, in, err, errlen);
    if (rc == -1 && !err[0])
        snprintf(err, errlen, "out of memory");
    if (rc != 0)
        hpf_input_free(in);
    return rc;
}

/* The host of the first rank whose records p holds ("" if none). */
static const char *first_host(const hpf_profile *p)
{
    for (uint32_t r = 0; r < p->nranks; r++)
        if (!(p->ranks[r].info.flags & HP_RANKF_MISSING))
            return p->ranks[r].info.host ? p->ranks[r].info.host : "";
    return "";
}

/* Clocks of different hosts may disagree by this much: ranks of one run
 * on two hosts may seem not to overlap in time by up to it. */
#define HOST_CLOCK_SKEW_NS 2000000000ull

/* Do the time spans [start, end] of two files' runs (a per-rank file's
 * is its rank's) share a moment?  Every rank of one run is alive when
 * MPI_Init completes; two runs one after the other are not. */
static int spans_overlap(const hp_run_info *a, const hp_run_info *b, uint64_t skew)
{
    return a->start_ns <= b->end_ns + skew && b->start_ns <= a->end_ns + skew;
}

/* The run of a file and where its first rank ran: what its RUN header
 * says, for telling whether two files can be of one run. */
typedef struct run_view {
    const hp_run_info *run;
    const char *host;
} run_view;

/* Whether two files' runs can be one: 0, or 1 with the field that
 * differs, and both values, in what. */
static int run_difference(run_view part, run_view first, char *what, size_t len)
{
    const hp_run_info *a = part.run, *b = first.run;
    const char *pa = a->program ? a->program : "", *pb = b->program ? b->program : "";
    if (a->nranks != b->nranks) {
        snprintf(what, len, "rank count %u, not %u", a->nranks, b->nranks);
        return 1;
    }
    if (strcmp(pa, pb) != 0) {
        snprintf(what, len, "program %s, not %s", pa, pb);
        return 1;
    }
    if (a->clock != b->clock) {
        snprintf(what, len, "clock kind %u, not %u", a->clock, b->clock);
        return 1;
    }
    if (a->argc != b->argc) {
        snprintf(what, len, "argument count %u, not %u", a->argc, b->argc);
        return 1;
    }
    for (uint32_t i = 0; i < a->argc; i++)
        if (strcmp(a->argv[i], b->argv[i]) != 0) {
            snprintf(what, len, "argv[%u] '%s', not '%s'", i, a->argv[i], b->argv[i]);
            return 1;
        }
    uint64_t skew = strcmp(part.host, first.host) ? HOST_CLOCK_SKEW_NS : 0;
    if (!spans_overlap(a, b, skew)) {
        snprintf(what, len, "run time %llu to %llu ns (unix), not overlapping %llu to %llu",
                 (unsigned long long)a->start_ns, (unsigned long long)a->end_ns,
                 (unsigned long long)b->start_ns, (unsigned long long)b->end_ns);
        return 1;
    }
    return 0;
}

/* Moves the ranks whose records part holds into out; holder[r] is the
 * file each rank of out came from (NULL: none yet). */
static int take_ranks(hpf_profile *out, run_view first_run, hpf_profile *part,
                      const char *first, const char *file, const char **holder, char *err,
                      size_t errlen)
{
    char what[512];
    run_view part_run = {&part->run, first_host(part)};
    if (run_difference(part_run, first_run, what, sizeof what)) {
        snprintf(err, errlen, "%s: not of the same run as %s (its RUN section: %s)", file,
                 first, what);
        return -1;
    }
    for (uint32_t r = 0; r < part->nranks; r++) {
        if (part->ranks[r].info.flags & HP_RANKF_MISSING)
            continue;
        if (!(out->ranks[r].info.flags & HP_RANKF_MISSING)) {
            snprintf(err, errlen, "%s: rank %u has records in this file and in an earlier one "
                     "(%s)", file, r, holder[r] ? holder[r] : first);
            return -1;
        }
        if (hpf_load_comms(part, r, err, errlen))   /* part's mapping goes */
            return -1;
        hp_rank_data swap = out->ranks[r];
        out->ranks[r] = part->ranks[r];
        part->ranks[r] = swap;
        holder[r] = file;
    }
    if (part->run.start_ns < out->run.start_ns)
        out->run.start_ns = part->run.start_ns;
    if (part->run.end_ns > out->run.end_ns)
        out->run.end_ns = part->run.end_ns;
    out->file_len += part->file_len;
    return 0;
}

int hpf_read_input(const hpf_input *in, hpf_profile *out, char *err, size_t errlen)
{
    /* one file: its node records stay in it (hpf_read_lazy); the ranks
     * of several files move into one profile, theirs decoded */
    if ((in->nfiles == 1 ? hpf_read_lazy : hpf_read)(in->files[0], out, err, errlen))
        return -1;
    if (in->nfiles == 1)
        return 0;
    const char **holder = calloc(out->nranks, sizeof *holder);
    if (!holder) {
        snprintf(err, errlen, "out of memory");
        hpf_free(out);
        return -1;
    }
    /* the first file's header as read (out's span widens as files come) */
    hp_run_info run0 = out->run;
    run_view first_run = {&run0, first_host(out)};
    for (uint32_t r = 0; r < out->nranks; r++)
        if (!(out->ranks[r].info.flags & HP_RANKF_MISSING))
            holder[r] = in->files[0];
    int rc = 0;
    for (uint32_t i = 1; rc == 0 && i < in->nfiles; i++) {
        hpf_profile part;
        if (hpf_read(in->files[i], &part, err, errlen)) {
            rc = -1;
            break;
        }
        rc = take_ranks(out, first_run, &part, in->files[0], in->files[i], holder, err,
                        errlen);
        hpf_free(&part);
    }
    free(holder);
    if (rc)
        hpf_free(out);
    return rc;
}

int hpf_file_list_identity(const char *list, char *out, size_t len)
{
    hpf_input in = {NULL, 0, NULL};
    char *copy = strdup(list);
    int rc = -1;
    if (!copy || !(in.files = calloc(strlen(list) + 1, sizeof *in.files)))
        goto done;
    for (char *at = copy; *at;) {
        in.files[in.nfiles++] = at;
        at += strcspn(at, "\n");
        if (*at)
            *at++ = '\0';
    }
    rc = hpf_input_identity(&in, out, len);
done:
    free(in.files);
    free(copy);
    return rc;
}

int hpf_input_identity(const hpf_input *in, char *out, size_t len)
{
    char id[HPF_ID_LEN];
    uint32_t crc = 0;
    if (in->nfiles == 1)
        return hpf_file_identity(in->files[0], out, len);
    for (uint32_t i = 0; i < in->nfiles; i++) {
        if (hpf_file_identity(in->files[i], id, sizeof id))
            return -1;
        crc = hp_crc32_update(crc, in->files[i], strlen(in->files[i]) + 1);
        crc = hp_crc32_update(crc, id, strlen(id) + 1);
    }
    snprintf(out, len, "%u files:%08x", in->nfiles, crc);
    return 0;
}

/* Did missing rank r leave NAME.rank<r>.hpf.partial beside the run's
 * other files (it was killed while writing)? */
static int left_partial(const char *run, uint32_t r)
{
    char path[4096];
    struct stat st;
    size_t n = strlen(run);
    if (n < 4 || strcmp(run + n - 4, ".hpf") != 0)
        return 0;
    snprintf(path, sizeof path, "%.*s.rank%u.hpf.partial", (int)(n - 4), run, r);
    return stat(path, &st) == 0;
}

/* "; ranks 3, 5 left only unfinished .partial files (...)" when any did. */
static void partial_note(const hpf_profile *p, const char *run, char *buf, size_t len)
{
    uint32_t found = 0;
    size_t at = 0;
    buf[0] = 0;
    for (uint32_t r = 0; run && r < p->nranks && at < len; r++) {
        if (!(p->ranks[r].info.flags & HP_RANKF_MISSING) || !left_partial(run, r))
            continue;
        if (found++ == 8) {
            at += (size_t)snprintf(buf + at, len - at, ", ...");
            break;
        }
        at += (size_t)snprintf(buf + at, len - at, "%s%u", found > 1 ? ", " : "", r);
    }
    if (!found)
        return;
    char list[128];
    snprintf(list, sizeof list, "%s", buf);
    snprintf(buf, len, "; %s %s left only an unfinished NAME.rank<N>.hpf.partial (killed "
             "while writing it)", found == 1 ? "rank" : "ranks", list);
}

void hpf_missing_note(const hpf_profile *p, const char *run, char *buf, size_t len)
{
    uint32_t missing = 0, listed = 0;
    size_t at = 0;
    buf[0] = 0;
    for (uint32_t r = 0; r < p->nranks; r++)
        missing += (p->ranks[r].info.flags & HP_RANKF_MISSING) != 0;
    if (!missing)
        return;
    at += (size_t)snprintf(buf, len, "%s ", missing == 1 ? "rank" : "ranks");
    for (uint32_t r = 0; r < p->nranks && at < len; r++) {
        if (!(p->ranks[r].info.flags & HP_RANKF_MISSING))
            continue;
        if (listed++ == 8) {
            at += (size_t)snprintf(buf + at, len - at, ", ...");
            break;
        }
        at += (size_t)snprintf(buf + at, len - at, "%s%u", listed > 1 ? ", " : "", r);
    }
    if (at < len)
        at += (size_t)snprintf(buf + at, len - at, " of %u %s no records (no file holds them)",
                               p->nranks, missing == 1 ? "has" : "have");
    if (at < len)
        partial_note(p, run, buf + at, len - at);
}

/* The input's files, their absolute paths one a line (malloc'ed). */
static char *file_list(const hpf_input *in)
{
    size_t len = 1;
    for (uint32_t i = 0; i < in->nfiles; i++)
        len += PATH_MAX + 1;
    char *list = malloc(len), *at = list, path[PATH_MAX];
    if (!list)
        return NULL;
    *at = '\0';
    for (uint32_t i = 0; i < in->nfiles; i++)
        at += sprintf(at, "%s%s", i ? "\n" : "",
                      realpath(in->files[i], path) ? path : in->files[i]);
    return list;
}

/* Records id as the database's source identity (run key source_id), and
 * the files it was read from (source_files: detail.h reads them again)
 * with their identity under those names (source_files_id). */
static int set_identity(const char *db_path, const char *id, const char *files,
                        const char *files_id, char *err, size_t errlen)
{
    sqlite3 *db = NULL;
    sqlite3_stmt *st = NULL;
    int ok = sqlite3_open_v2(db_path, &db, SQLITE_OPEN_READWRITE, NULL) == SQLITE_OK &&
             sqlite3_prepare_v2(db, "INSERT OR REPLACE INTO run(key, value) VALUES"
                                    "('source_id', ?), ('source_files', ?),"
                                    " ('source_files_id', ?)", -1, &st, NULL) == SQLITE_OK &&
             sqlite3_bind_text(st, 1, id, -1, SQLITE_STATIC) == SQLITE_OK &&
             sqlite3_bind_text(st, 2, files, -1, SQLITE_STATIC) == SQLITE_OK &&
             sqlite3_bind_text(st, 3, files_id, -1, SQLITE_STATIC) == SQLITE_OK &&
             sqlite3_step(st) == SQLITE_DONE;
    if (!ok)
        snprintf(err, errlen, "%s: cannot record the identity of its profiles: %s", db_path,
                 db ? sqlite3_errmsg(db) : "cannot open");
    sqlite3_finalize(st);
    sqlite3_close(db);
    return ok ? 0 : -1;
}

int hpf_input_db_write(const hpf_input *in, hpf_profile *p, const char *db_path,
                       int force, hpf_db_summary *sum, char *err, size_t errlen)
{
    char id[HPF_ID_LEN];
    if (hpf_db_write(p, in->name, db_path, force, sum, err, errlen))
        return -1;
    if (in->nfiles == 1)
        return 0;
    char *files = file_list(in), files_id[HPF_ID_LEN];
    int rc = 0;
    if (!files) {
        snprintf(err, errlen, "out of memory");
        rc = -1;
    } else if (hpf_input_identity(in, id, sizeof id) == 0 &&
               hpf_file_list_identity(files, files_id, sizeof files_id) == 0) {
        rc = set_identity(db_path, id, files, files_id, err, errlen);
    }
    free(files);
    return rc;
}
