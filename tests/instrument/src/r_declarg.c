/* r_declarg.c - a call statement passed as the argument of a macro that
 * also declares a variable (tests/instrument/corpus.sh): the call is
 * wrapped inside the argument's text, so it keeps its probe while the
 * macro's own declaration stays visible.  Ground truth: prints "4 1";
 * call statements probed, each run once: put at line 16 (in the
 * argument of WITH_TMP). */
#include <stdio.h>

static int sum, calls;
static void put(int v) { sum += v; calls++; }

#define WITH_TMP(stmt) { int tmp_ = 4; stmt; }

int main(void)
{
    WITH_TMP(put(tmp_));
    printf("%d %d\n", sum, calls);
    return 0;
}
