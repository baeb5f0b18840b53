/*
 * tests/cxx/constructs.cpp - C++ constructs tier 2 must instrument or leave
 * alone without breaking the build (tests/cxx/run.sh, serial, OpenMP on 2
 * threads): operators, a method returning a reference, a constexpr
 * function with a loop (used in a static_assert: left unprobed), calls
 * returning a reference or a unique_ptr (left unwrapped), a function
 * template called through its specialization, an anonymous namespace,
 * virtual methods and a defaulted destructor, structured bindings in a
 * range-for, an exception thrown from inside a loop and caught in a loop,
 * nested lambdas, an `omp parallel for` over ints and one over iterators.
 * Ground truth: thrower(int) runs THROWS = 4 times (k = 0..3), the 4th
 * throws from its loop's 3rd iteration, caught once; main's lambda
 * (outer) runs once; it prints two lines, the same in every build.
 */
#include <cstdio>
#include <map>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>
#include <omp.h>

#define THROWS 4

namespace geo {
struct Vec {
    double x, y;
    Vec operator+(const Vec &o) const { return {x + o.x, y + o.y}; }
    double &at(int i) { return i ? y : x; }
};
constexpr int sq(int v)   /* MARK:constexpr */
{
    int r = 0;
    for (int i = 0; i < v; i++)
        r += v;
    return r;
}
int &counter()
{
    static int c = 0;
    return c;
}
std::unique_ptr<int> make(int v)
{
    return std::make_unique<int>(v);
}
template <class T>
T accumulate(const std::vector<T> &v)
{
    T s{};
    for (const auto &e : v)
        s += e;
    return s;
}
namespace {
int hidden(int a)
{
    int s = 0;
    for (int i = 0; i < a; i++)
        s += i;
    return s;
}
}  // namespace
class Shape {
public:
    virtual ~Shape() = default;
    virtual double area() const = 0;
};
class Sq : public Shape {
public:
    explicit Sq(double s) : s_(s) {}
    double area() const override
    {
        double a = s_ * s_;
        for (int i = 0; i < 3; i++)
            a += 0;
        return a;
    }
private:
    double s_;
};
}  // namespace geo

static int thrower(int k)   /* MARK:thrower */
{
    int r = 0;
    for (int i = 0; i < k; i++) {
        r += i;
        if (i == 2)
            throw std::runtime_error("two");
    }
    return r;
}

int main()
{
    static_assert(geo::sq(3) == 9, "constexpr");
    geo::Vec a{1, 2}, b{3, 4};
    geo::Vec c = a + b;
    c.at(1) = 7;
    geo::counter() = 3;   /* MARK:ref-call */
    geo::counter()++;
    auto p = geo::make(5);
    std::vector<double> v{1, 2, 3};
    double s = geo::accumulate(v);
    int h = geo::hidden(4);
    std::map<std::string, int> m{{"a", 1}, {"b", 2}};
    int ms = 0;
    for (const auto &[k, val] : m)
        ms += val;
    std::unique_ptr<geo::Shape> sh = std::make_unique<geo::Sq>(2.0);
    int caught = 0;
    for (int k = 0; k < THROWS; k++) {
        try {
            thrower(k);
        } catch (const std::exception &e) {
            caught++;
        }
    }
    auto outer = [&](int n) {
        auto inner = [n](int q) { return n * q; };
        int t = 0;
        for (int i = 0; i < n; i++)
            t += inner(i);
        return t;
    };
    int o = outer(THROWS - caught);   /* 3, not a constant: gcc folds a constexpr call of one */
    double par = 0;
#pragma omp parallel for reduction(+ : par)
    for (int i = 0; i < 100; i++)
        par += geo::hidden(i % 5);
    std::vector<int> w(50, 1);
    int tot = 0;
#pragma omp parallel for reduction(+ : tot)
    for (auto it = w.begin(); it < w.end(); ++it)
        tot += *it;
    std::printf("%g %g %d %d %d %g %d %d %d %g %d\n", c.x, c.y, geo::counter(), *p, h, s, ms, caught, o, par, tot);
    std::printf("%g\n", sh->area());
    return 0;
}
