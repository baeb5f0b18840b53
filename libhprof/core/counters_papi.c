/*
 * counters_papi.c - the PAPI back end of the counter layer (hp_counters.h):
 * one PAPI event set per thread, made of the named events (presets such as
 * PAPI_TOT_CYC or native names such as perf::PAGE-FAULTS), started once and
 * read with PAPI_read at every counter point.  Built without PAPI, it
 * refuses to start, so every event is reported not counted.
 */
#include "config.h"
#include <pthread.h>
#include <stdio.h>
#include "hp_counters.h"

#ifdef HAVE_PAPI
#include <papi.h>

static unsigned long thread_id(void)
{
    return (unsigned long)pthread_self();
}

static int multiplexed;

/* Whether an event set of the first component can be multiplexed (not
 * where the kernel's perf_event cannot: PAPI_set_multiplex fails). */
static int multiplex_works(void)
{
    int set = PAPI_NULL, ok;
    if (PAPI_multiplex_init() != PAPI_OK || PAPI_create_eventset(&set) != PAPI_OK)
        return 0;
    ok = PAPI_assign_eventset_component(set, 0) == PAPI_OK && PAPI_set_multiplex(set) == PAPI_OK;
    PAPI_cleanup_eventset(set);
    PAPI_destroy_eventset(&set);
    return ok;
}

static int papi_start(int multiplex, char *why, size_t len)
{
    int v = PAPI_library_init(PAPI_VER_CURRENT);
    if (v != PAPI_VER_CURRENT) {
        snprintf(why, len, "PAPI could not start: %s",
                 v > 0 ? "version mismatch" : PAPI_strerror(v));
        return -1;
    }
    if (PAPI_thread_init(thread_id) != PAPI_OK) {
        snprintf(why, len, "PAPI could not start: no thread support");
        return -1;
    }
    if (multiplex && !multiplex_works()) {
        snprintf(why, len, "PAPI cannot multiplex here: events counted without it");
        return 1;
    }
    multiplexed = multiplex;
    return 0;
}

/* Multiplexing needs the set bound to the component of its first event. */
static int make_multiplexed(int set, const char *first)
{
    int code;
    if (PAPI_event_name_to_code(first, &code) != PAPI_OK ||
        PAPI_assign_eventset_component(set, PAPI_get_event_component(code)) != PAPI_OK)
        return -1;
    return PAPI_set_multiplex(set) == PAPI_OK ? 0 : -1;
}

/* An event set of the n events, not started; -1 if one cannot be added. */
static int make_set(const char *const *events, uint32_t n, int *set)
{
    *set = PAPI_NULL;
    if (PAPI_create_eventset(set) != PAPI_OK)
        return -1;
    if (multiplexed && n && make_multiplexed(*set, events[0]) != 0) {
        PAPI_destroy_eventset(set);
        return -1;
    }
    for (uint32_t k = 0; k < n; k++) {
        if (PAPI_add_named_event(*set, events[k]) != PAPI_OK) {
            PAPI_cleanup_eventset(*set);
            PAPI_destroy_eventset(set);
            return -1;
        }
    }
    return 0;
}

static void drop_set(int set)
{
    long long ignored[HP_COUNTERS_MAX];
    PAPI_stop(set, ignored);
    PAPI_cleanup_eventset(set);
    PAPI_destroy_eventset(&set);
}

static int papi_usable(const char *const *events, uint32_t n)
{
    int set;
    if (make_set(events, n, &set) != 0)
        return 0;
    int ok = PAPI_start(set) == PAPI_OK;
    drop_set(set);
    return ok;
}

static int papi_open(const char *const *events, uint32_t n, long *handle)
{
    int set;
    PAPI_register_thread();
    if (make_set(events, n, &set) != 0)
        return -1;
    if (PAPI_start(set) != PAPI_OK) {
        drop_set(set);
        return -1;
    }
    *handle = set;
    return 0;
}

static void papi_read(long handle, uint64_t *values, uint32_t n)
{
    long long v[HP_COUNTERS_MAX] = {0};
    if (PAPI_read((int)handle, v) != PAPI_OK)
        return; /* keeps the old values: a delta of 0 */
    for (uint32_t k = 0; k < n; k++)
        values[k] = v[k] > 0 ? (uint64_t)v[k] : 0;
}

static void papi_close(long handle)
{
    drop_set((int)handle);
}

#else

static int papi_start(int multiplex, char *why, size_t len)
{
    (void)multiplex;
    snprintf(why, len, "hprof was built without PAPI");
    return -1;
}

static int papi_usable(const char *const *events, uint32_t n)
{
    (void)events;
    (void)n;
    return 0;
}

static int papi_open(const char *const *events, uint32_t n, long *handle)
{
    (void)events;
    (void)n;
    (void)handle;
    return -1;
}

static void papi_read(long handle, uint64_t *values, uint32_t n)
{
    (void)handle;
    (void)values;
    (void)n;
}

static void papi_close(long handle)
{
    (void)handle;
}

#endif

const hp_counter_backend hp_counters_papi = {
    "papi", papi_start, papi_usable, papi_open, papi_read, papi_close,
};
