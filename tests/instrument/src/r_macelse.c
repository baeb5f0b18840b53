/* r_macelse.c - statement macros used without ';' right before an else;
 * regression corpus of tests/instrument/corpus.sh, compiled through
 * hprof-cc with no fallback.  Ground truth:
 *   stdout "7 1 7 8 3" (pick(1), pick(0), both(5), both(0); g's calls);
 *   the calls inside TRY(x) (line 17) and SET(x) (line 23) are not probed
 *   ("statement macro followed by else": braces around SET would take its
 *   else away from SET's own if); probed, with their counts: g at line 24
 *   once, pick at line 30 twice, both at line 30 twice. */
#include <stdio.h>

static int calls;
static int g(void) { calls++; return 7; }
#define TRY(v) { v = g(); }
#define SET(v) if (v == 5) { v = g(); }
static int pick(int x)
{
    if (x) TRY(x)
    else x = 1;
    return x;
}
static int both(int x)
{
    if (x) SET(x) else x = 0;
    if (!x) { x = g() + 1; }
    return x;
}

int main(void)
{
    int a = pick(1), b = pick(0), c = both(5), d = both(0);
    printf("%d %d %d %d %d\n", a, b, c, d, calls);
    return 0;
}
