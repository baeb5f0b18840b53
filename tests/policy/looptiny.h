/*
 * looptiny.h - the header half of tests/policy/looptiny.c: procedures
 * defined in a header of the program, which hprof-instrument sees but
 * does not rewrite.
 *   zero3()   static inline, straight-line, no call: tiny, so its call
 *             statements get no probe, as those of a tiny procedure of
 *             the file do.
 *   hsum()    static, holds a loop: not tiny, its call statements keep
 *             their probes.
 */
#ifndef LOOPTINY_H
#define LOOPTINY_H

static inline void zero3(double *a) /* MARK:zero3 */
{
    a[0] = 0.0;
    a[1] = 0.0;
    a[2] = 0.0;
}

static double hsum(const double *a, int n) /* MARK:hsum */
{
    double s = 0.0;
    for (int i = 0; i < n; i++)
        s += a[i];
    return s;
}

#endif
