/*
 * flame_out.c - writes one of hprof-query's pictures whole or not at all:
 * into a temporary file next to the destination, renamed over it only
 * once complete, so a failed write leaves nothing half-written; the
 * folded stacks (--folded) and the two picture reports (flame_out.h).
 */
#include "config.h"
#include <assert.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include "flame_out.h"

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

/* ---- folded stacks ---- */

/* A frame as folded stacks allow it: ';' separates frames and the line
 * ends at a newline, so both (and other control characters) become ','
 * and '?' respectively. */
static void put_frame(FILE *out, const char *label)
{
    for (const unsigned char *s = (const unsigned char *)label; *s; s++) {
        if (*s == ';')
            fputc(',', out);
        else if (*s < 0x20 || *s == 0x7f)
            fputc('?', out);
        else
            fputc(*s, out);
    }
}

/* The path of nd below the root; the root itself has its own label. */
static void put_path(FILE *out, const hpq_ftree *tr, const hpq_fnode *nd)
{
    if (nd->parent >= 0 && nd != tr->root) {
        const hpq_fnode *p = hpq_ftree_find(tr, nd->parent);
        if (p && p != tr->root) {
            put_path(out, tr, p);
            fputc(';', out);
        }
    }
    put_frame(out, nd->label);
}

static void fold_node(FILE *out, const hpq_ftree *tr, const hpq_fnode *nd)
{
    /* exclusive time is never negative: round half up */
    long long us = nd->excl > 0 ? (long long)(nd->excl * 1e6 + 0.5) : 0;
    if (us > 0) {
        put_path(out, tr, nd);
        fprintf(out, " %lld\n", us);
    }
    for (size_t i = 0; i < nd->nkids; i++)
        fold_node(out, tr, nd->kids[i]);
}

int hpq_write_folded(const hpq_ctx *ctx, const hpq_ftree *tr, FILE *out)
{
    (void)ctx;
    if (tr->root)
        fold_node(out, tr, tr->root);
    return 0;
}

int hpq_report_folded(const hpq_ctx *ctx, const char *path)
{
    return hpq_write_output(ctx, path, hpq_write_folded);
}

int hpq_report_flamegraph(const hpq_ctx *ctx, const char *path)
{
    assert(path);
    return hpq_write_output(ctx, path, hpq_write_flamegraph);
}
