/* m_macros.c - macros that expand to loops, to loop heads, to whole
 * functions, to calls and to do { } while (0) statements. */
#include <stdio.h>

#define FOR_EACH(i, n) for ((i) = 0; (i) < (n); (i)++)
#define ZERO(a, n) for (int z_ = 0; z_ < (n); z_++) (a)[z_] = 0
#define TWICE(stmt) do { stmt; stmt; } while (0)
#define DEFINE_SCALE(name, k) static int name(int x) { int r = 0, i; FOR_EACH(i, k) r += x; return r; }
#define CALL_SQ(x) sq(x)
#define SUM_LOOP(s, n) { int q_; for (q_ = 0; q_ < (n); q_++) (s) += sq(q_); }
#define CHECK(x) do { if ((x) < 0) printf("fail %s\n", #x); } while (0)

static int sq(int x) { return x * x; }

DEFINE_SCALE(triple, 3)
DEFINE_SCALE(quad, 4)

int main(void)
{
    int a[8], i, s = 0;
    ZERO(a, 8);
    FOR_EACH(i, 8) {
        a[i] = CALL_SQ(i);
    }
    if (s == 0)
        ZERO(a, 2);
    else
        s = -1;
    TWICE(s += sq(2));
    SUM_LOOP(s, 4);
    CHECK(sq(3));
    CHECK(triple(2));
    FOR_EACH(i, 8) s += a[i];
    printf("%d %d %d\n", s, triple(5), quad(5));
    return 0;
}
