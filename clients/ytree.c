/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * ytree.c: libyaml events into a tree with positions (see ytree.h).
 *
 * The parser's events arrive in document order; an explicit stack of
 * open maps and sequences (bounded by YTREE_DEPTH_MAX) collects the
 * children, so nothing recurses on input the file controls.  libyaml
 * objects never leave this file: the tree holds plain copies.
 */
#include "config.h"

#include "ytree.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <yaml.h>

#include "base/xmalloc.h"

struct rd {
	const char *path;
	yaml_parser_t parser;
	struct ynode *stack[YTREE_DEPTH_MAX + 1];
	int depth;
	size_t nodes;
	struct ynode *root;
	struct kai_err *err;
};

static int
fail_at(struct rd *rd, yaml_mark_t m, const char *fmt, ...) KAI_PRINTF(3, 4);

static int
fail_at(struct rd *rd, yaml_mark_t m, const char *fmt, ...)
{
	char reason[KAI_ERR_MSG_MAX];
	va_list ap;

	va_start(ap, fmt);
	(void)vsnprintf(reason, sizeof(reason), fmt, ap);
	va_end(ap);
	return kai_err_set(rd->err, KAI_EINVAL, "%s:%zu:%zu: %s", rd->path,
	    m.line + 1, m.column + 1, reason);
}

static int
read_file(const char *path, char **text, size_t *len, struct kai_err *err)
{
	FILE *f = fopen(path, "rb");
	size_t n = 0, cap = 1 << 16;
	char *buf;

	if (f == NULL)
		return kai_err_set(err, KAI_EINVAL, "%s: could not open: %s",
		    path, strerror(errno));
	buf = kai_xmalloc(cap);
	for (;;) {
		size_t got;

		if (n == cap) {
			if (cap >= YTREE_FILE_MAX) {
				(void)fclose(f);
				free(buf);
				return kai_err_set(err, KAI_EINVAL,
				    "%s: larger "
				    "than %u bytes",
				    path, YTREE_FILE_MAX);
			}
			cap *= 2;
			buf = kai_xreallocarray(buf, cap, 1);
		}
		if ((got = fread(buf + n, 1, cap - n, f)) == 0)
			break;
		n += got;
	}
	if (ferror(f)) {
		(void)fclose(f);
		free(buf);
		return kai_err_set(err, KAI_EINVAL, "%s: could not read", path);
	}
	(void)fclose(f);
	*text = buf;
	*len = n;
	return 0;
}

static int
syntax(struct rd *rd)
{
	const yaml_parser_t *p = &rd->parser;
	const char *problem = p->problem != NULL ? p->problem : "syntax error";

	if (p->error == YAML_READER_ERROR)
		return kai_err_set(rd->err, KAI_EINVAL, "%s: %s at byte %zu",
		    rd->path, problem, p->problem_offset);
	return fail_at(rd, p->problem_mark, "%s", problem);
}

static struct ynode *
node_new(struct rd *rd, enum ykind kind, yaml_mark_t m)
{
	struct ynode *n = kai_xcalloc(1, sizeof(*n));

	n->kind = kind;
	n->line = m.line + 1;
	n->col = m.column + 1;
	rd->nodes++;
	return n;
}

static bool
key_taken(const struct ynode *map, const char *key)
{
	size_t i;

	for (i = 0; i < map->n; i++)
		if (strcmp(map->v[2 * i]->s, key) == 0)
			return true;
	return false;
}

/* Appends n to the open container (or makes it the root). */
static int
add(struct rd *rd, struct ynode *n, yaml_mark_t m)
{
	struct ynode *top;
	size_t at;

	if (rd->depth == 0) {
		rd->root = n;
		return 0;
	}
	top = rd->stack[rd->depth - 1];
	at = top->nv;
	/* A map's entries alternate key, value; a key must be a scalar. */
	if (top->kind == YT_MAP && (at & 1) == 0) {
		int rc = 0;

		if (n->kind != YT_SCALAR)
			rc = fail_at(rd, m, "a key must be a plain value");
		else if (key_taken(top, n->s))
			rc = fail_at(rd, m, "key \"%s\" appears twice", n->s);
		if (rc != 0) {
			ytree_free(n);
			return rc;
		}
	}
	top->v = kai_xreallocarray(top->v, at + 1, sizeof(*top->v));
	top->v[at] = n;
	top->nv = at + 1;
	top->n = top->kind == YT_MAP ? top->nv / 2 : top->nv;
	return 0;
}

static int
open_container(struct rd *rd, enum ykind kind, const yaml_event_t *ev)
{
	struct ynode *n = node_new(rd, kind, ev->start_mark);
	int rc;

	if ((rc = add(rd, n, ev->start_mark)) != 0)
		return rc;
	if (rd->depth >= YTREE_DEPTH_MAX)
		return fail_at(rd, ev->start_mark,
		    "nested deeper than %d "
		    "levels",
		    YTREE_DEPTH_MAX);
	rd->stack[rd->depth++] = n;
	return 0;
}

/*
 * A queue file holds names, numbers and durations: a control character
 * in one is a mistake or an attack.  A NUL ("\0" in a quoted scalar)
 * would cut the copy short, so "a\0b" would silently become the queue
 * "a".
 */
static int
check_scalar(struct rd *rd, const yaml_event_t *ev)
{
	const unsigned char *v = ev->data.scalar.value;
	size_t i;

	for (i = 0; i < ev->data.scalar.length; i++) {
		if (v[i] == '\0')
			return fail_at(rd, ev->start_mark,
			    "a value holds a NUL character");
		if (v[i] < 0x20 || v[i] == 0x7f)
			return fail_at(rd, ev->start_mark,
			    "a value holds the control character 0x%02x",
			    v[i]);
	}
	return 0;
}

static int
refuse(struct rd *rd, const yaml_event_t *ev)
{
	const yaml_char_t *anchor = NULL, *tag = NULL;

	if (ev->type == YAML_ALIAS_EVENT)
		return fail_at(rd, ev->start_mark,
		    "YAML aliases are not "
		    "allowed");
	if (ev->type == YAML_SCALAR_EVENT) {
		anchor = ev->data.scalar.anchor;
		tag = ev->data.scalar.tag;
	} else if (ev->type == YAML_SEQUENCE_START_EVENT) {
		anchor = ev->data.sequence_start.anchor;
		tag = ev->data.sequence_start.tag;
	} else if (ev->type == YAML_MAPPING_START_EVENT) {
		anchor = ev->data.mapping_start.anchor;
		tag = ev->data.mapping_start.tag;
	}
	if (anchor != NULL)
		return fail_at(rd, ev->start_mark,
		    "YAML anchors are not "
		    "allowed");
	if (tag != NULL)
		return fail_at(rd, ev->start_mark, "YAML tags are not allowed");
	if (rd->nodes >= YTREE_NODES_MAX)
		return fail_at(rd, ev->start_mark, "more than %u values",
		    YTREE_NODES_MAX);
	if (ev->type == YAML_SCALAR_EVENT)
		return check_scalar(rd, ev);
	return 0;
}

static int
event(struct rd *rd, const yaml_event_t *ev, bool *done)
{
	struct ynode *n;
	int rc;

	if ((rc = refuse(rd, ev)) != 0)
		return rc;
	switch (ev->type) {
	case YAML_SCALAR_EVENT:
		n = node_new(rd, YT_SCALAR, ev->start_mark);
		n->s = kai_xstrndup((const char *)ev->data.scalar.value,
		    ev->data.scalar.length);
		n->plain = ev->data.scalar.style == YAML_PLAIN_SCALAR_STYLE;
		return add(rd, n, ev->start_mark);
	case YAML_SEQUENCE_START_EVENT:
		return open_container(rd, YT_SEQ, ev);
	case YAML_MAPPING_START_EVENT:
		return open_container(rd, YT_MAP, ev);
	case YAML_SEQUENCE_END_EVENT:
	case YAML_MAPPING_END_EVENT:
		rd->depth--;
		return 0;
	case YAML_DOCUMENT_START_EVENT:
		if (rd->root != NULL)
			return fail_at(rd, ev->start_mark,
			    "only one YAML "
			    "document is allowed");
		return 0;
	case YAML_STREAM_END_EVENT:
		*done = true;
		return 0;
	default:
		return 0;
	}
}

int
ytree_load(const char *path, struct ynode **root, struct kai_err *err)
{
	struct rd rd;
	char *text = NULL;
	size_t len = 0;
	bool done = false;
	int rc;

	*root = NULL;
	if ((rc = read_file(path, &text, &len, err)) != 0)
		return rc;
	memset(&rd, 0, sizeof(rd));
	rd.path = path;
	rd.err = err;
	/* libyaml fails here only when it cannot allocate. */
	KAI_ASSERT(yaml_parser_initialize(&rd.parser) != 0);
	yaml_parser_set_input_string(&rd.parser, (const unsigned char *)text,
	    len);
	while (!done && rc == 0) {
		yaml_event_t ev;

		if (yaml_parser_parse(&rd.parser, &ev) == 0) {
			rc = syntax(&rd);
			break;
		}
		rc = event(&rd, &ev, &done);
		yaml_event_delete(&ev);
	}
	yaml_parser_delete(&rd.parser);
	free(text);
	if (rc == 0 && rd.root == NULL)
		rc =
		    kai_err_set(err, KAI_EINVAL, "%s: the file is empty", path);
	if (rc != 0) {
		ytree_free(rd.root);
		return rc;
	}
	*root = rd.root;
	return 0;
}

void
ytree_free(struct ynode *n)
{
	size_t i;

	if (n == NULL)
		return;
	for (i = 0; i < n->nv; i++)
		ytree_free(n->v[i]);
	free(n->v);
	free(n->s);
	free(n);
}

const struct ynode *
ytree_get(const struct ynode *m, const char *key)
{
	size_t i;

	if (m == NULL || m->kind != YT_MAP)
		return NULL;
	for (i = 0; i < m->n; i++)
		if (strcmp(m->v[2 * i]->s, key) == 0)
			return m->v[2 * i + 1];
	return NULL;
}

bool
ytree_is_null(const struct ynode *n)
{
	return n != NULL && n->kind == YT_SCALAR && n->plain &&
	    (n->s[0] == '\0' || strcmp(n->s, "null") == 0 ||
		strcmp(n->s, "~") == 0 || strcmp(n->s, "Null") == 0 ||
		strcmp(n->s, "NULL") == 0);
}
