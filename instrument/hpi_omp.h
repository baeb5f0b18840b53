/*
 * hpi_omp.h - what the files of the POMP2 rewriting share (omp.c finds
 * the pragmas and plans them, omp_construct.c rewrites each construct,
 * omp_clause.c parses pragmas and writes text): the parsed pragma, the
 * text buffer, the plan of the unit and the context of one rewriting.
 */
#ifndef HPI_OMP_H
#define HPI_OMP_H

#include <stddef.h>

#include "hpi.h"

#define HPI_NONE ((size_t)-1)
#define HPI_MAXCL 32

typedef struct hpi_clause {
    char name[32];
    char *arg;           /* inside the parentheses, NULL without */
} hpi_clause;

typedef struct hpi_omp {
    char words[3][16];   /* directive name words */
    int nwords;
    char crit[256];      /* critical name, "" if none */
    hpi_clause cl[HPI_MAXCL];
    int ncl;
} hpi_omp;

typedef struct hpi_buf {
    char *p;
    size_t n, cap;
    int oom;
} hpi_buf;

/* One OpenMP pragma of the unit: a #pragma line, or a _Pragma operator
 * written in the code (not one made by a macro). */
typedef struct hpi_prag {
    size_t start, end;   /* the text the rewriting replaces */
    size_t after;        /* where its statement may start */
    unsigned l1, l2;     /* its first and last line */
    unsigned resume;     /* the line the source goes on with after it */
    int op;              /* 1: a _Pragma operator */
    char *text;          /* "#pragma omp ..." on one line */
} hpi_prag;

/* A stretch [s, e) of the unit's text. */
typedef struct hpi_range {
    size_t s, e;
    const char *why;     /* what the code is (omp_asis.c) */
} hpi_range;

typedef struct hpi_plan {
    hpi_unit *u;
    const hpi_stmt *stmts;
    size_t nstmts;
    hpi_prag *prags;     /* in file order */
    size_t nprags;
    int pomp;            /* 1: the POMP2 rewriting, 0: only the split of
                            combined parallel loops (omp_split.c) */
    hpi_range *dev;      /* code left as written: device code, taskloop
                            bodies under POMP2 (omp_asis.c) */
    size_t ndev;
    int oom;
} hpi_plan;

/* Section regions: the sections construct enclosing offset off. */
typedef struct hpi_secs {
    size_t s, e;
    int region;
} hpi_secs;

/* Everything one pragma's rewriting needs. */
typedef struct hpi_ctx {
    hpi_plan *pl;
    hpi_unit *u;
    const hpi_prag *d;
    hpi_omp *o;
    const hpi_stmt *st;  /* its statement, NULL for stand-alone ones */
    unsigned l1, l2, e1, lr;
    int nowait;
    hpi_buf pre, post, ex;
    hpi_buf wpre, wpost; /* a split combined construct: pre and post of its
                            worksharing part, inside those of its parallel
                            part (empty when not split) */
    hpi_secs *secs;
    size_t *nsecs;
} hpi_ctx;

/* omp_clause.c */
void hpi_bput(hpi_buf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* The buffer's text (malloc'ed; "" when empty), NULL after a failure. */
char *hpi_btake(hpi_buf *b);
int hpi_id(char c);
const char *hpi_skipsp(const char *p);
int hpi_omp_parse(const char *t, hpi_omp *o);
void hpi_omp_clear(hpi_omp *o);
/* Index of the clause called name, -1 if none. */
int hpi_has(const hpi_omp *o, const char *name);
int hpi_only(const hpi_omp *o, const char *const *ok);
void hpi_bline(hpi_buf *b, const hpi_unit *u, unsigned line);
void hpi_bpragma(hpi_buf *b, const char *words, const hpi_omp *o,
                 const char *const *keep, const char *extra);
void hpi_ctc_extra(hpi_buf *b, const hpi_omp *o);
const char *hpi_items(const hpi_clause *c);
int hpi_plain_items(const char *list);
int hpi_last_conflict(const hpi_omp *o);
void hpi_shared_items(hpi_buf *b, const hpi_omp *o, const char *name);

/* omp.c */
/* The statement pragma d applies to; NULL with *why set when there is
 * none the rewriting can wrap. */
const hpi_stmt *hpi_stmt_after(hpi_plan *pl, const hpi_prag *d, const char **why);
int hpi_add_region(hpi_unit *u, const char *type, unsigned l1, unsigned l2,
                   unsigned e1, const char *extra);

/* omp_construct.c: each returns why the construct stays as it is, or
 * NULL with c->pre and c->post filled. */
extern const char hpi_oom[];
const char *hpi_plan_parallel(hpi_ctx *c);
const char *hpi_plan_for(hpi_ctx *c);
const char *hpi_plan_section(hpi_ctx *c);
const char *hpi_plan_single(hpi_ctx *c);
const char *hpi_plan_master(hpi_ctx *c);
const char *hpi_plan_critical(hpi_ctx *c);
const char *hpi_plan_atomic(hpi_ctx *c);
const char *hpi_plan_task(hpi_ctx *c);
const char *hpi_plan_taskgroup(hpi_ctx *c);
const char *hpi_plan_standalone(hpi_ctx *c);

/* omp_asis.c: code left as written (device code: target regions,
 * declare target; taskloop bodies under POMP2).  Finds it in the plan's pragmas; -1 when out of memory. */
int hpi_target_find(hpi_plan *pl);
/* 1 when offset off is in code left as written (after its pragma). */
int hpi_in_device(const hpi_plan *pl, size_t off);
/* No probe for the sites in code left as written (before the pragmas
 * are planned). */
void hpi_target_skip_sites(const hpi_plan *pl);
/* 1 when line is in a procedure that is device code (after
 * hpi_target_skip_sites): its pragmas are left as written. */
int hpi_in_device_procedure(const hpi_plan *pl, unsigned line);

/* omp_split.c: combined parallel worksharing constructs split into their
 * parallel and worksharing parts. */
/* 1 when o is parallel for or parallel for simd. */
int hpi_split_is_loop(const hpi_omp *o);
/* Why splitting the combined construct o would change the program
 * (an inscan or task reduction, ...), or NULL. */
const char *hpi_split_whole_why(const hpi_omp *o);
/* Why o cannot be rewritten (parallel, or split), or NULL. */
const char *hpi_split_why(const hpi_omp *o);
/* "#pragma omp parallel" with the clauses of its parallel part; pomp:
 * if and num_threads replaced by the POMP2 variables. */
void hpi_split_parallel_pragma(hpi_buf *b, const hpi_omp *o, int pomp);
/* "#pragma omp for|for simd|sections" with the worksharing clauses, nowait. */
void hpi_split_ws_pragma(hpi_buf *b, const hpi_omp *o);
/* The split without POMP2 calls (the plan without --omp). */
const char *hpi_plan_split_plain(hpi_ctx *c);
/* The loop probe of the statement of a split parallel loop moved between
 * the two parts. */
void hpi_split_loop_probe(hpi_unit *u, const hpi_prag *d, const hpi_stmt *st);
/* No probe for the loops of combined parallel constructs not split. */
void hpi_split_drop_outside(hpi_unit *u);

#endif
