/*
 * callpath.c - call paths for tier-0 call sites (HPROF_CALLPATH, hp_event.h).
 *
 * Without instrumentation an MPI call site is known by its return address
 * alone: a wrapper layer (hypre's mpistubs.c, a code's own comm module)
 * then gathers every call of a program under one site.  With call paths on,
 * a site reached while the thread is at its root goes under the frames of
 * the return addresses above it (unwind.c: DWARF call frame information,
 * no frame pointers needed).  Each frame is a
 * dynamic call site flagged HP_SITEF_FRAME, named at the end of the run
 * after the function it lies in; its node counts and times the calls made
 * through it (hp_event_time_path).  The start code of the C library
 * (__libc_start_main calling main, start_thread calling a thread's
 * function) ends a path: it is the same for every call.  So does the main
 * that gfortran writes for a Fortran program, which calls the program unit
 * (MAIN__) and returns: learned at the first walk of a program that loads
 * libgfortran, as the frame just below the C library's start code.  A
 * return address whose frame the start code called (a call made in main
 * or in a thread's function) has an empty path: it is remembered, and its
 * later calls are not walked at all (such a frame, main with a realigned
 * stack, may need libunwind at every walk).  A function that the C
 * library calls and the program calls too (a qsort comparator that makes
 * MPI calls) keeps the empty path of its first walk.
 */
#include "config.h"
#define _GNU_SOURCE 1
#include <dlfcn.h>
#include <link.h>
#include <pthread.h>
#include <stdint.h>
#include <string.h>
#include "hp_config.h"
#include "hp_event.h"
#include "hp_format.h"
#include "hp_log.h"
#include "hp_map.h"
#include "hp_site.h"
#include "hp_unwind.h"

#define CALLPATH_MAX 16u        /* HPROF_CALLPATH's largest value */

uint32_t hp_callpath_depth;
static unsigned long walks;     /* call paths walked */

/* The C library's text: where a path ends. */
static uintptr_t libc_lo, libc_hi;
static pthread_once_t libc_once = PTHREAD_ONCE_INIT;
/* A Fortran program's main: its return address into main (its call of
 * MAIN__), once learned; fortran_main_unknown while a Fortran program's
 * walks have still to learn it. */
static uintptr_t fortran_main_ra;
static int fortran_main_unknown;
static pthread_t main_thread;   /* the thread that started call paths */
/* Return addresses whose path is empty (their caller is start code). */
#define ROOTED_SLOTS 512u
static uintptr_t rooted[ROOTED_SLOTS];

static int find_text(struct dl_phdr_info *info, size_t size, void *arg)
{
    (void)size;
    uintptr_t addr = (uintptr_t)arg;
    for (int i = 0; i < info->dlpi_phnum; i++) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
        uintptr_t lo = info->dlpi_addr + ph->p_vaddr, hi = lo + ph->p_memsz;
        if (ph->p_type == PT_LOAD && (ph->p_flags & PF_X) && addr >= lo && addr < hi) {
            libc_lo = lo;
            libc_hi = hi;
            return 1;
        }
    }
    return 0;
}

static void find_libc(void)
{
    dl_iterate_phdr(find_text, (void *)(uintptr_t)&memcpy);
    /* gfortran's main calls this before MAIN__ */
    fortran_main_unknown = dlsym(RTLD_DEFAULT, "_gfortran_set_args") != NULL;
    main_thread = pthread_self();
}

static int in_libc(uintptr_t addr)
{
    return addr >= libc_lo && addr < libc_hi;
}

void hp_callpath_init(uint32_t depth)
{
    pthread_once(&libc_once, find_libc);
    hp_callpath_depth = depth < CALLPATH_MAX ? depth : CALLPATH_MAX;
    if (hp_callpath_depth > 1)
        hp_unwind_init();
}

/* Where the start code begins among the n frames of above[] (n if it is
 * not among them).  A Fortran program's first walk on the main thread
 * learns its main, the frame below the C library's (found or not, only
 * once: the walks of the main thread go deep until then). */
static int start_code(const uintptr_t *above, int n)
{
    uintptr_t main_ra = __atomic_load_n(&fortran_main_ra, __ATOMIC_RELAXED);
    int learn = __atomic_load_n(&fortran_main_unknown, __ATOMIC_RELAXED) &&
                pthread_equal(pthread_self(), main_thread);
    if (learn)
        __atomic_store_n(&fortran_main_unknown, 0, __ATOMIC_RELAXED);
    for (int i = 0; i < n; i++) {
        if (main_ra && above[i] == main_ra)
            return i;
        if (in_libc(above[i])) {
            if (learn && i > 0) {
                __atomic_store_n(&fortran_main_ra, above[i - 1], __ATOMIC_RELAXED);
                return i - 1;
            }
            return i;
        }
    }
    return n;
}

static size_t rooted_slot(uintptr_t ra)
{
    return (size_t)hp_map_hash(ra) & (ROOTED_SLOTS - 1);
}

static int is_rooted(uintptr_t ra)
{
    size_t i = rooted_slot(ra);
    for (size_t k = 0; k < 8; k++, i = (i + 1) & (ROOTED_SLOTS - 1)) {
        uintptr_t at = __atomic_load_n(&rooted[i], __ATOMIC_ACQUIRE);
        if (at == ra)
            return 1;
        if (!at)
            return 0;
    }
    return 0;
}

/* Remembers ra as rooted; a full neighbourhood remembers nothing (it is
 * then walked every time, as before). */
static void add_rooted(uintptr_t ra)
{
    size_t i = rooted_slot(ra);
    for (size_t k = 0; k < 8; k++, i = (i + 1) & (ROOTED_SLOTS - 1)) {
        uintptr_t expected = 0;
        if (__atomic_compare_exchange_n(&rooted[i], &expected, ra, 0, __ATOMIC_RELEASE,
                                        __ATOMIC_RELAXED) || expected == ra)
            return;
    }
}

/* The frames above ra, under the current context, depth - 1 of them at
 * most.  The walk starts from this function's frame; key names the place
 * in our code that asked (a wrapper's call of hp_event_callpath_slow, a
 * source's call of hp_event_team_fork), so that the distance from this
 * frame to ra's is the same at every walk with that key (unwind.c).  Not
 * the return address into this function: its callers may jump to it. */
static __attribute__((noinline)) uint32_t path_under(hp_thread *t, uintptr_t ra, uintptr_t key)
{
    uintptr_t above[CALLPATH_MAX];
    int depth = (int)hp_callpath_depth - 1;
    /* until a Fortran program's main is known, walk to the start code */
    int deep = __atomic_load_n(&fortran_main_unknown, __ATOMIC_RELAXED);
    int got = hp_unwind_above(ra, key, (uintptr_t)__builtin_frame_address(0), above,
                              deep ? (int)CALLPATH_MAX - 1 : depth);
    int n = start_code(above, got);
    if (n == 0 && got > 0)
        add_rooted(ra);
    if (n > depth)
        n = depth;
    uint32_t ctx = t->current;
    for (int i = n - 1; i >= 0; i--) {
        uint32_t node = hp_event_site_node_under(t, ctx, above[i], HP_KIND_CALL, "",
                                                 HP_SITEF_DYNAMIC | HP_SITEF_FRAME);
        if (node == t->overflow)
            return node;
        hp_node_at(t, node)->flags |= HP_NODEF_FRAME;
        ctx = node;
    }
    return ctx;
}

/* A call made where the start code called (in main) has the empty path,
 * known before path_under sets up its frame: about 30 instructions less
 * per MPI call made in main (callgrind, bench/msgrate.c). */
static int rooted_walk(uintptr_t ra)
{
    __atomic_add_fetch(&walks, 1, __ATOMIC_RELAXED);
    return is_rooted(ra);
}

uint32_t hp_event_callpath_slow(hp_thread *t, uintptr_t ra)
{
    if (rooted_walk(ra))
        return t->current;
    /* the return address into the wrapper names it */
    return path_under(t, ra, (uintptr_t)__builtin_return_address(0));
}

uint32_t hp_event_callpath_from(hp_thread *t, uintptr_t ra, uintptr_t key)
{
    if (rooted_walk(ra))
        return t->current;
    return path_under(t, ra, key);
}

void hp_callpath_report(void)
{
    if (hp_callpath_depth > 1)
        hp_info("call paths: %lu walks, %lu of them by libunwind", walks,
                hp_unwind_slow_walks());
}
