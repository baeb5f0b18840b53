/*
 * log.c - warnings and verbose messages of the runtime.  One write(2) per
 * line so lines from several ranks do not interleave mid-line.
 */
#include <stdarg.h>
#include <stdio.h>
#include <unistd.h>
#include "hp_log.h"

static int log_rank = -1;
static int verbose;

void hp_log_set_rank(int rank)
{
    log_rank = rank;
}

void hp_log_set_verbose(int level)
{
    verbose = level;
}

int hp_log_verbose(void)
{
    return verbose;
}

static void emit(const char *fmt, va_list ap)
{
    char line[1024];
    int n = log_rank >= 0 ? snprintf(line, sizeof line, "hprof[%d]: ", log_rank)
                          : snprintf(line, sizeof line, "hprof: ");
    int m = vsnprintf(line + n, sizeof line - n - 1, fmt, ap);
    if (m < 0)
        return;
    size_t len = (size_t)n + ((size_t)m < sizeof line - n - 1 ? (size_t)m : sizeof line - n - 2);
    line[len++] = '\n';
    ssize_t w = write(STDERR_FILENO, line, len);
    (void)w;
}

void hp_warn(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    emit(fmt, ap);
    va_end(ap);
}

void hp_info(const char *fmt, ...)
{
    if (!verbose)
        return;
    va_list ap;
    va_start(ap, fmt);
    emit(fmt, ap);
    va_end(ap);
}
