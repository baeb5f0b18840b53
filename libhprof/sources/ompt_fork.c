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
 * __kmpc_fork_teams (a host teams construct) has the same arguments and
 * is noted the same way; __kmpc_fork_call_if (LLVM 17 and later: a
 * region with an if clause, one argument block) is not variadic: a C
 * function notes it and calls libomp's, or, with a libomp that has none
 * (clang 14 never calls it), does what it does through the older entry
 * points.
 */
#define _GNU_SOURCE
#include "config.h"
#include <dlfcn.h>
#include <stddef.h>
#include <stdint.h>
#include "hp_ompt_codeptr.h"

#if defined(HAVE_OMPT) && defined(__x86_64__) && defined(__ELF__)

/* What the thread's last __kmpc_fork_call noted; the layout is the
 * assembly's (offsets 0, 8, 16). */
typedef struct fork_note {
    const void *loc, *microtask, *ra;
} fork_note;

__thread fork_note hp_fork_note __attribute__((tls_model("initial-exec"), visibility("hidden")));
void *hp_fork_real __attribute__((visibility("hidden")));
void *hp_fork_teams_real __attribute__((visibility("hidden")));

/* NAME notes its call and jumps to *REAL. */
#define HP_FORK_NOTE(name, real)                                                     \
    __asm__(".text\n"                                                                \
            ".globl " name "\n"                                                      \
            ".type " name ", @function\n" name ":\n"                                \
            "    movq hp_fork_note@gottpoff(%rip), %r10\n"                           \
            "    movq %rdi, %fs:(%r10)\n"                                            \
            "    movq %rdx, %fs:8(%r10)\n"                                           \
            "    movq (%rsp), %r11\n"                                                \
            "    movq %r11, %fs:16(%r10)\n"                                          \
            "    jmp *" real "(%rip)\n"                                              \
            ".size " name ", .-" name "\n")

HP_FORK_NOTE("__kmpc_fork_call", "hp_fork_real");
HP_FORK_NOTE("__kmpc_fork_teams", "hp_fork_teams_real");

/* libomp's outlined-function type and the calls __kmpc_fork_call_if
 * stands for when libomp has none. */
typedef void (*hp_microtask)(int32_t *gtid, int32_t *tid, ...);
typedef void (*fork_call_fn)(void *loc, int32_t argc, hp_microtask fn, ...);
typedef void (*fork_call_if_fn)(void *loc, int32_t argc, hp_microtask fn, int32_t cond,
                                void *args);
typedef int32_t (*gtid_fn)(void *loc);
typedef void (*serialized_fn)(void *loc, int32_t gtid);
static fork_call_if_fn fork_if_real;

/* libomp's function `name` (looked up when needed: libhprof needs no
 * OpenMP runtime to load). */
static void *runtime_fn(const char *name)
{
    return dlsym(RTLD_NEXT, name);
}

__attribute__((visibility("default"))) void
__kmpc_fork_call_if(void *loc, int32_t argc, hp_microtask fn, int32_t cond, void *args)
{
    hp_fork_note = (fork_note){loc, (const void *)fn, __builtin_return_address(0)};
    if (fork_if_real) {
        fork_if_real(loc, argc, fn, cond, args);
        return;
    }
    if (cond && argc) {
        ((fork_call_fn)hp_fork_real)(loc, argc, fn, args);
    } else if (cond) {
        ((fork_call_fn)hp_fork_real)(loc, 0, fn);
    } else {
        /* the region on this thread alone, as libomp runs it */
        gtid_fn thread_num = (gtid_fn)runtime_fn("__kmpc_global_thread_num");
        serialized_fn begin = (serialized_fn)runtime_fn("__kmpc_serialized_parallel");
        serialized_fn end = (serialized_fn)runtime_fn("__kmpc_end_serialized_parallel");
        int32_t gtid = thread_num(loc), tid = 0;
        begin(loc, gtid);
        fn(&gtid, &tid, args);
        end(loc, gtid);
    }
}

/* A program built for libomp has it loaded when libhprof starts. */
__attribute__((constructor)) static void find_real_fork(void)
{
    hp_fork_real = dlsym(RTLD_NEXT, "__kmpc_fork_call");
    hp_fork_teams_real = dlsym(RTLD_NEXT, "__kmpc_fork_teams");
    fork_if_real = (fork_call_if_fn)dlsym(RTLD_NEXT, "__kmpc_fork_call_if");
}

const void *hp_ompt_forked_microtask(const void *ra)
{
    fork_note *n = &hp_fork_note;
    /* libomp reports a fork made through itself or libhprof (a teams
     * construct's inner region, __kmpc_fork_call_if) at that address */
    const void *m = n->ra && (n->ra == ra || (ra && hp_ompt_foreign(ra))) ? n->microtask : NULL;
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
