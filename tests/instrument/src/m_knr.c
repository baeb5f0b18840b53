/* m_knr.c - K&R definitions, a variadic function, comma expressions,
 * calls in return statements, initializers, conditions and arguments. */
#include <stdarg.h>
#include <stdio.h>

static int add(a, b)
    int a;
    int b;
{
    return a + b;
}

static int sum(int n, ...)
{
    va_list ap;
    int i, s = 0;
    va_start(ap, n);
    for (i = 0; i < n; i++)
        s += va_arg(ap, int);
    va_end(ap);
    return s;
}

static int twice(int x) { return add(x, x); }

struct pair { int a, b; };

static struct pair mk(int a, int b) { struct pair p; p.a = a; p.b = b; return p; }

int main(void)
{
    int x = add(1, 2), y = twice(add(x, 1));
    int z = (x++, twice(x), add(y, 1));
    struct pair p = mk(twice(1), add(2, 3));
    int arr[3] = { twice(1), twice(2), twice(3) };
    size_t sz = sizeof(add(1, 2));
    while (add(x, 0) < 10)
        x = add(x, 1), y++;
    if (twice(z) > 0 && sum(3, 1, 2, 3) == 6)
        printf("%d %d %d %d %d %d %d\n", x, y, z, p.a + p.b, arr[2], (int)sz, sum(4, 1, 1, 1, add(1, 0)));
    return twice(0);
}
