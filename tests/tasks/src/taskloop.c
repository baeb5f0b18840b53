/*
 * taskloop.c - ground truth for the tasks whose argument block libgomp
 * writes into (taskloop bounds, a detachable task's event): REPS times,
 * inside one single region,
 *  - MARK:loop-grain  grainsize(G) over N iterations: N / G tasks;
 *  - MARK:loop-num    num_tasks(T), firstprivate and lastprivate;
 *  - MARK:loop-ull    an unsigned long long loop variable (libgomp's _ull
 *                     entry point), collapse(2), num_tasks(T);
 *  - MARK:loop-nogroup nogroup, num_tasks(T), then a taskwait;
 *  - MARK:loop-if0    if(0): the tasks run at once on the creating thread;
 *  - MARK:loop-red    a task reduction (libgomp reads the argument block);
 *  - MARK:loop-big    num_tasks(T) with a firstprivate array of BIG longs
 *                     (an argument block over 64 KiB);
 *  - MARK:loop-vla    num_tasks(T) with a firstprivate VLA (gcc gives
 *                     libgomp a copy function for the block; clang, which
 *                     refuses it, shares the VLA);
 *  - MARK:loop-detach a detachable task (its event handle is the block's
 *                     first word), fulfilled by the next task
 *                     (MARK:loop-fulfil).
 * Every loop computes a result that is printed, so a wrong argument block
 * shows in the output.
 */
#include <mpi.h>
#include <omp.h>
#include <stdio.h>

#define REPS 3
#define N 800
#define G 100
#define T 8
#define BIG 9000

int main(int argc, char **argv)
{
    int provided, rank;
    long grain[N], num[N], ull[N], nog[N], if0[N];
    long red = 0, last = -1, offset = 7, detached = 0, big_sum = 0, vla_sum = 0;
    long big[BIG];
    int nv = 5 + argc;   /* a length the compiler cannot know */
    long vla[nv];
    for (int i = 0; i < BIG; i++)
        big[i] = i % 13;
    for (int i = 0; i < nv; i++)
        vla[i] = i + 1;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
#pragma omp parallel
#pragma omp single
    for (int r = 0; r < REPS; r++) {
#pragma omp taskloop grainsize(G) /* MARK:loop-grain */
        for (int i = 0; i < N; i++)
            grain[i] = i + r;
#pragma omp taskloop num_tasks(T) firstprivate(offset) lastprivate(last) /* MARK:loop-num */
        for (int i = 0; i < N; i++) {
            num[i] = i * offset;
            last = i;
        }
#pragma omp taskloop collapse(2) num_tasks(T) /* MARK:loop-ull */
        for (unsigned long long a = 0; a < 20; a++)
            for (unsigned long long b = 0; b < N / 20; b++)
                ull[a * (N / 20) + b] = (long)(a + b);
#pragma omp taskloop nogroup num_tasks(T) /* MARK:loop-nogroup */
        for (int i = 0; i < N; i++)
            nog[i] = 2 * i;
#pragma omp taskwait
#pragma omp taskloop if(0) num_tasks(T) /* MARK:loop-if0 */
        for (int i = 0; i < N; i++)
            if0[i] = 3 * i;
#pragma omp taskloop num_tasks(T) reduction(+:red) /* MARK:loop-red */
        for (int i = 0; i < N; i++)
            red += i;
#pragma omp taskloop num_tasks(T) firstprivate(big) /* MARK:loop-big */
        for (int i = 0; i < N; i++) {
#pragma omp atomic
            big_sum += big[i * (BIG / N)];
        }
#ifndef __clang__   /* clang takes no variably-modified firstprivate here */
#pragma omp taskloop num_tasks(T) firstprivate(vla) /* MARK:loop-vla */
#else
#pragma omp taskloop num_tasks(T) shared(vla)
#endif
        for (int i = 0; i < N; i++) {
#pragma omp atomic
            vla_sum += vla[i % nv];
        }
        omp_event_handle_t ev;
#pragma omp task detach(ev) shared(detached) firstprivate(offset) /* MARK:loop-detach */
        detached += offset;
        /* the event is fulfilled by another task: */
#pragma omp task firstprivate(ev) /* MARK:loop-fulfil */
        omp_fulfill_event(ev);
#pragma omp taskwait
    }
    long sum = 0;
    for (int i = 0; i < N; i++)
        sum += grain[i] + num[i] + ull[i] + nog[i] + if0[i];
    if (rank == 0)
        printf("taskloop: sum %ld red %ld last %ld detached %ld big %ld vla %ld; tasks grain %d"
               " num %d ull %d nogroup %d if0 %d reps %d\n", sum, red, last, detached, big_sum,
               vla_sum, N / G, T, T, T, T, REPS);
    MPI_Finalize();
    return 0;
}
