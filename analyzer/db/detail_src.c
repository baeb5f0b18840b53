/*
 * detail_src.c - decodes the profile behind a database merged without
 * per-rank rows and indexes its records by merged node (detail_src.h).
 * The merge, compensation and ordering are hprof-merge's own (merge.c,
 * dbcomp.c, db_order.c), so each row and each comm id is the one
 * hprof-merge --detail would have stored.
 */
#include "config.h"
#include <stdio.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "db.h"
#include "detail_src.h"
#include "parts.h"
#include "phases.h"

/* The text of run key `key`, malloc'ed, or NULL. */
static char *run_key(sqlite3 *db, const char *key)
{
    sqlite3_stmt *st = NULL;
    char *v = NULL;
    if (sqlite3_prepare_v2(db, "SELECT value FROM main.run WHERE key = ?", -1, &st, NULL) ==
            SQLITE_OK &&
        sqlite3_bind_text(st, 1, key, -1, SQLITE_STATIC) == SQLITE_OK &&
        sqlite3_step(st) == SQLITE_ROW && sqlite3_column_text(st, 0))
        v = strdup((const char *)sqlite3_column_text(st, 0));
    sqlite3_finalize(st);
    return v;
}

/* Splits the lines of list (changed in place) into files[]: their count. */
static int split_lines(char *list, char **files, int max)
{
    int n = 0;
    for (char *at = list; *at && n < max;) {
        size_t len = strcspn(at, "\n");
        files[n++] = at;
        at += len;
        if (*at)
            *at++ = '\0';
    }
    return n;
}

/* The one-line error of a profile that is gone or changed (how). */
static int gone(hpf_detail_src *s, const char *path, const char *how)
{
    snprintf(s->err, sizeof s->err,
             "%s: %s since this database was merged, and its per-rank rows are read from it:"
             " keep the profile, or merge it with hprof-merge --detail", path, how);
    return -1;
}

/* The file named as path beside the database (moved with it), if there
 * is one: malloc'ed, or NULL. */
static char *beside_db(sqlite3 *db, const char *path)
{
    const char *db_file = sqlite3_db_filename(db, "main"), *base = strrchr(path, '/');
    if (!db_file || !*db_file)
        return NULL;
    const char *slash = strrchr(db_file, '/');
    char *moved;
    if (asprintf(&moved, "%.*s%s", slash ? (int)(slash - db_file + 1) : 0, db_file,
                 base ? base + 1 : path) < 0)
        return NULL;
    if (access(moved, F_OK) == 0)
        return moved;
    free(moved);
    return NULL;
}

/* The input the database was merged from, if it still has its identity:
 * where it was, or (one file) beside the database if both were moved. */
static int find_input(hpf_detail_src *s, sqlite3 *db, hpf_input *in)
{
    char *list = run_key(db, "source_files"), *id = run_key(db, "source_files_id");
    char now[HPF_ID_LEN], ignored[512];
    int rc = -1;
    if (!id)
        id = run_key(db, "source_id");     /* one file: named by source */
    if (!list)
        list = run_key(db, "source");
    int max = list ? 1 + (int)strlen(list) : 1;
    char **files = calloc((size_t)max, sizeof *files);
    if (!list || !id || !files) {
        snprintf(s->err, sizeof s->err, "the database names no profile to read its"
                 " per-rank rows from: merge it with hprof-merge --detail");
        goto done;
    }
    int n = split_lines(list, files, max), missing = n == 0;
    for (int i = 0; i < n && !missing; i++)
        missing = access(files[i], F_OK) != 0 ? i + 1 : 0;
    char *moved = n == 1 && missing ? beside_db(db, files[0]) : NULL;
    if (moved) {
        files[0] = moved;
        missing = 0;
    }
    if (missing || hpf_input_find(n, files, in, ignored, sizeof ignored))
        rc = gone(s, n ? files[missing ? missing - 1 : 0] : "(none)", "the profile is gone");
    else if (hpf_input_identity(in, now, sizeof now) || strcmp(now, id) != 0) {
        rc = gone(s, in->nfiles == 1 ? in->files[0] : in->name, "the profile has changed");
        hpf_input_free(in);
    } else
        rc = 0;
    free(moved);
done:
    free(files);
    free(list);
    free(id);
    return rc;
}

/* The node of node-ordered item i: of a stat ref, of a comm run. */
typedef uint32_t node_of_fn(const hpf_detail_src *s, size_t i);

static uint32_t ref_node(const hpf_detail_src *s, size_t i)
{
    return s->m.node_map[s->refs[i].rank][s->refs[i].local];
}

static uint32_t run_node(const hpf_detail_src *s, size_t i)
{
    return s->runs[i].node;
}

/* first[g] = the index of node g's first item among the n node-ordered
 * items; first[nnodes + 1] = n. */
static size_t *index_by_node(const hpf_detail_src *s, size_t n, node_of_fn *node_of)
{
    size_t *first = calloc((size_t)s->nnodes + 2, sizeof *first);
    if (!first)
        return NULL;
    for (size_t i = 0; i < n; i++)
        first[node_of(s, i) + 1]++;
    for (uint32_t g = 1; g <= s->nnodes; g++)
        first[g + 1] += first[g];
    first[0] = first[1];
    return first;
}

static int oom(hpf_detail_src *s)
{
    snprintf(s->err, sizeof s->err, "out of memory reading the per-rank rows");
    return -1;
}

int hpf_detail_stats(hpf_detail_src *s)
{
    if (s->node_refs)
        return 0;
    if (!s->comp.values && hpf_comp_start(&s->p, &s->comp))
        return oom(s);
    for (uint32_t r = 0; r < s->p.nranks; r++)
        if (!s->comp.values[r] && hpf_comp_rank(&s->p, r, &s->comp))
            return oom(s);
    hpf_phase_mark("detail: compensated");
    if (!s->refs && hpf_stat_order(&s->p, &s->m, &s->refs, &s->nrefs))
        return oom(s);
    s->node_refs = index_by_node(s, s->nrefs, ref_node);
    hpf_phase_mark("detail: stat order");
    return s->node_refs ? 0 : oom(s);
}

static int number_runs(hpf_detail_src *s);

int hpf_detail_comms(hpf_detail_src *s)
{
    hpf_comm_src src;
    if (s->run_id)
        return 0;
    if (!s->runs) {
        if (hpf_comm_src_open(&src, &s->p, s->err, sizeof s->err))
            return -1;
        int rc = hpf_comm_runs(&src, &s->m, &s->runs, &s->nruns, s->err, sizeof s->err);
        hpf_comm_src_close(&src);
        hpf_phase_mark("detail: comm runs");
        if (rc)
            return -1;
    }
    return number_runs(s);
}

/* node_runs and run_id of the runs. */
static int number_runs(hpf_detail_src *s)
{
    if (!s->node_runs && !(s->node_runs = index_by_node(s, s->nruns, run_node)))
        return oom(s);
    int64_t *ids = malloc((s->nruns + 1) * sizeof *ids);
    if (!ids)
        return oom(s);
    ids[0] = 1;
    for (size_t k = 0; k < s->nruns; k++)
        ids[k + 1] = ids[k] + s->runs[k].n;
    s->run_id = ids;
    return 0;
}

/* The database of an aggregated profile (run key aggregated: db_fromagg.h)
 * has no per-rank rows to read: one line saying how to get them. */
static int refuse_aggregated(hpf_detail_src *s, sqlite3 *db)
{
    char *agg = run_key(db, "aggregated");
    int yes = agg && strcmp(agg, "1") == 0;
    free(agg);
    if (yes)
        snprintf(s->err, sizeof s->err, "the per-rank rows (stat, comm) are not in an"
                 " aggregated profile (HPROF_AGGREGATE): run again with HPROF_AGGREGATE=0");
    return yes ? -1 : 0;
}

static int read_profile(hpf_detail_src *s, sqlite3 *db)
{
    hpf_input in;
    if (refuse_aggregated(s, db) || find_input(s, db, &in))
        return -1;
    hpf_phase_mark("detail: start");
    /* the rows need every node record: one file is read whole (not
     * hpf_read_input's lazily) */
    hpf_read_known(1);          /* find_input checked its identity */
    int rc = in.nfiles == 1 ? hpf_read(in.files[0], &s->p, s->err, sizeof s->err)
                            : hpf_read_input(&in, &s->p, s->err, sizeof s->err);
    hpf_read_known(0);
    hpf_input_free(&in);
    if (rc)
        return -1;
    hpf_phase_mark("detail: read");
    if (hpf_merge(&s->p, &s->m))
        return oom(s);
    s->nnodes = s->m.nnodes;
    hpf_phase_mark("detail: merge");
    return 0;
}

/* The number of merged nodes (their ids are 1..n). */
static uint32_t count_nodes(sqlite3 *db)
{
    sqlite3_stmt *st = NULL;
    int64_t n = 0;
    if (sqlite3_prepare_v2(db, "SELECT MAX(id) FROM main.node", -1, &st, NULL) == SQLITE_OK &&
        sqlite3_step(st) == SQLITE_ROW)
        n = sqlite3_column_int64(st, 0);
    sqlite3_finalize(st);
    return (uint32_t)n;
}

/* The profile the index's comm runs point into (one file, its identity
 * checked), opened: 0, 1 when the profile is several files (the index
 * cannot say which), or -1 with s->err. */
static int indexed_comms(hpf_detail_src *s, sqlite3 *db)
{
    hpf_input in;
    if (s->comm_fd_open)
        return 0;
    if (find_input(s, db, &in))
        return -1;
    int several = in.nfiles != 1;
    if (!several) {
        s->comm_fd = open(in.files[0], O_RDONLY | O_CLOEXEC);
        s->comm_fd_open = s->comm_fd >= 0;
        if (!s->comm_fd_open)
            gone(s, in.files[0], "the profile is gone");
    }
    hpf_input_free(&in);
    if (several)
        return 1;
    return s->comm_fd_open ? 0 : -1;
}

/* The id of node g's first comm row (comm_range), or 0. */
static int64_t first_id(sqlite3 *db, int64_t g)
{
    sqlite3_stmt *st = NULL;
    int64_t id = 0;
    if (sqlite3_prepare_v2(db, "SELECT first FROM main.comm_range WHERE node = ?", -1, &st,
                           NULL) == SQLITE_OK &&
        sqlite3_bind_int64(st, 1, g) == SQLITE_OK && sqlite3_step(st) == SQLITE_ROW)
        id = sqlite3_column_int64(st, 0);
    sqlite3_finalize(st);
    return id;
}

/* Every record of the node's runs, read once, kept while they fit. */
static void read_node_records(hpf_detail_src *s, hpf_node_runs *nr)
{
    size_t n = (size_t)(nr->id[nr->n] - nr->id[0]);
    if (n == 0 || s->cached + n > HPF_DETAIL_CACHE)
        return;
    hp_comm_rec *recs = malloc(n * sizeof *recs);
    hpf_rix_comms rd = {s->comm_fd, NULL, NULL, 0};
    for (size_t k = 0, at = 0; recs && k < nr->n; k++) {
        const hp_comm_rec *got = hpf_rix_comm_get(&rd, nr->offset[k], nr->runs[k].n, s->err,
                                                  sizeof s->err);
        if (!got) {
            free(recs);
            recs = NULL;    /* the cursor reads run by run and says what failed */
            break;
        }
        memcpy(recs + at, got, nr->runs[k].n * sizeof *recs);
        at += nr->runs[k].n;
    }
    hpf_rix_comms_free(&rd);
    nr->recs = recs;
    s->cached += recs ? n : 0;
}

static int decode_node_runs(hpf_detail_src *s, sqlite3 *db, int64_t g, hpf_node_runs *nr)
{
    hpf_comm_run *runs = NULL;
    uint64_t *offset = NULL;
    size_t n = 0;
    char sql[96];
    snprintf(sql, sizeof sql, "SELECT %lld, comm FROM main.rank_index WHERE node = %lld",
             (long long)g, (long long)g);
    if (hpf_rix_comm_runs(db, sql, &runs, &offset, &n, s->err, sizeof s->err))
        return -1;
    nr->runs = runs;
    nr->offset = offset;
    nr->n = n;
    if (!(nr->id = malloc((n + 1) * sizeof *nr->id)))
        return oom(s);
    nr->id[0] = n ? first_id(db, g) : 1;
    for (size_t k = 0; k < n; k++)
        nr->id[k + 1] = nr->id[k] + runs[k].n;
    read_node_records(s, nr);
    nr->done = 1;
    return 0;
}

const hpf_node_runs *hpf_detail_node_runs(hpf_detail_src *s, sqlite3 *db, int64_t g)
{
    static const int64_t none_id[1] = {1};
    static const hpf_node_runs none = {1, 0, NULL, NULL, (int64_t *)none_id, NULL};
    if (g < 1 || g > s->nnodes)
        return &none;
    if (!s->node_idx && !(s->node_idx = calloc((size_t)s->nnodes + 1, sizeof *s->node_idx))) {
        oom(s);
        return NULL;
    }
    hpf_node_runs *nr = &s->node_idx[g];
    if (!nr->done && decode_node_runs(s, db, g, nr))
        return NULL;
    return nr;
}

int hpf_detail_comm_all(hpf_detail_src *s, sqlite3 *db)
{
    if (s->run_id)
        return 0;
    if (!s->run_offset &&
        hpf_rix_comm_runs(db, "SELECT node, comm FROM main.rank_index WHERE comm IS NOT NULL"
                          " ORDER BY node", &s->runs, &s->run_offset, &s->nruns, s->err,
                          sizeof s->err))
        return -1;
    hpf_phase_mark("detail: comm runs from the index");
    return number_runs(s);
}

int hpf_detail_ready(hpf_detail_src *s, sqlite3 *db, int comm)
{
    if (s->rix == 0) {
        s->rix = hpf_rix_mode(db);
        s->rix = s->rix ? s->rix : -1;
        if (s->rix > 0)
            s->nnodes = count_nodes(db);
    }
    if (!comm && s->rix > 0)
        return 0;
    if (comm && s->rix == HPF_RIX_STAT_COMM) {
        int rc = indexed_comms(s, db);
        if (rc <= 0)
            return rc;
        s->rix = HPF_RIX_STAT;  /* several files: the comm rows from the profile */
    }
    if (hpf_detail_load(s, db))
        return -1;
    return comm ? hpf_detail_comms(s) : hpf_detail_stats(s);
}

int hpf_detail_load(hpf_detail_src *s, sqlite3 *db)
{
    if (s->state == 0) {
        s->err[0] = '\0';
        s->state = read_profile(s, db) ? -1 : 1;
    }
    return s->state == 1 ? 0 : -1;
}

void hpf_detail_free(hpf_detail_src *s)
{
    if (s->state != 0) {
        hpf_comp_free(&s->comp);
        hpf_merged_free(&s->m);
        hpf_free(&s->p);
    }
    free(s->refs);
    free(s->rank_refs);
    free(s->node_refs);
    free(s->runs);
    free(s->run_id);
    free(s->node_runs);
    free(s->run_offset);
    for (uint32_t g = 0; s->node_idx && g <= s->nnodes; g++) {
        free(s->node_idx[g].runs);
        free(s->node_idx[g].offset);
        free(s->node_idx[g].id);
        free(s->node_idx[g].recs);
    }
    free(s->node_idx);
    if (s->comm_fd_open)
        close(s->comm_fd);
    memset(s, 0, sizeof *s);
}

/* Counting sort of refs (node, rank, thread order) on (rank, thread),
 * stable: within a rank and thread the nodes stay in order. */
int hpf_detail_rank_order(hpf_detail_src *s)
{
    if (s->rank_refs)
        return 0;
    uint32_t n = s->p.nranks;
    size_t *base = calloc((size_t)n + 1, sizeof *base), nkeys = 0;
    if (!base)
        return -1;
    for (uint32_t r = 0; r < n; r++) {      /* rank r's keys: base[r] + thread */
        uint32_t threads = 0;
        for (uint32_t i = 0; i < s->p.ranks[r].nnodes; i++)
            if (s->p.ranks[r].nodes[i].thread + 1 > threads)
                threads = s->p.ranks[r].nodes[i].thread + 1;
        base[r] = nkeys;
        nkeys += threads;
    }
    size_t *at = calloc(nkeys + 1, sizeof *at);
    s->rank_refs = malloc((s->nrefs ? s->nrefs : 1) * sizeof *s->rank_refs);
    if (!at || !s->rank_refs) {
        free(base);
        free(at);
        free(s->rank_refs);
        s->rank_refs = NULL;
        return -1;
    }
    for (size_t k = 0; k < s->nrefs; k++) {
        const hpf_stat_ref *f = &s->refs[k];
        at[base[f->rank] + s->p.ranks[f->rank].nodes[f->local].thread + 1]++;
    }
    for (size_t key = 1; key <= nkeys; key++)
        at[key] += at[key - 1];
    for (size_t k = 0; k < s->nrefs; k++) {
        const hpf_stat_ref *f = &s->refs[k];
        s->rank_refs[at[base[f->rank] + s->p.ranks[f->rank].nodes[f->local].thread]++] = *f;
    }
    free(base);
    free(at);
    return 0;
}

hpf_stat_row hpf_detail_stat(const hpf_detail_src *s, const hpf_stat_ref *refs, size_t k,
                             size_t *next)
{
    const hp_rank_data *rd = &s->p.ranks[refs[k].rank];
    const uint32_t *map = s->m.node_map[refs[k].rank];
    uint32_t node = map[refs[k].local], thread = rd->nodes[refs[k].local].thread;
    const double *v = s->comp.values[refs[k].rank];
    hpf_stat_row row = hpf_stat_record(&rd->nodes[refs[k].local], v, rd->nnodes, refs[k].local);
    size_t j = k + 1;
    for (; j < s->nrefs && refs[j].rank == refs[k].rank && map[refs[j].local] == node &&
           rd->nodes[refs[j].local].thread == thread; j++) {
        hpf_stat_row b = hpf_stat_record(&rd->nodes[refs[j].local], v, rd->nnodes,
                                         refs[j].local);
        hpf_stat_add(&row, &b);
    }
    *next = j;
    return row;
}

size_t hpf_detail_run_of(const hpf_detail_src *s, int64_t id)
{
    if (id < 1 || id >= s->run_id[s->nruns])
        return s->nruns;
    size_t lo = 0, hi = s->nruns;       /* run_id[lo] <= id < run_id[hi] */
    while (hi - lo > 1) {
        size_t mid = lo + (hi - lo) / 2;
        if (s->run_id[mid] <= id)
            lo = mid;
        else
            hi = mid;
    }
    return lo;
}
