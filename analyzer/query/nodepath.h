/*
 * nodepath.h - naming one node of the merged calling-context tree, for
 * --root and the interactive mode's cd: "/" (the root), ".." (the parent),
 * "#N" (a node id), a '/'-separated chain of labels as the listing prints
 * them ("main/loop@app.c:20", from the root, or from the current node in
 * the interactive mode unless it starts with '/'), else what sitesel.c
 * accepts (file:line, a label, a name) when it names a single context.
 */
#ifndef HPQ_NODEPATH_H
#define HPQ_NODEPATH_H

#include <stddef.h>
#include <stdint.h>
#include <sqlite3.h>

#define HPQ_ROOT_NODE 1

/* The node `spec` names, relative to node `cur` (HPQ_ROOT_NODE for
 * --root); 0 and *node set, or -1 with a one-line message in err. */
int hpq_resolve_node(sqlite3 *db, const char *db_path, const char *spec, int64_t cur,
                     int64_t *node, char *err, size_t errlen);

/* "/main/loop@app.c:20" for a node ("/" for the root) in buf; 0, or -1
 * if the node is unknown or buf is too small. */
int hpq_node_label_path(sqlite3 *db, int64_t node, char *buf, size_t len);

#endif
