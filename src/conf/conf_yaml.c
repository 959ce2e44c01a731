/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * conf_yaml.c: walks libyaml events against a table of keys.
 *
 * The reader pulls one event at a time (yaml_parser_parse) and never
 * builds a document tree, so what a file costs is bounded by the file
 * size limit the caller applies.  It refuses, the moment they appear,
 * the YAML features a config file has no use for and an attacker does:
 * anchors and aliases (a few lines of them expand to gigabytes, the
 * "billion laughs"), explicit tags, and nesting past KAI_CONF_DEPTH_MAX.
 * Since every walk below fails at the first value of the wrong shape, the
 * depth a valid kaibatch file reaches is small and fixed; the limit is the
 * guard for whatever walk comes later.
 *
 * Every message starts with "path:line:col: ", 1-based, taken from the
 * start mark of the event at fault.  The walker knows no key by name: the
 * table says what a key is, the type (conf_types.c) how to read it.
 */
#include "config.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/xmalloc.h"
#include "conf/conf_int.h"

void
kai_conf_rd_init(struct kai_conf_rd *rd, const char *path, const char *text,
    size_t len, const struct kai_conf_table *table, struct kai_err *err)
{
	memset(rd, 0, sizeof(*rd));
	/* libyaml fails here only when it cannot allocate its buffers. */
	KAI_ASSERT(yaml_parser_initialize(&rd->parser) != 0);
	yaml_parser_set_input_string(&rd->parser, (const unsigned char *)text,
	    len);
	rd->path = path;
	rd->table = table;
	rd->err = err;
}

void
kai_conf_rd_fini(struct kai_conf_rd *rd)
{
	if (rd->have)
		yaml_event_delete(&rd->ev);
	rd->have = false;
	yaml_parser_delete(&rd->parser);
}

static int vfail_at(struct kai_conf_rd *rd, yaml_mark_t mark,
    const char *fmt, va_list ap) KAI_PRINTF(3, 0);

static int
vfail_at(struct kai_conf_rd *rd, yaml_mark_t mark, const char *fmt,
    va_list ap)
{
	char reason[KAI_ERR_MSG_MAX];

	(void)vsnprintf(reason, sizeof(reason), fmt, ap);
	return kai_err_set(rd->err, KAI_ECONFIG, "%s:%zu:%zu: %s", rd->path,
	    mark.line + 1, mark.column + 1, reason);
}

int
kai_conf_rd_fail_at(struct kai_conf_rd *rd, yaml_mark_t mark,
    const char *fmt, ...)
{
	va_list ap;
	int r;

	va_start(ap, fmt);
	r = vfail_at(rd, mark, fmt, ap);
	va_end(ap);
	return r;
}

int
kai_conf_rd_fail(struct kai_conf_rd *rd, const char *fmt, ...)
{
	va_list ap;
	int r;

	va_start(ap, fmt);
	r = vfail_at(rd, kai_conf_rd_mark(rd), fmt, ap);
	va_end(ap);
	return r;
}

yaml_mark_t
kai_conf_rd_mark(const struct kai_conf_rd *rd)
{
	if (rd->have)
		return rd->ev.start_mark;
	return rd->parser.mark;
}

/* libyaml's own words, with the place it noticed and the construct. */
static int
syntax_error(struct kai_conf_rd *rd)
{
	const yaml_parser_t *p = &rd->parser;
	const char *problem = p->problem != NULL ? p->problem : "syntax error";

	if (p->error == YAML_READER_ERROR)
		return kai_err_set(rd->err, KAI_ECONFIG, "%s: %s at byte %zu",
		    rd->path, problem, p->problem_offset);
	if (p->context == NULL)
		return kai_conf_rd_fail_at(rd, p->problem_mark, "%s", problem);
	return kai_conf_rd_fail_at(rd, p->problem_mark,
	    "%s (%s at line %zu column %zu)", problem, p->context,
	    p->context_mark.line + 1, p->context_mark.column + 1);
}

int
kai_conf_rd_next(struct kai_conf_rd *rd)
{
	const yaml_char_t *anchor = NULL, *tag = NULL;

	if (rd->have)
		yaml_event_delete(&rd->ev);
	rd->have = false;
	if (yaml_parser_parse(&rd->parser, &rd->ev) == 0)
		return syntax_error(rd);
	rd->have = true;
	switch (rd->ev.type) {
	case YAML_ALIAS_EVENT:
		return kai_conf_rd_fail(rd,
		    "YAML anchors and aliases are not allowed");
	case YAML_SCALAR_EVENT:
		anchor = rd->ev.data.scalar.anchor;
		tag = rd->ev.data.scalar.tag;
		break;
	case YAML_SEQUENCE_START_EVENT:
		anchor = rd->ev.data.sequence_start.anchor;
		tag = rd->ev.data.sequence_start.tag;
		rd->depth++;
		break;
	case YAML_MAPPING_START_EVENT:
		anchor = rd->ev.data.mapping_start.anchor;
		tag = rd->ev.data.mapping_start.tag;
		rd->depth++;
		break;
	case YAML_SEQUENCE_END_EVENT:
	case YAML_MAPPING_END_EVENT:
		rd->depth--;
		break;
	default:
		break;
	}
	if (anchor != NULL)
		return kai_conf_rd_fail(rd,
		    "YAML anchors and aliases are not allowed");
	if (tag != NULL)
		return kai_conf_rd_fail(rd, "YAML tags are not allowed");
	if (rd->depth > KAI_CONF_DEPTH_MAX)
		return kai_conf_rd_fail(rd, "nested deeper than %d levels",
		    KAI_CONF_DEPTH_MAX);
	return 0;
}

/* Copies at most KAI_CONF_SHOW_MAX bytes of s for a message. */
static void
show_value(char *out, size_t size, const char *s, size_t len)
{
	size_t i, n = len > KAI_CONF_SHOW_MAX ? KAI_CONF_SHOW_MAX : len;

	KAI_ASSERT(size > n + 3);
	for (i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];

		/* A newline or escape in a message would forge log lines. */
		out[i] = c < 0x20 || c == 0x7f ? '?' : (char)c;
	}
	out[n] = '\0';
	if (n < len)
		memcpy(out + n, "...", 4);
}

int
kai_conf_rd_bad(struct kai_conf_rd *rd, const struct kai_conf_entry *e,
    const char *shown, const char *fmt, ...)
{
	char reason[KAI_ERR_MSG_MAX], val[KAI_CONF_SHOW_MAX + 4];
	const char *found = "";
	va_list ap;

	va_start(ap, fmt);
	(void)vsnprintf(reason, sizeof(reason), fmt, ap);
	va_end(ap);
	if (rd->ev.type == YAML_SCALAR_EVENT &&
	    (e == NULL || (e->flags & KAI_CONF_SECRET) == 0)) {
		show_value(val, sizeof(val), kai_conf_text(rd),
		    rd->ev.data.scalar.length);
		return kai_conf_rd_fail(rd,
		    "invalid value \"%s\" for \"%s\": %s", val, shown, reason);
	}
	if (rd->ev.type == YAML_MAPPING_START_EVENT)
		found = ", found a mapping";
	else if (rd->ev.type == YAML_SEQUENCE_START_EVENT)
		found = ", found a list";
	return kai_conf_rd_fail(rd, "invalid value for \"%s\": %s%s", shown,
	    reason, found);
}

bool
kai_conf_in_scope(const struct kai_conf_entry *e, const char *prefix,
    bool item)
{
	size_t n = strlen(prefix);

	if (((e->flags & KAI_CONF_ITEM) != 0) != item)
		return false;
	return n == 0 || (strncmp(e->key, prefix, n) == 0 && e->key[n] == '.');
}

const struct kai_conf_entry *
kai_conf_entry_find(const struct kai_conf_table *t, const char *key)
{
	size_t i;

	for (i = 0; i < t->n; i++)
		if (strcmp(t->entries[i].key, key) == 0)
			return &t->entries[i];
	return NULL;
}

/*
 * The index of the first entry in scope under the section full ("kubernetes"
 * → "kubernetes.*"), or -1 when full names no section.
 */
static int
section_find(const struct kai_conf_table *t, const char *full, bool item)
{
	size_t i;

	for (i = 0; i < t->n; i++)
		if (kai_conf_in_scope(&t->entries[i], full, item))
			return (int)i;
	return -1;
}

/* The key in the current event, or NULL when it is not a plain string. */
static const char *
key_text(const struct kai_conf_rd *rd)
{
	const char *k;

	if (rd->ev.type != YAML_SCALAR_EVENT)
		return NULL;
	k = (const char *)rd->ev.data.scalar.value;
	if (strlen(k) != rd->ev.data.scalar.length)
		return NULL; /* a NUL inside a quoted key */
	return k;
}

static int mapping_key(struct kai_conf_rd *rd, const char *prefix,
    const char *shown, bool item, void *base, struct kai_conf_seen *seen,
    struct kai_conf_seen *sections);

int
kai_conf_rd_mapping(struct kai_conf_rd *rd, const char *prefix,
    const char *shown, bool item, void *base, struct kai_conf_seen *seen)
{
	struct kai_conf_seen sections;
	int r;

	memset(&sections, 0, sizeof(sections));
	KAI_ASSERT(rd->table->n <= KAI_CONF_ENTRIES_MAX);
	KAI_ASSERT(rd->ev.type == YAML_MAPPING_START_EVENT);
	for (;;) {
		if ((r = kai_conf_rd_next(rd)) != 0)
			return r;
		if (rd->ev.type == YAML_MAPPING_END_EVENT)
			return 0;
		r = mapping_key(rd, prefix, shown, item, base, seen, &sections);
		if (r != 0)
			return r;
	}
}

/* One key of a mapping (the current event) and its value. */
static int
mapping_key(struct kai_conf_rd *rd, const char *prefix, const char *shown,
    bool item, void *base, struct kai_conf_seen *seen,
    struct kai_conf_seen *sections)
{
	char full[KAI_CONF_KEY_MAX], disp[KAI_CONF_KEY_MAX];
	char kshow[KAI_CONF_SHOW_MAX + 4];
	const struct kai_conf_entry *e;
	const char *k;
	size_t idx;
	int n, r, sec;

	if ((k = key_text(rd)) == NULL)
		return kai_conf_rd_fail(rd, "keys must be plain strings");
	n = snprintf(full, sizeof(full), "%s%s%s", prefix,
	    *prefix != '\0' ? "." : "", k);
	show_value(kshow, sizeof(kshow), k, strlen(k));
	(void)snprintf(disp, sizeof(disp), "%s%s%s", shown,
	    *shown != '\0' ? "." : "", kshow);
	e = NULL;
	sec = -1;
	/* A dot in a key is no shortcut into a section. */
	if (n > 0 && (size_t)n < sizeof(full) && *k != '\0' &&
	    strchr(k, '.') == NULL) {
		e = kai_conf_entry_find(rd->table, full);
		if (e != NULL && !kai_conf_in_scope(e, prefix, item))
			e = NULL;
		if (e == NULL)
			sec = section_find(rd->table, full, item);
	}
	if (e != NULL) {
		idx = (size_t)(e - rd->table->entries);
		if (kai_conf_seen_has(seen, idx))
			return kai_conf_rd_fail(rd, "duplicate key \"%s\"",
			    disp);
		kai_conf_seen_add(seen, idx);
		return kai_conf_types[e->type].parse(rd, e, disp, base);
	}
	if (sec < 0)
		return kai_conf_rd_fail(rd, "unrecognized key \"%s\"", disp);
	if (kai_conf_seen_has(sections, (size_t)sec))
		return kai_conf_rd_fail(rd, "duplicate key \"%s\"", disp);
	kai_conf_seen_add(sections, (size_t)sec);
	if ((r = kai_conf_rd_next(rd)) != 0)
		return r;
	if (rd->ev.type != YAML_MAPPING_START_EVENT)
		return kai_conf_rd_bad(rd, NULL, disp, "expected a mapping");
	return kai_conf_rd_mapping(rd, full, disp, item, base, seen);
}

int
kai_conf_rd_required(struct kai_conf_rd *rd, const char *prefix,
    const char *shown, bool item, const struct kai_conf_seen *seen,
    const yaml_mark_t *mark)
{
	const struct kai_conf_entry *e;
	size_t i, skip = strlen(prefix);
	const char *rest;

	for (i = 0; i < rd->table->n; i++) {
		e = &rd->table->entries[i];
		if ((e->flags & KAI_CONF_REQUIRED) == 0 ||
		    !kai_conf_in_scope(e, prefix, item) ||
		    kai_conf_seen_has(seen, i))
			continue;
		rest = e->key + skip + (skip > 0 ? 1 : 0);
		if (mark == NULL)
			return kai_err_set(rd->err, KAI_ECONFIG,
			    "%s: missing required key \"%s%s%s\"", rd->path,
			    shown, *shown != '\0' ? "." : "", rest);
		return kai_conf_rd_fail_at(rd, *mark,
		    "missing required key \"%s%s%s\"", shown,
		    *shown != '\0' ? "." : "", rest);
	}
	return 0;
}

static int
expect_event(struct kai_conf_rd *rd, yaml_event_type_t type)
{
	int r;

	if ((r = kai_conf_rd_next(rd)) != 0)
		return r;
	/* libyaml frames every stream and document itself. */
	KAI_ASSERT(rd->ev.type == type);
	return 0;
}

int
kai_conf_rd_document(struct kai_conf_rd *rd, void *base)
{
	struct kai_conf_seen seen;
	int r;

	memset(&seen, 0, sizeof(seen));
	if ((r = expect_event(rd, YAML_STREAM_START_EVENT)) != 0 ||
	    (r = kai_conf_rd_next(rd)) != 0)
		return r;
	if (rd->ev.type == YAML_STREAM_END_EVENT)
		return kai_conf_rd_required(rd, "", "", false, &seen, NULL);
	if ((r = kai_conf_rd_next(rd)) != 0)
		return r;
	if (rd->ev.type == YAML_MAPPING_START_EVENT) {
		if ((r = kai_conf_rd_mapping(rd, "", "", false, base,
		    &seen)) != 0)
			return r;
	} else if (rd->ev.type != YAML_SCALAR_EVENT ||
	    !kai_conf_is_null(&rd->ev))
		return kai_conf_rd_fail(rd, "the top level must be a mapping");
	if ((r = expect_event(rd, YAML_DOCUMENT_END_EVENT)) != 0 ||
	    (r = kai_conf_rd_next(rd)) != 0)
		return r;
	if (rd->ev.type != YAML_STREAM_END_EVENT)
		return kai_conf_rd_fail(rd, "more than one YAML document");
	return kai_conf_rd_required(rd, "", "", false, &seen, NULL);
}

void
kai_conf_defaults(const struct kai_conf_table *t, const char *prefix,
    bool item, void *base)
{
	const struct kai_conf_entry *e;
	struct kai_conf_rd rd;
	struct kai_err err;
	size_t i;
	int r;

	for (i = 0; i < t->n; i++) {
		e = &t->entries[i];
		if (e->def == NULL || !kai_conf_in_scope(e, prefix, item))
			continue;
		kai_conf_rd_init(&rd, "(default)", e->def, strlen(e->def), t,
		    &err);
		r = expect_event(&rd, YAML_STREAM_START_EVENT);
		if (r == 0)
			r = expect_event(&rd, YAML_DOCUMENT_START_EVENT);
		if (r == 0)
			r = kai_conf_types[e->type].parse(&rd, e, e->key, base);
		/* The table is code: a default that fails is a bug. */
		KAI_ASSERT(r == 0);
		kai_conf_rd_fini(&rd);
	}
}

void
kai_conf_release(const struct kai_conf_table *t, const char *prefix,
    bool item, void *base)
{
	const struct kai_conf_entry *e;
	size_t i;

	for (i = 0; i < t->n; i++) {
		e = &t->entries[i];
		if (kai_conf_in_scope(e, prefix, item) &&
		    kai_conf_types[e->type].release != NULL)
			kai_conf_types[e->type].release(e, base);
	}
}
