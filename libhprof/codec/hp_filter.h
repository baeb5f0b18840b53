/*
 * hp_filter.h - include/exclude rules for instrumentation (HPROF_FILTER),
 * shared by hprof-instrument (which then emits no probes) and the runtime
 * (whose probes then do nothing).  A filter file has one rule a line:
 *
 *     # comment
 *     exclude function helper_?*
 *     exclude file third_party/?*.c
 *     include function helper_main
 *     exclude loop solver.c:120
 *     exclude call solver.c:131
 *
 * GLOBs are fnmatch(3) patterns.  Rules apply in order and the last one
 * that matches decides; a procedure no rule matches is included.  A loop
 * rule names the loop starting at LINE of a file whose path, or whose
 * name without its directories, FILE (a glob) matches; only loop rules
 * decide for a loop (besides the rules that exclude its procedure).  A
 * call rule names the call statement(s) starting at LINE the same way
 * (besides the rules that exclude its callee or its procedure).
 */
#ifndef HP_FILTER_H
#define HP_FILTER_H

#include <stddef.h>

typedef struct hp_filter hp_filter;

/* NULL with a one-line "FILE:LINE: ..." message in err on failure. */
hp_filter *hp_filter_load(const char *path, char *err, size_t errlen);
/* 1 when a procedure named func in file is to be measured, else 0.  A
 * NULL filter allows everything; func or file may be NULL (unknown). */
int hp_filter_allows(const hp_filter *f, const char *func, const char *file);
/* 1 when the loop starting at line of file is to be measured (the loop
 * rules), else 0.  A NULL filter or file allows it. */
int hp_filter_allows_loop(const hp_filter *f, const char *file, unsigned line);
/* The same for the call statements starting at line of file (the call
 * rules). */
int hp_filter_allows_call(const hp_filter *f, const char *file, unsigned line);
/* What the function rules alone say of procedure func: 1 when the last
 * `function` rule matching it is an include rule (an explicit request to
 * measure it: hprof-instrument then probes it even when its policy finds
 * it tiny), 0 when it is an exclude rule, -1 when none matches. */
int hp_filter_names(const hp_filter *f, const char *func);
void hp_filter_free(hp_filter *f);

#endif
