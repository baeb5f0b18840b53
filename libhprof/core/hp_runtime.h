/*
 * hp_runtime.h - one-time start-up of the runtime: configuration, clock,
 * record limits and the instrumentation filter.  Runs from the library's
 * constructor, and again harmlessly from MPI_Init.
 */
#ifndef HP_RUNTIME_H
#define HP_RUNTIME_H

#include "hp_filter.h"

void hp_runtime_init(void);
/* The HPROF_FILTER rules, or NULL when none were given. */
const hp_filter *hp_runtime_filter(void);

#endif
