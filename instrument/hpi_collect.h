/*
 * hpi_collect.h - what the files of the site collection share
 * (collect.c parses the unit and drives the walk, collect_walk.c walks a
 * function's statements, collect_loop.c places loop probes,
 * collect_macro.c answers questions about macro invocations,
 * collect_once.c finds the procedures called once): the state
 * of the walk and the helpers they all use.
 */
#ifndef HPI_COLLECT_H
#define HPI_COLLECT_H

#include <stddef.h>

#include <clang-c/Index.h>

#include "hpi.h"
#include "hp_filter.h"

#define HPI_NONE ((size_t)-1)

typedef struct hpi_macro {
    size_t start, end;   /* the invocation in the main file */
    CXCursor def;        /* its MacroDefinition */
    int pragma;          /* -1 not yet known, 0 no, 1 expands to a _Pragma */
    int collapse;
    int parallel;        /* its _Pragma has a parallel part */
} hpi_macro;

typedef struct hpi_mdef {
    const char *name;    /* owned by the CXString below */
    CXString str;
    CXCursor cur;
} hpi_mdef;

typedef struct hpi_mark {
    size_t off;          /* where; HPI_NONE = from anywhere */
    size_t aux;          /* case: offset of its switch */
    char *name;          /* label or goto target */
} hpi_mark;

typedef struct hpi_anc {
    enum CXCursorKind kind;
    size_t s, e;         /* file range, s == HPI_NONE if unknown */
} hpi_anc;

typedef struct hpi_vec {
    void *v;
    size_t n, cap;
} hpi_vec;

/* A C++ lambda found in a procedure's body, walked after the functions
 * as a procedure of its own (cxx.c). */
typedef struct hpi_lambda {
    CXCursor cur;
    char *outer;         /* the procedure it was written in */
    char *name;          /* its display name */
} hpi_lambda;

typedef struct hpi_walk {
    hpi_unit *u;
    const hpi_opts *o;
    CXTranslationUnit tu;
    CXFile main;
    hp_filter *filter;
    hpi_vec macros;      /* hpi_macro, sorted by start */
    size_t *mends;       /* sorted ends */
    hpi_vec defs;        /* hpi_mdef, sorted by name */
    hpi_vec funcs;       /* CXCursor */
    hpi_vec anc;         /* hpi_anc: the path from the function down */
    hpi_vec labels, gotos, cases;   /* hpi_mark, current function */
    hpi_vec switches;    /* size_t offsets, innermost last */
    const char *func;
    int parent;          /* innermost procedure or loop site */
    int nosite;          /* > 0: record no sites here */
    size_t prev_end;     /* end of the previous statement of the block */
    CXCursor collapsed;  /* the next loop bound to an omp loop pragma */
    int collapse_left;
    size_t first_site;   /* the current function's procedure site */
    hpi_vec stmts;       /* hpi_stmt: statements of blocks, for --omp */
    hpi_vec lambdas;     /* hpi_lambda, C++ */
    int oom;
} hpi_walk;

/* collect.c */
void *hpi_push(hpi_walk *w, hpi_vec *v, size_t elt);
char *hpi_strdup(hpi_walk *w, const char *s);
/* The offset of loc in the main file; -1 when it is elsewhere. */
int hpi_off(hpi_walk *w, CXSourceLocation loc, size_t *off);
int hpi_range(hpi_walk *w, CXCursor c, size_t *s, size_t *e);
int hpi_is_ident(char c);
int hpi_size_cmp(const void *a, const void *b);

/* collect_macro.c */
/* The longest macro invocation starting at start, or NULL. */
hpi_macro *hpi_macro_at(hpi_walk *w, size_t start);
int hpi_macro_ends_at(hpi_walk *w, size_t end);
int hpi_mdef_cmp(const void *a, const void *b);
int hpi_macro_pragma(hpi_walk *w, hpi_macro *m);
const char *hpi_macro_check(hpi_walk *w, size_t s, size_t e, int loop);
int hpi_omp_macros(hpi_walk *w);
/* For a call statement made by the macro invocation ending at e: whether
 * its wrapper must supply the ';' the invocation is used without (*semi),
 * or the reason it cannot be wrapped (NULL if it can). */
const char *hpi_macro_stmt_end(hpi_walk *w, size_t e, int *semi);
/* Marks the call statements made by a macro invocation that also expands
 * to a declaration (one of the statements kids of a block): wrapping them
 * would hide the declared names from the code after them. */
void hpi_macro_decls(hpi_walk *w, const CXCursor *kids, size_t n);

/* collect_walk.c */
int hpi_add_site(hpi_walk *w, int kind, const char *name, size_t s, size_t e);
/* The children of cursor c in v (v->v malloc'ed). */
void hpi_kids(hpi_walk *w, CXCursor c, hpi_vec *v);
void hpi_walk_kid(hpi_walk *w, CXCursor c);
void hpi_walk_kids(hpi_walk *w, CXCursor c);
int hpi_duplicate(hpi_walk *w, int kind, size_t open, size_t close);
void hpi_free_marks(hpi_vec *v);
void hpi_walk_function(hpi_walk *w, CXCursor fn);
/* 1 for math.h's arithmetic (sqrt, fabs, ...): no call for the policy. */
int hpi_math_call(const char *name);
/* 1 for assert()'s failure functions (__assert_fail, ...): no call for
 * the policy either. */
int hpi_assert_call(const char *name);
/* The same with the procedure's display name given (a lambda's). */
void hpi_walk_function_named(hpi_walk *w, CXCursor fn, const char *name);

/* collect_loop.c */
void hpi_walk_loop(hpi_walk *w, CXCursor c);

/* collect_once.c: sets hpi_site.once on the procedures called once
 * (static, named once in the unit, by a direct call from another
 * function); -1 out of memory. */
int hpi_collect_once(hpi_walk *w);

/* cxx.c: C++ (the unit is C++ when hpi_opts.cxx) */
int hpi_cxx_function_kind(enum CXCursorKind k);
/* Namespaces, classes, class templates, extern "C" blocks. */
int hpi_cxx_scope_kind(enum CXCursorKind k);
/* The display name of procedure fn (malloc'ed; NULL out of memory). */
char *hpi_cxx_name(CXCursor fn);
/* 1 when ref is a method of the standard library that compiles to a few
 * instructions (operator[], operator*, size(), begin(), ...): like
 * math.h's arithmetic, no call for the policy. */
int hpi_cxx_cheap_call(CXCursor ref);
/* The name of a call of function ref: its procedure's (a template's for
 * a specialization). */
char *hpi_cxx_callee_name(CXCursor ref);
void hpi_cxx_defer_lambda(hpi_walk *w, CXCursor lam);
/* Why procedure fn, whose body opens at body, takes no probe, or NULL. */
const char *hpi_cxx_proc_skip(hpi_walk *w, CXCursor fn, size_t body);
/* The function a call expression calls (a template's unresolved call
 * of a function that has one declaration included), else what
 * clang_getCursorReferenced gives. */
CXCursor hpi_cxx_callee(hpi_walk *w, CXCursor call);
/* Why a call of function ref cannot be wrapped, or NULL. */
const char *hpi_cxx_call_skip(CXCursor ref);
/* Past the "template <...>" heads of a definition starting at off: where
 * an attribute can go; (size_t)-1 if none before body. */
size_t hpi_cxx_decl_start(const hpi_src *src, size_t off, size_t body);
/* Where __attribute__((no_instrument_function)) goes on lambda lam whose
 * body opens at body: before its trailing return type, else its body. */
size_t hpi_cxx_lambda_attr(hpi_walk *w, CXCursor lam, size_t body);
void hpi_cxx_free(hpi_walk *w);
/* cxx_headers.c: records function definition fn (in_main: of the main
 * file) for tier 1's exclusion of tiny header functions. */
void hpi_cxx_header_fn(hpi_walk *w, CXCursor fn, int in_main);

/* collect_tiny.c: 1 when fn's body is tiny by the policy's rule (no loop,
 * no call but math.h's and builtins); C: notes a function of one of the
 * program's headers in hpi_unit.hdr_tiny when it is tiny. */
int hpi_body_tiny(CXCursor fn);

/* collect_trip.c: the constant trip count of a counted for loop, -1 when
 * the loop is no such loop. */
long hpi_const_trip(CXCursor loop);
void hpi_header_fn(hpi_walk *w, CXCursor fn);

#endif
