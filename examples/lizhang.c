/*
 * lizhang.c - the example program of the seed paper (Li & Zhang, Fig. 12),
 * made hybrid with MPI, with every answer of the paper's questions known in
 * advance; the ground truth of tests/tiers/run.sh and a benchmark of
 * bench/run.sh.
 *
 *   main:  call p1; call p2; loop1 { e2 (comm); loop2 { call p4 } }
 *   p1:    spin P1_MS; call p3          p2: spin P2_MS; call p3
 *   p3:    spin P3_MS; e1 (comm); call p4
 *   p4:    spin P4_MS
 *
 * Each procedure busy-waits on clock_gettime(CLOCK_MONOTONIC) for a known
 * wall time (no sleep: the waiting rank must look busy).  e1 and e2 are
 * MPI_Sendrecv exchanges between the rank pairs (0,1), (2,3), ...; the odd
 * ("late") ranks spin LATE1_MS before e1 and LATE2_MS before e2, so every
 * even rank with a partner waits exactly that long in the statement
 * (synchronization delay), while the transfers themselves (8 bytes) take
 * microseconds.  The late spins happen inside p3 and inside loop1, so both
 * ranks of a pair spend the same time in every procedure and loop.
 *
 * Known values per rank (ms), with the default constants:
 *   p4 (one call)            P4_MS                        = 60
 *   p3 (one call)            P3_MS + LATE1_MS + P4_MS     = 150
 *   call p1 / call p2        P1_MS + p3 / P2_MS + p3      = 170 / 180
 *   loop1 (entered once)     L1 * (LATE2_MS + L2 * P4_MS) = 290
 *   loop2 (entered L1 times) L1 * L2 * P4_MS              = 240
 *   main's work              call p1 + call p2 + loop1    = 640
 *   counts: p3 2 (one per call line), p4 2 + L1 * L2 = 6, loop1 1, loop2 L1
 *   e1 sync delay (even rank of a pair) 2 * LATE1_MS      = 100
 *   e2 sync delay (even rank of a pair) L1 * LATE2_MS     = 50
 * Top-down from main the largest child is loop1 -> loop2 -> call p4 -> p4:
 * p4 dominates the program, as in the paper.  An MPI_Barrier after
 * MPI_Init aligns the ranks first, so the start-up skew of the processes
 * does not leak into e1's waiting time.
 *
 * The spin is a macro that loops with a goto: no loop statement and no
 * call to a user function, so the static tables of the program are exactly
 * the paper's (PL, PCOM, PC, LL, LCOM, LC).  The marker comments name the
 * lines the test looks for.
 *
 * Output (rank 0, stdout) is deterministic: one line with the counts and a
 * checksum of the exchanged values.  Each message also carries the time
 * its sender arrived at the statement (CLOCK_MONOTONIC: ranks on one
 * node only), so every rank knows how long it really waited for its partner (a 4 ms scheduler tick on a busy machine
 * shifts arrivals); each rank prints that observed wait on stderr, as
 * "lizhang: rank R waited S1 s at e1, S2 s at e2", the exact ground truth
 * of its synchronization delays.  A loaded machine also stretches the
 * spins, so each rank times its own parts with the same clock and prints
 * them on stderr too ("lizhang: rank R took ..."): the calls of p1 and p2
 * from main, p3 (inside, summed), loop1, loop2 (summed), the statements
 * e1 and e2 (summed), the aligning barrier, the reduction, and the work
 * from after the barrier to after loop1, MPI_Init, and main from its
 * start to its prints before MPI_Finalize.
 *
 * usage: mpirun -np 2 lizhang     (any number of ranks; an unpaired last
 *        rank exchanges with MPI_PROC_NULL and waits for nobody)
 */
#include <mpi.h>
#include <stdio.h>
#include <time.h>

#define P1_MS 20
#define P2_MS 30
#define P3_MS 40
#define P4_MS 60
#define LATE1_MS 50
#define LATE2_MS 25
#define L1 2
#define L2 2

/* Busy-wait for MS milliseconds of wall time (see above: no loop statement). */
#define SPIN_MS(ms)                                                              \
    {                                                                            \
        __label__ again_;                                                        \
        struct timespec t0_, t_;                                                 \
        clock_gettime(CLOCK_MONOTONIC, &t0_);                                    \
    again_:                                                                      \
        clock_gettime(CLOCK_MONOTONIC, &t_);                                     \
        if ((double)(t_.tv_sec - t0_.tv_sec) * 1e3 +                             \
                (double)(t_.tv_nsec - t0_.tv_nsec) / 1e6 < (double)(ms))         \
            goto again_;                                                         \
    }

static int rank, partner, late;
static long p3_calls, p4_calls, checksum;
static double waited[2]; /* at e1, e2: partner's arrival minus ours, when later */
/* The rank's own times of its parts (s), as listed above: the calls of p1
 * and p2, p3, loop1, loop2, e1, e2, the barrier, the reduction, the work. */
enum { T_CALL_P1, T_CALL_P2, T_P3, T_LOOP1, T_LOOP2, T_E1, T_E2, T_ALIGN, T_REDUCE, T_WORK, T_INIT, T_MAIN, T_PARTS };
static double took[T_PARTS];

/* Sets D to CLOCK_MONOTONIC in seconds: one clock for every rank of a
 * node (arrival times are compared across ranks; MPI_Wtime may have a
 * per-process origin).  A macro, like SPIN_MS, so the static tables stay
 * the paper's. */
#define NOW_S(d)                                                                 \
    {                                                                            \
        struct timespec n_;                                                      \
        clock_gettime(CLOCK_MONOTONIC, &n_);                                     \
        (d) = (double)n_.tv_sec + (double)n_.tv_nsec / 1e9;                      \
    }

/* The message of e1 and e2 is a value and its sender's arrival time: adds
 * the value to the checksum and how long we waited to waited[E]. */
#define NOTE_WAIT(e, in, arrived)                                                \
    {                                                                            \
        checksum += (long)(in)[0];                                               \
        if (partner != MPI_PROC_NULL && (in)[1] > (arrived))                     \
            waited[e] += (in)[1] - (arrived);                                    \
    }

static void p4(void) /* proc-p4 */
{
    p4_calls++;
    SPIN_MS(P4_MS);
}

/* Adds the time since T0 (from NOW_S) to took[PART]; a macro, like NOW_S. */
#define TOOK(part, t0)                                                           \
    {                                                                            \
        double t1_;                                                              \
        NOW_S(t1_);                                                              \
        took[part] += t1_ - (t0);                                                \
    }

static void p3(void) /* proc-p3 */
{
    double out[2] = {rank + 1, 0}, in[2] = {0, 0}, t0;
    NOW_S(t0);
    p3_calls++;
    SPIN_MS(P3_MS);
    if (late)
        SPIN_MS(LATE1_MS);
    NOW_S(out[1]);
    MPI_Sendrecv(out, 2, MPI_DOUBLE, partner, 1, in, 2, MPI_DOUBLE, partner, 1, MPI_COMM_WORLD, /* e1 */
                 MPI_STATUS_IGNORE);
    TOOK(T_E1, out[1]);
    NOTE_WAIT(0, in, out[1]);
    p4(); /* call-p4-in-p3 */
    TOOK(T_P3, t0);
}

static void p1(void) /* proc-p1 */
{
    SPIN_MS(P1_MS);
    p3(); /* call-p3-in-p1 */
}

static void p2(void) /* proc-p2 */
{
    SPIN_MS(P2_MS);
    p3(); /* call-p3-in-p2 */
}

int main(int argc, char **argv) /* proc-main */
{
    int size;
    double main0, t0;
    NOW_S(main0);
    MPI_Init(&argc, &argv);
    TOOK(T_INIT, main0);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    partner = (rank ^ 1) < size ? rank ^ 1 : MPI_PROC_NULL;
    late = rank % 2 == 1;
    double work0, loop0;
    NOW_S(t0);
    MPI_Barrier(MPI_COMM_WORLD); /* align */
    TOOK(T_ALIGN, t0);

    NOW_S(work0);
    p1(); /* call-p1 */
    TOOK(T_CALL_P1, work0);
    NOW_S(t0);
    p2(); /* call-p2 */
    TOOK(T_CALL_P2, t0);
    NOW_S(loop0);
    for (int i = 0; i < L1; i++) { /* loop1 */
        double out[2] = {10 * (rank + 1) + i, 0}, in[2] = {0, 0};
        if (late)
            SPIN_MS(LATE2_MS);
        NOW_S(out[1]);
        MPI_Sendrecv(out, 2, MPI_DOUBLE, partner, 2, in, 2, MPI_DOUBLE, partner, 2, MPI_COMM_WORLD, /* e2 */
                     MPI_STATUS_IGNORE);
        TOOK(T_E2, out[1]);
        NOTE_WAIT(1, in, out[1]);
        NOW_S(t0);
        for (int j = 0; j < L2; j++) /* loop2 */
            p4(); /* call-p4-in-loop2 */
        TOOK(T_LOOP2, t0);
    }
    TOOK(T_LOOP1, loop0);
    TOOK(T_WORK, work0);

    long counts[3] = {p3_calls, p4_calls, checksum}, total[3];
    NOW_S(t0);
    MPI_Reduce(counts, total, 3, MPI_LONG, MPI_SUM, 0, MPI_COMM_WORLD); /* reduce */
    TOOK(T_REDUCE, t0);
    if (rank == 0)
        printf("lizhang: %d ranks, p3 calls %ld, p4 calls %ld, checksum %ld\n", size, total[0],
               total[1], total[2]);
    TOOK(T_MAIN, main0);
    fprintf(stderr, "lizhang: rank %d waited %.6f s at e1, %.6f s at e2\n", rank, waited[0],
            waited[1]);
    fprintf(stderr,
            "lizhang: rank %d took %.6f s in call p1, %.6f in call p2, %.6f in p3, %.6f in loop1, "
            "%.6f in loop2, %.6f at e1, %.6f at e2, %.6f at align, %.6f at reduce, %.6f of work, "
            "%.6f in MPI_Init, %.6f in main before MPI_Finalize\n",
            rank, took[T_CALL_P1], took[T_CALL_P2], took[T_P3], took[T_LOOP1], took[T_LOOP2],
            took[T_E1], took[T_E2], took[T_ALIGN], took[T_REDUCE], took[T_WORK], took[T_INIT],
            took[T_MAIN]);
    MPI_Finalize();
    return 0;
}
