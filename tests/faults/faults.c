/*
 * faults.c - hprof integration test (tests/faults/run.sh): the records of
 * a run that dies.  With 3 ranks, every rank first passes a token around
 * a ring NR=20 times (MPI_Sendrecv of 10 ints to the right, from the
 * left, f-ring) and meets the others in one MPI_Barrier (f-barrier); then
 * MODE (argv[1]) decides how the run ends:
 *   abort - rank 1 calls MPI_Abort(MPI_COMM_WORLD, 3) (f-abort);
 *   segv  - rank 1 writes through a null pointer (f-segv);
 *   exit  - rank 1 calls exit(5) without MPI_Finalize (f-exit);
 *   term  - nobody: the script sends SIGTERM to mpirun once rank 0 has
 *           printed "ready";
 * in these four the other ranks (all three for term) wait in an MPI_Recv
 * that no rank answers (f-wait) until the launcher ends them.
 *   usr1  - the program handles SIGUSR1 itself (installed before
 *           MPI_Init): rank 1 raises it 3 times, the handler counts, and
 *           the run ends normally with MPI_Finalize (rank 1 prints the
 *           count: 3).
 *   fork - no MPI: one OpenMP region, then the process forks; the child
 *           calls exit(0) (its exit handlers run), the parent waits for it
 *           and prints "fork: child exited 0".
 *   spin - no MPI: an OpenMP team whose threads meet at a barrier, then
 *           spin in the region (f-spin) until the script sends SIGTERM,
 *           at least 0.5 s after thread 0 printed "ready".
 *   serial [SIG] - no MPI at all: NREG=5 OpenMP parallel regions
 *           (f-region), then the process raises signal SIG (default
 *           SIGTERM, f-raise).
 * Ground truth, per rank that took part: f-ring 20 calls, 800 bytes sent
 * to rank+1 and 800 received from rank-1; f-barrier 1 call.  Rank 0 prints
 * the token's final value before the end.
 */
#include <mpi.h>
#include <omp.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#define NR 20
#define NREG 5

static volatile sig_atomic_t usr1_seen;

static void on_usr1(int sig)
{
    (void)sig;
    usr1_seen++;
}

static int serial(int sig)
{
    int sum = 0;
    for (int i = 0; i < NREG; i++) {
#pragma omp parallel reduction(+ : sum) /* MARK:f-region */
        sum += 1;
    }
    printf("serial: %d regions\n", NREG);
    fflush(stdout);
    raise(sig); /* MARK:f-raise */
    return sum == 0;
}

static int forked(void)
{
    int n = 0, status = 0;
#pragma omp parallel reduction(+ : n)
    n += 1;
    fflush(stdout);
    pid_t child = fork();
    if (child == 0)
        exit(0);
    if (child < 0 || waitpid(child, &status, 0) != child)
        return 1;
    printf("fork: child exited %d\n", WIFEXITED(status) ? WEXITSTATUS(status) : -1);
    return n == 0;
}

static int spin(void)
{
    volatile double x = 0;
#pragma omp parallel /* MARK:f-spin */
    {
#pragma omp barrier
        if (omp_get_thread_num() == 0) {
            printf("ready\n");
            fflush(stdout);
        }
        for (;;)
            x += 1;
    }
    return x == 0;
}

static void ring(int rank, int size)
{
    int token[10] = {0}, in[10];
    for (int r = 0; r < NR; r++) {
        token[0]++;
        MPI_Sendrecv(token, 10, MPI_INT, (rank + 1) % size, 0, in, 10, MPI_INT, /* MARK:f-ring */
                     (rank + size - 1) % size, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        token[0] = in[0] + 1;
    }
    MPI_Barrier(MPI_COMM_WORLD); /* MARK:f-barrier */
    if (rank == 0) {
        printf("token %d\n", token[0]);
        fflush(stdout);
    }
}

static void wait_forever(void)
{
    int x;
    MPI_Recv(&x, 1, MPI_INT, MPI_ANY_SOURCE, 99, MPI_COMM_WORLD, MPI_STATUS_IGNORE); /* MARK:f-wait */
}

int main(int argc, char **argv)
{
    const char *mode = argc > 1 ? argv[1] : "";
    int rank, size;
    if (strcmp(mode, "spin") == 0)
        return spin();
    if (strcmp(mode, "fork") == 0)
        return forked();
    if (strcmp(mode, "serial") == 0)
        return serial(argc > 2 ? atoi(argv[2]) : SIGTERM);
    if (strcmp(mode, "usr1") == 0)
        signal(SIGUSR1, on_usr1);
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (size != 3) {
        if (rank == 0)
            fprintf(stderr, "faults: needs exactly 3 ranks\n");
        MPI_Finalize();
        return 2;
    }
    ring(rank, size);
    if (strcmp(mode, "usr1") == 0) {
        if (rank == 1) {
            for (int i = 0; i < 3; i++)
                raise(SIGUSR1);
            printf("usr1: handled %d\n", (int)usr1_seen);
            fflush(stdout);
        }
        MPI_Finalize();
        return 0;
    }
    if (strcmp(mode, "term") == 0 && rank == 0) {
        printf("ready\n");
        fflush(stdout);
    }
    if (rank == 1 && strcmp(mode, "abort") == 0)
        MPI_Abort(MPI_COMM_WORLD, 3); /* MARK:f-abort */
    if (rank == 1 && strcmp(mode, "segv") == 0)
        *(volatile int *)(uintptr_t)(argc - argc) = 1; /* MARK:f-segv */
    if (rank == 1 && strcmp(mode, "exit") == 0)
        exit(5); /* MARK:f-exit */
    wait_forever();
    MPI_Finalize();
    return 0;
}
