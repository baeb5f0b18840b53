/*
 * hp_enter.h - the funnel of enter/exit events: instrumented probes
 * (probe.c) and -finstrument-functions hooks (cyg.c) both open and close
 * calling-context nodes only through these two functions, which fold
 * recursion, throttle tiny hot sites and keep the current context.
 */
#ifndef HP_ENTER_H
#define HP_ENTER_H

#include "hprof_probe.h"
#include "hp_thread.h"

#define HP_FRAME_OFF 0xffffffffu     /* nothing was opened */
#define HP_FRAME_FOLDED 0xfffffffeu  /* a recursive activation, counted only */

void hp_enter_site(hp_thread *t, hprof_frame *f, uint32_t site);
void hp_exit_site(hp_thread *t, hprof_frame *f);

/* Throttling: a node entered `calls` times whose mean stays below `ticks`
 * is from then on only counted.  calls == 0 turns throttling off. */
void hp_throttle_set(uint64_t calls, uint64_t ticks);

#endif
