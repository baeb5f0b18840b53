/*
 * once.c - ground truth for `hprof-cc --tier=1` and the procedures a
 * compiler inlines because they are called once (tests/tier1policy/run.sh).
 *
 * -finstrument-functions hooks pass the function's address, which keeps
 * gcc and clang from inlining a static function into its one caller; so
 * hprof-cc --tier=1 gives such a procedure tier 2's procedure probe
 * instead of the hooks.  Here:
 *   - work() is static, not tiny, and main calls it once, from a loop that
 *     runs N_WORK times: probed, inlined into main as in the plain build,
 *     N_WORK calls;
 *   - twice() is static and called from two statements: hooked, 2 calls;
 *   - pointed() is static and called once directly, but its address is
 *     also taken and called through: hooked, 2 calls;
 *   - countdown() is static and called once from main, and calls itself:
 *     hooked, N_DOWN + 1 calls;
 *   - shared() is called once but not static: hooked, 1 call.
 * The loops of twice, pointed and shared run 8 or 9 times, by the
 * argument: no constant trip count, so they are no tiny procedures.
 * stdout: one checksum line, the same in every build.
 */
#include <stdio.h>

#define N_WORK 1000
#define N_DOWN 20

static volatile unsigned sink;

static unsigned work(unsigned x) /* MARK:work */
{
    unsigned i, s = x;
    for (i = 0; i < 64; i++)
        s = s * 2654435761u + i;
    s ^= s >> 7;
    sink = s;
    return s;
}

static unsigned twice(unsigned x) /* MARK:twice */
{
    unsigned i, s = x;
    for (i = 0; i < 8 + (x & 1); i++)
        s ^= s >> 3;
    s += 11u;
    sink = s;
    return s;
}

static unsigned pointed(unsigned x) /* MARK:pointed */
{
    unsigned i, s = x;
    for (i = 0; i < 8 + (x & 1); i++)
        s += s << 2;
    s ^= 5u;
    sink = s;
    return s;
}

static unsigned countdown(unsigned n) /* MARK:countdown */
{
    unsigned s = n;
    sink = s;
    if (n == 0)
        return 1;
    s += countdown(n - 1);
    return s;
}

unsigned shared(unsigned x);
unsigned shared(unsigned x) /* MARK:shared */
{
    unsigned i, s = x;
    for (i = 0; i < 8 + (x & 1); i++)
        s = s * 3u + 1u;
    s -= 3u;
    sink = s;
    return s;
}

int main(void) /* MARK:main */
{
    unsigned (*volatile fp)(unsigned) = pointed;
    unsigned i, a = 0;

    for (i = 0; i < N_WORK; i++)
        a += work(i);
    a += twice(a);
    a ^= twice(a + 1);
    a += pointed(a) + fp(a);
    a += countdown(N_DOWN);
    a += shared(a);
    printf("once %u\n", a);
    return 0;
}
