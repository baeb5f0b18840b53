/*
 * live_top.c - the refreshing view of hprof-query --live (live_top.h).
 */
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <sys/stat.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>
#include "live_top.h"
#include "query/qlive.h"

static struct termios saved_tty;
static int tty_changed;

/* stdin read key by key, without echo, when it is a terminal. */
static void keys_unbuffered(void)
{
    struct termios raw;
    if (!isatty(STDIN_FILENO) || tcgetattr(STDIN_FILENO, &saved_tty) != 0)
        return;
    raw = saved_tty;
    raw.c_lflag &= (tcflag_t) ~(ICANON | ECHO);
    raw.c_cc[VMIN] = 1;
    raw.c_cc[VTIME] = 0;
    tty_changed = tcsetattr(STDIN_FILENO, TCSANOW, &raw) == 0;
}

static void keys_restore(void)
{
    if (tty_changed)
        tcsetattr(STDIN_FILENO, TCSANOW, &saved_tty);
}

/* Waits up to ms for the interval to pass; 1 when the reader quits (q,
 * or the end of a terminal's input). */
static int wait_for_quit(int ms)
{
    struct pollfd p = {STDIN_FILENO, POLLIN, 0};
    if (!tty_changed) {
        poll(NULL, 0, ms);
        return 0;
    }
    while (poll(&p, 1, ms) > 0) {
        char c;
        ssize_t n = read(STDIN_FILENO, &c, 1);
        if (n <= 0 || c == 'q' || c == 'Q')
            return 1;
    }
    return 0;
}

static int live_dir_exists(const char *path)
{
    char dir[4096];
    struct stat st;
    hpq_live_dir(path, dir, sizeof dir);
    return stat(dir, &st) == 0;
}

int hpq_live_top(const char *path, double interval, int (*frame)(void *arg, FILE *out),
                 void *arg)
{
    int status = 0, on_screen = isatty(STDOUT_FILENO);
    keys_unbuffered();
    for (unsigned n = 1;; n++) {
        if (on_screen)
            fputs("\033[H\033[2J", stdout);
        else
            printf("--- frame %u ---\n", n);
        status = frame(arg, stdout);
        fflush(stdout);
        if (wait_for_quit((int)(interval * 1000)) || !live_dir_exists(path))
            break;
    }
    keys_restore();
    return live_dir_exists(path) ? status : 0;
}
