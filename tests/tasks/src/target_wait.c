/*
 * target_wait.c - a deferred target task run on the host (no device)
 * inside the encountering thread's taskwait, forking its own parallel
 * region there, as SOLLVE's `target ... nowait` + `taskwait` tests do
 * (tests/tasks/target_wait.sh).  The target body spins about 1 ms per
 * iteration and notes when its first iteration started and its last
 * ended; the program times the taskwait itself with omp_get_wtime.
 * Ground truth: stdout is "wait_us W body_us B" (the taskwait's own
 * time and the body's wall time, microseconds); under libgomp, where the
 * encountering thread runs the deferred task in its taskwait, the time
 * hprof records as that taskwait's wait is at most W - B: the region the
 * task forks is work, not waiting.
 */
#include <omp.h>
#include <stdio.h>

#define N 32

static double first = 1e300, last;

static void spin(double s)
{
    double t0 = omp_get_wtime();
    while (omp_get_wtime() - t0 < s)
        ;
}

int main(void)
{
    static int c[N];
    int bad = 0;

#pragma omp target teams distribute parallel for map(from: c) map(tofrom: first, last) nowait
    for (int i = 0; i < N; i++) {
        double t0 = omp_get_wtime();
        spin(0.001);
        c[i] = i;
#pragma omp critical
        {
            first = t0 < first ? t0 : first;
            last = omp_get_wtime() > last ? omp_get_wtime() : last;
        }
    }
    double w0 = omp_get_wtime();
#pragma omp taskwait /* MARK:WAIT */
    double w1 = omp_get_wtime();
    for (int i = 0; i < N; i++)
        bad += c[i] != i;
    printf("wait_us %.0f body_us %.0f bad %d\n", (w1 - w0) * 1e6, (last - first) * 1e6, bad);
    return 0;
}
