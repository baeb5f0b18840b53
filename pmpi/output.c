/*
 * output.c - writes the run's one profile file collectively with MPI-IO:
 * every rank encodes its block, MPI_Exscan gives its offset, rank 0 adds
 * the preamble and RUN section in front and the last rank the END section.
 * The file is written under a temporary name and renamed when complete,
 * an existing file is never overwritten, and a path too long for MPI-IO
 * is never given to it.  When the collective write fails (a full disk),
 * every rank writes its own records to NAME.rank<N>.hpf instead.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <time.h>
#include <unistd.h>
#include "hp_mpi.h"
#include "hp_finish.h"
#include "hp_log.h"
#include "hp_process.h"
#include "hp_profile.h"

#define CHUNK (1 << 30)

static int write_all(MPI_File fh, MPI_Offset offset, const unsigned char *data,
                     size_t len, MPI_Comm comm)
{
    unsigned long long mine = (len + CHUNK - 1) / CHUNK, rounds = 0;
    PMPI_Allreduce(&mine, &rounds, 1, MPI_UNSIGNED_LONG_LONG, MPI_MAX, comm);
    int rc = MPI_SUCCESS;
    for (unsigned long long r = 0; r < rounds; r++) {
        size_t at = (size_t)r * CHUNK;
        int n = at < len ? (int)(len - at < CHUNK ? len - at : CHUNK) : 0;
        int wrc = PMPI_File_write_at_all(fh, offset + (MPI_Offset)at,
                                         data + (at < len ? at : 0), n, MPI_BYTE,
                                         MPI_STATUS_IGNORE);
        if (wrc != MPI_SUCCESS)
            rc = wrc;
    }
    return rc;
}

static void mpi_error_text(int code, char *buf, size_t len)
{
    char msg[MPI_MAX_ERROR_STRING];
    int n = 0;
    PMPI_Error_string(code, msg, &n);
    snprintf(buf, len, "%s", msg);
}

/* All ranks agree on whether every rank succeeded. */
static int all_ok(int ok, MPI_Comm comm)
{
    int all = 0;
    PMPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_LAND, comm);
    return all;
}

/* The longest path given to MPI_File_open (without ".partial"): Open MPI
 * 4.1.4 overflows a buffer in MPI_File_open with longer ones (measured:
 * 244 characters open, 248 and more abort the program). */
#define MPI_IO_PATH_MAX 200

/* The whole file's length, known to all ranks. */
static unsigned long long total_length(unsigned long long mine, MPI_Comm comm)
{
    unsigned long long total = 0;
    PMPI_Allreduce(&mine, &total, 1, MPI_UNSIGNED_LONG_LONG, MPI_SUM, comm);
    return total;
}

/* Rank 0: the file at tmp holds exactly len bytes.  Open MPI reports a
 * full disk on stderr only and returns success, leaving a short file:
 * then why says so (the OS reason when the file system is full). */
static int has_length(const char *tmp, unsigned long long len, char *why, size_t whylen)
{
    struct stat st;
    struct statvfs vfs;
    if (stat(tmp, &st) != 0) {
        snprintf(why, whylen, "%s", strerror(errno));
        return 0;
    }
    if ((unsigned long long)st.st_size == len)
        return 1;
    if (statvfs(tmp, &vfs) == 0 && vfs.f_bavail == 0)
        snprintf(why, whylen, "%s", strerror(ENOSPC));
    else
        snprintf(why, whylen, "only %llu of %llu bytes reached the file",
                 (unsigned long long)st.st_size, len);
    return 0;
}

/* The collective write of the one file at path (through path.partial):
 * all ranks agree on the result; rank 0 names the reason of a failure. */
static int write_collective(const hp_rank_data *rd, const hp_run_info *run, const char *path,
                            MPI_Comm comm, int rank, int size)
{
    char tmp[PATH_MAX + 16];
    snprintf(tmp, sizeof tmp, "%s.partial", path);

    hp_buf b = {0};
    if (rank == 0) {
        hp_encode_preamble(&b);
        hp_encode_run(&b, run);
    }
    hp_encode_rank(&b, rd);
    unsigned long long len = b.len, offset = 0;
    PMPI_Exscan(&len, &offset, 1, MPI_UNSIGNED_LONG_LONG, MPI_SUM, comm);
    if (rank == 0)
        offset = 0;
    if (rank == size - 1)
        hp_encode_end(&b, (uint32_t)size, offset + b.len);
    unsigned long long total = total_length(b.len, comm);

    int ok = all_ok(!b.failed, comm);
    char why[MPI_MAX_ERROR_STRING + 64] = "";
    MPI_File fh;
    int rc = MPI_ERR_NO_MEM;
    if (ok)
        rc = PMPI_File_open(comm, tmp, MPI_MODE_CREATE | MPI_MODE_EXCL | MPI_MODE_WRONLY,
                            MPI_INFO_NULL, &fh);
    int opened = ok && rc == MPI_SUCCESS;
    if (opened) {
        rc = write_all(fh, (MPI_Offset)offset, b.data, b.len, comm);
        int crc = PMPI_File_close(&fh);
        if (rc == MPI_SUCCESS)
            rc = crc;
        ok = rc == MPI_SUCCESS;
        if (rank == 0 && ok)
            ok = has_length(tmp, total, why, sizeof why);
        ok = all_ok(ok, comm);
    } else {
        ok = 0;
    }
    hp_buf_free(&b);
    if (rank == 0) {
        if (ok && rename(tmp, path) != 0) {
            ok = 0;
            snprintf(why, sizeof why, "%s", strerror(errno));
        }
        if (!ok) {
            if (rc != MPI_SUCCESS)
                mpi_error_text(rc, why, sizeof why);
            else if (!why[0])
                snprintf(why, sizeof why, "a rank could not write its part");
            hp_warn("cannot write profile %s: %s", path, why);
            if (opened)
                unlink(tmp);    /* not another run's, nor a stale one */
        }
    }
    return all_ok(ok, comm);
}

/* "NAME.rank<N>.hpf" from the profile path "NAME.hpf". */
static void rank_path(const char *path, int rank, char *out, size_t len)
{
    size_t n = strlen(path);
    int ext = n > 4 && strcmp(path + n - 4, ".hpf") == 0;
    snprintf(out, len, "%.*s.rank%d.hpf", (int)(ext ? n - 4 : n), path, rank);
}

/* The ranks whose written[] is want, as "0, 2-5, 7, 8": three or more in
 * a row as a range. */
static void rank_list(const int *written, int size, int want, char *buf, size_t len)
{
    size_t at = 0;
    buf[0] = 0;
    for (int r = 0; r < size && at < len; r++) {
        if (!written[r] != !want)
            continue;
        int last = r;
        while (last + 1 < size && !written[last + 1] == !want)
            last++;
        int n = last > r + 1 ? snprintf(buf + at, len - at, "%s%d-%d", at ? ", " : "", r, last)
                             : snprintf(buf + at, len - at, "%s%d", at ? ", " : "", r);
        at += n > 0 ? (size_t)n : 0;
        if (last > r + 1)
            r = last;
    }
}

/* Rank 0 names where the per-rank files are: all of them, or, when some
 * ranks could not write theirs (a full disk: each said why), the ranks
 * whose file was written and those whose records are lost. */
static void announce_per_rank(const char *path, const int *written, int size)
{
    char first[PATH_MAX], last[PATH_MAX], done[512], lost[512];
    int nwritten = 0;
    for (int r = 0; r < size; r++)
        nwritten += written[r] != 0;
    rank_path(path, 0, first, sizeof first);
    rank_path(path, size - 1, last, sizeof last);
    if (nwritten == size) {
        hp_warn("the records are in one file per rank instead: %s to %s", first, last);
        return;
    }
    if (nwritten == 0)
        return;
    rank_list(written, size, 1, done, sizeof done);
    rank_list(written, size, 0, lost, sizeof lost);
    size_t n = strlen(path);
    int ext = n > 4 && strcmp(path + n - 4, ".hpf") == 0;
    hp_warn("the records of rank%s %s are in one file per rank instead (%.*s.rank<N>.hpf); "
            "those of rank%s %s are lost", nwritten > 1 ? "s" : "", done,
            (int)(ext ? n - 4 : n), path, size - nwritten > 1 ? "s" : "", lost);
}

/* After a failed collective write: every rank writes its own records on
 * its own, the other ranks' blocks marked missing (as MPI_Abort does). */
static int write_per_rank(const hp_rank_data *rd, const hp_run_info *run, const char *path,
                          MPI_Comm comm, int rank, int size)
{
    char mine[PATH_MAX];
    rank_path(path, rank, mine, sizeof mine);
    hp_process_unused_path(mine, sizeof mine);
    int ok = hp_finish_write_local_at(rd, run, mine) == 0;
    if (!ok)
        hp_warn("cannot write profile %s: %s", mine,
                errno == ENOMEM ? "out of memory" : strerror(errno));
    int *written = rank == 0 ? calloc((size_t)size, sizeof *written) : NULL;
    int listed = written != NULL;
    PMPI_Bcast(&listed, 1, MPI_INT, 0, comm);
    if (listed)
        PMPI_Gather(&ok, 1, MPI_INT, written, 1, MPI_INT, 0, comm);
    if (rank == 0 && written)
        announce_per_rank(path, written, size);
    free(written);
    return all_ok(ok, comm);
}

int hp_write_profile(const hp_rank_data *rd, const hp_run_info *run, char *path,
                     size_t pathlen)
{
    MPI_Comm comm;
    int rank, size, usable = 0;
    PMPI_Comm_dup(MPI_COMM_WORLD, &comm);
    PMPI_Comm_rank(comm, &rank);
    PMPI_Comm_size(comm, &size);
    if (rank == 0)
        usable = hp_process_profile_path(run->program, NULL, MPI_IO_PATH_MAX, path,
                                         pathlen) == 0;
    PMPI_Bcast(&usable, 1, MPI_INT, 0, comm);
    int rc = -1;
    if (usable) {
        PMPI_Bcast(path, (int)pathlen, MPI_CHAR, 0, comm);
        if (write_collective(rd, run, path, comm, rank, size))
            rc = 0;
        else if (write_per_rank(rd, run, path, comm, rank, size))
            rc = 1;
    }
    PMPI_Comm_free(&comm);
    return rc;
}
