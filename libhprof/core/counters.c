/*
 * counters.c - the counter layer (hp_counters.h): which events count, and
 * each thread's counter store: its back-end event set, the values read at
 * the enter of each open site, and the deltas accumulated per node.
 */
#include <assert.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "hp_counters.h"
#include "hp_thread.h"

int hp_counters_on;

static const hp_counter_backend *backend;
static char *names[HP_COUNTERS_MAX];
static uint32_t nnames;

/* One thread's counters. */
typedef struct hp_counter_store {
    int state;          /* 0: not opened yet, 1: counting, -1: cannot */
    long handle;        /* the back end's event set */
    uint32_t nsites;    /* sites in start[] */
    uint64_t *start;    /* per site x nnames: values at its outermost enter */
    uint32_t nnodes;    /* nodes in acc[] */
    uint64_t *acc;      /* per node x nnames: accumulated deltas */
    uint64_t call[HP_COUNTERS_MAX];     /* values at an MPI call's begin */
    uint64_t pending[HP_COUNTERS_MAX];  /* deltas of the MPI call just ended */
    int has_pending;
    uint64_t wait[HP_COUNTERS_MAX];     /* values at the open wait's mark */
    int has_wait;
} hp_counter_store;

uint32_t hp_counters_count(void)
{
    return nnames;
}

const char *hp_counters_name(uint32_t k)
{
    return k < nnames ? names[k] : NULL;
}

/* ------------------------------------------------------ configuration */

/* Appends `name` to the line of events left out. */
static void note_left_out(char *out, size_t len, const char *name)
{
    size_t used = strlen(out);
    snprintf(out + used, len - used, "%s%s", used ? ", " : "", name);
}

/* Keeps `name` when the back end can count it together with those kept. */
static void try_event(const char *name, char *left_out, size_t len)
{
    if (nnames == HP_COUNTERS_MAX) {
        note_left_out(left_out, len, name);
        return;
    }
    names[nnames] = strdup(name);
    if (names[nnames] && backend->usable((const char *const *)names, nnames + 1)) {
        nnames++;
        return;
    }
    free(names[nnames]);
    names[nnames] = NULL;
    note_left_out(left_out, len, name);
}

void hp_counters_setup(const char *list, int fake, int multiplex, int warn)
{
    char why[160] = "", left_out[512] = "";
    if (!list || !*list)
        return;
    backend = fake ? &hp_counters_fake : &hp_counters_papi;
    int rc = backend->start(multiplex, why, sizeof why), started = rc >= 0;
    if (rc == 1 && warn)
        fprintf(stderr, "hprof: HPROF_COUNTERS_MULTIPLEX: %s\n", why);
    char *copy = strdup(list), *save = NULL;
    for (char *tok = copy ? strtok_r(copy, ",", &save) : NULL; tok;
         tok = strtok_r(NULL, ",", &save)) {
        while (*tok == ' ' || *tok == '\t')
            tok++;
        for (char *e = tok + strlen(tok); e > tok && (e[-1] == ' ' || e[-1] == '\t');)
            *--e = '\0';
        if (!*tok)
            continue;
        if (started)
            try_event(tok, left_out, sizeof left_out);
        else
            note_left_out(left_out, sizeof left_out, tok);
    }
    free(copy);
    hp_counters_on = nnames > 0;
    if (warn && *left_out)
        fprintf(stderr, "hprof: HPROF_COUNTERS: not counted (%s): %s\n",
                started ? "unknown here, no such counter on this machine, or more than "
                          "4 events or events that cannot be counted together"
                        : why,
                left_out);
}

void hp_counters_reset_config(void)
{
    for (uint32_t k = 0; k < nnames; k++) {
        free(names[k]);
        names[k] = NULL;
    }
    nnames = 0;
    hp_counters_on = 0;
}

/* -------------------------------------------------------- per thread */

/* The calling thread's store, its event set opened on first use; NULL
 * when it cannot count. */
static hp_counter_store *store_of(hp_thread *t)
{
    hp_counter_store *s = t->counters;
    if (__builtin_expect(s && s->state == 1, 1))
        return s;
    if (s)
        return NULL;
    s = t->counters = calloc(1, sizeof *s);
    if (!s)
        return NULL;
    s->state = backend->open((const char *const *)names, nnames, &s->handle) == 0 ? 1 : -1;
    return s->state == 1 ? s : NULL;
}

/* Grows a per-index table of nnames values to hold index i, zeroing the
 * new part; -1 without memory. */
static int grow_table(uint64_t **table, uint32_t *have, uint32_t i)
{
    if (i < *have)
        return 0;
    uint32_t n = *have ? *have : 64;
    while (n <= i)
        n *= 2;
    uint64_t *p = realloc(*table, sizeof *p * nnames * n);
    if (!p)
        return -1;
    memset(p + (size_t)*have * nnames, 0, sizeof *p * nnames * (n - *have));
    *table = p;
    *have = n;
    return 0;
}

void hp_counters_enter(hp_thread *t, uint32_t site)
{
    hp_counter_store *s = store_of(t);
    if (!s)
        return;
    s->has_wait = 0; /* a wait's window must not span a frame's boundary */
    if (grow_table(&s->start, &s->nsites, site) != 0)
        return;
    backend->read(s->handle, s->start + (size_t)site * nnames, nnames);
}

/* Adds now - start to node's values. */
static void add_deltas(hp_counter_store *s, uint32_t node, const uint64_t *now,
                       const uint64_t *start)
{
    if (grow_table(&s->acc, &s->nnodes, node) != 0)
        return;
    uint64_t *acc = s->acc + (size_t)node * nnames;
    for (uint32_t k = 0; k < nnames; k++)
        acc[k] += now[k] >= start[k] ? now[k] - start[k] : 0;
}

void hp_counters_exit(hp_thread *t, uint32_t site, uint32_t node)
{
    hp_counter_store *s = store_of(t);
    uint64_t now[HP_COUNTERS_MAX];
    if (!s || site >= s->nsites)
        return;
    s->has_pending = 0; /* an MPI call's deltas belong to no later leaf */
    s->has_wait = 0;
    backend->read(s->handle, now, nnames);
    add_deltas(s, node, now, s->start + (size_t)site * nnames);
}

void hp_counters_call_begin(hp_thread *t)
{
    hp_counter_store *s = store_of(t);
    if (!s)
        return;
    backend->read(s->handle, s->call, nnames);
    s->has_pending = 0;
}

void hp_counters_call_end(hp_thread *t)
{
    hp_counter_store *s = store_of(t);
    uint64_t now[HP_COUNTERS_MAX];
    if (!s)
        return;
    backend->read(s->handle, now, nnames);
    for (uint32_t k = 0; k < nnames; k++)
        s->pending[k] = now[k] >= s->call[k] ? now[k] - s->call[k] : 0;
    s->has_pending = 1;
}

void hp_counters_leaf(hp_thread *t, uint32_t node)
{
    hp_counter_store *s = t->counters;
    static const uint64_t zero[HP_COUNTERS_MAX];
    if (!s || !s->has_pending)
        return;
    s->has_pending = 0;
    add_deltas(s, node, s->pending, zero);
}

void hp_counters_leaf_also(hp_thread *t, uint32_t node)
{
    hp_counter_store *s = t->counters;
    static const uint64_t zero[HP_COUNTERS_MAX];
    if (s && s->has_pending)
        add_deltas(s, node, s->pending, zero);
}

void hp_counters_wait_begin(hp_thread *t)
{
    hp_counter_store *s = t == hp_tls_self ? store_of(t) : NULL;
    if (!s)
        return;
    backend->read(s->handle, s->wait, nnames);
    s->has_wait = 1;
}

void hp_counters_untimed(hp_thread *t)
{
    if (t->counters)
        t->counters->has_wait = 0;
}

void hp_counters_wait_end(hp_thread *t, uint32_t node)
{
    hp_counter_store *s = t->counters;
    uint64_t now[HP_COUNTERS_MAX];
    if (!s || !s->has_wait || t != hp_tls_self || s->state != 1)
        return;
    s->has_wait = 0;
    backend->read(s->handle, now, nnames);
    add_deltas(s, node, now, s->wait);
}

/* ------------------------------------------------------ end of the run */

uint64_t hp_counters_value(const hp_thread *t, uint32_t node, uint32_t k)
{
    const hp_counter_store *s = t->counters;
    if (!s || k >= nnames || node >= s->nnodes)
        return 0;
    return s->acc[(size_t)node * nnames + k];
}

int hp_counters_now(hp_thread *t, uint64_t *now)
{
    if (!hp_counters_on || t != hp_tls_self || !t->counters)
        return -1;
    hp_counter_store *s = store_of(t);
    if (!s)
        return -1;
    backend->read(s->handle, now, nnames);
    return 0;
}

uint64_t hp_counters_site_start(const hp_thread *t, uint32_t site, uint32_t k)
{
    const hp_counter_store *s = t->counters;
    if (!s || k >= nnames || site >= s->nsites)
        return 0;
    return s->start[(size_t)site * nnames + k];
}

void hp_counters_zero(hp_thread *t)
{
    hp_counter_store *s = t->counters;
    if (s && s->acc)
        memset(s->acc, 0, sizeof *s->acc * nnames * s->nnodes);
}

void hp_counters_thread_end(hp_thread *t)
{
    hp_counter_store *s = t->counters;
    if (s && s->state == 1) {
        backend->close(s->handle);
        s->state = -1;
    }
}

void hp_counters_free(hp_thread *t)
{
    hp_counter_store *s = t->counters;
    if (!s)
        return;
    if (s->state == 1)
        backend->close(s->handle);
    free(s->start);
    free(s->acc);
    free(s);
    t->counters = NULL;
}
