// r_link_main.cc - C++ main of r_link_a.c and r_link_b.c (ground truth in
// r_link_a.c): prints "55 110".
#include <cstdio>

extern "C" int sum_to(int n);
extern "C" int scale(int v);

int main()
{
    int s = sum_to(10);
    std::printf("%d %d\n", s, scale(s));
    return 0;
}
