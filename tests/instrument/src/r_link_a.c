/* r_link_a.c - with r_link_b.c and r_link_main.cc: instrumented C objects
 * linked by a C++ driver (g++, mpicxx) that adds no -lhprof, as libtool
 * does for a mixed C/C++ project (tests/instrument/corpus.sh).
 * Ground truth: sum_to(10) runs its loop 10 times and returns 55; the
 * program prints "55 110".  Linked without libhprof: same stdout, one
 * warning on stderr for the whole program (two instrumented units).
 * Linked with libhprof: procedure sum_to at line 10 and scale (r_link_b.c
 * line 4) entered once each, the loop at line 14 once. */

int sum_to(int n)
{
    int s = 0, i;

    for (i = 1; i <= n; i++)
        s += i;
    return s;
}
