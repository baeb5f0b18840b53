/*
 * hprof_probe.h - the interface between code instrumented by
 * hprof-instrument (tier 2) and the hprof runtime.  Instrumented sources
 * include it; nothing else of hprof is visible to them.
 *
 * Each translation unit carries its static site table (one hprof_site_info
 * per procedure, loop, call statement and communication statement, parents
 * before children) in a static hprof_unit, registered by a constructor
 * before main.  Probes name a site by (unit, index in its table), so they
 * need no global variables and compile inside OpenMP regions declared
 * default(none).  A probe's frame lives on the instrumented function's
 * stack; hprof_exit is written to be a cleanup handler
 * (__attribute__((cleanup(hprof_exit)))), so every exit path -- return,
 * break, goto, a longjmp-free early exit -- closes what it opened.
 */
#ifndef HPROF_PROBE_H
#define HPROF_PROBE_H

#ifdef __cplusplus
extern "C" {
#endif

#define HPROF_PROBE_API __attribute__((visibility("default")))

/* Site kinds (the values of the profile format's hp_site_kind). */
enum hprof_site_kind {
    HPROF_SITE_PROCEDURE = 1,
    HPROF_SITE_LOOP = 2,
    HPROF_SITE_CALL = 3,   /* procedure call statement: name = callee */
    HPROF_SITE_COMM = 4,   /* communication statement: name = MPI function */
    HPROF_SITE_REGION = 6  /* user region: name = the region's name */
};

typedef struct hprof_site_info {
    int kind;              /* enum hprof_site_kind */
    const char *name;      /* procedure, callee, MPI function; "for"/"while"/"do" for loops */
    const char *func;      /* enclosing procedure ("" for a procedure itself) */
    unsigned line;         /* first line (the call's line for call statements) */
    unsigned end_line;     /* last line */
    int parent;            /* index of the enclosing procedure or loop, -1 if none */
    unsigned flags;        /* HPROF_SITEINFO_* */
} hprof_site_info;

/* hprof_site_info flags.  UNPROBED: the instrumenter's policy put no probe
 * on the site (a nested call-free loop, a tiny procedure, a call of one):
 * it is in the static tables, its time is its parent's.  LEAF: a probed
 * procedure or loop inside which nothing can record (no probed site, no
 * call but of tiny procedures of its file and math.h's arithmetic, no
 * OpenMP construct): once throttled, its probes only count it, without
 * making it the calling context. */
#define HPROF_SITEINFO_UNPROBED 1u
#define HPROF_SITEINFO_LEAF 2u

typedef struct hprof_unit {
    const char *file;              /* source file as the compiler saw it */
    unsigned nsites;
    const hprof_site_info *sites;
    unsigned *ids;                 /* nsites entries, filled by registration */
    int registered;
} hprof_unit;

/* Registers a unit's sites (idempotent).  Called by the constructor the
 * instrumenter emits; safe before MPI_Init and from several threads. */
HPROF_PROBE_API void hprof_register_unit(hprof_unit *unit);

/* The state of one open probe, on the instrumented code's stack. */
typedef struct hprof_frame {
    unsigned long long start;  /* timestamp, 0 when not timed */
    unsigned node;             /* node entered, or a marker (folded, off) */
    unsigned saved;            /* calling context to restore */
    unsigned site;
    unsigned saved_comm;       /* open communication statement to restore */
    void *rec;                 /* the node's record, so closing needs no lookup */
} hprof_frame;

/* The part of a thread's records the probes read inline (the runtime's
 * per-thread record begins with it).  A site whose node under a context is
 * known is "fast" there (one context per site and thread): its probes,
 * entered in that context, switch the context themselves, and either only
 * bump the node's count (once throttling reduced it to a count) or take
 * the start time, and on exit hand the end to hprof_exit_fast.  A leaf
 * site (HPROF_SITEINFO_LEAF) once only counted is fast under `leaf`
 * instead: its probes bump the count and nothing else (nothing inside it
 * records, so it need not be the context).  One slot per site id, `nfast`
 * of them (0 while the runtime wants every probe to call it). */
typedef struct hprof_probe_fast {
    unsigned parent;           /* the context it is fast under, ~0u: none */
    unsigned node;             /* the node entered there */
    __UINT64_TYPE__ *count;    /* that node's count when only counted, else NULL */
    unsigned leaf;             /* the context it is a counted leaf under, ~0u: none */
    unsigned pad_;
    unsigned long sp;          /* frame of its open fast activation */
    unsigned long long start;  /* and its start, when timed */
    void *rec;                 /* the node's record */
    void *pad2_[2];            /* 64 bytes: a slot's address is one shift */
} hprof_probe_fast;

typedef struct hprof_probe_view {
    unsigned current;          /* node of the calling context */
    unsigned nfast;
    hprof_probe_fast *fast;
} hprof_probe_view;

/* hprof_frame.node of activations the probes opened inline (their
 * hprof_frame.saved_comm holds the node, .site the site when timed). */
#define HPROF_FRAME_FAST 0xfffffffdu        /* counted only */
#define HPROF_FRAME_FAST_TIMED 0xfffffffcu  /* timed: closed by hprof_exit_fast */
#define HPROF_FRAME_LEAF 0xfffffffbu        /* a leaf counted: nothing to close */

/* Opens a procedure, loop, call-statement or communication-statement
 * probe.  For a communication statement, MPI calls made inside it record
 * their communication at this site instead of at their return address. */
HPROF_PROBE_API void hprof_enter(hprof_frame *f, hprof_unit *unit, unsigned index);
/* Closes the probe opened with f. */
HPROF_PROBE_API void hprof_exit(hprof_frame *f);
/* Closes a timed activation the probes opened inline. */
HPROF_PROBE_API void hprof_exit_fast(hprof_frame *f);
/* hprof_enter and hprof_exit called from a function of the probes' own,
 * out of line: sp is the instrumented function's stack pointer at the
 * call (what hprof_enter/exit take from their caller's frame). */
HPROF_PROBE_API void hprof_enter_at(hprof_frame *f, hprof_unit *unit, unsigned index,
                                    unsigned long sp);
HPROF_PROBE_API void hprof_exit_at(hprof_frame *f, unsigned long sp);

/* What "#pragma hprof region begin/end NAME" and "#pragma hprof off/on"
 * become (the same functions as in hprof.h). */
HPROF_PROBE_API void hprof_region_begin(const char *name);
HPROF_PROBE_API void hprof_region_end(const char *name);
HPROF_PROBE_API void hprof_collect(int on);

#ifdef HPROF_PROBE_WEAK
/* What the probes of an instrumented unit call (hprof-instrument defines
 * HPROF_PROBE_WEAK before including this file): the functions
 * above as weak references, so that an instrumented object links with any
 * driver -- g++, mpicxx, a libtool link that adds no -lhprof -- and then
 * runs unmeasured after one warning.  Linked with libhprof, they call it. */
extern void hprof_probe_register_ref(hprof_unit *unit) __asm__("hprof_register_unit") __attribute__((weak));
extern void hprof_probe_enter_ref(hprof_frame *f, hprof_unit *unit, unsigned index) __asm__("hprof_enter") __attribute__((weak));
extern void hprof_probe_exit_ref(hprof_frame *f) __asm__("hprof_exit") __attribute__((weak));
extern void hprof_probe_exit_fast_ref(hprof_frame *f) __asm__("hprof_exit_fast") __attribute__((weak));
extern void hprof_probe_enter_at_ref(hprof_frame *f, hprof_unit *unit, unsigned index,
                                     unsigned long sp) __asm__("hprof_enter_at") __attribute__((weak));
extern void hprof_probe_exit_at_ref(hprof_frame *f, unsigned long sp) __asm__("hprof_exit_at")
    __attribute__((weak));
/* write(2) under another name: this header includes no system header, so
 * it cannot change what the instrumented source sees. */
extern long hprof_probe_write(int fd, const void *buf, __SIZE_TYPE__ n) __asm__("write");
/* One for the whole program (a weak definition in every instrumented unit). */
int hprof_probe_warned __attribute__((weak));

static __inline__ __attribute__((no_instrument_function)) void
hprof_probe_register(hprof_unit *unit)
{
    static const char msg[] = "hprof: warning: instrumented code runs without the hprof "
                              "runtime (libhprof was not linked): not measured\n";

    if (hprof_probe_register_ref) {
        hprof_probe_register_ref(unit);
    } else if (!hprof_probe_warned) {
        hprof_probe_warned = 1;
        if (hprof_probe_write(2, msg, sizeof msg - 1) < 0)
            hprof_probe_warned = 2;
    }
}

/* The calling thread's view: an empty one (no fast sites) until its first
 * probe (read only when the runtime is linked). */
extern __thread hprof_probe_view *hprof_probe_thread
    __attribute__((weak, tls_model("initial-exec")));

/* A fast site entered in its context is opened here (1), else 0: the
 * caller calls the runtime.  The probes are no functions of the program's:
 * -finstrument-functions (tier 1 beside tier 2) must not hook them. */
static __inline__ __attribute__((always_inline, no_instrument_function)) int
hprof_probe_enter_fast(hprof_frame *f, const unsigned *ids, unsigned index)
{
    hprof_probe_view *v = hprof_probe_thread;
    unsigned long site = ids[index];
    if (site < v->nfast) {
        hprof_probe_fast *s = &v->fast[site];
        unsigned current = v->current;
        if (s->leaf == current) {
            ++*s->count;
            f->node = HPROF_FRAME_LEAF;
            return 1;
        }
        if (s->parent == current) {
            s->sp = (unsigned long)f;
            f->saved = current;
            f->saved_comm = s->node;
            v->current = s->node;
            if (s->count) {
                ++*s->count;
                f->node = HPROF_FRAME_FAST;
            } else {
                f->site = (unsigned)site;
                f->node = HPROF_FRAME_FAST_TIMED;
#if defined(__x86_64__) || defined(__i386__)
                s->start = __builtin_ia32_rdtsc(); /* timed slots: TSC clock only */
#endif
            }
            return 1;
        }
    }
    return 0;
}

/* Opens a probe: inline when its site is fast, else through the runtime
 * (instrumented code passes its static array of site ids, unit->ids,
 * itself: the probe then reads one word less). */
static __inline__ __attribute__((always_inline, no_instrument_function)) void
hprof_probe_enter_in(hprof_frame *f, hprof_unit *unit, const unsigned *ids, unsigned index)
{
    if (hprof_probe_enter_ref) {
        if (!hprof_probe_enter_fast(f, ids, index))
            hprof_probe_enter_ref(f, unit, index);
    } else {
        f->node = 0xffffffffu; /* nothing opened: the exit does nothing */
    }
}

/* The same through the unit. */
static __inline__ __attribute__((always_inline, no_instrument_function)) void
hprof_probe_enter(hprof_frame *f, hprof_unit *unit, unsigned index)
{
    hprof_probe_enter_in(f, unit, unit->ids, index);
}

/* Closes a counted activation inline (1): a counted leaf has nothing to
 * close; a counted fast activation that is still the innermost one
 * restores the context (f->saved_comm holds its node). */
static __inline__ __attribute__((always_inline, no_instrument_function)) int
hprof_probe_exit_counted(hprof_frame *f)
{
    if (f->node == HPROF_FRAME_LEAF)
        return 1;
    if (f->node == HPROF_FRAME_FAST && hprof_probe_thread->current == f->saved_comm) {
        hprof_probe_thread->current = f->saved;
        return 1;
    }
    return 0;
}

/* Closes the probe f: inline, or through the runtime. */
static __inline__ __attribute__((always_inline, no_instrument_function)) void
hprof_probe_exit(hprof_frame *f)
{
    if (hprof_probe_exit_counted(f))
        return;
    if (f->node >= HPROF_FRAME_FAST_TIMED && f->node <= HPROF_FRAME_FAST)
        hprof_probe_exit_fast_ref(f);
    else if (hprof_probe_exit_ref)
        hprof_probe_exit_ref(f);
}

/* The probes of a site that runs once per activation of its procedure (the
 * procedure itself, and what is not inside a loop of it): called, not
 * inlined, so that the procedure's code stays what the compiler makes of
 * it without them -- an interpreter's loop elsewhere in the procedure
 * keeps its registers and its layout.  They tell the runtime the stack
 * level of the instrumented function (their own canonical frame address:
 * its stack pointer at the call), as the inline probes' calls do. */
static __attribute__((noinline, unused, no_instrument_function)) void
hprof_probe_enter_once(hprof_frame *f, hprof_unit *unit, const unsigned *ids, unsigned index)
{
    if (hprof_probe_enter_at_ref) {
        if (!hprof_probe_enter_fast(f, ids, index))
            hprof_probe_enter_at_ref(f, unit, index, (unsigned long)__builtin_dwarf_cfa());
    } else {
        f->node = 0xffffffffu;
    }
}

static __attribute__((noinline, unused, no_instrument_function)) void
hprof_probe_exit_once(hprof_frame *f)
{
    if (hprof_probe_exit_counted(f))
        return;
    if (f->node >= HPROF_FRAME_FAST_TIMED && f->node <= HPROF_FRAME_FAST)
        hprof_probe_exit_fast_ref(f);
    else if (hprof_probe_exit_at_ref)
        hprof_probe_exit_at_ref(f, (unsigned long)__builtin_dwarf_cfa());
}
#endif

#ifdef __cplusplus
}
#endif

#endif
