/*
 * hpi.h - the shared picture of hprof-instrument, the libclang based
 * source-to-source instrumenter: the source text of the unit, the
 * preprocessor directives and macro expansions found in it, and the sites
 * (procedures, loops, call and communication statements) with the places
 * where their probes go.  source.c fills the text side, collect.c the
 * sites, emit.c writes the instrumented file or the site list.
 */
#ifndef HPI_H
#define HPI_H

#include <stddef.h>
#include <stdio.h>

/* How a site's probe is written (see emit.c). */
enum hpi_wrap {
    HPI_WRAP_PROC,   /* declarations right after the body's '{' */
    HPI_WRAP_BLOCK,  /* { probe; LOOP } */
    HPI_WRAP_EXPR    /* (__extension__ ({ probe; CALL; })) */
};

/* Byte classes of the source text. */
enum hpi_class { HPI_C_SPACE, HPI_C_CODE, HPI_C_STRING, HPI_C_DIRECTIVE };

/* Preprocessor directive kinds that matter for placing loop probes. */
enum hpi_dir_kind {
    HPI_D_OTHER, HPI_D_IF, HPI_D_ELSE, HPI_D_ENDIF,
    HPI_D_PRAGMA_LOOP,   /* must stay right before its loop: omp/acc loop
                            constructs, GCC ivdep/unroll, clang loop, ... */
    HPI_D_PRAGMA_BLOCK,  /* omp/acc construct taking a structured block */
    HPI_D_PRAGMA_ATOMIC  /* omp atomic: leave its statement alone */
};

typedef struct hpi_dir {
    size_t start, end;   /* bytes of the directive, continuation lines included */
    unsigned line;
    int kind;            /* enum hpi_dir_kind */
    int collapse;        /* loops bound to a loop pragma (collapse/ordered/tile), 0 = unknown */
    int parallel;        /* an omp pragma with a parallel part (hpi_pragma_parallel) */
} hpi_dir;

/* A range of bytes [s, e) of the source. */
typedef struct hpi_span {
    size_t s, e;
} hpi_span;

typedef struct hpi_src {
    const char *path;    /* as given on the command line */
    char *text;
    size_t len;
    unsigned char *cls;  /* enum hpi_class per byte */
    size_t *line_off;    /* start offset of each line, [0] = line 1 */
    unsigned nlines;
    hpi_dir *dirs;       /* in file order */
    size_t ndirs;
    hpi_span *skipped;   /* conditional code the preprocessor leaves out
                            (libclang's skipped ranges: from the #if or
                            #else that opens it into the directive that
                            ends it), in file order; set by collect.c */
    size_t nskipped;
} hpi_src;

typedef struct hpi_site {
    int kind;            /* enum hprof_site_kind */
    char *name;
    char *func;          /* enclosing procedure, "" for a procedure */
    unsigned line, end_line;
    int parent;          /* index in hpi_unit.sites, -1 for procedures */
    int wrap;            /* enum hpi_wrap */
    size_t start;        /* where the site's own code starts (a loop's keyword) */
    size_t open_off;     /* where the opening text goes */
    size_t nest_key;     /* 0, or the offset the opener nests as if it opened
                            at, among the insertions at open_off (a loop
                            probe moved into a split parallel loop) */
    size_t close_off;    /* where the closing text goes (BLOCK, EXPR) */
    unsigned open_line;  /* nonzero: the opener sits on a line of its own
                            before source line open_line (a pragma) */
    const char *skip;    /* why the site gets no probe, NULL if it does */
    int par_bound;       /* a loop bound to a combined parallel construct:
                            its probe opens inside the team when the
                            construct is split (omp_split.c), else none */
    int semi;            /* EXPR made by a statement macro used without a
                            ';' after it: the closer supplies the ';' */
    int calls;           /* procedure, loop: its body makes a call (any
                            call expression, library calls too, but not
                            math.h's arithmetic) */
    int opaque;          /* procedure, loop: its body makes a call that is
                            no site (a library, a function pointer, a call
                            where no site can be: anything may record
                            there), not counting math.h's arithmetic */
    int leaf;            /* probed, and nothing inside records (policy.c,
                            HPROF_SITEINFO_LEAF) */
    int calls_out;       /* ... one that is no call statement of the program
                            (a library function, a function pointer) */
    long trip;           /* loop: its constant trip count (collect_trip.c),
                            -1 when it is none */
    const char *unprobed;/* why the policy (policy.c) puts no probe on a
                            site that stays in the table, NULL if probed */
    size_t decl_off;     /* procedure: where its definition starts (its
                            first specifier), (size_t)-1 if unknown */
    int once;            /* procedure: static and called once, by a direct
                            call from another function (the compiler
                            inlines it; set for --tier=1 only) */
} hpi_site;

typedef struct hpi_opts {
    const char *file;        /* the source file */
    const char *out;         /* output path, NULL = FILE.inst.c */
    int list;                /* print the site table instead */
    const char *filter;      /* hp_filter rules file */
    char **comm;             /* extra communication functions */
    size_t ncomm;
    char **cflags;           /* compiler flags as given */
    int ncflags;
    int omp;                 /* POMP2 rewriting of OpenMP: -1 auto (on when
                                the file has omp pragmas), 0 off, 1 on */
    int all_loops;           /* --loops=all: no loop left unprobed */
    int all_procs;           /* --procedures=all: no procedure or call left unprobed */
    int tier1;               /* --tier=1: mark the procedures the policy leaves
                                unprobed no_instrument_function (tier1.c) */
    int cxx;                 /* the file is C++ (by its suffix: hpi_cxx_file) */
    const char *exclude_out; /* --exclude-out FILE: tier 1 of C++, the names of
                                the tiny functions of the program's headers
                                (cxx_headers.c), comma-separated */
} hpi_opts;

/* A text edit of the OpenMP (POMP2) rewriting: replaces [off, end)
 * (end == off: inserts) by text.  key is the offset where the construct
 * it belongs to opens, for nesting with the probes at the same offset. */
typedef struct hpi_edit {
    size_t off, end, key;
    int open;            /* 1 opener or replacement, 0 closer */
    char *text;
} hpi_edit;

/* A POMP2 region: its handle is __hprof_pomp_h[index]. */
typedef struct hpi_region {
    char *type;          /* opari2 regionType: parallel, for, parallelfor, ... */
    char *ctc;           /* the ctc string without its length prefix */
    unsigned line, end_line;
} hpi_region;

/* A statement that may follow a directive: [s, e), e past its ';'. */
typedef struct hpi_stmt {
    size_t s, e;
} hpi_stmt;

/* Tier 1 of C++: a function defined in a header of the program, or in
 * the main file (cxx_headers.c). */
typedef struct hpi_hfunc {
    char *name;          /* gcc's name for the exclude list, NULL if none */
    char *display;       /* as --list shows it */
    char *file;
    unsigned line;
    int main;            /* defined in the main file (tier1.c marks those) */
    int tiny;            /* by the policy's rule */
    const char *why;     /* excluded by name: why; NULL: hooked */
    const char *kept;    /* tiny but hooked: why */
} hpi_hfunc;

typedef struct hpi_unit {
    hpi_src src;
    hpi_site *sites;
    size_t nsites, cap;
    hpi_edit *edits;     /* the POMP2 rewriting, empty without --omp */
    size_t nedits, ecap;
    hpi_region *regions;
    size_t nregions, rcap;
    char **omp_notes;    /* "LINE: why" of omp pragmas left as they were */
    size_t nnotes;
    int omp_locks;       /* omp_*_lock calls were replaced */
    hpi_hfunc *hfuncs;   /* tier 1 of C++: functions of the program's headers */
    size_t nhfuncs, hcap;
    char **hdr_tiny;     /* C: the tiny procedures defined in the program's
                            own headers (collect_tiny.c), no sites but
                            called like those of the file */
    size_t nhdr_tiny, hdr_cap;
} hpi_unit;

/* source.c */
int hpi_src_load(hpi_src *s, const char *path, char *err, size_t errlen);
void hpi_src_free(hpi_src *s);
unsigned hpi_src_line(const hpi_src *s, size_t off);
size_t hpi_src_line_start(const hpi_src *s, unsigned line);
/* The last byte before off that is not space; (size_t)-1 if none. */
size_t hpi_src_prev_nonspace(const hpi_src *s, size_t off);
/* The first code byte at or after off, skipping space; len if none. */
size_t hpi_src_next_nonspace(const hpi_src *s, size_t off);
/* The directive containing byte off, or NULL. */
const hpi_dir *hpi_src_dir_at(const hpi_src *s, size_t off);
/* 1 when () [] {} balance over the code bytes of [a, b). */
int hpi_src_balanced(const hpi_src *s, size_t a, size_t b);
/* The end of the skipped conditional code containing off, or off when
 * the preprocessor keeps off. */
size_t hpi_src_past_skipped(const hpi_src *s, size_t off);
/* hpi_src_balanced over the code the preprocessor keeps (the skipped
 * conditional code left out). */
int hpi_src_balanced_kept(const hpi_src *s, size_t a, size_t b);
/* Kind (enum hpi_dir_kind) and bound loop count of a pragma's text after
 * the word "pragma" (also used for _Pragma strings). */
int hpi_pragma_kind(const char *text);
int hpi_pragma_collapse(const char *text);
int hpi_pragma_parallel(const char *text);

/* cxx.c: 1 when path names a C++ source (.cpp .cc .cxx .C .c++ ...). */
int hpi_cxx_file(const char *path);

/* collect.c: parses the unit with libclang and fills u->sites. */
int hpi_collect(hpi_unit *u, const hpi_opts *o, char *err, size_t errlen);

/* omp.c: the POMP2 rewriting of the OpenMP directives (OPARI2's
 * transformation) when pomp is 1; with pomp 0 only the split of combined
 * parallel loops that puts their loop probes inside the team (see
 * omp_split.c).  stmts are the statements that may follow the pragmas
 * (sorted by start), macros the macro invocations of the file. */
int hpi_omp_has_pragmas(const hpi_src *s);
int hpi_omp_plan(hpi_unit *u, const hpi_stmt *stmts, size_t nstmts,
                 const hpi_stmt *macros, size_t nmacros, int pomp);
int hpi_omp_lock(hpi_unit *u, const char *name, size_t s);
/* Adds "LINE: why" to the notes --list prints. */
int hpi_omp_note(hpi_unit *u, unsigned line, const char *why);
void hpi_omp_free(hpi_unit *u);

/* control.c: the control pragmas (#pragma hprof region/on/off/
 * noinstrument/instrument, #pragma omp inst ...), after hpi_collect. */
int hpi_control(hpi_unit *u);

/* policy.c: which sites of the table get no probe (hpi_site.unprobed),
 * after hpi_control.  A procedure whose loops run at most this many
 * iterations in all (constant trip counts) can be tiny. */
#define HPI_TINY_ITERS 32
int hpi_policy(hpi_unit *u, const hpi_opts *o, char *err, size_t errlen);
void hpi_policy_describe(const hpi_opts *o, FILE *fp);

/* emit.c */
int hpi_emit(const hpi_unit *u, const char *out, char *err, size_t errlen);
void hpi_list(const hpi_unit *u, FILE *fp);
/* Writes out through a temporary file renamed into place: write(fp, arg)
 * returns 0 or -1; on failure nothing is left at out. */
int hpi_emit_file(const char *out, int (*write)(FILE *fp, const void *arg), const void *arg,
                  char *err, size_t errlen);
/* s as a C string literal. */
void hpi_put_cstr(FILE *fp, const char *s);

/* tier1.c: --tier=1, the policy applied to -finstrument-functions hooks:
 * a copy of the unit with __attribute__((no_instrument_function)) on the
 * definitions of the procedures the policy or the filter leaves without a
 * probe (every line keeps its number), or with list, their table. */
int hpi_tier1(const hpi_unit *u, const hpi_opts *o, const char *out, char *err, size_t errlen);

/* cxx_headers.c: tier 1 of C++, the tiny functions of the program's
 * headers, excluded from the hooks by name. */
void hpi_cxx_headers_decide(hpi_unit *u);
void hpi_cxx_headers_list(const hpi_unit *u, FILE *fp);
int hpi_cxx_headers_write(const hpi_unit *u, const char *path, char *err, size_t errlen);
void hpi_cxx_headers_free(hpi_unit *u);

/* collect_tiny.c: 1 when name is a tiny procedure of the program's
 * headers (C); frees the list. */
int hpi_header_tiny(const hpi_unit *u, const char *name);
void hpi_header_free(hpi_unit *u);

/* The text of directive d on one line: continuations joined, comments
 * removed, quoted text kept, trailing space cut (malloc'ed; omp_clause.c). */
char *hpi_dir_text(const hpi_src *s, const hpi_dir *d);

#endif
