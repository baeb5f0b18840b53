/*
 * crash.c - the records of a process that dies (hp_crash.h): the signal
 * handlers, the thread that writes for them, and the hand-over of the
 * signal to its previous disposition.
 */
#define _GNU_SOURCE
#include <assert.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include "hp_config.h"
#include "hp_crash.h"
#include "hp_format.h"
#include "hp_log.h"

static const int handled[] = {SIGTERM, SIGINT,  SIGHUP,  SIGXCPU, SIGUSR1, SIGUSR2,
                              SIGSEGV, SIGBUS,  SIGILL,  SIGFPE,  SIGABRT};
#define NHANDLED (sizeof handled / sizeof handled[0])

/* IDLE: nothing written yet; WRITING: the writing thread writes for a
 * dying thread; EXITING: the end of the run writes in an ordinary thread
 * (MPI_Finalize, MPI_Abort, exit), from hp_crash_claim to hp_crash_release;
 * WRITTEN: nothing more to write. */
enum { IDLE, WRITING, EXITING, WRITTEN };

static struct sigaction previous[NHANDLED];
static _Atomic int state = IDLE;
static pthread_t exiting_thread;   /* the thread that owns EXITING */
static _Atomic int held_signal;    /* a request signal it received meanwhile */
static _Atomic int program_exits;  /* EXITING was exit(): its status stands */
static pid_t armed_pid;
static int wake_fd[2] = {-1, -1}, done_fd[2] = {-1, -1};
static pthread_t writer_thread;
static _Atomic int writer_running;
static _Atomic(hp_crash_writer) writer_fn;
static pthread_mutex_t arm_lock = PTHREAD_MUTEX_INITIALIZER;

static int slot_of(int sig)
{
    for (unsigned i = 0; i < NHANDLED; i++)
        if (handled[i] == sig)
            return (int)i;
    return -1;
}

/* Signals a program may send for its own purposes: when it handles one,
 * the handler is the program's business. */
static int is_request(int sig)
{
    return sig == SIGTERM || sig == SIGINT || sig == SIGHUP || sig == SIGXCPU ||
           sig == SIGUSR1 || sig == SIGUSR2;
}

static int is_function(const struct sigaction *sa)
{
    return (sa->sa_flags & SA_SIGINFO) ||
           (sa->sa_handler != SIG_DFL && sa->sa_handler != SIG_IGN);
}

/* ---- the writing thread ---- */

static void request_signals(sigset_t *set)
{
    sigemptyset(set);
    for (unsigned i = 0; i < NHANDLED; i++)
        if (is_request(handled[i]))
            sigaddset(set, handled[i]);
}

/* Wakes the threads waiting for the records to be written (wait_written):
 * the byte stays in the pipe, so later waits return at once. */
static void announce_written(void)
{
    unsigned char done = 1;
    if (done_fd[1] >= 0)
        while (write(done_fd[1], &done, 1) < 0 && errno == EINTR)
            ;
}

/* Woken with the flags of the rank's ending (a u32: one atomic pipe
 * write), it writes the records in an ordinary context. */
static void *writer_main(void *unused)
{
    sigset_t requests;
    uint32_t flags;
    (void)unused;
    request_signals(&requests);
    pthread_sigmask(SIG_BLOCK, &requests, NULL); /* they go to the program's threads */
    for (;;) {
        ssize_t n = read(wake_fd[0], &flags, sizeof flags);
        if (n == (ssize_t)sizeof flags)
            break;
        if (n < 0 && errno == EINTR)
            continue;
        return NULL;
    }
    hp_crash_writer w = atomic_load(&writer_fn);
    if (w)
        w(flags);
    atomic_store(&state, WRITTEN);
    announce_written();
    return NULL;
}

/* A forked child (one that does not exec) holds a copy of its parent's
 * records: it writes none of them, at exit or when it dies (the parent
 * writes its own), and it has no writing thread (the pipes lead to the
 * parent's). */
static void after_fork_in_child(void)
{
    atomic_store(&writer_running, 0);
    atomic_store(&state, WRITTEN);
}

static void watch_forks(void)
{
    pthread_atfork(NULL, NULL, after_fork_in_child);
}

static void close_pipe(int fd[2])
{
    for (int i = 0; i < 2; i++)
        if (fd[i] >= 0)
            close(fd[i]);
    fd[0] = fd[1] = -1;
}

/* 0, or -1 with nothing left open. */
static int start_writer(void)
{
    pthread_attr_t attr;
    int rc = -1;
    if (pipe2(wake_fd, O_CLOEXEC) == 0 && pipe2(done_fd, O_CLOEXEC) == 0) {
        pthread_attr_init(&attr);
        pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
        rc = pthread_create(&writer_thread, &attr, writer_main, NULL);
        pthread_attr_destroy(&attr);
    }
    if (rc != 0) {
        close_pipe(wake_fd);
        close_pipe(done_fd);
        return -1;
    }
    atomic_store(&writer_running, 1);
    return 0;
}

/* ---- the handler ---- */

static void wait_written(void)
{
    struct pollfd p = {done_fd[0], POLLIN, 0};
    int left = HP_CRASH_WAIT_MS;
    while (left > 0) {
        int n = poll(&p, 1, 100);
        if (n > 0)
            return;
        if (n < 0 && errno != EINTR)
            return;
        left -= 100;
    }
}

/* Hands sig to what handled it before us: the program's handler is
 * called; the default action happens when this handler returns, as sig
 * is raised again while blocked (a fault would also recur). */
static void chain(int slot, int sig, siginfo_t *info, void *ctx)
{
    struct sigaction *old = &previous[slot];
    if (old->sa_flags & SA_SIGINFO)
        old->sa_sigaction(sig, info, ctx);
    else
        old->sa_handler(sig);
}

/* The previous disposition comes back, as the kernel would leave it had
 * the signal gone there: the default action for a one-shot handler
 * (SA_RESETHAND, as Open MPI installs its crash report), so that the
 * fault that recurs when it returns ends the process, not the handler
 * again. */
static void hand_over(int slot, int sig, siginfo_t *info, void *ctx)
{
    struct sigaction now = previous[slot];
    if (is_function(&now) && (now.sa_flags & SA_RESETHAND)) {
        now.sa_handler = SIG_DFL;
        now.sa_flags &= ~(SA_SIGINFO | SA_RESETHAND);
    }
    sigaction(sig, &now, NULL);
    if (is_function(&previous[slot]))
        chain(slot, sig, info, ctx);
    else
        raise(sig);
}

/* Wakes the writing thread with flags and waits for it: 1 when this
 * thread set it going, 0 when the records are written or being written
 * already (then it only waits for a writing under way). */
static int write_by_writer(uint32_t flags)
{
    int expected = IDLE;
    if (atomic_compare_exchange_strong(&state, &expected, WRITING)) {
        if (write(wake_fd[1], &flags, sizeof flags) == (ssize_t)sizeof flags)
            wait_written();
        return 1;
    }
    if (expected == WRITING)
        wait_written();
    return 0;
}

/* A request signal while the end of the run writes (EXITING): on the
 * thread that writes it is held, as that thread cannot wait for itself;
 * on another one its handler waits for the writing.  1 when the signal
 * is spent: the end of the run was exit(), which goes on with the
 * program's status (the signal came while hprof, not the program, kept
 * the process alive: Open MPI's SIGTERM to the ranks of a job one of
 * whose ranks exited).  Otherwise it takes its course after the writing
 * (hp_crash_release raises a held one). */
static int signal_during_end_of_run(int sig)
{
    if (pthread_equal(pthread_self(), exiting_thread)) {
        atomic_store(&held_signal, sig);
        return 1;
    }
    wait_written();
    return atomic_load(&program_exits);
}

static void on_signal(int sig, siginfo_t *info, void *ctx)
{
    int saved_errno = errno;
    int slot = slot_of(sig);
    if (slot < 0)
        return;
    int in_writer = atomic_load(&writer_running) &&
                    pthread_equal(pthread_self(), writer_thread);
    if (!in_writer && is_request(sig) && is_function(&previous[slot])) {
        chain(slot, sig, info, ctx);
        errno = saved_errno;
        return;
    }
    if (!in_writer && atomic_load(&writer_running)) {
        int st = atomic_load(&state);
        if (is_request(sig) && (st == EXITING || (st == WRITING && atomic_load(&program_exits))) &&
            signal_during_end_of_run(sig)) {
            errno = saved_errno;
            return;
        }
        write_by_writer(HP_RANKF_SIGNALED | (uint32_t)sig << HP_RANKF_SIGNAL_SHIFT);
    }
    hand_over(slot, sig, info, ctx);
    errno = saved_errno;
}

/* ---- installation ---- */

/* An alternate stack for the thread that arms the handlers (the main
 * thread): a stack overflow there still reaches the handler. */
static void use_alternate_stack(void)
{
    static char stack[64 * 1024];
    stack_t ss = {.ss_sp = stack, .ss_size = sizeof stack, .ss_flags = 0};
    stack_t cur;
    if (sigaltstack(NULL, &cur) == 0 && !(cur.ss_flags & SS_DISABLE))
        return; /* the program has one */
    sigaltstack(&ss, NULL);
}

static void install(unsigned slot)
{
    struct sigaction now, ours;
    int sig = handled[slot];
    if (sigaction(sig, NULL, &now) != 0)
        return;
    if ((now.sa_flags & SA_SIGINFO) && now.sa_sigaction == on_signal)
        return;
    if (!(now.sa_flags & SA_SIGINFO) && now.sa_handler == SIG_IGN)
        return; /* ignored (nohup): it cannot end the process */
    memset(&ours, 0, sizeof ours);
    ours.sa_sigaction = on_signal;
    ours.sa_flags = SA_SIGINFO | SA_ONSTACK | SA_RESTART;
    sigfillset(&ours.sa_mask);
    previous[slot] = now;
    sigaction(sig, &ours, NULL);
}

void hp_crash_arm(void)
{
    static pthread_once_t forks_once = PTHREAD_ONCE_INIT;
    pthread_once(&forks_once, watch_forks);
    if (!hp_cfg.signals)
        return;
    static int tried;
    pthread_mutex_lock(&arm_lock);
    if (!tried++ && (armed_pid = getpid(), start_writer() != 0))
        hp_warn("cannot start the thread that writes the records of a dying process: "
                "a signal that ends it loses them");
    if (atomic_load(&writer_running)) {
        use_alternate_stack();
        for (unsigned i = 0; i < NHANDLED; i++)
            install(i);
    }
    pthread_mutex_unlock(&arm_lock);
}

void hp_crash_set_writer(hp_crash_writer w)
{
    atomic_store(&writer_fn, w);
}

int hp_crash_claim(void)
{
    sigset_t requests, old;
    int expected = IDLE;
    request_signals(&requests);
    pthread_sigmask(SIG_BLOCK, &requests, &old); /* none between the claim and its owner */
    int won = atomic_compare_exchange_strong(&state, &expected, EXITING);
    if (won)
        exiting_thread = pthread_self();
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    return won;
}

void hp_crash_release(int exits)
{
    assert(atomic_load(&state) == EXITING || atomic_load(&state) == WRITTEN);
    atomic_store(&program_exits, exits);
    atomic_store(&state, WRITTEN);
    announce_written();
    int held = atomic_exchange(&held_signal, 0);
    if (held && !exits)
        raise(held);
}

void hp_crash_write_unfinalized(void)
{
    hp_crash_writer w = atomic_load(&writer_fn);
    if (w && hp_crash_claim()) {
        w(HP_RANKF_UNFINALIZED);
        hp_crash_release(1);
    }
}

void hp_crash_write_before_exit(uint32_t flags)
{
    if (atomic_load(&writer_running) && getpid() == armed_pid && atomic_load(&writer_fn)) {
        atomic_store(&program_exits, 1); /* a signal meanwhile is spent: _exit's status stands */
        write_by_writer(flags);
    }
}

void hp_crash_disarm(void)
{
    struct sigaction now;
    pthread_mutex_lock(&arm_lock);
    for (unsigned i = 0; i < NHANDLED; i++)
        if (sigaction(handled[i], NULL, &now) == 0 && (now.sa_flags & SA_SIGINFO) &&
            now.sa_sigaction == on_signal)
            sigaction(handled[i], &previous[i], NULL);
    pthread_mutex_unlock(&arm_lock);
}
