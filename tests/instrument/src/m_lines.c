/* m_lines.c - diagnostics and debug lines must point at these lines. */
#include <stdio.h>

static int g(int x) { return x * 3; }

int main(int argc, char **argv)
{
    int i, s = 0;
    (void)argv;
#pragma omp parallel for reduction(+:s)
    for (i = 0; i < 4; i++) {
        int unused_here;
        s += g(i);
    }
    if (argc > 5) {
        int also_unused;
    }
    printf("%d\n", s);
    return 0;
}
