/* m_switch.c - a switch with loops in its cases, loops in the conditions
 * of other loops (GNU statement expressions), loops as bodies of if/else
 * and labels, nested calls. */
#include <stdio.h>

static int f(int x) { return x + 1; }

static int classify(int k)
{
    int s = 0, i;
    switch (k) {
    case 0:
        for (i = 0; i < 3; i++)
            s += f(i);
        break;
    case 1: {
        int j = 0;
        while (j < 4)
            j = f(j);
        s = j;
        break;
    }
    case 2:
        do s += 2; while (s < 9);
        /* fall through */
    default:
        s += f(f(k));
    }
    return s;
}

int main(void)
{
    int i, n = 0, t = 0;
    for (i = 0; i < 4; i++)
        printf("%d ", classify(i));
    while (({ int c = 0, j; for (j = 0; j < n; j++) c += f(j); c; }) < 20)
        n++;
    if (n > 3)
        for (i = 0; i < n; i++) t += i;
    else
        while (t < 5) t++;
again:
    for (i = 0; i < 2; i++)
        t += f(t);
    if (t < 100)
        goto again;
    printf("\n%d %d\n", n, t);
    return 0;
}
