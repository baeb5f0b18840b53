/*
 * live_top.h - hprof-query --live without --once: a frame every interval
 * seconds, like top.  On a terminal the screen is cleared before each
 * frame and q (or Ctrl-D) on a terminal stdin quits; otherwise frames
 * follow one another, each after a "--- frame N ---" line, until the
 * live folder is gone (the run ended) or the reader quits.
 */
#ifndef HPQ_LIVE_TOP_H
#define HPQ_LIVE_TOP_H

#include <stdio.h>

/* frame(arg, out) prints one frame and returns 0 or an exit status.
 * Returns 0 after q or the run's end, else the last frame's status. */
int hpq_live_top(const char *path, double interval, int (*frame)(void *arg, FILE *out),
                 void *arg);

#endif
