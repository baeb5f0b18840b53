/* m_inline.c - static inline functions from a header and a .c file that
 * #includes another .c file. */
#include <stdio.h>
#include "m_inline.h"
#include "m_part.c"

int main(void)
{
    int i, s = 0;
    for (i = 0; i < 4; i++)
        s += inl_max(i, 1) + part_sum(i);
    printf("%d\n", s);
    return 0;
}
