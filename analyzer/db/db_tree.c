/*
 * db_tree.c - writes the merged tree's `site` and `node` rows (db_tree.h),
 * for the merge of a profile and of an aggregated profile alike.
 */
#include "config.h"
#include <stdio.h>
#include "db_tree.h"
#include "hp_format.h"

static int tree_fail(sqlite3 *db, const char *what, char *err, size_t errlen)
{
    snprintf(err, errlen, "%s: %s", what, sqlite3_errmsg(db));
    return -1;
}

/* Runs a bound insert and resets it for the next row. */
static int insert(sqlite3 *db, sqlite3_stmt *st, char *err, size_t errlen)
{
    int rc = sqlite3_step(st);
    sqlite3_reset(st);      /* every insert binds all its columns again */
    return rc == SQLITE_DONE ? 0 : tree_fail(db, "sqlite insert", err, errlen);
}

static void bind_id(sqlite3_stmt *st, int col, uint32_t id)
{
    if (id)
        sqlite3_bind_int64(st, col, id);
    else
        sqlite3_bind_null(st, col);
}

static void bind_text(sqlite3_stmt *st, int col, const char *s)
{
    sqlite3_bind_text(st, col, s, -1, SQLITE_STATIC);
}

static void bind_site(sqlite3_stmt *st, uint32_t i, const hpf_site_source *src,
                      const hpf_gsite *g)
{
    const hp_site_rec *s = src->rec;
    sqlite3_bind_int64(st, 1, i + 1);
    bind_text(st, 2, hp_kind_name(s->kind));
    bind_text(st, 3, src->strings[s->name]);
    bind_text(st, 4, src->strings[s->func]);
    bind_text(st, 5, src->strings[s->file]);
    sqlite3_bind_int64(st, 6, s->line);
    sqlite3_bind_int64(st, 7, s->end_line);
    bind_id(st, 8, g->parent);
    bind_id(st, 9, g->callee);
    sqlite3_bind_int64(st, 10, s->flags | src->extra_flags);
    bind_text(st, 11, src->strings[s->module]);
    sqlite3_bind_int64(st, 12, (int64_t)s->offset);
    bind_text(st, 13, g->label);
}

int hpf_db_write_sites(sqlite3 *db, const hpf_merged *m, hpf_site_lookup lookup,
                       const void *ctx, char *err, size_t errlen)
{
    sqlite3_stmt *st;
    int rc = 0;
    if (sqlite3_prepare_v2(db, "INSERT INTO site VALUES(?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                           -1, &st, NULL) != SQLITE_OK)
        return tree_fail(db, "sqlite prepare", err, errlen);
    for (uint32_t i = 0; i < m->nsites && rc == 0; i++) {
        hpf_site_source src = lookup(ctx, i);
        bind_site(st, i, &src, &m->sites[i]);
        rc = insert(db, st, err, errlen);
    }
    sqlite3_finalize(st);
    return rc;
}

int hpf_db_write_nodes(sqlite3 *db, const hpf_merged *m, char *err, size_t errlen)
{
    sqlite3_stmt *st;
    int rc = 0;
    if (sqlite3_prepare_v2(db, "INSERT INTO node VALUES(?, ?, ?, ?, ?, ?, ?)", -1, &st,
                           NULL) != SQLITE_OK)
        return tree_fail(db, "sqlite prepare", err, errlen);
    for (uint32_t i = 0; i < m->nnodes && rc == 0; i++) {
        const hpf_gnode *g = &m->nodes[i];
        sqlite3_bind_int64(st, 1, i + 1);
        bind_id(st, 2, g->parent);
        sqlite3_bind_int64(st, 3, g->site);
        sqlite3_bind_int64(st, 4, g->depth);
        sqlite3_bind_int(st, 5, g->outer);
        sqlite3_bind_int64(st, 6, g->lo);
        sqlite3_bind_int64(st, 7, g->hi);
        rc = insert(db, st, err, errlen);
    }
    sqlite3_finalize(st);
    return rc;
}
