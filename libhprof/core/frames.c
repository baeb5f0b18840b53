/*
 * frames.c - the per-thread stacks of open code-probe frames
 * (hp_frames.h): growth, closing frames a non-local exit skipped, and
 * closing what is left open when a thread exits.
 */
#include <assert.h>
#include <pthread.h>
#include <stdlib.h>
#include "hp_frames.h"

hp_frames hp_frames_none;

int hp_frames_grow(hp_frames *s)
{
    uint32_t cap = s->cap ? s->cap * 2 : 64;
    hp_open *o = realloc(s->open, sizeof *o * cap);
    if (!o)
        return -1;
    s->open = o;
    s->cap = cap;
    return 0;
}

void hp_frames_close_above(hp_frames *s, uint32_t keep)
{
    assert(keep >= HP_FRAMES_BASE && keep <= s->n);
    while (s->n > keep) {
        hp_event_exit(s->t, &s->open[s->n - 1].f);
        hp_frames_publish(s, s->n - 1);
    }
}

void hp_frames_close_deeper(hp_frames *s, uintptr_t sp)
{
    uint32_t keep = s->n;
    while (s->open[keep - 1].sp < sp)
        keep--;
    hp_frames_close_above(s, keep);
}

static void frames_free(hp_frames *s)
{
    if (s)
        free(s->open);
    free(s);
}

/* Thread exit: the frames still open end now (pthread_exit from a deep
 * frame, or a thread function that returned through a longjmp). */
void hp_frames_thread_end(hp_frames **home, hp_thread *t)
{
    hp_frames *s = *home;
    if (s == &hp_frames_none)
        return;
    if (s->t == t)
        hp_frames_close_above(s, HP_FRAMES_BASE);
    *home = &hp_frames_none;
    frames_free(s);
}

hp_frames *hp_frames_attach(hp_thread *t, hp_frames **home, size_t size)
{
    assert(size >= sizeof(hp_frames));
    hp_frames *s = calloc(1, size);
    if (!s)
        return NULL;
    s->t = t;
    if (hp_frames_grow(s) != 0) {
        frames_free(s);
        return NULL;
    }
    s->open[0].sp = UINTPTR_MAX;
    s->open[0].f.node = HP_FRAME_OFF;
    s->n = HP_FRAMES_BASE;
    *home = s;
    return s;
}
