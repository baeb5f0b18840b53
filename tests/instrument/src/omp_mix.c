/*
 * omp_mix.c - the OpenMP forms hprof-instrument --omp rewrites (or leaves
 * as they are) without changing what the program prints, with counts
 * known exactly (tests/instrument/omp.sh): a parallel loop made by a macro
 * expanding to _Pragma (left as is), a default(none) region written with
 * _Pragma whose clauses use macros, masked with and without filter, a
 * taskgroup of untied, if(0) and final tasks, for simd and parallel for
 * simd with reductions, criticals that are the unbraced bodies of if,
 * else, for, a label and case labels, and per-thread MPI messages (tag =
 * thread) from inside the region under MPI_THREAD_MULTIPLE.
 */
#include <mpi.h>
#include <omp.h>
#include <stdio.h>

#define NT 2
#define CHUNK 4
#define N 64
#define TASKS 5
#define MSGS 3
#define PFOR _Pragma("omp parallel for reduction(+:s) num_threads(NT)")

static long work(int i)
{
    return i % 7;
}

/* MSGS messages each way with the other rank, tagged by the thread. */
static long exchange(int rank, int me)
{
    int peer = 1 - rank, v = rank * 100 + me, got = 0;
    long sum = 0;

    for (int m = 0; m < MSGS; m++) {
        if (rank == 0) {
            MPI_Send(&v, 1, MPI_INT, peer, me, MPI_COMM_WORLD); /* MARK:mix-send0 */
            MPI_Recv(&got, 1, MPI_INT, peer, me, MPI_COMM_WORLD, MPI_STATUS_IGNORE); /* MARK:mix-recv0 */
        } else {
            MPI_Recv(&got, 1, MPI_INT, peer, me, MPI_COMM_WORLD, MPI_STATUS_IGNORE); /* MARK:mix-recv1 */
            MPI_Send(&v, 1, MPI_INT, peer, me, MPI_COMM_WORLD); /* MARK:mix-send1 */
        }
        sum += got;
    }
    return sum;
}

int main(int argc, char **argv)
{
    int provided, rank, size;
    long s = 0, a = 0, tg = 0, msk = 0, vs = 0, ps = 0, unb = 0, got = 0;

    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (provided < MPI_THREAD_MULTIPLE || size != 2) {
        if (rank == 0)
            printf("omp_mix: needs 2 ranks and MPI_THREAD_MULTIPLE\n");
        MPI_Finalize();
        return 0;
    }
    PFOR /* MARK:mix-macro */
    for (int i = 0; i < N; i++)
        s += work(i);
    _Pragma("omp parallel num_threads(NT) default(none) shared(a, tg, msk, vs, unb, got, rank)") /* MARK:mix-region */
    {
        int me = omp_get_thread_num();
#pragma omp for schedule(static, CHUNK) reduction(+:a) /* MARK:mix-for */
        for (int i = 0; i < N; i++)
            a += work(i);
#pragma omp masked /* MARK:mix-masked */
        msk += 1;
#pragma omp masked filter(NT - 1) /* MARK:mix-filter */
        {
            msk += 10;
        }
#pragma omp barrier
#pragma omp single
        {
#pragma omp taskgroup /* MARK:mix-taskgroup */
            {
                for (int k = 0; k < TASKS; k++) {
#pragma omp task untied shared(tg) /* MARK:mix-untied */
                    {
#pragma omp atomic
                        tg += 1;
                    }
                }
#pragma omp task if(0) shared(tg) /* MARK:mix-if0 */
                {
#pragma omp atomic
                    tg += 100;
                }
#pragma omp task final(1) shared(tg) /* MARK:mix-final */
                {
#pragma omp atomic
                    tg += 1000;
                }
            }
        }
#pragma omp for simd reduction(+:vs) /* MARK:mix-forsimd */
        for (int i = 0; i < N; i++)
            vs += i;
        if (me == 0)
#pragma omp critical /* MARK:mix-then */
            unb += 1;
        else
#pragma omp critical /* MARK:mix-else */
            unb += 2;
        for (int k = 0; k < 3; k++)
#pragma omp critical /* MARK:mix-forbody */
            unb += 4;
        for (int k = 0; k < 2; k++) {
            if (k == 1)
                goto last;
            continue;
        last:
#pragma omp critical /* MARK:mix-label */
            unb += 8;
        }
        switch (me) {
        case 0:
#pragma omp critical /* MARK:mix-case */
            unb += 16;
            break;
        default:
#pragma omp critical /* MARK:mix-default */
            unb += 32;
        }
        long g = exchange(rank, me);
#pragma omp atomic
        got += g;
    }
#pragma omp parallel for simd num_threads(NT) schedule(static, CHUNK) reduction(+:ps) /* MARK:mix-pforsimd */
    for (int i = 0; i < N; i++)
        ps += 2 * i;
    if (rank == 0)
        printf("omp_mix: s %ld a %ld masked %ld taskgroup %ld simd %ld %ld unbraced %ld got %ld\n",
               s, a, msk, tg, vs, ps, unb, got);
    MPI_Finalize();
    return 0;
}
