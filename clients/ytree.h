/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * ytree.h: a YAML file read into a small tree of maps, sequences and
 * scalars, each node knowing its line and column -- for ksim's scenario
 * files, whose structure is checked after reading.
 *
 * Limits (curl's "toobig"): the file may not pass YTREE_FILE_MAX bytes,
 * nesting YTREE_DEPTH_MAX levels or YTREE_NODES_MAX nodes; anchors,
 * aliases and tags are refused (a few lines of aliases expand to
 * gigabytes); a map may not repeat a key; one document per file.
 * Errors read "FILE:LINE:COL: reason".  The tree owns its strings;
 * ytree_free() releases everything.
 */
#ifndef KAI_CLIENTS_YTREE_H
#define KAI_CLIENTS_YTREE_H

#include <stdbool.h>
#include <stddef.h>

#include "base/err.h"

#define YTREE_FILE_MAX  (16u << 20)
#define YTREE_DEPTH_MAX 32
#define YTREE_NODES_MAX (4u << 20)

enum ykind {
	YT_SCALAR = 0,
	YT_MAP,
	YT_SEQ
};

struct ynode {
	enum ykind kind;
	char *s;          /* scalar text; NULL for maps and sequences */
	bool plain;       /* an unquoted scalar ("null" means null) */
	size_t line, col; /* 1-based */
	struct ynode **v; /* map: key, value, key, value...; seq: items */
	size_t n;         /* map: pairs; seq: items */
	size_t nv;        /* entries in v */
};

/* Reads path into *root (caller frees with ytree_free()). */
int ytree_load(const char *path, struct ynode **root,
    struct kai_err *err) KAI_MUST_CHECK;
void ytree_free(struct ynode *n);
/* The value of key in map m, or NULL. */
const struct ynode *ytree_get(const struct ynode *m, const char *key);
/* A plain null, ~ or empty scalar. */
bool ytree_is_null(const struct ynode *n);

#endif /* KAI_CLIENTS_YTREE_H */
