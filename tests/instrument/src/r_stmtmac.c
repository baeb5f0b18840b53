/* r_stmtmac.c - statement macros used without a trailing ';' (SET) and a
 * macro statement that expands to a declaration (INIT); regression corpus
 * of tests/instrument/corpus.sh, compiled through hprof-cc with no
 * fallback.  Ground truth:
 *   stdout "7 3 7 3" (g() is called 3 times: by init via INIT, by SET(z)
 *   and by SET(x) in first);
 *   call statements probed, each run once: g at line 15 (in init), g at
 *   line 22 (SET(x) return x;), g at line 29 (SET(z)), first at line 30;
 *   INIT (line 28) is left unwrapped ("macro expands to a declaration"):
 *   wrapping it would hide y from the printf. */
#include <stdio.h>

static int calls;
static int g(void) { calls++; return 7; }
static void init(int *p) { *p = g() - 4; }

#define SET(v) if (v == 0) { v = g(); }
#define INIT int y; init(&y);

static int first(int x)
{
    SET(x) return x;
}

int main(void)
{
    int z = 0;
    INIT
    SET(z)
    int f = first(0);
    printf("%d %d %d %d\n", f, y, z, calls);
    return 0;
}
