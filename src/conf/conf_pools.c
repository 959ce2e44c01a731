/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * conf_pools.c: the list types that say where jobs run and what they
 * see -- shared filesystems, and a partition's node pool (nodeSelector,
 * tolerations, imagePullSecrets).
 *
 * Their keys are spelled as Kubernetes spells the fields they become
 * (hostPath, readOnly, nodeSelector, ...): an administrator copies them
 * from a manifest, and a second spelling would be one more thing to get
 * wrong.
 *
 * A filesystem element is a mapping read by the table walker against the
 * entries "filesystems.*" flagged KAI_CONF_ITEM, wherever the list sits
 * (at the top level or in a partition), so both lists have one set of
 * keys and one set of messages.  The rules across keys (exactly one
 * source; a path that is absolute, plain and not "/"; no path twice) are
 * checked here.  The other three are small enough to walk by hand.
 *
 * As in conf_lists.c, a list is built whole and replaces the field only
 * when it passed, so a failure leaves the default alone.
 */
#include "config.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/xmalloc.h"
#include "conf/conf.h"
#include "conf/conf_int.h"

#define FS_PREFIX "filesystems"

/* Bytes of a label key (prefix/name) and of a label value. */
#define LABEL_KEY_MAX	316
#define LABEL_VALUE_MAX 63
/* Bytes of a Kubernetes object name (a DNS subdomain). */
#define OBJNAME_MAX	253

static void
fs_free(struct kai_conf_fs *v, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		kai_conf_release(&kai_conf_daemon_table, FS_PREFIX, true,
		    &v[i]);
	free(v);
}

void
kai_conf_release_filesystems(const struct kai_conf_entry *e, void *base)
{
	fs_free(*FIELD(base, e, struct kai_conf_fs *), *COUNT(base, e));
	*FIELD(base, e, struct kai_conf_fs *) = NULL;
	*COUNT(base, e) = 0;
}

/* Why path is no mount point users could share, or NULL. */
static const char *
fs_path_problem(char *path)
{
	size_t len = strlen(path);
	const char *c;

	while (len > 1 && path[len - 1] == '/')
		path[--len] = '\0';
	if (strcmp(path, "/") == 0)
		return "must not be \"/\"";
	for (c = path; *c != '\0'; c++) {
		if (c[0] != '/')
			continue;
		if (c[1] == '/')
			return "must not hold \"//\"";
		if (c[1] == '.' && (c[2] == '/' || c[2] == '\0'))
			return "must not hold \".\" components";
		if (c[1] == '.' && c[2] == '.' && (c[3] == '/' || c[3] == '\0'))
			return "must not hold \"..\" components";
	}
	return NULL;
}

static int
check_fs(struct kai_conf_rd *rd, const char *disp, struct kai_conf_fs *v,
    size_t n, yaml_mark_t mark)
{
	struct kai_conf_fs *f = &v[n];
	const char *why;
	int sources;
	size_t i;

	if ((why = fs_path_problem(f->path)) != NULL)
		return kai_conf_rd_fail_at(rd, mark, "invalid value \"%s\" "
		    "for \"%s.path\": %s", f->path, disp, why);
	if ((f->nfs_server == NULL) != (f->nfs_path == NULL))
		return kai_conf_rd_fail_at(rd, mark, "\"%s.nfs\" needs both "
		    "server and path", disp);
	sources = (f->host_path != NULL) + (f->pvc != NULL) +
	    (f->nfs_server != NULL);
	if (sources != 1)
		return kai_conf_rd_fail_at(rd, mark, "\"%s\" (%s) needs "
		    "exactly one of hostPath, pvc and nfs", disp, f->path);
	for (i = 0; i < n; i++)
		if (strcmp(v[i].path, f->path) == 0)
			return kai_conf_rd_fail_at(rd, mark, "\"%s\": path "
			    "\"%s\" is listed twice", disp, f->path);
	return 0;
}

static int
parse_fs(struct kai_conf_rd *rd, const struct kai_conf_entry *e,
    const char *shown, struct kai_conf_fs *v, size_t n)
{
	char disp[KAI_CONF_KEY_MAX];
	yaml_mark_t mark = kai_conf_rd_mark(rd);
	struct kai_conf_seen seen;
	int r;

	memset(&seen, 0, sizeof(seen));
	(void)snprintf(disp, sizeof(disp), "%s[%zu]", shown, n);
	if (rd->ev.type != YAML_MAPPING_START_EVENT)
		return kai_conf_rd_bad(rd, e, disp, "expected a mapping");
	kai_conf_defaults(rd->table, FS_PREFIX, true, &v[n]);
	if ((r = kai_conf_rd_mapping(rd, FS_PREFIX, disp, true, &v[n],
	    &seen)) != 0 ||
	    (r = kai_conf_rd_required(rd, FS_PREFIX, disp, true, &seen,
	    &mark)) != 0)
		return r;
	return check_fs(rd, disp, v, n, mark);
}

int
kai_conf_parse_filesystems(struct kai_conf_rd *rd,
    const struct kai_conf_entry *e, const char *shown, void *base)
{
	struct kai_conf_fs *v;
	size_t n = 0;
	int r;

	if ((r = kai_conf_rd_next(rd)) != 0)
		return r;
	if (kai_conf_is_null(&rd->ev)) {
		kai_conf_release_filesystems(e, base);
		return 0;
	}
	if (rd->ev.type != YAML_SEQUENCE_START_EVENT)
		return kai_conf_rd_bad(rd, e, shown, "expected a list of "
		    "filesystems");
	/* Never NULL once set: a partition's empty list overrides the top. */
	v = kai_xcalloc(1, sizeof(*v));
	for (;;) {
		if ((r = kai_conf_rd_next(rd)) != 0)
			goto fail;
		if (rd->ev.type == YAML_SEQUENCE_END_EVENT)
			break;
		if ((int64_t)n >= e->max) {
			r = kai_conf_rd_fail(rd, "\"%s\": more than %" PRId64
			    " filesystems", shown, e->max);
			goto fail;
		}
		v = kai_xreallocarray(v, n + 1, sizeof(*v));
		memset(&v[n], 0, sizeof(v[n]));
		if ((r = parse_fs(rd, e, shown, v, n++)) != 0)
			goto fail;
	}
	kai_conf_release_filesystems(e, base);
	*FIELD(base, e, struct kai_conf_fs *) = v;
	*COUNT(base, e) = n;
	return 0;
fail:
	fs_free(v, n);
	return r;
}

static int
dump_kv(struct kai_buf *b, const char *sep, const char *key, const char *val)
{
	int r = kai_buf_addf(b, "%s%s: ", sep, key);

	return r != 0 ? r : kai_conf_dump_quoted(b, val);
}

int
kai_conf_dump_filesystems(struct kai_buf *b, const struct kai_conf_entry *e,
    const void *base, int indent)
{
	const struct kai_conf_fs *v = *CFIELD(base, e, struct kai_conf_fs *);
	size_t i, n = *(const size_t *)(const void *)((const char *)base +
	    e->count_offset);
	int r;

	(void)indent;
	if (v == NULL)
		return kai_buf_adds(b, "~");
	r = kai_buf_addc(b, '[');
	for (i = 0; r == 0 && i < n; i++) {
		r = dump_kv(b, i > 0 ? ", {" : "{", "path", v[i].path);
		if (r == 0 && v[i].host_path != NULL)
			r = dump_kv(b, ", ", "hostPath", v[i].host_path);
		if (r == 0 && v[i].pvc != NULL)
			r = dump_kv(b, ", ", "pvc", v[i].pvc);
		if (r == 0 && v[i].nfs_server != NULL) {
			r = dump_kv(b, ", nfs: {", "server", v[i].nfs_server);
			if (r == 0)
				r = dump_kv(b, ", ", "path", v[i].nfs_path);
			if (r == 0)
				r = kai_buf_addc(b, '}');
		}
		if (r == 0)
			r = kai_buf_addf(b, ", readOnly: %s}",
			    v[i].read_only ? "true" : "false");
	}
	return r != 0 ? r : kai_buf_addc(b, ']');
}

/* Frees a list of n strings. */
static void
strs_free(char **v, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		free(v[i]);
	free(v);
}

/* The current event as a mapping key, or NULL (and err set). */
static const char *
map_key(struct kai_conf_rd *rd)
{
	const char *k;

	if (rd->ev.type != YAML_SCALAR_EVENT ||
	    strlen(kai_conf_text(rd)) != rd->ev.data.scalar.length) {
		(void)kai_conf_rd_fail(rd, "keys must be plain strings");
		return NULL;
	}
	k = kai_conf_text(rd);
	return k;
}

static bool
label_chars(const char *s, const char *extra)
{
	for (; *s != '\0'; s++)
		if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') ||
		    (*s >= '0' && *s <= '9') || strchr(extra, *s) != NULL))
			return false;
	return true;
}

/* Kubernetes' label key: [prefix/]name, and value rules, loosely. */
static const char *
label_problem(const char *key, const char *val)
{
	const char *slash = strchr(key, '/');

	if (*key == '\0' || strlen(key) > LABEL_KEY_MAX ||
	    !label_chars(key, "-._/") ||
	    (slash != NULL && (slash == key || slash[1] == '\0' ||
	    strchr(slash + 1, '/') != NULL)))
		return "expected a label key: [prefix/]name of letters, "
		    "digits, '-', '_' and '.'";
	if (strlen(val) > LABEL_VALUE_MAX || !label_chars(val, "-._"))
		return "expected a label value: at most 63 letters, digits, "
		    "'-', '_' and '.'";
	return NULL;
}

void
kai_conf_release_labels(const struct kai_conf_entry *e, void *base)
{
	strs_free(*FIELD(base, e, char **), 2 * *COUNT(base, e));
	*FIELD(base, e, char **) = NULL;
	*COUNT(base, e) = 0;
}

int
kai_conf_parse_labels(struct kai_conf_rd *rd, const struct kai_conf_entry *e,
    const char *shown, void *base)
{
	char disp[KAI_CONF_KEY_MAX + 56], *key = NULL;
	const char *why;
	char **v = NULL;
	size_t i, n = 0;
	int r;

	if ((r = kai_conf_rd_next(rd)) != 0)
		return r;
	if (rd->ev.type != YAML_MAPPING_START_EVENT)
		return kai_conf_rd_bad(rd, e, shown, "expected a mapping of "
		    "node labels to values");
	for (;;) {
		if ((r = kai_conf_rd_next(rd)) != 0)
			goto fail;
		if (rd->ev.type == YAML_MAPPING_END_EVENT)
			break;
		if (map_key(rd) == NULL) {
			r = KAI_ECONFIG;
			goto fail;
		}
		key = kai_xstrdup(kai_conf_text(rd));
		(void)snprintf(disp, sizeof(disp), "%s.%.48s", shown, key);
		if ((int64_t)n >= e->max) {
			r = kai_conf_rd_fail(rd, "\"%s\": more than %" PRId64
			    " labels", shown, e->max);
			goto fail;
		}
		for (i = 0; i < n; i++)
			if (strcmp(v[2 * i], key) == 0) {
				r = kai_conf_rd_fail(rd, "duplicate key "
				    "\"%s\"", disp);
				goto fail;
			}
		if ((r = kai_conf_rd_next(rd)) != 0 ||
		    (r = kai_conf_scalar_here(rd, e, disp, "a label value")) !=
		    0)
			goto fail;
		if ((why = label_problem(key, kai_conf_text(rd))) != NULL) {
			r = kai_conf_rd_bad(rd, e, disp, "%s", why);
			goto fail;
		}
		v = kai_xreallocarray(v, 2 * (n + 1), sizeof(*v));
		v[2 * n] = key;
		v[2 * n + 1] = kai_xstrdup(kai_conf_text(rd));
		key = NULL;
		n++;
	}
	kai_conf_release_labels(e, base);
	*FIELD(base, e, char **) = v;
	*COUNT(base, e) = n;
	return 0;
fail:
	free(key);
	strs_free(v, 2 * n);
	return r;
}

int
kai_conf_dump_labels(struct kai_buf *b, const struct kai_conf_entry *e,
    const void *base, int indent)
{
	const char *const *v = *CFIELD(base, e, char **);
	size_t i, n = *(const size_t *)(const void *)((const char *)base +
	    e->count_offset);
	int r = kai_buf_addc(b, '{');

	(void)indent;
	for (i = 0; r == 0 && i < n; i++) {
		if (i > 0)
			r = kai_buf_adds(b, ", ");
		if (r == 0)
			r = kai_conf_dump_quoted(b, v[2 * i]);
		if (r == 0)
			r = kai_buf_adds(b, ": ");
		if (r == 0)
			r = kai_conf_dump_quoted(b, v[2 * i + 1]);
	}
	return r != 0 ? r : kai_buf_addc(b, '}');
}

static void
tol_free(struct kai_conf_toleration *v, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		free(v[i].key);
		free(v[i].op);
		free(v[i].value);
		free(v[i].effect);
	}
	free(v);
}

void
kai_conf_release_tolerations(const struct kai_conf_entry *e, void *base)
{
	tol_free(*FIELD(base, e, struct kai_conf_toleration *),
	    *COUNT(base, e));
	*FIELD(base, e, struct kai_conf_toleration *) = NULL;
	*COUNT(base, e) = 0;
}

/* The rules across the fields of one toleration, as the API checks them. */
static const char *
tol_problem(const struct kai_conf_toleration *t)
{
	if (strcmp(t->op, "Equal") != 0 && strcmp(t->op, "Exists") != 0)
		return "operator must be Equal or Exists";
	if (strcmp(t->op, "Exists") == 0 && *t->value != '\0')
		return "operator Exists takes no value";
	if (*t->key == '\0' && strcmp(t->op, "Exists") != 0)
		return "a toleration without a key needs operator Exists";
	if (*t->effect != '\0' && strcmp(t->effect, "NoSchedule") != 0 &&
	    strcmp(t->effect, "PreferNoSchedule") != 0 &&
	    strcmp(t->effect, "NoExecute") != 0)
		return "effect must be NoSchedule, PreferNoSchedule or "
		    "NoExecute";
	if (*t->key != '\0' && label_problem(t->key, t->value) != NULL)
		return label_problem(t->key, t->value);
	return NULL;
}

/* One toleration mapping; the current event is its MAPPING_START. */
static int
parse_tol(struct kai_conf_rd *rd, const struct kai_conf_entry *e,
    const char *disp, struct kai_conf_toleration *t)
{
	static const char *const keys[] = {"key", "operator", "value",
	    "effect"};
	char **field[4], kd[KAI_CONF_KEY_MAX + 56];
	yaml_mark_t mark = kai_conf_rd_mark(rd);
	const char *k, *why;
	size_t i;
	int r;

	field[0] = &t->key;
	field[1] = &t->op;
	field[2] = &t->value;
	field[3] = &t->effect;
	if (rd->ev.type != YAML_MAPPING_START_EVENT)
		return kai_conf_rd_bad(rd, e, disp, "expected a mapping");
	for (;;) {
		if ((r = kai_conf_rd_next(rd)) != 0)
			return r;
		if (rd->ev.type == YAML_MAPPING_END_EVENT)
			break;
		if ((k = map_key(rd)) == NULL)
			return KAI_ECONFIG;
		for (i = 0; i < KAI_NELEM(keys) && strcmp(k, keys[i]) != 0;
		    i++)
			;
		(void)snprintf(kd, sizeof(kd), "%s.%.48s", disp, k);
		if (i == KAI_NELEM(keys))
			return kai_conf_rd_fail(rd, "unrecognized key \"%s\"",
			    kd);
		if (*field[i] != NULL)
			return kai_conf_rd_fail(rd, "duplicate key \"%s\"", kd);
		if ((r = kai_conf_rd_next(rd)) != 0 ||
		    (r = kai_conf_scalar_here(rd, e, kd, "a string")) != 0)
			return r;
		*field[i] = kai_xstrdup(kai_conf_text(rd));
	}
	for (i = 0; i < KAI_NELEM(keys); i++)
		if (*field[i] == NULL)
			*field[i] = kai_xstrdup(i == 1 ? "Equal" : "");
	if ((why = tol_problem(t)) != NULL)
		return kai_conf_rd_fail_at(rd, mark, "invalid value for "
		    "\"%s\": %s", disp, why);
	return 0;
}

int
kai_conf_parse_tolerations(struct kai_conf_rd *rd,
    const struct kai_conf_entry *e, const char *shown, void *base)
{
	struct kai_conf_toleration *v = NULL;
	char disp[KAI_CONF_KEY_MAX];
	size_t n = 0;
	int r;

	if ((r = kai_conf_rd_next(rd)) != 0)
		return r;
	if (rd->ev.type != YAML_SEQUENCE_START_EVENT)
		return kai_conf_rd_bad(rd, e, shown, "expected a list of "
		    "tolerations");
	for (;;) {
		if ((r = kai_conf_rd_next(rd)) != 0)
			goto fail;
		if (rd->ev.type == YAML_SEQUENCE_END_EVENT)
			break;
		if ((int64_t)n >= e->max) {
			r = kai_conf_rd_fail(rd, "\"%s\": more than %" PRId64
			    " tolerations", shown, e->max);
			goto fail;
		}
		v = kai_xreallocarray(v, n + 1, sizeof(*v));
		memset(&v[n], 0, sizeof(v[n]));
		(void)snprintf(disp, sizeof(disp), "%s[%zu]", shown, n);
		if ((r = parse_tol(rd, e, disp, &v[n++])) != 0)
			goto fail;
	}
	kai_conf_release_tolerations(e, base);
	*FIELD(base, e, struct kai_conf_toleration *) = v;
	*COUNT(base, e) = n;
	return 0;
fail:
	tol_free(v, n);
	return r;
}

int
kai_conf_dump_tolerations(struct kai_buf *b, const struct kai_conf_entry *e,
    const void *base, int indent)
{
	const struct kai_conf_toleration *v = *CFIELD(base, e,
	    struct kai_conf_toleration *);
	size_t i, n = *(const size_t *)(const void *)((const char *)base +
	    e->count_offset);
	int r = kai_buf_addc(b, '[');

	(void)indent;
	for (i = 0; r == 0 && i < n; i++) {
		r = dump_kv(b, i > 0 ? ", {" : "{", "key", v[i].key);
		if (r == 0)
			r = dump_kv(b, ", ", "operator", v[i].op);
		if (r == 0)
			r = dump_kv(b, ", ", "value", v[i].value);
		if (r == 0)
			r = dump_kv(b, ", ", "effect", v[i].effect);
		if (r == 0)
			r = kai_buf_addc(b, '}');
	}
	return r != 0 ? r : kai_buf_addc(b, ']');
}

void
kai_conf_release_names(const struct kai_conf_entry *e, void *base)
{
	strs_free(*FIELD(base, e, char **), *COUNT(base, e));
	*FIELD(base, e, char **) = NULL;
	*COUNT(base, e) = 0;
}

int
kai_conf_parse_names(struct kai_conf_rd *rd, const struct kai_conf_entry *e,
    const char *shown, void *base)
{
	char **v = NULL;
	const char *s;
	size_t n = 0;
	int r;

	if ((r = kai_conf_rd_next(rd)) != 0)
		return r;
	if (rd->ev.type != YAML_SEQUENCE_START_EVENT)
		return kai_conf_rd_bad(rd, e, shown, "expected a list of "
		    "names");
	for (;;) {
		if ((r = kai_conf_rd_next(rd)) != 0)
			goto fail;
		if (rd->ev.type == YAML_SEQUENCE_END_EVENT)
			break;
		if ((r = kai_conf_scalar_here(rd, e, shown, "a name")) != 0)
			goto fail;
		s = kai_conf_text(rd);
		if (*s == '\0' || strlen(s) > OBJNAME_MAX ||
		    strspn(s, "abcdefghijklmnopqrstuvwxyz0123456789-.") !=
		    strlen(s)) {
			r = kai_conf_rd_bad(rd, e, shown, "expected a "
			    "Kubernetes object name: lower-case letters, "
			    "digits, '-' and '.'");
			goto fail;
		}
		if ((int64_t)n >= e->max) {
			r = kai_conf_rd_fail(rd, "\"%s\": more than %" PRId64
			    " names", shown, e->max);
			goto fail;
		}
		v = kai_xreallocarray(v, n + 1, sizeof(*v));
		v[n++] = kai_xstrdup(s);
	}
	kai_conf_release_names(e, base);
	*FIELD(base, e, char **) = v;
	*COUNT(base, e) = n;
	return 0;
fail:
	strs_free(v, n);
	return r;
}

int
kai_conf_dump_names(struct kai_buf *b, const struct kai_conf_entry *e,
    const void *base, int indent)
{
	const char *const *v = *CFIELD(base, e, char **);
	size_t i, n = *(const size_t *)(const void *)((const char *)base +
	    e->count_offset);
	int r = kai_buf_addc(b, '[');

	(void)indent;
	for (i = 0; r == 0 && i < n; i++) {
		if (i > 0)
			r = kai_buf_adds(b, ", ");
		if (r == 0)
			r = kai_conf_dump_quoted(b, v[i]);
	}
	return r != 0 ? r : kai_buf_addc(b, ']');
}
