/*
 * path.c - where the profile goes (hp_process.h): HPROF_OUTPUT as a file,
 * a directory or unset; never an existing file, nor the name of an
 * earlier run's files (the run's number: NAME.hpf, then NAME.1.hpf, ...,
 * and the same for the NAME.rank<N>.hpf files of a dying run; default
 * names carry the time and the process id); never a path longer than
 * the writer accepts (a short name in the same directory instead, else in
 * the current one); nothing at all, with one line saying why, when
 * HPROF_OUTPUT names a device or a directory that does not exist.
 */
#include <assert.h>
#include <dirent.h>
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

/* The run's time stamp (time and process id) and number: set once for
 * all ranks at MPI_Init (rank 0's), so that the files the ranks of a
 * dying run write alone share a name. */
static char run_stamp[32];
static int run_number = -1;     /* not chosen yet */

static void time_stamp(char *buf, size_t len)
{
    if (run_stamp[0]) {
        snprintf(buf, len, "%s", run_stamp);
        return;
    }
    char when[16];
    time_t now = time(NULL);
    struct tm tm;
    localtime_r(&now, &tm);
    strftime(when, sizeof when, "%Y%m%d-%H%M%S", &tm);
    snprintf(buf, len, "%s-%ld", when, (long)getpid());
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

/* "<name without .hpf>[.<number>][.<tag>].hpf", or
 * "hprof-<program>-<stamp>[.<tag>].hpf". */
static void file_name(const char *name, int number, const char *program, const char *tag,
                      char *buf, size_t len)
{
    const char *dot = tag ? "." : "", *t = tag ? tag : "";
    if (name) {
        size_t n = strlen(name);
        int ext = n > 4 && strcmp(name + n - 4, ".hpf") == 0;
        char num[16] = "";
        if (number > 0)
            snprintf(num, sizeof num, ".%d", number);
        snprintf(buf, len, "%.*s%s%s%s%s", (int)(ext ? n - 4 : n), name, num, dot, t,
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
    snprintf(buf, len, "hprof-%s%s%s.hpf", stamp, tag ? "." : "", tag ? tag : "");
}

/* Does dir hold a file "<stem>.rank<N>[.hpf]" (a dying run's)? */
static int holds_rank_files(const char *dir, const char *stem)
{
    DIR *d = opendir(*dir ? dir : ".");
    struct dirent *e;
    size_t n = strlen(stem);
    int found = 0;
    while (d && !found && (e = readdir(d)) != NULL) {
        const char *p = e->d_name;
        if (strncmp(p, stem, n) != 0 || strncmp(p + n, ".rank", 5) != 0)
            continue;
        p += n + 5;
        if (*p < '0' || *p > '9')
            continue;
        while (*p >= '0' && *p <= '9')
            p++;
        found = !*p || strcmp(p, ".hpf") == 0;
    }
    if (d)
        closedir(d);
    return found;
}

/* Is the profile name `name` in dir an earlier run's: its file or its
 * ranks' own files?  (NAME.hpf.partial is not: a write under way, or a
 * stale one the writer works around.) */
static int run_name_taken(const char *dir, const char *name)
{
    char path[2 * PATH_MAX + 16], stem[PATH_MAX];
    size_t n = strlen(name);
    int ext = n > 4 && strcmp(name + n - 4, ".hpf") == 0;
    snprintf(stem, sizeof stem, "%.*s", (int)(ext ? n - 4 : n), name);
    join(path, sizeof path, dir, name);
    return exists(path) || holds_rank_files(dir, stem);
}

/* The first run number whose names HPROF_OUTPUT's file name leaves free
 * (0 for default names: their stamp is the run's own). */
static int free_run_number(void)
{
    char dir[PATH_MAX], name[PATH_MAX + 32];
    if (hp_cfg.output && is_special(hp_cfg.output))
        return 0;
    const char *given = split_output(hp_cfg.output, dir, sizeof dir);
    if (!given || (*dir && !is_dir(dir)))
        return 0;
    for (int number = 0; number < 100000; number++) {
        file_name(given, number, NULL, NULL, name, sizeof name);
        if (!run_name_taken(dir, name))
            return number;
    }
    return 0;
}

void hp_process_run_stamp(char *buf, size_t len)
{
    char stamp[32];
    time_stamp(stamp, sizeof stamp);
    snprintf(buf, len, "%s/%d", stamp, free_run_number());
}

void hp_process_set_run_stamp(const char *stamp)
{
    const char *slash = strchr(stamp, '/');
    size_t n = slash ? (size_t)(slash - stamp) : strlen(stamp);
    snprintf(run_stamp, sizeof run_stamp, "%.*s", (int)n, stamp);
    run_number = slash ? atoi(slash + 1) : 0;
}

void hp_process_run_word(char *buf, size_t len)
{
    char stamp[32];
    time_stamp(stamp, sizeof stamp);
    snprintf(buf, len, "%s-%d", stamp, run_number > 0 ? run_number : 0);
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
    if (run_number < 0)
        run_number = free_run_number();     /* a process without MPI */
    file_name(given, run_number, program, tag, name, sizeof name);
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

void hp_process_shell_quote(const char *s, char *buf, size_t len)
{
    static const char plain[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
                                "0123456789_./+-,:=@%";
    size_t at = 0;
    assert(len > 0);
    if (*s && strspn(s, plain) == strlen(s)) {
        snprintf(buf, len, "%s", s);
        return;
    }
    buf[at++] = '\'';
    for (; *s && at + 5 < len; s++) {
        if (*s == '\'') {
            memcpy(buf + at, "'\\''", 4);   /* close, an escaped quote, reopen */
            at += 4;
        } else {
            buf[at++] = *s;
        }
    }
    if (at + 1 < len)
        buf[at++] = '\'';
    buf[at < len ? at : len - 1] = 0;
}
