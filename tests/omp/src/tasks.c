/*
 * tasks.c - ground truth for the execution of explicit tasks under gcc's
 * libgomp: fib(N) where every call with n >= CUT creates two tasks
 * (MARK:tasks-a, MARK:tasks-b) and waits for them (MARK:tasks-wait);
 * below CUT it recurses serially.  Then, per thread of the team, VLAS
 * tasks with a firstprivate VLA (gcc copies those through a copy
 * function: MARK:tasks-vla), one undeferred if(0) task (MARK:tasks-if0)
 * and one with a 64-byte aligned firstprivate (MARK:tasks-align).  The
 * counts and results are printed, so the tasks created and executed at
 * each construct are known and the results checked.
 */
#include <mpi.h>
#include <omp.h>
#include <stdint.h>
#include <stdio.h>

#define N 24
#define CUT 12
#define VLAS 10

typedef struct { double v[4]; } __attribute__((aligned(64))) aligned_t;

static long fib_serial(int n)
{
    return n < 2 ? n : fib_serial(n - 1) + fib_serial(n - 2);
}

static long calls(int n)
{
    return n < CUT ? 0 : 1 + calls(n - 1) + calls(n - 2);
}

static long fib(int n)
{
    if (n < CUT)
        return fib_serial(n);
    long a, b;
#pragma omp task shared(a) /* MARK:tasks-a */
    a = fib(n - 1);
#pragma omp task shared(b) /* MARK:tasks-b */
    b = fib(n - 2);
#pragma omp taskwait /* MARK:tasks-wait */
    return a + b;
}

int main(int argc, char **argv)
{
    int provided, rank, nt = 0;
    long r = 0, vsum = 0, if0 = 0, misaligned = 0;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
#pragma omp parallel /* MARK:tasks-region */
    {
#pragma omp single
        {
            nt = omp_get_num_threads();
            r = fib(N);
        }
        int me = omp_get_thread_num();
        for (int k = 0; k < VLAS; k++) {
            int len = 100 + k;
            long vla[len];
            for (int i = 0; i < len; i++)
                vla[i] = i + me;
#pragma omp task firstprivate(vla) shared(vsum) /* MARK:tasks-vla */
            {
                long s = 0;
                for (int i = 0; i < len; i++)
                    s += vla[i];
#pragma omp atomic
                vsum += s;
            }
        }
#pragma omp task if(0) shared(if0) /* MARK:tasks-if0 */
        {
#pragma omp atomic
            if0 += me + 1;
        }
        aligned_t al = { { me, 1, 2, 3 } };
#pragma omp task firstprivate(al) shared(misaligned) /* MARK:tasks-align */
        {
            if ((uintptr_t)&al % 64 != 0 || al.v[1] != 1 || al.v[3] != 3)
#pragma omp atomic
                misaligned++;
        }
#pragma omp taskwait
    }
    if (rank == 0)
        printf("tasks: %d threads, fib(%d) = %ld, tasks per construct %ld, vla sum %ld, "
               "if0 %ld, misaligned %ld\n", nt, N, r, calls(N), vsum, if0, misaligned);
    MPI_Finalize();
    return 0;
}
