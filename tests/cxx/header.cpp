/*
 * tests/cxx/header.cpp - tier 1 of C++ and the inline functions of the
 * program's own header (tests/cxx/grid.h), serial.  Ground truth with
 * hprof-cc --tier=1 g++ -O2: Grid::at(int) hooked, called N = 10 times;
 * Grid::total() const and Grid::atsum() const once each; Grid::size2()
 * const unhooked (tiny), so not in the profile; main once; gcc hooks
 * Grid's implicit constructor and destructor (once each).  Prints
 * "45 90 20".
 */
#include <cstdio>

#include "grid.h"

#define N 10

int main()
{
    Grid g;
    g.v.resize(N);
    for (int i = 0; i < N; i++)
        g.at(i) = i;
    std::printf("%g %g %d\n", g.total(), g.atsum(), g.size2());
    return 0;
}
