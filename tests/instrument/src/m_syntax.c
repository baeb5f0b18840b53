/* m_syntax.c - a syntax error: hprof-cc warns once, then the compiler
 * reports the error itself. */
int main(void)
{
    int x = 1
    return x;
}
