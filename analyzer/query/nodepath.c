/*
 * nodepath.c - resolving a node of the merged tree by id, by a path of
 * labels from the root or from a current node, or by a site selection
 * that matches one context (see nodepath.h); and a node's path.
 */
#include <assert.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "nodepath.h"
#include "sitesel.h"

/* One column of a one-row query with an integer ?1; 0 and *v, or -1 if
 * there is no row. */
static int query_int(sqlite3 *db, const char *sql, int64_t arg, int64_t *v)
{
    sqlite3_stmt *st;
    int rc = -1;
    if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK)
        return -1;
    sqlite3_bind_int64(st, 1, arg);
    if (sqlite3_step(st) == SQLITE_ROW && sqlite3_column_type(st, 0) != SQLITE_NULL) {
        *v = sqlite3_column_int64(st, 0);
        rc = 0;
    }
    sqlite3_finalize(st);
    return rc;
}

static int node_exists(sqlite3 *db, int64_t id)
{
    int64_t v;
    return query_int(db, "SELECT id FROM node WHERE id = ?1", id, &v) == 0;
}

/* The child of `parent` whose label is the longest prefix of `rest`
 * ending at a '/' or at the end (labels may hold '/'); its id in *child
 * and the length matched in *used, or -1 if none. */
static int match_child(sqlite3 *db, int64_t parent, const char *rest, int64_t *child,
                       size_t *used)
{
    sqlite3_stmt *st;
    size_t best = 0;
    if (sqlite3_prepare_v2(db, "SELECT n.id, s.label FROM node n JOIN site s ON s.id = n.site"
                               " WHERE n.parent = ?1 ORDER BY n.id", -1, &st, NULL) != SQLITE_OK)
        return -1;
    sqlite3_bind_int64(st, 1, parent);
    while (sqlite3_step(st) == SQLITE_ROW) {
        const char *label = (const char *)sqlite3_column_text(st, 1);
        size_t n = label ? strlen(label) : 0;
        if (n > best && strncmp(rest, label, n) == 0 && (rest[n] == '/' || rest[n] == '\0')) {
            best = n;
            *child = sqlite3_column_int64(st, 0);
        }
    }
    sqlite3_finalize(st);
    *used = best;
    return best ? 0 : -1;
}

/* Follows `path` ("a/b/../c", components "..", "." and empty ones
 * allowed) from `from`; 0 and *node, or -1. */
static int walk_path(sqlite3 *db, const char *path, int64_t from, int64_t *node)
{
    int64_t at = from;
    const char *p = path;
    while (*p) {
        size_t used;
        int64_t next;
        if (*p == '/') {
            p++;
        } else if (strncmp(p, "..", 2) == 0 && (p[2] == '/' || !p[2])) {
            if (query_int(db, "SELECT parent FROM node WHERE id = ?1", at, &next) == 0)
                at = next;   /* the root's parent is the root */
            p += 2;
        } else if (p[0] == '.' && (p[1] == '/' || !p[1])) {
            p += 1;
        } else if (match_child(db, at, p, &next, &used) == 0) {
            at = next;
            p += used;
        } else {
            return -1;
        }
    }
    *node = at;
    return 0;
}

/* The single node of a site selection ("3" of "3" or an error for
 * "3,7"), with the paths of the contexts when there are several. */
static int node_of_selection(sqlite3 *db, const char *spec, const hpq_sel *sel,
                             int64_t *node, char *err, size_t errlen)
{
    char list[640] = "", path[256];
    size_t at = 0, count = 0;
    const char *p = sel->nodes;
    if (strcmp(p, "NULL") == 0 || !*p) {
        snprintf(err, errlen, "'%s' matches no calling context", spec);
        return -1;
    }
    while (*p) {
        int64_t id = strtoll(p, NULL, 10);
        if (count++ == 0)
            *node = id;
        if (hpq_node_label_path(db, id, path, sizeof path))
            snprintf(path, sizeof path, "?");
        if (at < sizeof list) {
            int n = snprintf(list + at, sizeof list - at, "%s#%lld (%s)", at ? ", " : "",
                             (long long)id, path);
            at += n > 0 ? (size_t)n : 0;
        }
        p += strcspn(p, ",");
        p += *p == ',';
    }
    if (count > 1) {
        snprintf(err, errlen, "'%s' is ambiguous, it matches %zu calling contexts: %s;"
                 " name one by its path or node id #N", spec, count, list);
        return -1;
    }
    return 0;
}

int hpq_resolve_node(sqlite3 *db, const char *db_path, const char *spec, int64_t cur,
                     int64_t *node, char *err, size_t errlen)
{
    assert(spec && node);
    const char *digits = spec[0] == '#' ? spec + 1 : NULL;
    if (digits && hpq_is_number(digits)) {
        int64_t id = strtoll(digits, NULL, 10);
        if (!node_exists(db, id)) {
            snprintf(err, errlen, "no node %s in %s", spec, db_path);
            return -1;
        }
        *node = id;
        return 0;
    }
    if (*spec && walk_path(db, spec, spec[0] == '/' ? HPQ_ROOT_NODE : cur, node) == 0)
        return 0;
    if (!*spec || spec[0] == '/' || strncmp(spec, "../", 3) == 0 || strcmp(spec, "..") == 0) {
        snprintf(err, errlen, "no node at path '%s' in %s", spec, db_path);
        return -1;
    }
    hpq_sel sel;
    if (hpq_select(db, db_path, spec, HPQ_WANT_ONE, &sel, err, errlen))
        return -1;
    int rc = node_of_selection(db, spec, &sel, node, err, errlen);
    hpq_sel_free(&sel);
    return rc;
}

int hpq_node_label_path(sqlite3 *db, int64_t node, char *buf, size_t len)
{
    sqlite3_stmt *st;
    int rc = -1;
    /* the chain from the node up, then printed root first */
    if (sqlite3_prepare_v2(db, "WITH RECURSIVE up(id, parent, site, k) AS"
                               " (SELECT id, parent, site, 0 FROM node WHERE id = ?1"
                               "  UNION ALL SELECT n.id, n.parent, n.site, up.k + 1 FROM node n"
                               "  JOIN up ON n.id = up.parent)"
                               " SELECT s.label FROM up JOIN site s ON s.id = up.site"
                               " WHERE up.parent IS NOT NULL ORDER BY up.k DESC",
                           -1, &st, NULL) != SQLITE_OK)
        return -1;
    sqlite3_bind_int64(st, 1, node);
    size_t at = 0;
    buf[0] = '\0';
    int ok = 1;
    while (ok && sqlite3_step(st) == SQLITE_ROW) {
        const char *label = (const char *)sqlite3_column_text(st, 0);
        int n = snprintf(buf + at, len - at, "/%s", label ? label : "");
        ok = n > 0 && (size_t)n < len - at;
        at += ok ? (size_t)n : 0;
    }
    sqlite3_finalize(st);
    if (ok && at == 0) {
        ok = node_exists(db, node) && len > 1;
        if (ok)
            snprintf(buf, len, "/");
    }
    rc = ok ? 0 : -1;
    return rc;
}
