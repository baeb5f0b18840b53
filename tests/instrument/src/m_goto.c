/* m_goto.c - goto and early returns out of loops, break/continue, a goto
 * into a loop (that loop gets no probe), Duff's device. */
#include <stdio.h>

static int find(const int *a, int n, int v)
{
    int i;
    for (i = 0; i < n; i++)
        if (a[i] == v)
            return i;           /* early return out of the loop */
    return -1;
}

static int search2(int n)
{
    int i, j, hits = 0;
    for (i = 0; i < n; i++) {
        for (j = 0; j < n; j++) {
            if (j == 2)
                continue;
            if (i * j > 6)
                goto out;       /* goto out of two loops */
            if (j > i)
                break;
            hits++;
        }
    }
out:
    return hits;
}

static int jump_in(int n)
{
    int k = 0;
    if (n > 2)
        goto inside;            /* goto into a loop: no probe for it */
    while (k < n) {
        k += 2;
inside:
        k++;
    }
    return k;
}

static void duff(char *to, const char *from, int count)
{
    int n = (count + 3) / 4;
    switch (count % 4) {
    case 0: do { *to++ = *from++;
    case 3:      *to++ = *from++;
    case 2:      *to++ = *from++;
    case 1:      *to++ = *from++;
            } while (--n > 0);
    }
}

int main(void)
{
    int a[] = {5, 7, 9, 11};
    char dst[16] = {0};
    printf("%d %d\n", find(a, 4, 9), find(a, 4, 4));
    printf("%d\n", search2(5));
    printf("%d %d\n", jump_in(1), jump_in(5));
    duff(dst, "hello, world!", 13);
    printf("%s\n", dst);
    return 0;
}
