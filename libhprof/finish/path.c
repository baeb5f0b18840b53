/*
 * path.c - where the profile goes (hp_process.h): HPROF_OUTPUT as a file,
 * a directory or unset; never an existing file; never a path longer than
 * the writer accepts (a short name in the same directory instead, else in
 * the current one); nothing at all, with one line saying why, when
 * HPROF_OUTPUT names a device or a directory that does not exist.
 */
#include <assert.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include "hp_config.h"
#include "hp_log.h"
#include "hp_process.h"

/* Room kept after a path for ".partial", ".rank<N>" and ".<n>". */
#define SUFFIX_ROOM 40

static int exists(const char *p)
{
    struct stat st;
    return stat(p, &st) == 0;
}

static int is_dir(const char *p)
{
    struct stat st;
    return stat(p, &st) == 0 && S_ISDIR(st.st_mode);
}

/* Something there that is neither a regular file nor a directory. */
static int is_special(const char *p)
{
    struct stat st;
    return stat(p, &st) == 0 && !S_ISREG(st.st_mode) && !S_ISDIR(st.st_mode);
}

static const char *base_name(const char *p)
{
    const char *s = strrchr(p, '/');
    return s ? s + 1 : p;
}

/* The run's time stamp: set once for all ranks at MPI_Init (rank 0's),
 * so that the files the ranks of a dying run write alone share a name. */
static char run_stamp[32];

static void time_stamp(char *buf, size_t len)
{
    if (run_stamp[0]) {
        snprintf(buf, len, "%s", run_stamp);
        return;
    }
    time_t now = time(NULL);
    struct tm tm;
    localtime_r(&now, &tm);
    strftime(buf, len, "%Y%m%d-%H%M%S", &tm);
}

void hp_process_run_stamp(char *buf, size_t len)
{
    time_stamp(buf, len);
}

void hp_process_set_run_stamp(const char *stamp)
{
    snprintf(run_stamp, sizeof run_stamp, "%s", stamp);
}

/* The directory part of HPROF_OUTPUT into dir ("" for none), and the file
 * name into name (NULL when HPROF_OUTPUT is a directory or unset). */
static const char *split_output(const char *out, char *dir, size_t len)
{
    dir[0] = 0;
    if (!out)
        return NULL;
    size_t n = strlen(out);
    if (out[n - 1] == '/' || is_dir(out)) {
        snprintf(dir, len, "%.*s", (int)(out[n - 1] == '/' && n > 1 ? n - 1 : n), out);
        return NULL;
    }
    const char *name = base_name(out);
    if (name > out)
        snprintf(dir, len, "%.*s", (int)(name == out + 1 ? 1 : name - out - 1), out);
    return name;
}

/* dir joined with name into buf (no "/" when dir is empty). */
static void join(char *buf, size_t len, const char *dir, const char *name)
{
    snprintf(buf, len, "%s%s%s", dir, *dir && strcmp(dir, "/") ? "/" : "", name);
}

/* "<name without .hpf>[.<tag>].hpf", or "hprof-<program>-<stamp>[.<tag>].hpf". */
static void file_name(const char *name, const char *program, const char *tag, char *buf,
                      size_t len)
{
    const char *dot = tag ? "." : "", *t = tag ? tag : "";
    if (name) {
        size_t n = strlen(name);
        int ext = n > 4 && strcmp(name + n - 4, ".hpf") == 0;
        snprintf(buf, len, "%.*s%s%s%s", (int)(ext ? n - 4 : n), name, dot, t,
                 ext ? ".hpf" : "");
    } else {
        char stamp[32];
        time_stamp(stamp, sizeof stamp);
        snprintf(buf, len, "hprof-%s-%s%s%s.hpf", base_name(program), stamp, dot, t);
    }
}

/* The short name used when the wanted path is too long. */
static void short_name(const char *tag, char *buf, size_t len)
{
    char stamp[32];
    time_stamp(stamp, sizeof stamp);
    snprintf(buf, len, "hprof-%s-%ld%s%s.hpf", stamp, (long)getpid(), tag ? "." : "",
             tag ? tag : "");
}

void hp_process_unused_path(char *path, size_t len)
{
    if (!exists(path))
        return;
    char wanted[PATH_MAX];
    snprintf(wanted, sizeof wanted, "%s", path);
    for (int i = 1; exists(path); i++)
        snprintf(path, len, "%s.%d", wanted, i);
    hp_warn("%s exists; writing the profile to %s instead", wanted, path);
}

/* A path that fits maxlen for the wanted one that does not: the short
 * name in dir, else in the current directory; one warning. */
static void shorten(const char *want, const char *dir, const char *tag, size_t maxlen,
                    char *path, size_t len)
{
    char name[128];
    short_name(tag, name, sizeof name);
    join(path, len, dir, name);
    if (strlen(path) > maxlen || strlen(dir) >= PATH_MAX)
        snprintf(path, len, "%s", name);
    hp_warn("the profile path (%zu characters) is longer than %zu: writing the profile "
            "to %s instead", strlen(want), maxlen, path);
}

int hp_process_profile_path(const char *program, const char *tag, size_t maxlen, char *path,
                            size_t len)
{
    static char dir[2 * PATH_MAX], name[2 * PATH_MAX], want[4 * PATH_MAX + 8];
    const char *out = hp_cfg.output;

    assert(len > 0);
    if (maxlen + 1 > len)
        maxlen = len - 1;
    if (maxlen > PATH_MAX - SUFFIX_ROOM)
        maxlen = PATH_MAX - SUFFIX_ROOM;
    path[0] = 0;
    if (out && is_special(out)) {
        hp_warn("HPROF_OUTPUT=%s is neither a file nor a directory: no profile written", out);
        return -1;
    }
    const char *given = split_output(out, dir, sizeof dir);
    file_name(given, program, tag, name, sizeof name);
    join(want, sizeof want, dir, name);
    if (*dir && strlen(dir) < PATH_MAX && !is_dir(dir)) {
        hp_warn("cannot write profile %s: directory %s %s", want, dir,
                exists(dir) ? "is not a directory" : "does not exist");
        return -1;
    }
    if (strlen(want) <= maxlen)
        snprintf(path, len, "%s", want);
    else
        shorten(want, dir, tag, maxlen, path, len);
    hp_process_unused_path(path, len);
    return 0;
}
