/*
 * tests/cxx/prog.cpp - a C++ MPI+OpenMP program with known ground truth,
 * profiled at tiers 0, 1 and 2 by tests/cxx/run.sh.  Run it on 2 ranks
 * with OMP_NUM_THREADS=2.  Per rank:
 *
 *   solver::Field<double>::Field(int)       1 call   (constructor)
 *   solver::Field<double>::sum() const       SUMS = 4 calls, from main's loop
 *   solver::Field<double>::scale(double)     1 call   (defined in the class)
 *   solver::Field<double>::exchange(int, int) 1 call  (out of class): the MPI messages
 *   solver::check(int)                       TRIES = 5 calls, the 4th (k == 3) throws
 *   solver::deep(int)                        TRIES = 5 calls, each calls check once;
 *                                            the exception unwinds through deep
 *                                            and check and is caught in main
 *   main's lambda (int)                      LAMBDAS = 6 calls, from main's loop, each
 *                                            calling MPI_Comm_rank once
 *   omp_work(int)                            1 call; an `omp parallel for` of N = 1000
 *                                            iterations on 2 threads, reduction
 *   MPI: in exchange, rank 0 sends MSGS = 3 messages of COUNT = 100 doubles
 *        (800 bytes) to rank 1 (MPI_Send, 3 calls), rank 1 receives them
 *        (MPI_Recv, 3 calls): 2400 bytes each way.  At tier 0 the call
 *        paths name exchange and the lambda as the frames of these calls.
 *
 * It prints one line per rank from rank 0 (the values are exact) and
 * exits 0.  Every procedure has at least 5 statements, so the policy
 * probes them all.
 */
#include <mpi.h>
#include <omp.h>   /* as most OpenMP codes: its declarations meet the POMP2 preamble's */

#include <cstdio>
#include <stdexcept>
#include <vector>

#define SUMS 4
#define TRIES 5
#define LAMBDAS 6
#define MSGS 3
#define COUNT 100
#define N 1000

namespace solver {

template <typename T>
class Field {
public:
    explicit Field(int n) : v_(n)   /* MARK:ctor */
    {
        int i = 0;
        for (auto &x : v_)
            x = T(i++);
        last_ = T(0);
        calls_ = 0;
    }
    void scale(T a)   /* MARK:scale */
    {
        int k = 0;
        for (auto &x : v_)
            x *= a;
        k++;
        k--;
        calls_ += k;
    }
    T sum() const;
    void exchange(int rank, int size);

private:
    std::vector<T> v_;
    T last_;
    int calls_;
};

template <typename T>
T Field<T>::sum() const   /* MARK:sum */
{
    T s = T(0);
    int n = 0;
    for (const T &x : v_) {
        s += x;
        n++;
    }
    if (n == 0)
        s = last_;
    return s;
}

template <typename T>
void Field<T>::exchange(int rank, int size)   /* MARK:exchange */
{
    int m = 0;
    for (m = 0; m < MSGS; m++) {
        if (rank == 0 && size > 1)
            MPI_Send(v_.data(), COUNT, MPI_DOUBLE, 1, m, MPI_COMM_WORLD);   /* MARK:send */
        else if (rank == 1)
            MPI_Recv(v_.data(), COUNT, MPI_DOUBLE, 0, m, MPI_COMM_WORLD, MPI_STATUS_IGNORE);   /* MARK:recv */
    }
    calls_ += m;
}

int check(int k)   /* MARK:check */
{
    int r = k * 2;
    if (k == 3)
        throw std::runtime_error("k is 3");
    r += 1;
    r -= 1;
    return r;
}

int deep(int k)   /* MARK:deep */
{
    int r = 0;
    int v = check(k);   /* MARK:call-check */
    r += v;
    r += 1;
    return r;
}

}  // namespace solver

static double omp_work(int n)   /* MARK:omp */
{
    double s = 0;
    int i;
#pragma omp parallel for reduction(+ : s)
    for (i = 0; i < n; i++)
        s += i * 0.5;
    s += 0;
    s *= 1;
    return s;
}

int main(int argc, char **argv)
{
    int rank, size, caught = 0, got = 0;
    long total = 0;
    double sums = 0;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    solver::Field<double> f(COUNT);
    f.scale(2.0);
    for (int i = 0; i < SUMS; i++)
        sums += f.sum();
    auto add = [&total](int i) {   /* MARK:lambda */
        long v = 0;
        int me = 0;
        MPI_Comm_rank(MPI_COMM_WORLD, &me);   /* MARK:lambda-rank */
        for (int j = 0; j <= i + me - me; j++)
            v += 3;
        v -= 2;
        total += v;
        total -= 1;
    };
    for (int i = 0; i < LAMBDAS; i++)
        add(i);
    for (int k = 0; k < TRIES; k++) {
        try {
            got += solver::deep(k);   /* MARK:call-deep */
        } catch (const std::runtime_error &e) {
            caught++;
        }
    }
    double w = omp_work(N);   /* MARK:call-omp */
    f.exchange(rank, size);
    if (rank == 0)
        std::printf("sums %.1f total %ld caught %d got %d omp %.1f\n", sums, total, caught, got, w);
    MPI_Finalize();
    return 0;
}
