/* m_part.c - a .c file #included by m_inline.c. */
static int part_sum(int n)
{
    int s = 0, i;
    for (i = 0; i <= n; i++)
        s += inl_max(i, 2);
    return s;
}
