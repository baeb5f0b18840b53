/*
 * hp_counters.h - hardware (or software) counters per node: another metric
 * of the store, read at the same event-boundary points that time a node
 * (hp_event.h).  HPROF_COUNTERS=EV1,EV2,... names up to HP_COUNTERS_MAX
 * events (PAPI presets or native names); each thread opens its own event
 * set on its first read and reads all its events at once.  A node gets the
 * counter deltas between its enter and its exit, inclusive like its time,
 * of its timed activations; an MPI call's deltas between its begin and end
 * go to the node its time goes to, a wait's between its mark and its
 * record (hp_event_wait) to its node.  Leaves a source times on its own
 * (hp_event_leaf: single, atomic, lock and critical waits) get none.
 *
 * Two back ends behind one table (hp_counter_backend): PAPI
 * (counters_papi.c) and a fake one for tests (HPROF_COUNTERS_FAKE=1):
 * event k of a thread reads (k + 1) * r at the thread's r-th read, so each
 * interval between two reads adds exactly k + 1 to event k.
 *
 * When HPROF_COUNTERS is unset hp_counters_on stays 0 and the event
 * boundary pays one predictable branch per enter and exit.
 */
#ifndef HP_COUNTERS_H
#define HP_COUNTERS_H

#include <stddef.h>
#include <stdint.h>

#define HP_COUNTERS_MAX 4

struct hp_thread;

/* A back end.  start: once per process (multiplex: event sets share the
 * hardware counters by time slices, PAPI's multiplexing): 0, 1 when it
 * started without multiplexing (why says so), or -1 with why.  usable: whether
 * `events` (n of them, in this order) can be counted together in one event
 * set; open: the calling thread's event set of them, started (0), or -1;
 * read: their current values; close: stops and frees it. */
typedef struct hp_counter_backend {
    const char *name;
    int (*start)(int multiplex, char *why, size_t len);
    int (*usable)(const char *const *events, uint32_t n);
    int (*open)(const char *const *events, uint32_t n, long *handle);
    void (*read)(long handle, uint64_t *values, uint32_t n);
    void (*close)(long handle);
} hp_counter_backend;

extern const hp_counter_backend hp_counters_papi;
extern const hp_counter_backend hp_counters_fake;

/* Nonzero when at least one event counts (read on the hot path). */
extern int hp_counters_on __attribute__((visibility("hidden")));

/* Parses `list` (comma-separated event names, blanks around them ignored;
 * NULL or "": none) and starts the back end (fake when `fake`; multiplexed
 * when `multiplex`).  Events that cannot be counted here (and those past
 * HP_COUNTERS_MAX) are left out with one warning line on stderr naming
 * them, printed only when `warn` (the first rank); the run goes on. */
void hp_counters_setup(const char *list, int fake, int multiplex, int warn);
/* Events that count, and the name of event k. */
uint32_t hp_counters_count(void);
const char *hp_counters_name(uint32_t k);
/* Forgets the configuration (unit tests: the threads' stores go with
 * their threads, hp_threads_free_all). */
void hp_counters_reset_config(void);

/* Per thread (only the owning thread calls these but _value and _free). */
void hp_counters_enter(struct hp_thread *t, uint32_t site);
void hp_counters_exit(struct hp_thread *t, uint32_t site, uint32_t node);
void hp_counters_call_begin(struct hp_thread *t);
void hp_counters_call_end(struct hp_thread *t);
/* A leaf's time was recorded at node: the deltas of the MPI call just
 * ended, if any, go to it. */
void hp_counters_leaf(struct hp_thread *t, uint32_t node);
/* The same deltas added to node too, and kept for hp_counters_leaf: a
 * frame of the call's path (hp_event_time_path). */
void hp_counters_leaf_also(struct hp_thread *t, uint32_t node);
/* A wait's start and its record at node (hp_event_wait_mark and
 * hp_event_wait): the deltas between them, if no frame opened or closed
 * meanwhile and t is the calling thread. */
void hp_counters_wait_begin(struct hp_thread *t);
/* An untimed (throttled) frame opened: no wait's window spans it. */
void hp_counters_untimed(struct hp_thread *t);
void hp_counters_wait_end(struct hp_thread *t, uint32_t node);

/* The accumulated value of event k at node (0 when none). */
uint64_t hp_counters_value(const struct hp_thread *t, uint32_t node, uint32_t k);
/* The calling thread's counters now, into now[] (0), or -1 when t is
 * another thread (its counters can only be read by itself) or reads none;
 * and the start of the activation of `site` open on t, for the end of the
 * run to close activations still open (now - start). */
int hp_counters_now(struct hp_thread *t, uint64_t *now);
uint64_t hp_counters_site_start(const struct hp_thread *t, uint32_t site, uint32_t k);
void hp_counters_zero(struct hp_thread *t);
/* The thread exits: its event set is closed (the kernel's counters and
 * files freed), its values stay for the end of the run. */
void hp_counters_thread_end(struct hp_thread *t);
void hp_counters_free(struct hp_thread *t);

#endif
