/*
 * output.c - writes the run's one profile file collectively with MPI-IO:
 * every rank encodes its block, MPI_Exscan gives its offset, rank 0 adds
 * the preamble and RUN section in front and the last rank the END section.
 * The file is written under a temporary name and renamed when complete,
 * and an existing file is never overwritten.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include "hp_mpi.h"
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

int hp_write_profile(const hp_rank_data *rd, const hp_run_info *run, char *path,
                     size_t pathlen)
{
    MPI_Comm comm;
    int rank, size;
    PMPI_Comm_dup(MPI_COMM_WORLD, &comm);
    PMPI_Comm_rank(comm, &rank);
    PMPI_Comm_size(comm, &size);
    if (rank == 0)
        hp_process_profile_path(run->program, NULL, path, pathlen);
    PMPI_Bcast(path, (int)pathlen, MPI_CHAR, 0, comm);
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

    int ok = all_ok(!b.failed, comm);
    MPI_File fh;
    int rc = MPI_ERR_NO_MEM;
    if (ok)
        rc = PMPI_File_open(comm, tmp, MPI_MODE_CREATE | MPI_MODE_EXCL | MPI_MODE_WRONLY,
                            MPI_INFO_NULL, &fh);
    if (ok && rc == MPI_SUCCESS) {
        rc = write_all(fh, (MPI_Offset)offset, b.data, b.len, comm);
        int crc = PMPI_File_close(&fh);
        ok = all_ok(rc == MPI_SUCCESS && crc == MPI_SUCCESS, comm);
    } else {
        ok = 0;
    }
    hp_buf_free(&b);
    if (rank == 0) {
        if (ok && rename(tmp, path) != 0)
            ok = 0;
        if (!ok) {
            char why[MPI_MAX_ERROR_STRING];
            if (rc != MPI_SUCCESS)
                mpi_error_text(rc, why, sizeof why);
            else
                snprintf(why, sizeof why, "%s", strerror(errno));
            hp_warn("cannot write profile %s: %s", path, why);
            unlink(tmp);
        }
    }
    ok = all_ok(ok, comm);
    PMPI_Comm_free(&comm);
    return ok ? 0 : -1;
}
