/*
 * order.c - ground truth for virtual time (tests/vtime/run.sh): the
 * order in which wildcard receives match two senders whose real-time
 * order monitoring reverses.
 *
 * Rank 1 calls the tiny procedure leaf() CALLS = 4,000,000 times (some
 * 50 ms plain; with every call probed and timed, hprof-cc
 * --procedures=all and HPROF_THROTTLE_CALLS=0, over 200 ms), then sends;
 * rank 2 spins SPIN_MS = 150 ms of its CPU time, then sends.  (The issue
 * says 2*10^6 calls and 50 ms: the calibrated cost of 4*10^6 probe pairs
 * varies by some 30 ms from run to run on a loaded VM, rank 1's virtual
 * send time measured from -13 to 56 ms in 14 runs, and a core shared
 * with a busy sibling slows rank 1's work, not rank 2's CPU-time spin;
 * the margins here are wider both ways.)  Rank 0 receives with
 * MPI_ANY_SOURCE, its own way per mode (argv[1]):
 *   twice    two blocking MPI_Recv;
 *   loop     rank 1 computes CALLS calls, then sends ROUNDS = 3 messages
 *            with CALLS/40 calls before each but the first; rank 2
 *            spins, then sends ROUNDS messages; rank 0 receives 2*ROUNDS
 *            times;
 *   persistent  the twice case with the senders' messages sent by
 *            MPI_Start of a request made by MPI_Send_init (and waited for);
 *   sendrecv the twice case through MPI_Sendrecv (rank 0 sends itself an
 *            empty message to tag 9 in each);
 *   probe    the first message found by polling MPI_Iprobe, the second
 *            by MPI_Probe, each then received from the source found;
 *   mprobe   the first message matched by polling MPI_Improbe, the
 *            second by MPI_Mprobe, each received by MPI_Mrecv;
 *   blocked  deadlock avoidance: rank 1 does not compute but waits in
 *            MPI_Wait for a message from rank 0, which receives once
 *            with MPI_ANY_SOURCE (rank 2's message), then sends to rank 1;
 *            rank 1 must answer rank 0's clock requests from inside its
 *            MPI_Wait, or rank 0 decides only at its 2 s bound, with a
 *            warning;
 *   barrier, allreduce, split  the blocked case with rank 1 in MPI_Barrier
 *            (MPI_Allreduce, MPI_Comm_split: a constructor) instead, which rank 0 joins after its
 *            wildcard receive, as rank 2 does after its send: rank 1 must
 *            answer from inside the collective.  Each prints, in ms since
 *            a barrier at the start, when rank 0's receive completed
 *            ("received: T", rank 0) and when rank 2 sent ("sent: T");
 *   waitany  two MPI_Irecv posted at once, completed by two MPI_Waitany;
 *            it prints the source each request received, in posting
 *            order (the first posted receive matches the first message);
 *   testany  the same completed by polling MPI_Testany;
 *   waitsome the same completed by MPI_Waitsome (until both are);
 *   mixed    Waitany over a wildcard MPI_Irecv and one of source 2,
 *            posted in that order; rank 2 sends twice, and rank 0 then
 *            receives once more with MPI_ANY_SOURCE: it prints the
 *            source of each request, then of that receive.
 * Ground truth: the plain build prints "order: 1 2" (twice, sendrecv,
 * probe, mprobe, waitany, testany, waitsome), "order: 1 2 2" (mixed),
 * "order: 2" (blocked, barrier, allreduce) and "order: 1 1 1 2 2 2"
 * (loop).  Ranks beyond 2 only take part in
 * MPI_Init, MPI_Finalize and the collectives.  stdout: that one line
 * (and the times above), from rank 0.
 */
#include <mpi.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#define CALLS 4000000
#define SPIN_MS 150
#define ROUNDS 3
#define TAG 7

static volatile unsigned long sink;

__attribute__((noinline)) static void leaf(unsigned long i)
{
    sink += i ^ (i >> 3);
}

static void compute(long calls)
{
    for (long i = 0; i < calls; i++)
        leaf((unsigned long)i);
}

/* CPU time: on a loaded node the spin is then SPIN_MS of work, as
 * rank 1's is. */
static double now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return ts.tv_sec * 1e3 + ts.tv_nsec * 1e-6;
}

static void spin(double ms)
{
    double end = now_ms() + ms;
    while (now_ms() < end)
        ;
}

static int receive_one(int sendrecv, int probe)
{
    int from = -1;
    MPI_Status st;
    if (probe >= 3) {
        MPI_Message msg;
        int flag = 0;
        while (probe == 3 && !flag)
            MPI_Improbe(MPI_ANY_SOURCE, TAG, MPI_COMM_WORLD, &flag, &msg, &st);
        if (probe == 4)
            MPI_Mprobe(MPI_ANY_SOURCE, TAG, MPI_COMM_WORLD, &msg, &st);
        MPI_Mrecv(&from, 1, MPI_INT, &msg, &st);
        return st.MPI_SOURCE == from ? from : -from;
    }
    if (probe == 1) {
        int flag = 0;
        while (!flag)
            MPI_Iprobe(MPI_ANY_SOURCE, TAG, MPI_COMM_WORLD, &flag, &st);
    } else if (probe == 2)
        MPI_Probe(MPI_ANY_SOURCE, TAG, MPI_COMM_WORLD, &st);
    if (probe == 1 || probe == 2) {
        int src = st.MPI_SOURCE;
        MPI_Recv(&from, 1, MPI_INT, src, TAG, MPI_COMM_WORLD, &st);
    } else if (sendrecv) {
        int me = 0, nothing = 0;
        MPI_Sendrecv(&nothing, 0, MPI_INT, me, 9, &from, 1, MPI_INT, MPI_ANY_SOURCE, TAG,
                     MPI_COMM_WORLD, &st);
        int dummy;
        MPI_Recv(&dummy, 0, MPI_INT, me, 9, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    } else
        MPI_Recv(&from, 1, MPI_INT, MPI_ANY_SOURCE, TAG, MPI_COMM_WORLD, &st);
    return st.MPI_SOURCE == from ? from : -from;
}

/* Completes reqs[0..2) by MPI_Waitany, polling MPI_Testany or
 * MPI_Waitsome (how), into st[index]. */
static void complete_two(const char *how, MPI_Request *reqs, MPI_Status *st)
{
    int index, done = 0, flag, idx[2];
    MPI_Status one, some[2];
    while (done < 2) {
        if (strcmp(how, "waitsome") == 0) {
            int n;
            MPI_Waitsome(2, reqs, &n, idx, some);
            for (int k = 0; k < n; k++)
                st[idx[k]] = some[k];
            done += n;
            continue;
        }
        flag = 1;
        if (strcmp(how, "testany") == 0)
            MPI_Testany(2, reqs, &index, &flag, &one);
        else
            MPI_Waitany(2, reqs, &index, &one);
        if (flag && index != MPI_UNDEFINED) {
            st[index] = one;
            done++;
        }
    }
}

/* Two MPI_Irecv posted at once (the second from rank 2 in "mixed"),
 * completed as complete_two does: the source that each request (in
 * posting order) received, as "order: A B" ("mixed": and a third
 * wildcard receive's). */
static void receive_two(const char *how, char *line, size_t len)
{
    int from[3] = {-1, -1, -1}, mixed = strcmp(how, "mixed") == 0;
    MPI_Request req[2];
    MPI_Status st[2];
    for (int i = 0; i < 2; i++)
        MPI_Irecv(&from[i], 1, MPI_INT, mixed && i == 1 ? 2 : MPI_ANY_SOURCE, TAG,
                  MPI_COMM_WORLD, &req[i]);
    complete_two(how, req, st);
    for (int i = 0; i < 2; i++)
        if (st[i].MPI_SOURCE != from[i])
            from[i] = -from[i];
    if (!mixed) {
        snprintf(line, len, "order: %d %d", from[0], from[1]);
        return;
    }
    from[2] = receive_one(0, 0);
    snprintf(line, len, "order: %d %d %d", from[0], from[1], from[2]);
}

/* The blocked case with rank 1 in a collective (barrier, allreduce). */
static void blocked_in_collective(int rank, const char *mode)
{
    int v = rank, sum = 0;
    MPI_Comm split;
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = MPI_Wtime();
    if (rank == 0) {
        int from = receive_one(0, 0);
        printf("received: %.0f\norder: %d\n", (MPI_Wtime() - t0) * 1e3, from);
    } else if (rank == 2) {
        spin(SPIN_MS);
        printf("sent: %.0f\n", (MPI_Wtime() - t0) * 1e3);
        MPI_Send(&v, 1, MPI_INT, 0, TAG, MPI_COMM_WORLD);
    }
    if (strcmp(mode, "allreduce") == 0) {
        MPI_Allreduce(&v, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    } else if (strcmp(mode, "split") == 0) {
        MPI_Comm_split(MPI_COMM_WORLD, 0, rank, &split);
        MPI_Comm_free(&split);
    } else {
        MPI_Barrier(MPI_COMM_WORLD);
    }
}

int main(int argc, char **argv)
{
    int rank, size;
    const char *mode = argc > 1 ? argv[1] : "twice";
    int rounds = strcmp(mode, "loop") == 0 ? ROUNDS : 1;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (strcmp(mode, "blocked") == 0) {
        int v = rank;
        MPI_Request req;
        if (rank == 0) {
            printf("order: %d\n", receive_one(0, 0));
            MPI_Send(&v, 1, MPI_INT, 1, TAG, MPI_COMM_WORLD);
        } else if (rank == 1) {
            MPI_Irecv(&v, 1, MPI_INT, 0, TAG, MPI_COMM_WORLD, &req);
            MPI_Wait(&req, MPI_STATUS_IGNORE);
        } else if (rank == 2) {
            spin(SPIN_MS);
            MPI_Send(&v, 1, MPI_INT, 0, TAG, MPI_COMM_WORLD);
        }
    } else if (strcmp(mode, "barrier") == 0 || strcmp(mode, "allreduce") == 0 ||
               strcmp(mode, "split") == 0) {
        blocked_in_collective(rank, mode);
    } else if (rank == 0 && (strcmp(mode, "waitany") == 0 || strcmp(mode, "testany") == 0 ||
                             strcmp(mode, "waitsome") == 0 || strcmp(mode, "mixed") == 0)) {
        char line[64];
        receive_two(mode, line, sizeof line);
        printf("%s\n", line);
    } else if (rank == 0) {
        char line[64] = "order:";
        for (int i = 0; i < 2 * rounds; i++)
            snprintf(line + strlen(line), sizeof line - strlen(line), " %d",
                     receive_one(strcmp(mode, "sendrecv") == 0,
                                 strcmp(mode, "probe") == 0    ? i + 1
                                 : strcmp(mode, "mprobe") == 0 ? i + 3
                                                               : 0));
        printf("%s\n", line);
    } else if (rank == 1 || rank == 2) {
        if (rank == 2)
            spin(SPIN_MS);
        if (rank == 2 && strcmp(mode, "mixed") == 0)
            rounds = 2;
        MPI_Request req;
        int persistent = strcmp(mode, "persistent") == 0;
        if (persistent)
            MPI_Send_init(&rank, 1, MPI_INT, 0, TAG, MPI_COMM_WORLD, &req);
        for (int r = 0; r < rounds; r++) {
            if (rank == 1)
                compute(r == 0 ? CALLS : CALLS / 40);
            if (persistent) {
                MPI_Start(&req);
                MPI_Wait(&req, MPI_STATUS_IGNORE);
            } else {
                MPI_Send(&rank, 1, MPI_INT, 0, TAG, MPI_COMM_WORLD);
            }
        }
        if (persistent)
            MPI_Request_free(&req);
    }
    MPI_Finalize();
    return 0;
}
