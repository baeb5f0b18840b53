/*
 * hp_frames.h - the per-thread stack of open code-probe frames (tier 2
 * probes, probe.c; tier 1 hooks, cyg.c), kept in memory of the runtime's
 * own so that frames a non-local exit skipped can still be closed.
 *
 * longjmp, siglongjmp and pthread_exit leave frames without running their
 * exit probes.  Each open frame records a stack address of the function
 * that opened it (the stack grows down): at the next event on the thread,
 * a frame recorded deeper than where execution is now cannot be live any
 * more and is closed with the time up to that event, innermost first, so
 * the calling context and the recursion-folding state are consistent
 * again.  The hot path is one compare per event; the closing is out of
 * line.  At thread exit (pthread_exit from a deep frame included) the
 * owning source's thread-end entry (hp_source.h) closes whatever is still
 * open.
 */
#ifndef HP_FRAMES_H
#define HP_FRAMES_H

#include <stddef.h>
#include <stdint.h>
#include "hp_event.h"

typedef struct hp_open {
    uintptr_t sp;         /* stack address of the function that opened it */
    uintptr_t ra;         /* tier 1: the return address stored at sp */
    uintptr_t hook;       /* tier 1: the entry hook call of that real frame */
    uintptr_t fn;         /* tier 1: the function entered (inlined or not) */
    hprof_frame f;
} hp_open;

/* open[0] is a sentinel that lies above every stack (sp = UINTPTR_MAX),
 * so the compare with the innermost frame needs no test for emptiness. */
#define HP_FRAMES_BASE 1u

/* A source that keeps state of its own per stack (the tier-1 hooks'
 * memos) allocates a struct that begins with the hp_frames: `size` below
 * is that struct's size, zeroed when the stack is made. */
typedef struct hp_frames {
    uint32_t n, cap;      /* n >= HP_FRAMES_BASE */
    hp_open *open;
    hp_thread *t;         /* the thread that owns the stack */
} hp_frames;

/* A new stack for thread t of `size` bytes (at least sizeof(hp_frames)),
 * stored in *home (the owning source's thread-local pointer; a thread has
 * one per kind of code probe).  NULL without memory. */
hp_frames *hp_frames_attach(hp_thread *t, hp_frames **home, size_t size);
/* Thread t exits: its frames still open in *home end now, the stack is
 * freed and *home reset. */
void hp_frames_thread_end(hp_frames **home, hp_thread *t);

/* What a thread's stack pointer holds before its first frame (its owner
 * NULL), so that the hot path's one test of the owner covers both. */
extern hp_frames hp_frames_none;

/* The stack in *home for thread t: attached on first use (size as in
 * hp_frames_attach), emptied when the thread's records were replaced
 * (unit tests free them). */
static inline hp_frames *hp_frames_of(hp_thread *t, hp_frames **home, size_t size)
{
    hp_frames *s = *home;
    if (__builtin_expect(s->t == t, 1))
        return s;
    if (s == &hp_frames_none)
        return hp_frames_attach(t, home, size);
    s->t = t;
    s->n = HP_FRAMES_BASE;
    return s;
}

/* Room for one more frame; 0 on success. */
int hp_frames_grow(hp_frames *s);

/* The next free entry (written before hp_frames_publish makes it part of
 * the stack, so that a signal handler's probes never see a half-written
 * frame), NULL without memory. */
static inline hp_open *hp_frames_next(hp_frames *s)
{
    if (__builtin_expect(s->n == s->cap, 0) && hp_frames_grow(s) != 0)
        return NULL;
    return &s->open[s->n];
}

static inline void hp_frames_publish(hp_frames *s, uint32_t n)
{
    __asm__ volatile("" ::: "memory");
    s->n = n;
}

/* Closes the frames above the first `keep` (>= HP_FRAMES_BASE),
 * innermost first. */
void hp_frames_close_above(hp_frames *s, uint32_t keep);
/* Closes the innermost frames recorded deeper than stack address sp. */
void hp_frames_close_deeper(hp_frames *s, uintptr_t sp);

#endif
