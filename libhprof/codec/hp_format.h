/*
 * hp_format.h - the hprof profile file format (.hpf), shared by the writer
 * (libhprof, pmpi) and the reader (analyzer).  This header is the format's
 * documentation; change it only together with HP_FORMAT_VERSION.
 *
 * A profile holds one run: a preamble, one RUN section, then for every rank
 * (in rank order) the sections RANK, STRS, SITE, NODE, COMM, TASK and (version
 * 5) CNTR, and a final END section.  All integers are little-endian, floating point values are
 * IEEE-754 binary64 little-endian, and every time is in seconds.
 *
 *   preamble   magic[8] = "\x89HPF\r\n\x1a\n", u32 version, u32 0
 *   section    u32 tag, u32 crc32(payload), u64 payload length, payload
 *
 * Payloads (str = u32 byte length then the bytes, no NUL):
 *   RUN   u32 nranks, u32 clock (HP_CLOCK_*), f64 ticks per second,
 *         u64 start and u64 end (unix ns, rank 0), str program, u32 argc,
 *         argc x str argument
 *   RANK  u32 rank, u32 threads (that recorded), u32 pid, u32 flags
 *         (HP_RANKF_*), u32 OpenMP threads (omp_get_max_threads, 0: none),
 *         u64 start, u64 end (unix ns), f64 wall, f64 mpi time,
 *         u64 overflow events, str hostname,
 *         (version 4:) u32 n, n x (f64 outside, f64 inside): the event
 *         costs calibrated on this rank at start-up, seconds per event,
 *         indexed by enum hp_cost_kind (see there)
 *   STRS  u32 count, count x str          (indexed from 0; 0 is "")
 *   SITE  n x hp_site_rec                 (n = length / record size)
 *   NODE  n x hp_node_rec
 *   COMM  n x hp_comm_rec
 *   TASK  n x hp_task_rec                 (the task timeline; empty unless
 *                                          HPROF_TASK_TRACE was set)
 *   CNTR  (version 5) u32 nevents, nevents x str event name (as given in
 *         HPROF_COUNTERS: "PAPI_TOT_CYC", "perf::PAGE-FAULTS"; events the
 *         machine could not count are left out), then n x hp_counter_rec
 *         up to the end of the payload (nevents 0 and no records: no
 *         counters were read)
 *   END   u32 nranks, u64 file length including this section
 *
 * Version 6 (HP_FORMAT_AGG_VERSION) is the aggregated profile of
 * HPROF_AGGREGATE: one merged tree with distributions over ranks instead
 * of the rank blocks (hp_aggprof.h); full profiles stay version 5.
 *
 * Site and node ids are local to a rank: they index that rank's SITE and
 * NODE arrays.  A node's parent precedes it in the NODE array; each thread's
 * tree has its own root node (site HP_SITE_ROOT).
 */
#ifndef HP_FORMAT_H
#define HP_FORMAT_H

#include <stdint.h>
#include <stddef.h>
#include <string.h>

#define HP_FORMAT_MAGIC "\x89HPF\r\n\x1a\n"
#define HP_FORMAT_MAGIC_LEN 8
#define HP_FORMAT_VERSION 5u
/* Oldest version a reader accepts.  Version 3 added the peer HP_PEER_FILE
 * and the site flag HP_SITEF_MPI; a version 2 file is a version 3 file
 * that uses neither.  Version 4 added the calibrated event costs to RANK
 * and `timed` to the node record (56 bytes, 48 before: a version 2-3 node
 * has timed = count and its rank no costs, so nothing is compensated).
 * Version 5 added the CNTR section after each rank's TASK section (a
 * version 2-4 rank has no counters). */
#define HP_FORMAT_MIN_VERSION 2u
#define HP_PREAMBLE_LEN 16u
#define HP_SECTION_HEADER_LEN 16u

#define HP_FOURCC(a, b, c, d) \
    ((uint32_t)(a) | (uint32_t)(b) << 8 | (uint32_t)(c) << 16 | (uint32_t)(d) << 24)

enum hp_section_tag {
    HP_SEC_RUN = HP_FOURCC('R', 'U', 'N', ' '),
    HP_SEC_RANK = HP_FOURCC('R', 'A', 'N', 'K'),
    HP_SEC_STRS = HP_FOURCC('S', 'T', 'R', 'S'),
    HP_SEC_SITE = HP_FOURCC('S', 'I', 'T', 'E'),
    HP_SEC_NODE = HP_FOURCC('N', 'O', 'D', 'E'),
    HP_SEC_COMM = HP_FOURCC('C', 'O', 'M', 'M'),
    HP_SEC_TASK = HP_FOURCC('T', 'A', 'S', 'K'),
    HP_SEC_CNTR = HP_FOURCC('C', 'N', 'T', 'R'),
    HP_SEC_END = HP_FOURCC('E', 'N', 'D', ' ')
};

enum hp_clock_kind { HP_CLOCK_TSC = 1, HP_CLOCK_MONOTONIC = 2 };

/* RANK flags */
#define HP_RANKF_OVERFLOW 1u /* HPROF_MAX_NODES was reached on this rank */
#define HP_RANKF_MISSING 2u  /* no records of this rank in this file (an
                                empty block: another rank's MPI_Abort) */
#define HP_RANKF_ABORTED 4u  /* this rank called MPI_Abort: its records
                                end there */
#define HP_RANKF_SIGNALED 8u /* a signal ended this rank: its records end
                                there; the signal's number is in bits 24-31 */
#define HP_RANKF_UNFINALIZED 16u /* this rank exited without MPI_Finalize */
#define HP_RANKF_VIRTUAL_TIME 32u /* HPROF_VIRTUAL_TIME=1 controlled its
                                     wildcard receives (docs/virtual-time.md) */
#define HP_RANKF_COUNTERS_DROPPED 64u /* an aggregated profile's rank
                                         (RTOT) counted hardware counters
                                         (HPROF_COUNTERS), which such a
                                         profile does not keep */
#define HP_RANKF_SIGNAL_SHIFT 24

/* Site kinds.  Values are stored in files: append only. */
enum hp_site_kind {
    HP_KIND_ROOT = 0,      /* a thread's root */
    HP_KIND_PROCEDURE = 1, /* function */
    HP_KIND_LOOP = 2,
    HP_KIND_CALL = 3,      /* procedure call statement */
    HP_KIND_COMM = 4,      /* communication statement (MPI call site) */
    HP_KIND_OMP = 5,       /* OpenMP construct */
    HP_KIND_REGION = 6,    /* user region */
    HP_KIND_OVERFLOW = 7   /* events past HPROF_MAX_NODES */
};

#define HP_NONE 0xffffffffu /* "no site", "no parent" */

/* Site flags */
#define HP_SITEF_DYNAMIC 1u   /* found at run time from a return address */
#define HP_SITEF_RESOLVED 2u  /* file/line/function came from debug info */
#define HP_SITEF_COLLECTIVE 4u
#define HP_SITEF_EXCLUDED 8u    /* HPROF_FILTER excluded it: never recorded */
#define HP_SITEF_THROTTLED 16u  /* only counted after a while (hot and tiny) */
#define HP_SITEF_ENTRY 32u      /* dynamic site keyed by a function's entry */
#define HP_SITEF_TAILCALL 64u   /* MPI call site whose return address lies in
                                   the caller of a function that tail-called
                                   the MPI function: function, file and line
                                   are that function's (its tail jump) */
#define HP_SITEF_MPI 128u       /* an MPI call that is not communication (a
                                   call site named MPI_Xxx: a local query,
                                   datatype, group, ...); its time is MPI time */
#define HP_SITEF_INLINED 256u   /* tier-1 call of a function the compiler
                                   inlined: keyed by the address of its entry
                                   hook inside the caller, named by the
                                   inlined call's own line */
#define HP_SITEF_UNPROBED 512u  /* tier-2 static site the instrumenter's
                                   policy left without a probe (nested
                                   call-free loop, tiny procedure, call of
                                   one): never recorded, its time is in its
                                   parent's; hprof-query shows it "not
                                   probed" */
#define HP_SITEF_LEAF 1024u     /* tier-2 probed procedure or loop inside which
                                   nothing records (HPROF_SITEINFO_LEAF): once
                                   throttled, its probes only count it inline
                                   (cost kind HP_COST_PROBE_LEAF) */
#define HP_SITEF_FRAME 2048u    /* a frame of a tier-0 call path
                                   (HPROF_CALLPATH): a dynamic call site at a
                                   return address above an MPI call, named
                                   after the function it lies in; it counts
                                   and times the MPI calls made through it,
                                   and has no cost of its own */
#define HP_SITEF_ESTIMATED 4096u /* throttled (with HP_SITEF_THROTTLED) by a
                                   writer that estimates: a throttled node's
                                   time holds everything recorded beneath it
                                   and its own time of its counted calls at
                                   the mean of its timed ones, so it covers
                                   all its calls; without the flag (older
                                   writers) it covers its timed calls only */

/* One site: 56 bytes in the file. */
typedef struct hp_site_rec {
    uint32_t id;
    uint32_t kind;     /* enum hp_site_kind */
    uint32_t name;     /* string index: MPI function, procedure, construct */
    uint32_t func;     /* string index: enclosing function ("" if unknown) */
    uint32_t file;     /* string index: source file ("" if unknown) */
    uint32_t line;     /* 0 if unknown */
    uint32_t end_line;
    uint32_t parent;   /* enclosing static site or HP_NONE */
    uint32_t callee;   /* called procedure's site or HP_NONE */
    uint32_t flags;    /* HP_SITEF_* */
    uint32_t module;   /* string index: object file for dynamic sites */
    uint32_t reserved;
    uint64_t offset;   /* address offset inside module (dynamic sites) */
} hp_site_rec;
#define HP_SITE_REC_LEN 56u

/* One calling-context node of one thread: 56 bytes (48 in versions 2-3,
 * without timed).  Times are raw, as measured (the analyzer and the
 * summary compensate them with the rank's event costs, hp_compensate.h). */
typedef struct hp_node_rec {
    uint32_t id;
    uint32_t parent;   /* node id or HP_NONE for a root */
    uint32_t site;     /* site id */
    uint32_t thread;   /* thread number within the rank, 0 = first */
    uint64_t count;
    double time;       /* inclusive seconds of the timed calls */
    double min;
    double max;
    uint64_t timed;    /* calls of count that were timed (<= count): the
                          others were throttled or folded (counted only) */
} hp_node_rec;
#define HP_NODE_REC_LEN 56u
#define HP_NODE_REC_LEN_V3 48u

/* Event kinds whose cost is calibrated at start-up (RANK, version 4).
 * "outside": what one event (an enter/exit pair, one MPI call's or one
 * OpenMP hook's bookkeeping) adds to the time of every node enclosing it;
 * "inside": the part of it inside the event's own node's timing window
 * (added to that node's own time per timed call).  Append only. */
enum hp_cost_kind {
    HP_COST_PROBE_TIMED = 0,    /* tier-2 probe pair, timed */
    HP_COST_PROBE_COUNTED = 1,  /* tier-2 probe pair, throttled or folded */
    HP_COST_HOOK_TIMED = 2,     /* tier-1 hook pair (call site + procedure) */
    HP_COST_HOOK_COUNTED = 3,
    HP_COST_MPI = 4,            /* an MPI wrapper's bookkeeping per call */
    HP_COST_OMP = 5,            /* an OpenMP hook's bookkeeping per event */
    HP_COST_PROBE_FOLDED = 6,   /* tier-2 probe pair of a recursive activation
                                   (folded into the outermost: counted only);
                                   tier-1 folded calls cost as counted ones */
    HP_COST_PROBE_LEAF = 7,     /* tier-2 probe pair of a leaf site counted
                                   inline (HP_SITEF_LEAF, throttled) */
    HP_COST_KINDS = 8
};

typedef struct hp_event_cost {
    double outside, inside;     /* seconds per event */
} hp_event_cost;

/* The name of a cost kind ("probe timed", ...; the analyzer's rank_cost
 * table uses it), NULL past the last. */
const char *hp_cost_kind_name(uint32_t kind);

/* Communication of one node with one peer: 64 bytes.  peer is a world
 * rank, HP_PEER_ALL for the time of a collective, or HP_PEER_FILE for
 * MPI-IO: every read or write of a file is one transfer with the peer
 * "file", reads counted in bytes_recv and writes in bytes_sent, with the
 * bytes the status reports (a read past the end of the file counts what it
 * got, not what it asked for). */
typedef struct hp_comm_rec {
    uint32_t node;
    int32_t peer;
    uint64_t count;       /* transfers (a collective counts one per call) */
    uint64_t bytes_sent;
    uint64_t bytes_recv;
    double tran;          /* transmission time, seconds */
    double sync;          /* synchronization delay, seconds */
    double min;           /* shortest and longest single transfer */
    double max;
} hp_comm_rec;
#define HP_COMM_REC_LEN 64u
#define HP_PEER_ALL (-1)
#define HP_PEER_FILE (-2)

/* One event of the task timeline: 48 bytes.  A task instance is
 * identified within its rank by id = (creating thread + 1) << 40 | the
 * creating thread's count of tasks; parent is the id of the explicit task
 * that was running on the creating thread (0: an implicit or the initial
 * task).  Times are seconds since the rank's start (RANK start). */
typedef struct hp_task_rec {
    uint32_t thread;   /* thread that recorded the event */
    uint32_t kind;     /* HP_TASKEV_* */
    uint32_t site;     /* "task create" site (CREATE) or "task" site (RUN) */
    uint32_t team;     /* team instance within the rank, 0: outside any */
    uint64_t id;
    uint64_t parent;   /* CREATE only; 0 for RUN */
    double begin;
    double end;
} hp_task_rec;
#define HP_TASK_REC_LEN 48u

/* One counter value of one node: 16 bytes (version 5).  The sum of the
 * event's deltas between the node's enters and exits, of its timed
 * activations, inclusive of its children like its time; only values
 * that are not 0 are written, at most one record per (node, event). */
typedef struct hp_counter_rec {
    uint32_t node;     /* node id of this rank */
    uint32_t event;    /* index into the section's event names */
    uint64_t value;
} hp_counter_rec;
#define HP_COUNTER_REC_LEN 16u

enum hp_task_event_kind {
    HP_TASKEV_CREATE = 1,  /* the creating thread made the task */
    HP_TASKEV_RUN = 2      /* a thread executed it (begin .. end) */
};

/* ---- little-endian primitives, used by both sides ---- */

static inline void hp_put_u32(unsigned char *p, uint32_t v)
{
    p[0] = (unsigned char)v;
    p[1] = (unsigned char)(v >> 8);
    p[2] = (unsigned char)(v >> 16);
    p[3] = (unsigned char)(v >> 24);
}

static inline void hp_put_u64(unsigned char *p, uint64_t v)
{
    hp_put_u32(p, (uint32_t)v);
    hp_put_u32(p + 4, (uint32_t)(v >> 32));
}

static inline void hp_put_f64(unsigned char *p, double d)
{
    uint64_t v;
    memcpy(&v, &d, sizeof v);
    hp_put_u64(p, v);
}

static inline uint32_t hp_get_u32(const unsigned char *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
           (uint32_t)p[3] << 24;
}

static inline uint64_t hp_get_u64(const unsigned char *p)
{
    return (uint64_t)hp_get_u32(p) | (uint64_t)hp_get_u32(p + 4) << 32;
}

static inline double hp_get_f64(const unsigned char *p)
{
    uint64_t v = hp_get_u64(p);
    double d;
    memcpy(&d, &v, sizeof d);
    return d;
}

/* How a rank ended, from its RANK flags: "MPI_Abort", "SIGTERM" (the
 * signal of HP_RANKF_SIGNALED, "signal N" for one without a name here),
 * "exit without MPI_Finalize", or NULL when it ended normally.  buf holds
 * the "signal N" form. */
const char *hp_rank_ending(uint32_t flags, char *buf, size_t len);

/* CRC-32 (IEEE 802.3, reflected, as zlib computes it); _update continues
 * the CRC of earlier bytes (0 to start), for data read in pieces. */
uint32_t hp_crc32(const void *data, size_t len);
uint32_t hp_crc32_update(uint32_t crc, const void *data, size_t len);
/* The CRC of A followed by B from crc_a, crc_b and shift_b =
 * hp_crc32_shift(length of B): a long payload checksummed in blocks, only
 * the changed blocks again (live snapshots). */
uint32_t hp_crc32_shift(uint64_t n);
uint32_t hp_crc32_combine(uint32_t crc_a, uint32_t crc_b, uint32_t shift_b);

/* Record codecs: write/read one fixed-size record at p. */
void hp_site_rec_put(unsigned char *p, const hp_site_rec *r);
void hp_site_rec_get(const unsigned char *p, hp_site_rec *r);
void hp_node_rec_put(unsigned char *p, const hp_node_rec *r);
/* _get reads the version 4 record; _get_v3 a version 2-3 one (timed = count). */
void hp_node_rec_get(const unsigned char *p, hp_node_rec *r);
void hp_node_rec_get_v3(const unsigned char *p, hp_node_rec *r);
void hp_comm_rec_put(unsigned char *p, const hp_comm_rec *r);
void hp_comm_rec_get(const unsigned char *p, hp_comm_rec *r);
void hp_task_rec_put(unsigned char *p, const hp_task_rec *r);
void hp_task_rec_get(const unsigned char *p, hp_task_rec *r);
void hp_counter_rec_put(unsigned char *p, const hp_counter_rec *r);
void hp_counter_rec_get(const unsigned char *p, hp_counter_rec *r);

const char *hp_kind_name(uint32_t kind);

#endif
