/*
 * unwind.c - the return addresses above a call site, fast (hp_unwind.h).
 *
 * libunwind's unw_backtrace costs about 100 ns for five frames here, more
 * than a wrapped MPI call.  Most compiled code keeps, at a call, the
 * canonical frame address (CFA) at a fixed offset from the stack pointer,
 * and its return address just below the CFA.  Those offsets come once per
 * code address from the DWARF call frame information (.eh_frame, read with
 * libdwfl) and are kept in a table; a walk is then a load and an add per
 * frame.  Where a frame's CFA is not the stack pointer plus a constant (a
 * frame pointer based rule: alloca, realigned stacks) or nothing describes
 * it, the walk is done by libunwind.
 *
 * The walk starts at the caller of the wrapper.  Its stack pointer is a
 * fixed distance above the frame of the function that asks (the wrapper's
 * own frames have no alloca), learnt once per return address into our code
 * with libunwind and checked on every walk: the return address must sit
 * just below it.
 */
#include "config.h"
#define _GNU_SOURCE 1
#include <elfutils/libdwfl.h>
#include <dwarf.h>
#include <assert.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#ifdef HAVE_LIBUNWIND
#define UNW_LOCAL_ONLY      /* this process's stack: libunwind's local calls */
#include <libunwind.h>
#endif
#include "hp_unwind.h"

#define CALLPATH_WORDS 16     /* the most return addresses a walk gives */
#define CFA_SLOTS 8192u         /* code addresses with a known CFA rule */
#define START_SLOTS 64u         /* return addresses into our code */
#define DWARF_RSP 7             /* x86-64 DWARF register number of %rsp */
#define MAX_FRAME (1 << 20)     /* a frame larger than this is not believed */
#define OFF_COMPLEX (-1)        /* the rule is not "%rsp + constant" */

typedef struct cfa_slot {
    uintptr_t ip;               /* 0: free; published last (release) */
    int32_t off;                /* CFA = %rsp + off, or OFF_COMPLEX */
} cfa_slot;

typedef struct start_slot {
    uintptr_t key;              /* return address into our code */
    intptr_t delta;             /* caller's %rsp - our frame address */
    int fixed;                  /* 0: varies, use libunwind */
} start_slot;

static unsigned long slow_walks;      /* walks done by libunwind */
static cfa_slot cfa_table[CFA_SLOTS];
static start_slot start_table[START_SLOTS];
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static Dwfl *dwfl;
static char *debuginfo_path;
static const Dwfl_Callbacks callbacks = {
    .find_elf = dwfl_linux_proc_find_elf,
    .find_debuginfo = dwfl_standard_find_debuginfo,
    .debuginfo_path = &debuginfo_path,
};

static size_t slot_of(uintptr_t ip, size_t n)
{
    return (size_t)((ip * 0x9e3779b97f4a7c15ull) >> 40) & (n - 1);
}

/* (Re)reads the process's modules (a library loaded since: a new one). */
static int report_modules(void)
{
    if (!dwfl && !(dwfl = dwfl_begin(&callbacks)))
        return -1;
    dwfl_report_begin(dwfl);
    int rc = dwfl_linux_proc_report(dwfl, getpid());
    return dwfl_report_end(dwfl, NULL, NULL) == 0 && rc == 0 ? 0 : -1;
}

void hp_unwind_init(void)
{
    pthread_mutex_lock(&lock);
    if (!dwfl)
        report_modules();
    pthread_mutex_unlock(&lock);
}

/* The CFA rule at the call before return address ip, from the CFI. */
static int32_t read_rule(uintptr_t ip)
{
    Dwarf_Addr pc = ip - 1, bias;
    Dwfl_Module *mod = dwfl ? dwfl_addrmodule(dwfl, pc) : NULL;
    if (!mod && (report_modules() != 0 || !(mod = dwfl_addrmodule(dwfl, pc))))
        return OFF_COMPLEX;
    Dwarf_CFI *cfi = dwfl_module_eh_cfi(mod, &bias);
    if (!cfi)
        cfi = dwfl_module_dwarf_cfi(mod, &bias);
    Dwarf_Frame *frame;
    if (!cfi || dwarf_cfi_addrframe(cfi, pc - bias, &frame) != 0)
        return OFF_COMPLEX;
    Dwarf_Op *ops;
    size_t nops;
    int32_t off = OFF_COMPLEX;
    if (dwarf_frame_cfa(frame, &ops, &nops) == 0 && nops == 1 && ops[0].atom == DW_OP_bregx &&
        ops[0].number == DWARF_RSP && (int64_t)ops[0].number2 >= 8 &&
        (int64_t)ops[0].number2 < MAX_FRAME)
        off = (int32_t)ops[0].number2;
    free(frame);
    return off;
}

/* The CFA offset at return address ip (OFF_COMPLEX: no simple rule). */
static int32_t cfa_offset(uintptr_t ip)
{
    size_t i = slot_of(ip, CFA_SLOTS);
    for (size_t k = 0; k < 16; k++, i = (i + 1) & (CFA_SLOTS - 1)) {
        uintptr_t at = __atomic_load_n(&cfa_table[i].ip, __ATOMIC_ACQUIRE);
        if (at == ip)
            return cfa_table[i].off;
        if (!at)
            break;
    }
    pthread_mutex_lock(&lock);
    int32_t off = read_rule(ip);
    i = slot_of(ip, CFA_SLOTS);
    for (size_t k = 0; k < 16; k++, i = (i + 1) & (CFA_SLOTS - 1)) {
        uintptr_t at = cfa_table[i].ip;
        if (at == ip)
            break;
        if (!at) {
            cfa_table[i].off = off;
            __atomic_store_n(&cfa_table[i].ip, ip, __ATOMIC_RELEASE);
            break;
        }
    }
    pthread_mutex_unlock(&lock);
    return off;     /* a full table: looked up again next time */
}

/* The top of the calling thread's stack, found once per thread. */
static uintptr_t stack_top(void)
{
    static __thread uintptr_t top __attribute__((tls_model("initial-exec")));
    if (!top) {
        pthread_attr_t attr;
        void *lo;
        size_t size;
        if (pthread_getattr_np(pthread_self(), &attr) != 0)
            return 0;
        if (pthread_attr_getstack(&attr, &lo, &size) == 0)
            top = (uintptr_t)lo + size;
        pthread_attr_destroy(&attr);
    }
    return top;
}

#ifdef HAVE_LIBUNWIND
/* With libunwind: the stack pointer of the frame whose return address is
 * ra (0 if none within 16 frames) and the return addresses above it. */
static uintptr_t slow_walk(uintptr_t ra, uintptr_t *out, int want, int *got)
{
    unw_context_t uc;
    unw_cursor_t c;
    uintptr_t sp = 0;
    *got = 0;
    __atomic_add_fetch(&slow_walks, 1, __ATOMIC_RELAXED);
    if (unw_getcontext(&uc) != 0 || unw_init_local(&c, &uc) != 0)
        return 0;
    for (int depth = 0; depth < 16 + want && unw_step(&c) > 0; depth++) {
        unw_word_t ip, s;
        if (unw_get_reg(&c, UNW_REG_IP, &ip) != 0 || unw_get_reg(&c, UNW_REG_SP, &s) != 0)
            break;
        if (sp) {
            if (*got == want || !ip)
                break;
            out[(*got)++] = (uintptr_t)ip;
        } else if ((uintptr_t)ip == ra) {
            sp = (uintptr_t)s;
        } else if (depth >= 16) {
            break;
        }
    }
    return sp;
}
#else
static uintptr_t slow_walk(uintptr_t ra, uintptr_t *out, int want, int *got)
{
    (void)ra;
    (void)out;
    (void)want;
    *got = 0;
    return 0;
}
#endif

/* The slot learnt for key, NULL if none yet. */
static const start_slot *find_start(uintptr_t key)
{
    size_t i = slot_of(key, START_SLOTS);
    for (size_t k = 0; k < START_SLOTS; k++, i = (i + 1) & (START_SLOTS - 1)) {
        uintptr_t at = __atomic_load_n(&start_table[i].key, __ATOMIC_ACQUIRE);
        if (at == key)
            return &start_table[i];
        if (!at)
            break;
    }
    return NULL;
}

/* Learns key's start from a walk by libunwind that found ra's frame at
 * sp (0: not found, nothing learnt); a full table learns nothing. */
static void learn_start(uintptr_t key, uintptr_t frame, uintptr_t ra, uintptr_t sp)
{
    size_t i = slot_of(key, START_SLOTS);
    if (!sp)
        return;
    pthread_mutex_lock(&lock);
    for (size_t k = 0; k < START_SLOTS; k++, i = (i + 1) & (START_SLOTS - 1)) {
        start_slot *s = &start_table[i];
        if (s->key == key)
            break;
        if (!s->key) {
            s->delta = (intptr_t)(sp - frame);
            s->fixed = *(const uintptr_t *)(sp - 8) == ra;
            __atomic_store_n(&s->key, key, __ATOMIC_RELEASE);
            break;
        }
    }
    pthread_mutex_unlock(&lock);
}

int hp_unwind_above_at(uintptr_t ra, uintptr_t key, uintptr_t frame, uintptr_t *out, int want,
                       uintptr_t *at, int *reads)
{
    const start_slot *s = find_start(key);
    int got;
    *reads = 0;
    if (!s) {       /* first walk from here: libunwind, and learn the start */
        learn_start(key, frame, ra, slow_walk(ra, out, want, &got));
        return got;
    }
    uintptr_t sp = frame + (uintptr_t)s->delta, top = stack_top(), ip = ra;
    if (!s->fixed || *(const uintptr_t *)(sp - 8) != ra)
        return slow_walk(ra, out, want, &got) ? got : 0;
    at[0] = sp - 8;
    for (got = 0; got < want; got++) {
        int32_t off = cfa_offset(ip);
        if (off == OFF_COMPLEX)
            return slow_walk(ra, out, want, &got) ? got : 0;
        uintptr_t cfa = sp + (uintptr_t)off;
        if (!top || cfa > top)
            break;
        ip = *(const uintptr_t *)(cfa - 8);
        at[got + 1] = cfa - 8;
        if (!ip) {
            *reads = got + 2;
            return got;
        }
        out[got] = ip;
        sp = cfa;
    }
    *reads = got + 1;
    return got;
}

int hp_unwind_above(uintptr_t ra, uintptr_t key, uintptr_t frame, uintptr_t *out, int want)
{
    uintptr_t at[CALLPATH_WORDS + 2];
    int reads;
    assert(want <= CALLPATH_WORDS);
    return hp_unwind_above_at(ra, key, frame, out, want, at, &reads);
}

unsigned long hp_unwind_slow_walks(void)
{
    return __atomic_load_n(&slow_walks, __ATOMIC_RELAXED);
}
