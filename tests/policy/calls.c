/*
 * calls.c - ground truth of which calls make a nested loop worth a probe
 * (tests/policy/run.sh, hprof-instrument --list; the script finds the
 * lines by the MARK comments and also runs the program, the same output
 * plain and instrumented).
 *
 *   shift()     straight-line, its only call is math.h's floor: tiny, not
 *               probed, nor its calls.
 *   heavy()     calls printf: probed, and so are its calls.
 *   twice()     straight-line: tiny, not probed (called through a pointer).
 *   sweep()     outer loop (probed, outermost) holding four nested loops:
 *                 mathloop   calls sqrt and shift only: not probed;
 *                 heavyloop  calls heavy: probed;
 *                 ptrloop    calls through a function pointer: probed;
 *                 libloop    calls a library function (abs): probed.
 * stdout: "sweep S" and heavy's lines.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#define N 8

static double shift(double x) /* MARK:shift */
{
    return floor(x) + 0.5;
}

static double heavy(double x) /* MARK:heavy */
{
    printf("heavy %.1f\n", x);
    return x * 2.0;
}

static double twice(double x) /* MARK:twice */
{
    return 2.0 * x;
}

static double sweep(double (*fn)(double)) /* MARK:sweep */
{
    double s = 0.0;
    for (int i = 0; i < N; i++) { /* MARK:outer */
        for (int j = 0; j < N; j++) /* MARK:mathloop */
            s += sqrt((double)(i * j)) + shift(s);
        for (int j = 0; j < 2; j++) /* MARK:heavyloop */
            s += i == 0 ? heavy(j) : 0.0;
        for (int j = 0; j < N; j++) /* MARK:ptrloop */
            s += fn(j);
        for (int j = 0; j < N; j++) /* MARK:libloop */
            s += abs(j - i);
    }
    return s;
}

int main(void)
{
    printf("sweep %.3f\n", sweep(twice));
    return 0;
}
