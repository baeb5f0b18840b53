/*
 * probes.c - hprof integration test (tests/mpi/run.sh): probes, matched
 * probes and every completion call of nonblocking receives.  Ranks 1 and 2
 * send, rank 0 receives:
 *  1. MPI_Probe (pr-probe) + MPI_Recv (pr-recv) of 10 ints from rank 1;
 *  2. MPI_Iprobe loop with MPI_ANY_SOURCE (pr-iprobe) + MPI_Recv (pr-recv2)
 *     of 6 doubles from rank 2;
 *  3. two MPI_Mprobe with MPI_ANY_SOURCE (pr-mprobe) + MPI_Mrecv (pr-mrecv):
 *     3 doubles from rank 1 and 5 doubles from rank 2 (pr-send3);
 *  4. MPI_Improbe loop (pr-improbe) + MPI_Imrecv (pr-imrecv) + MPI_Wait
 *     (pr-imrecv-wait) of 7 ints from rank 2;
 *  5. for f = 0..5, two MPI_Irecv on one line (pr-irecv-F, one from rank 1
 *     and one from rank 2, 8*s+f ints from rank s) completed by MPI_Waitany,
 *     MPI_Waitsome, MPI_Testany, MPI_Testsome, MPI_Test, MPI_Testall loops
 *     (F = waitany, waitsome, testany, testsome, test, testall); the
 *     senders (pr-send-multi) sleep 10 ms before each of these sends;
 *  6. MPI_Irecv of 12 ints from rank 1 (pr-irecv-flag0), 5 MPI_Test calls
 *     that must return flag 0 (pr-test-flag0; rank 1 sends only after the
 *     barrier pr-flag0-barrier), then MPI_Wait (pr-wait-flag0).
 * Ground truth (rank 0): pr-recv peer 1 count 1 40 B; pr-recv2 peer 2 48 B;
 * pr-mrecv peer 1 24 B and peer 2 40 B; pr-imrecv peer 2 28 B; pr-irecv-F
 * peer 1 (8+f)*4 B and peer 2 (16+f)*4 B, node count 2; pr-irecv-flag0
 * peer 1 count 1 48 B; probe and completion sites have nodes but no comm
 * records; pr-test-flag0 node count 5.  Rank 0 prints a checksum and how
 * many of the 5 flag-0 tests completed (0).  Needs exactly 3 ranks.
 */
#include <mpi.h>
#include <stdio.h>
#include <time.h>

static void sleep_ms(long ms)
{
    struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};
    while (nanosleep(&ts, &ts) != 0)
        ;
}

static const char *phase_name[6] = {"waitany", "waitsome", "testany", "testsome", "test", "testall"};

int main(int argc, char **argv)
{
    int rank, size, n, flag;
    int ibuf[64];
    double dbuf[64];
    long check = 0;
    MPI_Status st;
    MPI_Message msg;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (size != 3) {
        if (rank == 0)
            fprintf(stderr, "probes: needs exactly 3 ranks\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    for (int i = 0; i < 64; i++) {
        ibuf[i] = 10 * rank + i;
        dbuf[i] = 100.0 * rank + i;
    }

    if (rank == 0) {
        /* 1. Probe + Recv */
        MPI_Probe(1, 1, MPI_COMM_WORLD, &st); /* MARK:pr-probe */
        MPI_Get_count(&st, MPI_INT, &n);
        MPI_Recv(ibuf, n, MPI_INT, st.MPI_SOURCE, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE); /* MARK:pr-recv */
        for (int i = 0; i < n; i++)
            check += ibuf[i];
        /* 2. Iprobe loop + Recv */
        flag = 0;
        while (!flag)
            MPI_Iprobe(MPI_ANY_SOURCE, 2, MPI_COMM_WORLD, &flag, &st); /* MARK:pr-iprobe */
        MPI_Get_count(&st, MPI_DOUBLE, &n);
        MPI_Recv(dbuf, n, MPI_DOUBLE, st.MPI_SOURCE, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE); /* MARK:pr-recv2 */
        for (int i = 0; i < n; i++)
            check += (long)dbuf[i];
        /* 3. Mprobe (any source) + Mrecv, twice */
        for (int k = 0; k < 2; k++) {
            MPI_Mprobe(MPI_ANY_SOURCE, 3, MPI_COMM_WORLD, &msg, &st); /* MARK:pr-mprobe */
            MPI_Get_count(&st, MPI_DOUBLE, &n);
            MPI_Mrecv(dbuf, n, MPI_DOUBLE, &msg, MPI_STATUS_IGNORE); /* MARK:pr-mrecv */
            for (int i = 0; i < n; i++)
                check += (long)dbuf[i];
        }
        /* 4. Improbe loop + Imrecv + Wait */
        {
            MPI_Request rq;
            flag = 0;
            while (!flag)
                MPI_Improbe(2, 4, MPI_COMM_WORLD, &flag, &msg, MPI_STATUS_IGNORE); /* MARK:pr-improbe */
            MPI_Imrecv(ibuf, 7, MPI_INT, &msg, &rq); /* MARK:pr-imrecv */
            MPI_Wait(&rq, MPI_STATUS_IGNORE); /* MARK:pr-imrecv-wait */
            for (int i = 0; i < 7; i++)
                check += ibuf[i];
        }
        /* 5. Irecv from ranks 1 and 2 completed by each completion call */
        for (int f = 0; f < 6; f++) {
            static int in[2][32];
            MPI_Request rq[2];
            int done = 0, idx, out, idxs[2];
            switch (f) {
            case 0:
                for (int k = 0; k < 2; k++)
                    MPI_Irecv(in[k], 32, MPI_INT, k + 1, 10 + f, MPI_COMM_WORLD, &rq[k]); /* MARK:pr-irecv-waitany */
                for (int k = 0; k < 2; k++)
                    MPI_Waitany(2, rq, &idx, MPI_STATUS_IGNORE); /* MARK:pr-waitany */
                break;
            case 1:
                for (int k = 0; k < 2; k++)
                    MPI_Irecv(in[k], 32, MPI_INT, k + 1, 10 + f, MPI_COMM_WORLD, &rq[k]); /* MARK:pr-irecv-waitsome */
                while (done < 2) {
                    MPI_Waitsome(2, rq, &out, idxs, MPI_STATUSES_IGNORE); /* MARK:pr-waitsome */
                    done += out;
                }
                break;
            case 2:
                for (int k = 0; k < 2; k++)
                    MPI_Irecv(in[k], 32, MPI_INT, k + 1, 10 + f, MPI_COMM_WORLD, &rq[k]); /* MARK:pr-irecv-testany */
                while (done < 2) {
                    MPI_Testany(2, rq, &idx, &flag, MPI_STATUS_IGNORE); /* MARK:pr-testany */
                    if (flag && idx != MPI_UNDEFINED)
                        done++;
                }
                break;
            case 3:
                for (int k = 0; k < 2; k++)
                    MPI_Irecv(in[k], 32, MPI_INT, k + 1, 10 + f, MPI_COMM_WORLD, &rq[k]); /* MARK:pr-irecv-testsome */
                while (done < 2) {
                    MPI_Testsome(2, rq, &out, idxs, MPI_STATUSES_IGNORE); /* MARK:pr-testsome */
                    if (out != MPI_UNDEFINED)
                        done += out;
                }
                break;
            case 4:
                for (int k = 0; k < 2; k++)
                    MPI_Irecv(in[k], 32, MPI_INT, k + 1, 10 + f, MPI_COMM_WORLD, &rq[k]); /* MARK:pr-irecv-test */
                while (done < 2)
                    for (int k = 0; k < 2; k++)
                        if (rq[k] != MPI_REQUEST_NULL) {
                            MPI_Test(&rq[k], &flag, MPI_STATUS_IGNORE); /* MARK:pr-test */
                            done += flag;
                        }
                break;
            default:
                for (int k = 0; k < 2; k++)
                    MPI_Irecv(in[k], 32, MPI_INT, k + 1, 10 + f, MPI_COMM_WORLD, &rq[k]); /* MARK:pr-irecv-testall */
                flag = 0;
                while (!flag)
                    MPI_Testall(2, rq, &flag, MPI_STATUSES_IGNORE); /* MARK:pr-testall */
                break;
            }
            long s = 0;
            for (int k = 0; k < 2; k++)
                for (int i = 0; i < 8 * (k + 1) + f; i++)
                    s += in[k][i];
            printf("probes: %s sum %ld\n", phase_name[f], s);
            check += s;
        }
        /* 6. Tests that must return flag 0 */
        {
            MPI_Request rq;
            int completed = 0;
            MPI_Irecv(ibuf, 12, MPI_INT, 1, 30, MPI_COMM_WORLD, &rq); /* MARK:pr-irecv-flag0 */
            for (int k = 0; k < 5; k++) {
                MPI_Test(&rq, &flag, MPI_STATUS_IGNORE); /* MARK:pr-test-flag0 */
                completed += flag;
            }
            MPI_Barrier(MPI_COMM_WORLD); /* MARK:pr-flag0-barrier */
            MPI_Wait(&rq, MPI_STATUS_IGNORE); /* MARK:pr-wait-flag0 */
            for (int i = 0; i < 12; i++)
                check += ibuf[i];
            printf("probes: %d of 5 early tests completed\n", completed);
        }
    } else {
        if (rank == 1)
            MPI_Send(ibuf, 10, MPI_INT, 0, 1, MPI_COMM_WORLD); /* MARK:pr-send1 */
        else
            MPI_Send(dbuf, 6, MPI_DOUBLE, 0, 2, MPI_COMM_WORLD); /* MARK:pr-send2 */
        MPI_Send(dbuf, rank == 1 ? 3 : 5, MPI_DOUBLE, 0, 3, MPI_COMM_WORLD); /* MARK:pr-send3 */
        if (rank == 2)
            MPI_Send(ibuf, 7, MPI_INT, 0, 4, MPI_COMM_WORLD); /* MARK:pr-send4 */
        for (int f = 0; f < 6; f++) {
            sleep_ms(10);
            MPI_Send(ibuf, 8 * rank + f, MPI_INT, 0, 10 + f, MPI_COMM_WORLD); /* MARK:pr-send-multi */
        }
        MPI_Barrier(MPI_COMM_WORLD); /* MARK:pr-flag0-barrier-senders */
        if (rank == 1)
            MPI_Send(ibuf, 12, MPI_INT, 0, 30, MPI_COMM_WORLD); /* MARK:pr-send-flag0 */
    }

    long total;
    MPI_Reduce(&check, &total, 1, MPI_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
    if (rank == 0)
        printf("probes: checksum %ld\n", total);
    MPI_Finalize();
    return 0;
}
