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
 *
 * A wrapper that ends in a tail call of MPI (`void add(...) {
 * MPI_Allreduce(...); }` at -O2: `jmp MPI_Allreduce`) has no frame when
 * the MPI call runs: the return address is in its caller, at the call of
 * the wrapper, and the end of the run names the site after the wrapper's
 * jump (finish/tailcall.c).  The calling line would then be in no node, so
 * a path whose call instruction went to another function than hprof's
 * (decoded at each walk: x86-64 `call rel32` or `call *slot(%rip)`, through
 * a PLT stub; learnt at its first walk, with whether it is rooted) gets
 * one more frame, the call itself (keyed one byte before its return
 * address: the same line, with the functions inlined there).  A rooted
 * return address of such a call has that one frame as its path.
 *
 * A walk from a return address is remembered per thread with the stack
 * words it read and their addresses (unwind.c's offsets walk only): the
 * next call from there with the same frame, key and context, nothing
 * learnt since (known_gen) reuses
 * its node when every word is unchanged, since each return address read
 * fixes where the next lies: the same words make the same walk (about 90
 * instructions instead of 270 for three frames).
 */
#include "config.h"
#define _GNU_SOURCE 1
#include <assert.h>
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

/* The C library's text: where a path ends; libhprof's: where a call
 * that is no tail call goes. */
static uintptr_t libc_lo, libc_hi, self_lo, self_hi;
static pthread_once_t libc_once = PTHREAD_ONCE_INIT;
/* A Fortran program's main: its return address into main (its call of
 * MAIN__), once learned; fortran_main_unknown while a Fortran program's
 * walks have still to learn it. */
static uintptr_t fortran_main_ra;
static int fortran_main_unknown;
static pthread_t main_thread;   /* the thread that started call paths */
/* What the walks of a return address learnt (ROOTED_SLOTS words, each
 * ra << 2 | RA_* bits, 0: free): its path is empty (its caller is start
 * code), its call went to a tail-calling function (a frame of its own). */
#define ROOTED_SLOTS 1024u
enum { RA_WALKED = 0, RA_ROOTED = 1, RA_TAIL = 2 };
static uintptr_t known[ROOTED_SLOTS];
/* Bumped after known[] changes: a memo made before holds an old class. */
static unsigned long known_gen;

typedef struct text_range {
    uintptr_t addr, lo, hi;
} text_range;

static int find_text(struct dl_phdr_info *info, size_t size, void *arg)
{
    (void)size;
    text_range *r = arg;
    for (int i = 0; i < info->dlpi_phnum; i++) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
        uintptr_t lo = info->dlpi_addr + ph->p_vaddr, hi = lo + ph->p_memsz;
        if (ph->p_type == PT_LOAD && (ph->p_flags & PF_X) && r->addr >= lo && r->addr < hi) {
            r->lo = lo;
            r->hi = hi;
            return 1;
        }
    }
    return 0;
}

/* The executable segment holding addr: [*lo, *hi). */
static void text_of(uintptr_t addr, uintptr_t *lo, uintptr_t *hi)
{
    text_range r = {addr, 0, 0};
    dl_iterate_phdr(find_text, &r);
    *lo = r.lo;
    *hi = r.hi;
}

static void find_libc(void)
{
    text_of((uintptr_t)&memcpy, &libc_lo, &libc_hi);
    text_of((uintptr_t)&hp_callpath_init, &self_lo, &self_hi);
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

/* What ra's first walk learnt (RA_* bits), -1 if it is not known. */
static inline __attribute__((always_inline)) int known_class(uintptr_t ra)
{
    size_t i = rooted_slot(ra);
    for (size_t k = 0; k < 8; k++, i = (i + 1) & (ROOTED_SLOTS - 1)) {
        uintptr_t at = __atomic_load_n(&known[i], __ATOMIC_ACQUIRE);
        if (at >> 2 == ra)
            return (int)(at & 3);
        if (!at)
            return -1;
    }
    return -1;
}

/* Remembers what ra's walk found; a full neighbourhood remembers nothing
 * (it is then walked, and decoded, every time). */
static void learn(uintptr_t ra, int class)
{
    uintptr_t word = ra << 2 | (uintptr_t)class;
    size_t i = rooted_slot(ra);
    assert(ra >> 62 == 0);
    for (size_t k = 0; k < 8; k++, i = (i + 1) & (ROOTED_SLOTS - 1)) {
        uintptr_t expected = 0;
        int stored = __atomic_compare_exchange_n(&known[i], &expected, word, 0, __ATOMIC_RELEASE,
                                                 __ATOMIC_RELAXED);
        if (!stored && expected >> 2 == ra) {
            __atomic_store_n(&known[i], word, __ATOMIC_RELEASE);
            stored = 1;
        }
        if (stored) {
            __atomic_add_fetch(&known_gen, 1, __ATOMIC_RELEASE);
            return;
        }
    }
}

/* n bytes at addr, when they lie in one page with addr + last (a page
 * that holds code just run or called: mapped). */
static int read_code(uintptr_t addr, size_t n, uintptr_t last, unsigned char *out)
{
    if ((addr & ~(uintptr_t)4095) != ((addr + n - 1) & ~(uintptr_t)4095) &&
        ((addr + n - 1) & ~(uintptr_t)4095) != (last & ~(uintptr_t)4095))
        return 0;
    memcpy(out, (const void *)addr, n);
    return 1;
}

static uintptr_t rel32_at(const unsigned char *p, uintptr_t next)
{
    int32_t d;
    memcpy(&d, p, sizeof d);
    return next + (uintptr_t)(intptr_t)d;
}

static uintptr_t slot_value(uintptr_t slot)
{
    uintptr_t v;
    memcpy(&v, (const void *)slot, sizeof v);
    return v;
}

/* Did the call that returns to ra go to another function than hprof's
 * (one that reached hprof's wrapper by a tail call)?  x86-64: `call rel32`
 * or `call *slot(%rip)`, through a PLT stub ([endbr64] [bnd] `jmp
 * *slot(%rip)`); 0 for any other call. */
static int calls_elsewhere(uintptr_t ra)
{
#if defined(__x86_64__)
    unsigned char b[16];
    uintptr_t to;
    if (read_code(ra - 5, 5, ra - 1, b) && b[0] == 0xe8)
        to = rel32_at(b + 1, ra);
    else if (read_code(ra - 6, 6, ra - 1, b) && b[0] == 0xff && b[1] == 0x15)
        to = slot_value(rel32_at(b + 2, ra));
    else
        return 0;
    if (to >= self_lo && to < self_hi)
        return 0;
    size_t at = 0;
    if (!read_code(to, 11, to, b))
        return 0;
    if (b[0] == 0xf3 && b[1] == 0x0f && b[2] == 0x1e && b[3] == 0xfa)
        at = 4;   /* endbr64 */
    if (b[at] == 0xf2)
        at++;     /* bnd */
    if (b[at] == 0xff && b[at + 1] == 0x25)
        to = slot_value(rel32_at(b + at + 2, to + at + 6));
    return to && !(to >= self_lo && to < self_hi);
#else
    (void)ra;
    return 0;
#endif
}

/* The frame of the call that returns to ra itself, under ctx. */
static uint32_t call_frame(hp_thread *t, uint32_t ctx, uintptr_t ra)
{
    uint32_t node = hp_event_site_node_under(t, ctx, ra - 1, HP_KIND_CALL, "",
                                             HP_SITEF_DYNAMIC | HP_SITEF_FRAME);
    if (node != t->overflow)
        hp_node_at(t, node)->flags |= HP_NODEF_FRAME;
    return node;
}

/* The two memo entries that may hold ra's walk: two, so that two calls
 * made in turn (an Irecv and an Isend) keep theirs when they collide. */
static size_t memo_set(uintptr_t ra)
{
    return (size_t)(ra ^ (ra >> 7)) & (HP_PATH_MEMO - 2);
}

/* The node of ra's last walk, when this call is that walk's again: the
 * same return address, key, frame, context and class, and every stack word
 * that walk read still at its address (each frame's return address decides
 * where the next one lies, so the same words make the same frames: a
 * recursion, another caller at the same depth or a longjmp changes one of
 * them).  HP_NO_NODE when not. */
static inline __attribute__((always_inline)) uint32_t memo_hit(hp_thread *t, uintptr_t ra,
                                                               uintptr_t key, uintptr_t frame,
                                                               unsigned long gen, int wrapper)
{
    size_t i = memo_set(ra);
    const hp_path_memo *m = &t->path_memo[t->path_memo[i].ra == ra ? i : i + 1];
    if (m->ra != ra || m->key != key || m->frame != frame ||
        m->when != ((uint64_t)t->epoch << 32 | t->current) || m->gen != gen)
        return HP_NO_NODE;
    /* a wrapper read ra itself from at[0] (its return address), which the
     * same frame and key put at the same address (unwind.c) */
    for (int i = wrapper; i < m->reads; i++)
        if (*(const uintptr_t *)m->at[i] != m->word[i])
            return HP_NO_NODE;
    return m->node;
}

/* Remembers a walk that read reads words at at[]: ra, then the got frames
 * of above[], then a 0 if one ended it. */
static void memo_keep(hp_thread *t, uintptr_t ra, uintptr_t key, uintptr_t frame, unsigned long gen,
                      const uintptr_t *at, const uintptr_t *above, int got, int reads,
                      uint32_t node)
{
    if (__atomic_load_n(&t->path_memo_busy, __ATOMIC_RELAXED))
        return;     /* a signal handler's walk: the interrupted one writes */
    assert(reads > got && reads <= got + 2 && reads <= HP_PATH_WORDS);
    size_t i = memo_set(ra);
    if (t->path_memo[i].ra != ra && t->path_memo[i].ra)
        i++;    /* the second way, replaced when both hold others */
    hp_path_memo *m = &t->path_memo[i];
    __atomic_store_n(&t->path_memo_busy, 1, __ATOMIC_RELAXED);
    __atomic_signal_fence(__ATOMIC_SEQ_CST);
    m->ra = 0;      /* an entry half written is no one's */
    __atomic_signal_fence(__ATOMIC_SEQ_CST);
    m->key = key;
    m->frame = frame;
    m->when = (uint64_t)t->epoch << 32 | t->current;
    m->gen = gen;
    m->node = node;
    m->reads = reads;
    for (int i = 0; i < reads; i++) {
        m->at[i] = at[i];
        m->word[i] = i == 0 ? ra : i <= got ? above[i - 1] : 0;
    }
    __atomic_signal_fence(__ATOMIC_SEQ_CST);
    m->ra = ra;
    __atomic_signal_fence(__ATOMIC_SEQ_CST);
    __atomic_store_n(&t->path_memo_busy, 0, __ATOMIC_RELAXED);
}

/* The frames above ra, under the current context, depth - 1 of them at
 * most.  The walk starts from frame, the frame of the function that asks
 * (hp_event_callpath_slow, hp_event_callpath_from); key names the place
 * in our code that asked (a wrapper's call of hp_event_callpath_slow, a
 * source's call of hp_event_team_fork), so that the distance from that
 * frame to ra's is the same at every walk with that key (unwind.c).  Not
 * the return address into this function: its callers may jump to it.
 * how: (class + 1) * 2 + wrapper, class what ra's earlier walks learnt
 * (-1: none yet), wrapper path_of's.  A walk that read only stack words
 * (no libunwind) is remembered (memo_hit). */
static __attribute__((noinline)) uint32_t path_under(hp_thread *t, uintptr_t ra, uintptr_t key,
                                                     uintptr_t frame, int how, unsigned long gen)
{
    int wrapper = how & 1, class = (how >> 1) - 1;
    uintptr_t above[CALLPATH_MAX], at[CALLPATH_MAX + 2];
    int depth = (int)hp_callpath_depth - 1, reads;
    if (class == (RA_ROOTED | RA_TAIL))
        return call_frame(t, t->current, ra);
    /* until a Fortran program's main is known, walk to the start code */
    int deep = __atomic_load_n(&fortran_main_unknown, __ATOMIC_RELAXED);
    int tail = class >= 0 ? (class & RA_TAIL) != 0 : wrapper && calls_elsewhere(ra);
    depth -= tail;
    int got = hp_unwind_above_at(ra, key, frame, above, deep ? (int)CALLPATH_MAX - 1 : depth,
                                 at, &reads);
    int n = start_code(above, got);
    int rooted = n == 0 && got > 0;
    if (class < 0 || (rooted && !(class & RA_ROOTED)))
        learn(ra, (rooted ? RA_ROOTED : RA_WALKED) | (tail ? RA_TAIL : 0));
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
    if (tail)
        ctx = call_frame(t, ctx, ra);
    if (class >= 0 && !deep && reads > 0 && !rooted && ctx != t->overflow)
        memo_keep(t, ra, key, frame, gen, at, above, got, reads, ctx);
    return ctx;
}

/* A call whose walk the memo does not hold: what ra's earlier walks
 * learnt decides (a call made in main, the cheapest, has the current
 * context), else path_under walks.  Not inlined: a hit pays none of it. */
static __attribute__((noinline)) uint32_t path_miss(hp_thread *t, uintptr_t ra, uintptr_t key,
                                                    uintptr_t frame, int wrapper,
                                                    unsigned long gen)
{
    int class = known_class(ra);
    if (class == RA_ROOTED)
        return t->current;
    return path_under(t, ra, key, frame, (class + 1) * 2 + wrapper, gen);
}

/* The context of a call at ra: the memo's node when it holds this walk
 * (memo_hit), else path_miss's.  frame is the asking function's, the same
 * at every walk from key.  The memo is asked before what ra's walks
 * learnt (known_class): an entry made with the same known_gen was made
 * under the same class, and a rooted return address has none.  The calls
 * are counted per thread, without an atomic add; hp_callpath_report sums
 * them (callgrind, bench/msgrate.c). */
static inline __attribute__((always_inline)) uint32_t path_of(hp_thread *t, uintptr_t ra,
                                                              uintptr_t key, uintptr_t frame,
                                                              int wrapper)
{
    /* read before the class: a class learnt since makes the memo old */
    unsigned long gen = __atomic_load_n(&known_gen, __ATOMIC_ACQUIRE);
    uint32_t node = memo_hit(t, ra, key, frame, gen, wrapper);
    t->path_calls++;
    if (node != HP_NO_NODE)
        return node;
    return path_miss(t, ra, key, frame, wrapper, gen);
}

uint32_t hp_event_callpath_slow(hp_thread *t, uintptr_t ra)
{
    /* the return address into the wrapper names it */
    return path_of(t, ra, (uintptr_t)__builtin_return_address(0),
                   (uintptr_t)__builtin_frame_address(0), 1);
}

uint32_t hp_event_callpath_from(hp_thread *t, uintptr_t ra, uintptr_t key)
{
    return path_of(t, ra, key, (uintptr_t)__builtin_frame_address(0), 0);
}

void hp_callpath_report(void)
{
    unsigned long walks = 0;
    for (uint32_t i = 0; i < hp_thread_count(); i++)
        walks += hp_thread_get(i)->path_calls;
    if (hp_callpath_depth > 1)
        hp_info("call paths: %lu walks, %lu of them by libunwind", walks,
                hp_unwind_slow_walks());
}
