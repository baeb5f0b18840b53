/*
 * ompt_fork.c - the outlined function of each region clang forks, for the
 * OMPT tool (hp_ompt_codeptr.h).  OMPT reports a region by the return
 * address of the call into __kmpc_fork_call only: when that call is its
 * function's tail call the address lies in the caller, and when clang
 * merges the fork calls of two regions (inlined functions, -flto) both
 * have one address, at line 0.  The outlined function (third argument)
 * names the region exactly.  libhprof defines __kmpc_fork_call (it comes
 * before libomp, as for GOMP_*): a few instructions note the call's
 * location, outlined function and return address in the thread's slot and
 * jump to libomp's, every argument register and the stack untouched (the
 * call is variadic, so it cannot be forwarded from C).  x86-64 only.
 */
#define _GNU_SOURCE
#include "config.h"
#include <dlfcn.h>
#include <stddef.h>
#include "hp_ompt_codeptr.h"

#if defined(HAVE_OMPT) && defined(__x86_64__) && defined(__ELF__)

/* What the thread's last __kmpc_fork_call noted; the layout is the
 * assembly's (offsets 0, 8, 16). */
typedef struct fork_note {
    const void *loc, *microtask, *ra;
} fork_note;

__thread fork_note hp_fork_note __attribute__((tls_model("initial-exec"), visibility("hidden")));
void *hp_fork_real __attribute__((visibility("hidden")));

__asm__(".text\n"
        ".globl __kmpc_fork_call\n"
        ".type __kmpc_fork_call, @function\n"
        "__kmpc_fork_call:\n"
        "    movq hp_fork_note@gottpoff(%rip), %r10\n"
        "    movq %rdi, %fs:(%r10)\n"
        "    movq %rdx, %fs:8(%r10)\n"
        "    movq (%rsp), %r11\n"
        "    movq %r11, %fs:16(%r10)\n"
        "    jmp *hp_fork_real(%rip)\n"
        ".size __kmpc_fork_call, .-__kmpc_fork_call\n");

/* A program built for libomp has it loaded when libhprof starts. */
__attribute__((constructor)) static void find_real_fork(void)
{
    hp_fork_real = dlsym(RTLD_NEXT, "__kmpc_fork_call");
}

const void *hp_ompt_forked_microtask(const void *ra)
{
    fork_note *n = &hp_fork_note;
    const void *m = n->ra == ra ? n->microtask : NULL;
    n->ra = NULL;
    return m;
}

#else

const void *hp_ompt_forked_microtask(const void *ra)
{
    (void)ra;
    return NULL;
}

#endif
