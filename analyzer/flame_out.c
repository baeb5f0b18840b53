/*
 * flame_out.c - writes one of hprof-query's pictures whole or not at all:
 * into a temporary file next to the destination, renamed over it only
 * once complete, so a failed write leaves nothing half-written.
 */
#include "config.h"
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include "flame.h"

static int output_error(const hpq_ctx *ctx, const char *path, int err)
{
    snprintf(ctx->err, ctx->errlen, "cannot write %s: %s", path, strerror(err));
    return -2;
}

/* Writes the tree through fn into a new temporary file beside path and
 * renames it to path. */
static int write_file(const hpq_ctx *ctx, const hpq_ftree *tr, const char *path, hpq_fwriter fn)
{
    size_t len = strlen(path) + sizeof ".tmpXXXXXX";
    char *tmp = malloc(len);
    if (!tmp) {
        snprintf(ctx->err, ctx->errlen, "out of memory");
        return -1;
    }
    snprintf(tmp, len, "%s.tmpXXXXXX", path);
    int fd = mkstemp(tmp);
    if (fd < 0) {
        int e = errno;
        free(tmp);
        return output_error(ctx, path, e);
    }
    mode_t mask = umask(0);     /* mkstemp's file is 0600: as fopen's would be */
    umask(mask);
    FILE *out = fchmod(fd, 0666 & ~mask) == 0 ? fdopen(fd, "w") : NULL;
    if (!out) {
        int e = errno;
        close(fd);
        unlink(tmp);
        free(tmp);
        return output_error(ctx, path, e);
    }
    int rc = fn(ctx, tr, out);
    int werr = ferror(out);
    int cerr = fclose(out);
    int e = errno;
    if (rc == 0 && (werr || cerr)) {
        rc = output_error(ctx, path, werr ? EIO : e);
    } else if (rc == 0 && rename(tmp, path) != 0) {
        rc = output_error(ctx, path, errno);
    }
    if (rc != 0)
        unlink(tmp);
    free(tmp);
    return rc;
}

int hpq_write_output(const hpq_ctx *ctx, const char *path, hpq_fwriter fn)
{
    hpq_ftree tr;
    if (hpq_ftree_load(ctx, &tr))
        return -1;
    int rc = path ? write_file(ctx, &tr, path, fn) : fn(ctx, &tr, ctx->out);
    hpq_ftree_free(&tr);
    return rc;
}
