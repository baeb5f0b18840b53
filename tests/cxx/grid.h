/*
 * tests/cxx/grid.h - a header of the program with inline methods, for
 * tier 1's exclusion of a header's tiny functions (tests/cxx/header.cpp):
 * size2 is tiny (unhooked); at is tiny but "Grid::at" is part of
 * "Grid::atsum", which keeps its hooks, so at keeps them too (gcc matches
 * the names as substrings); total and atsum are not tiny (hooked).
 */
#ifndef GRID_H
#define GRID_H

#include <vector>

struct Grid {
    std::vector<double> v;
    double &at(int i) { return v[i]; }
    int size2() const { return (int)v.size() * 2; }
    double total() const
    {
        double s = 0;
        int n = 0;
        for (double x : v) {
            s += x;
            n++;
        }
        return n ? s : 0;
    }
    double atsum() const
    {
        double s = 0;
        int n = 0;
        for (size_t i = 0; i < v.size(); i++) {
            s += v[i] * 2;
            n++;
        }
        return n ? s : 0;
    }
};

#endif
