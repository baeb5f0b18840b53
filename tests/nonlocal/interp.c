/*
 * interp.c - ground truth for non-local exits (tests/nonlocal/run.sh): an
 * interpreter-like program whose protected calls are left by longjmp,
 * siglongjmp out of a signal handler, pthread_exit from a nested function
 * and exit() from a nested function.  No MPI; the profile is written at
 * exit.  spin() is not instrumented (tier 1: no_instrument_function;
 * tier 2: #pragma hprof noinstrument), so it is time without nodes.
 *
 * Protected calls: main calls pcall(i) for i = 0 .. NCALLS-1; pcall sets a
 * jmp_buf with setjmp and calls level1(i) -> level2(i) -> level3(i, 2) ->
 * level3(i, 1) -> level3(i, 0) (direct recursion).  Odd i fail: at level
 * d = 1 + (i / 2) % 3 they call throw_error(), which longjmps back to
 * pcall, skipping 2 to 6 frames (level3 throws from its innermost
 * activation).  Each level spins SPIN_US before deciding (level3 in its
 * innermost activation only); fails_at(i) is called once per level.  Calls:
 *   pcall 600, level1 600, level2 500, level3 1200 (400 outermost
 *   activations), throw_error 300 (100 from each level), fails_at 1500;
 *   inclusive times at least the spins inside: level1 1500 x SPIN_US
 *   (300 calls x 3 spins + 100 x 1 + 100 x 2 + 100 x 3), level2 900 x
 *   SPIN_US (300 x 2 + 100 x 1 + 100 x 2), level3 400 x SPIN_US;
 *   pcall's time <= the wall time of the loop around it, printed on stderr
 *   as "interp-wall: pcall SECONDS".
 * Signals: sig_pcall() is called NSIG_CALLS = 100 times; it sets a
 * sigjmp_buf and calls sig_body, which spins SPIN_US and raises SIGUSR1;
 * the handler on_signal (on the same stack) spins SPIN_US and siglongjmps
 * back.  100 calls each; sig_body >= 200 x SPIN_US, on_signal >= 100 x.
 * Threads: one thread runs worker -> deep1 (spins THREAD_MS) -> deep2
 * (spins THREAD_MS, then pthread_exit).  1 call each; deep1 >= 2 x
 * THREAD_MS; worker's time <= the time from pthread_create to
 * pthread_join, printed as "interp-wall: thread SECONDS"; main then spins
 * AFTER_MS, which frames left open until the end would wrongly include.
 * Exit: main calls finish() -> finish_deep(), which calls exit(0): main,
 * finish and finish_deep 1 call each, each with a time.
 * The tree: one procedure node per function (level3's recursion and the
 * repeated protected calls fold onto the same nodes) but throw_error and
 * fails_at, called from each of the 3 levels: 3 nodes each; 19 procedure
 * nodes.  All nodes: tier 1 (-O0), a call-site node above every procedure
 * node, level3's recursive call site, root and <overflow>: 41; tier 2,
 * the procedure nodes, a call-statement node for each call of an
 * instrumented or spin/now function (22), the loops of main (2), level3's
 * recursive call, root and <overflow>... 52 as counted by run.sh's
 * comment.
 *
 * usage: interp   (stdout is the same with and without hprof)
 */
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#define NCALLS 600
#define NSIG_CALLS 100
#define SPIN_US 100
#define THREAD_MS 20
#define AFTER_MS 60

#define NOINST __attribute__((no_instrument_function))

static jmp_buf *handler;       /* the innermost protected call's buffer */
static sigjmp_buf sig_env;
static long work_done;         /* what the levels computed */

#pragma hprof noinstrument
static NOINST double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static NOINST void spin(double us)
{
    double end = now() + us * 1e-6;
    while (now() < end)
        ;
}
#pragma hprof instrument

static int fails_at(int i)
{
    return i % 2 ? 1 + (i / 2) % 3 : 0;
}

static void throw_error(void)
{
    longjmp(*handler, 1);
}

static void level3(int i, int k)
{
    if (k > 0) {
        level3(i, k - 1);
        return;
    }
    spin(SPIN_US);
    if (fails_at(i) == 3)
        throw_error();
    work_done += 3;
}

static void level2(int i)
{
    spin(SPIN_US);
    if (fails_at(i) == 2)
        throw_error();
    level3(i, 2);
    work_done += 2;
}

static void level1(int i)
{
    spin(SPIN_US);
    if (fails_at(i) == 1)
        throw_error();
    level2(i);
    work_done += 1;
}

static int pcall(int i)
{
    jmp_buf jb, *saved = handler;
    handler = &jb;
    int status = setjmp(jb);
    if (status == 0)
        level1(i);
    handler = saved;
    return status;
}

static void on_signal(int sig)
{
    (void)sig;
    spin(SPIN_US);
    siglongjmp(sig_env, 1);
}

static void sig_body(void)
{
    spin(SPIN_US);
    raise(SIGUSR1);
}

static int sig_pcall(void)
{
    if (sigsetjmp(sig_env, 1) == 0) {
        sig_body();
        return 0;
    }
    return 1;
}

static void deep2(void)
{
    spin(THREAD_MS * 1000);
    pthread_exit(NULL);
}

static void deep1(void)
{
    spin(THREAD_MS * 1000);
    deep2();
}

static void *worker(void *arg)
{
    deep1();
    return arg;
}

static void finish_deep(int errors, int signals)
{
    printf("interp: %d errors caught, %d signals caught, work %ld\n", errors, signals,
           work_done);
    exit(0);
}

static void finish(int errors, int signals)
{
    finish_deep(errors, signals);
}

int main(void)
{
    int errors = 0, signals = 0;
    double t0 = now();
    for (int i = 0; i < NCALLS; i++)
        errors += pcall(i);
    fprintf(stderr, "interp-wall: pcall %.9f\n", now() - t0);

    signal(SIGUSR1, on_signal);
    for (int i = 0; i < NSIG_CALLS; i++)
        signals += sig_pcall();

    pthread_t th;
    t0 = now();
    pthread_create(&th, NULL, worker, NULL);
    pthread_join(th, NULL);
    fprintf(stderr, "interp-wall: thread %.9f\n", now() - t0);
    spin(AFTER_MS * 1000);

    finish(errors, signals);
    return 1;
}
