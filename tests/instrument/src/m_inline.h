/* m_inline.h - static inline functions in a header: not instrumented. */
static inline int inl_max(int a, int b)
{
    int i, m = a;
    for (i = 0; i < 1; i++)
        if (b > m)
            m = b;
    return m;
}
