/*
 * hp_tailcall.h - finds the function that reached an MPI call by a tail
 * call.  A wrapper `void f(...) { MPI_Allreduce(...); }` built with -O2
 * ends in `jmp MPI_Allreduce`: f's frame is gone when hprof's wrapper
 * runs, so the return address it sees lies in f's caller.  The call
 * instruction just before that return address then goes to f, not to the
 * MPI function: f is what the site should be named after, at the line of
 * its tail jump.  x86-64 only; elsewhere nothing is ever found.
 */
#ifndef HP_TAILCALL_H
#define HP_TAILCALL_H

#include <stdint.h>
#include <elfutils/libdwfl.h>

typedef struct hp_tailcall {
    uintptr_t func;   /* entry of the function the call instruction went to */
    uintptr_t jump;   /* its jump to the MPI function; 0 when none was found */
} hp_tailcall;

/* `ra` is the return address of a call that ended in hprof's wrapper of
 * MPI function `callee`.  Returns 1 and fills *tc when the call
 * instruction before ra went (directly, through a PLT stub or a GOT slot)
 * to another function, which must then have tail-called `callee` (itself,
 * or through a chain of tail calls: *tc is then the last function and its
 * jump, as hp_tailcall_from finds them).  Returns
 * 0 when it went to `callee` itself, or the call is indirect, cannot be
 * decoded, or its target is not the start of a known function.  Reads only
 * inside the segments of loaded modules (code only from executable ones). */
int hp_tailcall_find(Dwfl *dwfl, uintptr_t ra, const char *callee, hp_tailcall *tc);

/* For records keyed by the entry of a function that reached `callee` by
 * its own tail call (an OpenMP outlined function ending in `jmp
 * GOMP_barrier`, or in `jmp f` where f ends in `jmp GOMP_barrier`, or
 * f in `jmp g` that does, up to four functions): returns 1 and fills *tc
 * with the function that made the jump to `callee` and that jump. */
int hp_tailcall_from(Dwfl *dwfl, uintptr_t entry, const char *callee, hp_tailcall *tc);

/* For a tier-1 call keyed by the entry of the function that made it as
 * a tail call (an outlined region or task body that is only a call):
 * returns 1 and fills *tc with that function and its first jump that
 * ends up (directly or through a PLT stub) at `target`, the callee's
 * entry. */
int hp_tailcall_to(Dwfl *dwfl, uintptr_t entry, uintptr_t target, hp_tailcall *tc);

/* Does the call instruction before return address ra go (directly,
 * through a PLT stub or a GOT slot) to function `callee`? */
int hp_tailcall_calls(Dwfl *dwfl, uintptr_t ra, const char *callee);

#endif
