/* m_gnu.c - a gcc-only construct (nested function) that libclang cannot
 * parse: hprof-cc warns once and compiles the original. */
#include <stdio.h>

int main(void)
{
    int base = 3;
    int add(int x) { return x + base; }
    printf("%d\n", add(4));
    return 0;
}
