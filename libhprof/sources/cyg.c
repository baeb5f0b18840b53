/*
 * cyg.c - tier 1: procedures and call sites of code compiled with
 * -finstrument-functions.  Each call opens two nodes, the call site
 * (keyed by its return address) and the procedure under it (keyed by the
 * function's entry); both are resolved to names and lines at the end of
 * the run like every dynamic site.  The frames live on a per-thread stack
 * (hp_frames.h) because the hooks have none of their own.
 *
 * Each frame records where its function's return address lies on the
 * stack (found by looking upward from the hook for the value the hook was
 * given).  That slot tells the frames apart:
 *  - an open frame whose slot lies deeper than the new one's was skipped
 *    by a longjmp: it is closed;
 *  - the same slot holding another return address, or the same entry hook
 *    called again at that slot: the frame that had it is gone too;
 *  - the same slot and return address but another hook call: gcc calls
 *    the hooks of a function inlined into the frame with the frame's own
 *    return address.  That call is a call site of its own, keyed by the
 *    hook's return address, which lies in the inlined code; the end of
 *    the run names it by the inlined call's line (resolve.c).
 *
 * The fast path: a pair seen before (memo per thread keyed by the entry
 * hook and the return address: its slot's offset, whether it is inlined,
 * its two sites) whose call site is fast under the current context and
 * procedure fast under the call's node (hp_fast_pair.h) is opened and
 * closed without the event boundary's slow path, when the slot logic
 * above has nothing to do: every open frame lies above the new slot, or
 * the innermost one is the frame an inlined call shares.  Its frames are
 * pushed like the slow path's (marked as fast ones), so that the slot
 * logic sees the same stack; closing frames goes through
 * hp_fast_pair_unwind, which closes fast activations and slow frames
 * alike, innermost first.
 */
#define _GNU_SOURCE
#include <assert.h>
#include <dlfcn.h>
#include <pthread.h>
#include <string.h>
#include "hp_fast_pair.h"
#include "hp_gomp.h"
#include "hp_source.h"
#include "hp_site.h"

#define HOOK __attribute__((no_instrument_function, visibility("default")))
#define SLOT_SEARCH 256   /* words looked at above the hook's frame */
#define SLOT_SEARCH_FAR 65535  /* then on to the stack's top (a frame of
                                  large locals: a Fortran program's arrays) */

void __cyg_profile_func_enter(void *fn, void *call_site) HOOK;
void __cyg_profile_func_exit(void *fn, void *call_site) HOOK;

/* The hooks' frame stack with what they remember per entry hook (a
 * function's frame layout and whether the hook lies in the function are
 * the same at every call): indexed by the hook's address. */
#define MEMO_SLOTS 64
#define PAIR_SLOTS 256
typedef struct pair_memo {            /* one pair seen before */
    uintptr_t hook, ra;               /* the key: entry hook, return address
                                         (a hook call passes one fn, a
                                         constant of the compiled code) */
    uint32_t call, proc;              /* its two sites */
    uint16_t off;                     /* return-address slot: words above sp */
    uint8_t inlined;                  /* call keyed by the hook (inlined) */
    uint8_t alone_ok;                 /* the same sites when the hook's frame
                                         shares no slot: inlined == !in_fn */
} pair_memo;
typedef struct hook_stack {
    hp_frames frames;                 /* first: hook_frames points here */
    uint16_t slot_memo[MEMO_SLOTS];   /* where return addresses were */
    struct {                          /* does an entry hook lie in fn? */
        uintptr_t hook, fn;
        int in_fn;
    } owner_memo[MEMO_SLOTS];
    pair_memo pairs[PAIR_SLOTS];      /* the fast path's */
} hook_stack;

static __thread hp_frames *hook_frames
    __attribute__((tls_model("initial-exec"))) = &hp_frames_none;

static inline hook_stack *memos(hp_frames *s)
{
    return (hook_stack *)s;
}

static inline pair_memo *pair_of(hp_frames *s, uintptr_t hook, uintptr_t ra)
{
    return &memos(s)->pairs[((hook ^ ra) >> 1) & (PAIR_SLOTS - 1)];
}

/* The stack for thread t; a stack that served records since replaced
 * (unit tests) forgets its pairs, whose sites may be gone. */
static hp_frames *stack_of(hp_thread *t)
{
    hp_frames *s = hook_frames;
    if (__builtin_expect(s->t == t, 1))
        return s;
    int reused = s != &hp_frames_none;
    s = hp_frames_of(t, &hook_frames, sizeof(hook_stack));
    if (s && reused)
        memset(memos(s)->pairs, 0, sizeof memos(s)->pairs);
    return s;
}

/* The stack pointer of the hook's caller. */
#define CALLER_SP() ((uintptr_t)__builtin_dwarf_cfa())

static uint32_t dynamic_site(hp_thread *t, uintptr_t addr, uint32_t kind, uint32_t flags)
{
    return hp_event_site_keyed(t, hp_site_key(addr, kind), addr, kind,
                               kind == HP_KIND_CALL ? "call" : "procedure", flags);
}

/* The end of this thread's stack (0: unknown), found once per thread. */
static __thread uintptr_t stack_end;
static __thread int stack_end_known;

static uintptr_t thread_stack_end(void)
{
    if (!stack_end_known) {
        pthread_attr_t a;
        void *lo;
        size_t size;
        stack_end_known = 1;
        if (pthread_getattr_np(pthread_self(), &a) == 0) {
            if (pthread_attr_getstack(&a, &lo, &size) == 0)
                stack_end = (uintptr_t)lo + size;
            pthread_attr_destroy(&a);
        }
    }
    return stack_end;
}

/* Where the instrumented function keeps its return address ra: the first
 * word holding it from sp up (its own frame; past SLOT_SEARCH words only
 * within the thread's stack), else sp itself.  The words read are the
 * caller's frame, padding and redzones included: a raw read that
 * AddressSanitizer must not check. */
#define RAW_STACK_READ __attribute__((no_sanitize_address))

static RAW_STACK_READ uintptr_t return_slot(uintptr_t sp, uintptr_t ra)
{
    const uintptr_t *p = (const uintptr_t *)sp;
    for (int i = 0; i < SLOT_SEARCH; i++)
        if (p[i] == ra)
            return (uintptr_t)&p[i];
    uintptr_t end = thread_stack_end();
    size_t far = end > sp ? (end - sp) / sizeof *p : 0;
    if (far > SLOT_SEARCH_FAR)
        far = SLOT_SEARCH_FAR;
    for (size_t i = SLOT_SEARCH; i < far; i++)
        if (p[i] == ra)
            return (uintptr_t)&p[i];
    return sp;
}

/* The same, remembering per entry hook how far above sp the slot was:
 * a function's frame layout is the same at every call. */
static RAW_STACK_READ uintptr_t remembered_slot(hp_frames *s, uintptr_t hook, uintptr_t sp,
                                                uintptr_t ra)
{
    uint16_t *m = &memos(s)->slot_memo[(hook >> 3) & (MEMO_SLOTS - 1)];
    const uintptr_t *p = (const uintptr_t *)sp;
    if (__builtin_expect(p[*m] == ra, 1))
        return (uintptr_t)&p[*m];
    uintptr_t slot = return_slot(sp, ra);
    *m = (uint16_t)((slot - sp) / sizeof *p);
    return slot;
}

/* Closes the frames gone since the last event and tells whether this
 * entry is a function inlined into the frame that owns `slot`. */
static int inlined_or_close(hp_frames *s, uintptr_t slot, uintptr_t ra, uintptr_t hook)
{
    if (__builtin_expect(s->open[s->n - 1].sp < slot, 0))
        hp_fast_pair_unwind(s, slot); /* fast pairs and slow frames */
    if (s->open[s->n - 1].sp != slot)
        return 0;
    const hp_open *top = &s->open[s->n - 1];
    if (top->ra == ra && top->hook != hook)
        return 1;
    hp_fast_pair_unwind(s, slot + 1);
    return 0;
}

/* The entry hook of a real call of fn is made from fn's own code; one
 * made from another function belongs to a copy of fn inlined there.  The
 * frame test above sees inlining into an instrumented function; this one
 * also sees it in a function with no hooks of its own (gcc does not
 * instrument an OpenMP region's outlined body, whose return address is in
 * the OpenMP runtime or in hprof).  The unwind tables name the function
 * that contains an address (libgcc's _Unwind_Find_FDE, looked up when the
 * first hook needs it); the answer is remembered per hook. */
struct eh_bases {
    void *tbase, *dbase, *func;
};
typedef const void *(*find_fde_fn)(void *pc, struct eh_bases *bases);
static find_fde_fn find_fde;
static pthread_once_t find_fde_once = PTHREAD_ONCE_INIT;

static void find_fde_lookup(void)
{
    void *gcc_s = dlopen("libgcc_s.so.1", RTLD_LAZY | RTLD_LOCAL);
    if (gcc_s)
        *(void **)&find_fde = dlsym(gcc_s, "_Unwind_Find_FDE");
}

static __attribute__((noinline)) int hook_in_fn_slow(hp_frames *s, uintptr_t hook, uintptr_t fn)
{
    struct eh_bases b;
    pthread_once(&find_fde_once, find_fde_lookup);
    int in_fn = !find_fde || !find_fde((void *)(hook - 1), &b) || (uintptr_t)b.func == fn;
    unsigned i = (hook >> 3) & (MEMO_SLOTS - 1);
    memos(s)->owner_memo[i].hook = hook;
    memos(s)->owner_memo[i].fn = fn;
    memos(s)->owner_memo[i].in_fn = in_fn;
    return in_fn;
}

static inline int hook_in_fn(hp_frames *s, uintptr_t hook, uintptr_t fn)
{
    const hook_stack *h = memos(s);
    unsigned i = (hook >> 3) & (MEMO_SLOTS - 1);
    if (__builtin_expect(h->owner_memo[i].hook == hook && h->owner_memo[i].fn == fn, 1))
        return h->owner_memo[i].in_fn;
    return hook_in_fn_slow(s, hook, fn);
}

/* Opens one of the pair; its state stays on the stack even when nothing
 * is recorded, so that the exit hook pops what the entry pushed. */
static inline __attribute__((always_inline)) hp_open *push(hp_frames *s, uintptr_t slot,
                                                           uintptr_t ra, uintptr_t hook,
                                                           uintptr_t fn)
{
    hp_open *o = hp_frames_next(s);
    if (o) {
        o->sp = slot;
        o->ra = ra;
        o->hook = hook;
        o->fn = fn;
        hp_fast_pair_frame_clear(&o->f);
        hp_frames_publish(s, s->n + 1);
    }
    return o;
}

/* Remembers a pair the slow path recorded, for the fast path (its sites
 * may be the registry's overflow site: the slow path would take the same
 * again). */
static void remember_pair(hp_frames *s, uintptr_t hook, uintptr_t ra, uintptr_t sp,
                          uintptr_t slot, int in_fn, int inlined, uint32_t call, uint32_t proc)
{
    assert(slot >= sp && (slot - sp) / sizeof(void *) < SLOT_SEARCH_FAR);
    pair_memo *m = pair_of(s, hook, ra);
    m->hook = hook;
    m->ra = ra;
    m->call = call;
    m->proc = proc;
    m->off = (uint16_t)((slot - sp) / sizeof(void *));
    m->inlined = (uint8_t)inlined;
    m->alone_ok = inlined == !in_fn;
}

/* The entry hook's fast path: a pair remembered, nothing for the slot
 * logic to do (no frame at or below the slot but the one an inlined call
 * shares), both sites fast (hp_fast_pair.h).  1 if it opened the pair. */
static inline __attribute__((always_inline)) int enter_fast(hp_frames *s, hp_thread *t,
                                                            uintptr_t fn, uintptr_t ra,
                                                            uintptr_t hook, uintptr_t sp)
{
    const pair_memo *m = pair_of(s, hook, ra);
    if (__builtin_expect(m->hook != hook || m->ra != ra, 0) ||
        !hp_fast_pair_ready(t, m->call, m->proc))
        return 0;
    const uintptr_t *slotp = (const uintptr_t *)sp + m->off;
    uintptr_t slot = (uintptr_t)slotp;
    const hp_open *top = &s->open[s->n - 1];
    if (__builtin_expect(*slotp != ra || top->sp < slot || s->n + 2 > s->cap, 0))
        return 0;
    if (top->sp == slot) {
        /* an inlined call shares its frame's slot; else the frame that
         * had it is gone, and the slow path closes it */
        if (top->ra != ra || top->hook == hook || !m->inlined)
            return 0;
    } else if (!m->alone_ok) {
        return 0;
    }
    hp_open *o = &s->open[s->n];
    o[0].sp = o[1].sp = slot;   /* the call's frame: what the slot logic reads */
    o[1].ra = ra;               /* the procedure's, the pair's top */
    o[1].hook = m->inlined ? top->hook : hook;
    o[1].fn = fn;
    hp_fast_pair_frame_set(&o[0].f, m->call);
    hp_fast_pair_frame_set(&o[1].f, m->proc);
    hp_frames_publish(s, s->n + 2);
    hp_fast_pair_start(t, m->call, m->proc, slot);
    return 1;
}

static __attribute__((noinline)) void enter_slow(uintptr_t fn, uintptr_t ra, uintptr_t hook,
                                                 uintptr_t sp)
{
    hp_thread *t = hp_thread_self();
    hp_frames *s = t ? stack_of(t) : NULL;
    if (!s)
        return;
    uintptr_t slot = remembered_slot(s, hook, sp, ra);
    int shared = inlined_or_close(s, slot, ra, hook);
    int in_fn = hook_in_fn(s, hook, fn);
    int inlined = shared || !in_fn;
    uintptr_t frame_hook = inlined ? s->open[s->n - 1].hook : hook;
    if (!push(s, slot, ra, frame_hook, fn))
        return;
    hp_open *proc = push(s, slot, ra, frame_hook, fn);
    if (!proc) {
        hp_frames_publish(s, s->n - 1);
        return;
    }
    if (!hp_collecting)
        return;
    uint32_t call, site;
    int by_region = 0;
    const pair_memo *m = pair_of(s, hook, ra);
    if (m->hook == hook && m->ra == ra && m->inlined == inlined) {
        call = m->call; /* seen before, in another context */
        site = m->proc;
    } else {
        /* A region's or task's body that is only a call: gcc's outlined
         * function tail-calls it, so its return address is gcc's
         * trampoline (gomp_real.c), the same for every region; the call
         * is keyed by the outlined function the thread runs instead
         * (named by its tail jump: resolve.c), and not remembered as a
         * pair, whose key would not tell the regions apart. */
        hp_omp_caller at = hp_gomp_caller(ra);
        call = inlined   ? dynamic_site(t, hook, HP_KIND_CALL, HP_SITEF_INLINED)
               : at.entry ? dynamic_site(t, at.addr, HP_KIND_CALL, HP_SITEF_ENTRY)
                          : dynamic_site(t, ra, HP_KIND_CALL, 0);
        site = dynamic_site(t, fn, HP_KIND_PROCEDURE, HP_SITEF_ENTRY);
        hp_site_link_callee(call, site);
        by_region = at.entry && !inlined;
    }
    hp_event_enter(t, &proc[-1].f, call, 0);
    hp_fast_opened_slow(t, &proc[-1].f);
    hp_event_enter(t, &proc->f, site, 0);
    hp_fast_opened_slow(t, &proc->f);
    hp_fast_enable(t);
    if (!by_region)
        remember_pair(s, hook, ra, sp, slot, in_fn, inlined, call, site);
}

RAW_STACK_READ void __cyg_profile_func_enter(void *fn, void *call_site)
{
    uintptr_t ra = (uintptr_t)call_site, hook = (uintptr_t)__builtin_return_address(0);
    uintptr_t sp = CALLER_SP() - sizeof(void *);
    hp_thread *t = hp_event_attached_thread();
    hp_frames *s = hook_frames;
    if (__builtin_expect(s->t == t && t, 1) && enter_fast(s, t, (uintptr_t)fn, ra, hook, sp))
        return;
    enter_slow((uintptr_t)fn, ra, hook, sp);
}

/* Closes the innermost frame of s, a fast one (hp_fast_pair.h) or not. */
static void close_top(hp_frames *s)
{
    const hp_open *top = &s->open[s->n - 1];
    if (s->n >= HP_FRAMES_BASE + 2 && hp_fast_pair_frame(&top->f)) {
        /* the pair's procedure frame: its call's frame goes with it */
        hp_fast_pair_close_slow(s->t, top[-1].f.site, top->f.site, top->sp);
        hp_frames_publish(s, s->n - 2);
        return;
    }
    hp_frames_close_above(s, s->n - 1);
}

/* The exit hook of function fn finds fn's pair innermost, unless a
 * longjmp skipped frames: callees of fn (deeper than fn's return-address
 * slot), or calls inlined into fn (at its slot, another function).  Those
 * are closed; fn's pair stays for the caller to pop.  gcc may jump to the
 * exit hook at the very end, with fn's frame gone: its return address is
 * then the word just above the hook's arguments. */
static __attribute__((noinline)) void close_skipped(hp_frames *s, uintptr_t fn, uintptr_t ra,
                                                     uintptr_t sp)
{
    uintptr_t slot = return_slot(sp - sizeof(void *), ra);
    hp_fast_pair_unwind(s, slot);
    uint32_t k = s->n;
    while (k >= HP_FRAMES_BASE + 2 && s->open[k - 1].sp == slot && s->open[k - 1].fn != fn)
        k -= 2;
    if (k >= HP_FRAMES_BASE + 2 && s->open[k - 1].sp == slot)
        while (s->n > k)
            close_top(s);
}

/* The exit hook's slow path: frames a longjmp left above fn's pair are
 * closed first; then fn's pair, a slow one or a fast one that is not the
 * innermost activation any more. */
static __attribute__((noinline)) void exit_slow(hp_frames *s, uintptr_t fn, uintptr_t ra,
                                                uintptr_t sp)
{
    const hp_open *top = &s->open[s->n - 1];
    if (top->ra != ra || top->fn != fn) {
        close_skipped(s, fn, ra, sp);
        top = &s->open[s->n - 1];
        if (top->ra != ra || top->fn != fn)
            return; /* not entered through the hooks: nothing to close */
    }
    if (hp_fast_pair_frame(&top->f)) {
        if (!hp_fast_pair_close(s->t, top[-1].f.site, top->f.site, top->sp))
            hp_fast_pair_close_slow(s->t, top[-1].f.site, top->f.site, top->sp);
    } else {
        hprof_frame *call = &s->open[s->n - 2].f, *proc = &s->open[s->n - 1].f;
        hp_event_exit(s->t, proc);
        hp_event_exit(s->t, call);
        hp_fast_after_exit(s->t, proc);
        hp_fast_after_exit(s->t, call);
    }
    hp_frames_publish(s, s->n - 2);
}

void __cyg_profile_func_exit(void *fn, void *call_site)
{
    hp_frames *s = hook_frames;
    uintptr_t ra = (uintptr_t)call_site;
    if (s->t != hp_tls_self || !s->t)
        return;
    const hp_open *top = &s->open[s->n - 1];
    if (__builtin_expect(top->ra == ra && top->fn == (uintptr_t)fn && hp_fast_pair_frame(&top->f),
                         1) &&
        hp_fast_pair_close(s->t, top[-1].f.site, top->f.site, top->sp)) {
        hp_frames_publish(s, s->n - 2);
        return;
    }
    exit_slow(s, (uintptr_t)fn, ra, CALLER_SP());
}

static void hooks_thread_end(hp_thread *t)
{
    hp_frames *s = hook_frames;
    if (s->t == t)
        hp_fast_pair_unwind(s, UINTPTR_MAX); /* fast pairs too */
    hp_frames_thread_end(&hook_frames, t);
}

const hp_source hp_source_hooks = {"-finstrument-functions hooks", HP_OMP_SOURCE_NONE,
                                   NULL, hooks_thread_end, NULL};
