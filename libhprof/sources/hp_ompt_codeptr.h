/*
 * hp_ompt_codeptr.h - which code addresses that libomp reports through OMPT
 * (codeptr_ra) are the user's.  libomp reports some constructs with an
 * address inside itself (a taskloop, a wait inside the runtime) or a stale
 * one (a dynamic loop's begin, seen in the dynamic loader): such a site
 * would be `libomp.so.5+0x...` with no line.  The OMPT tool keys those
 * records by the construct that contains them instead.
 */
#ifndef HP_OMPT_CODEPTR_H
#define HP_OMPT_CODEPTR_H

/* Finds the code of the OpenMP runtime, the dynamic loader and libhprof,
 * once, when the tool starts (one thread). */
void hp_ompt_codeptr_init(void);

/* Is ra no user code: NULL, or in the runtime, the loader or libhprof? */
int hp_ompt_foreign(const void *ra);

/* Is ra in the OpenMP runtime? */
int hp_ompt_in_runtime(const void *ra);

/* The outlined function of the region the calling thread is forking from
 * return address ra through __kmpc_fork_call, __kmpc_fork_teams or
 * __kmpc_fork_call_if (ompt_fork.c), once; NULL when unknown (ra may be
 * the runtime's or libhprof's, when the fork passes through them).  A region is keyed by it (one byte after it, as a return
 * address, so that the site resolves to its entry): never the caller of
 * a tail call, never two merged fork calls at one line 0. */
const void *hp_ompt_forked_microtask(const void *ra);

/* The first return address on the current stack outside the runtime,
 * the loader and libhprof (a backtrace), NULL if none. */
const void *hp_ompt_user_frame(void);

/* For a code address inside the runtime: the first caller outside the
 * runtime and libhprof on the current stack (a backtrace), else ra. */
const void *hp_ompt_user_caller(const void *ra);

#endif
