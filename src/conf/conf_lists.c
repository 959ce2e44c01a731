/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * conf_lists.c: the two list types, operators and partitions.
 *
 * A list is parsed whole into a new array that replaces the field's only
 * when every element and the rules across elements have passed, so a
 * failure halfway leaves the old list (the default) alone and frees what
 * was built.  Partition elements are mappings read by the same walker as
 * the top level, against the table entries flagged KAI_CONF_ITEM.
 *
 * User names are resolved with getpwnam_r(3) while loading: the one
 * lookup conf does beyond reading the file, so that a typo in a name is a
 * load error rather than an operator who silently is not one.  A reload
 * resolves them again.
 */
#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/strconv.h"
#include "base/xmalloc.h"
#include "conf/conf.h"
#include "conf/conf_int.h"
#include "model/job.h"

/* The uid of a user name; KAI_ENOENT when there is none. */
static int
lookup_user(const char *name, uint32_t *uid, int *sys_errno)
{
	struct passwd pw, *res = NULL;
	size_t size = 16384;
	char *buf;
	int r;

	for (;;) {
		buf = kai_xmalloc(size);
		r = getpwnam_r(name, &pw, buf, size, &res);
		if (r != ERANGE || size >= (size_t)1024 * 1024)
			break;
		free(buf);
		size *= 4;
	}
	if (r == 0 && res != NULL)
		*uid = (uint32_t)pw.pw_uid;
	free(buf);
	*sys_errno = r;
	if (r != 0)
		return KAI_ESYS;
	return res != NULL ? 0 : KAI_ENOENT;
}

static int
parse_uid(struct kai_conf_rd *rd, const struct kai_conf_entry *e,
    const char *shown, uint32_t *uid)
{
	const char *t;
	uint64_t v;
	int r, sys_errno;

	if ((r = kai_conf_scalar_here(rd, e, shown, "a user name or uid")) != 0)
		return r;
	t = kai_conf_text(rd);
	/* All digits is a uid; anything else, "1st-shift" too, a name. */
	if (*t != '\0' && t[strspn(t, "0123456789")] == '\0') {
		/* (uid_t)-1 means "no change" to chown(2): never a user. */
		if (kai_strtou64(t, UINT32_MAX - 1, &v, "uid", NULL) != 0)
			return kai_conf_rd_bad(rd, e, shown,
			    "a uid must be between 0 and %" PRIu32,
			    UINT32_MAX - 1);
		*uid = (uint32_t)v;
		return 0;
	}
	r = lookup_user(t, uid, &sys_errno);
	if (r == KAI_ENOENT)
		return kai_conf_rd_bad(rd, e, shown, "no such user");
	if (r != 0)
		return kai_conf_rd_bad(rd, e, shown,
		    "could not look up user: %s", strerror(sys_errno));
	return 0;
}

void
kai_conf_release_uids(const struct kai_conf_entry *e, void *base)
{
	KAI_FREE(*FIELD(base, e, uint32_t *));
	*COUNT(base, e) = 0;
}

int
kai_conf_parse_uids(struct kai_conf_rd *rd, const struct kai_conf_entry *e,
    const char *shown, void *base)
{
	uint32_t *v = NULL;
	size_t n = 0;
	int r;

	if ((r = kai_conf_rd_next(rd)) != 0)
		return r;
	if (rd->ev.type != YAML_SEQUENCE_START_EVENT)
		return kai_conf_rd_bad(rd, e, shown,
		    "expected a list of user names or uids");
	for (;;) {
		if ((r = kai_conf_rd_next(rd)) != 0)
			goto fail;
		if (rd->ev.type == YAML_SEQUENCE_END_EVENT)
			break;
		if ((int64_t)n >= e->max) {
			r = kai_conf_rd_bad(rd, e, shown, "more than %" PRId64
			    " users", e->max);
			goto fail;
		}
		v = kai_xreallocarray(v, n + 1, sizeof(*v));
		if ((r = parse_uid(rd, e, shown, &v[n])) != 0)
			goto fail;
		n++;
	}
	kai_conf_release_uids(e, base);
	*FIELD(base, e, uint32_t *) = v;
	*COUNT(base, e) = n;
	return 0;
fail:
	free(v);
	return r;
}

int
kai_conf_dump_uids(struct kai_buf *b, const struct kai_conf_entry *e,
    const void *base, int indent)
{
	const uint32_t *v = *CFIELD(base, e, uint32_t *);
	size_t i, n = *(const size_t *)(const void *)((const char *)base +
	    e->count_offset);
	int r = kai_buf_addc(b, '[');

	(void)indent;
	for (i = 0; r == 0 && i < n; i++)
		r = kai_buf_addf(b, "%s%" PRIu32, i > 0 ? ", " : "", v[i]);
	return r != 0 ? r : kai_buf_addc(b, ']');
}

void
kai_conf_release_partitions(const struct kai_conf_entry *e, void *base)
{
	struct kai_conf_partition *v = *FIELD(base, e,
	    struct kai_conf_partition *);
	size_t i, *n = COUNT(base, e);

	for (i = 0; i < *n; i++)
		kai_conf_release(&kai_conf_daemon_table, e->key, true, &v[i]);
	free(v);
	*FIELD(base, e, struct kai_conf_partition *) = NULL;
	*n = 0;
}

/*
 * The rules that tie the fields of one partition, and it to the ones
 * before it.  default_time left unset takes max_time, as Slurm's
 * DefaultTime takes MaxTime.
 */
static int
check_partition(struct kai_conf_rd *rd, struct kai_conf_partition *v,
    size_t n, yaml_mark_t mark)
{
	struct kai_conf_partition *p = &v[n];
	char dt[64], mt[64];
	size_t i;

	if (p->default_time_s == KAI_TIME_UNSET)
		p->default_time_s = p->max_time_s;
	if (p->max_time_s != KAI_TIME_UNLIMITED &&
	    (p->default_time_s == KAI_TIME_UNLIMITED ||
	    p->default_time_s > p->max_time_s)) {
		kai_time_format(p->default_time_s, dt, sizeof(dt));
		kai_time_format(p->max_time_s, mt, sizeof(mt));
		return kai_conf_rd_fail_at(rd, mark, "partition \"%s\": "
		    "default_time %s exceeds max_time %s", p->name, dt, mt);
	}
	for (i = 0; i < n; i++) {
		if (strcmp(v[i].name, p->name) == 0)
			return kai_conf_rd_fail_at(rd, mark,
			    "duplicate partition \"%s\"", p->name);
		if (v[i].is_default && p->is_default)
			return kai_conf_rd_fail_at(rd, mark,
			    "partitions \"%s\" and \"%s\" are both marked "
			    "default", v[i].name, p->name);
	}
	return 0;
}

/* One element: the current event must be its MAPPING_START. */
static int
parse_partition(struct kai_conf_rd *rd, const struct kai_conf_entry *e,
    const char *shown, struct kai_conf_partition *v, size_t n)
{
	char disp[KAI_CONF_KEY_MAX];
	yaml_mark_t mark = kai_conf_rd_mark(rd);
	struct kai_conf_seen seen;
	int r;

	memset(&seen, 0, sizeof(seen));
	(void)snprintf(disp, sizeof(disp), "%s[%zu]", shown, n);
	if (rd->ev.type != YAML_MAPPING_START_EVENT)
		return kai_conf_rd_bad(rd, e, disp, "expected a mapping");
	v[n].default_time_s = KAI_TIME_UNSET;
	kai_conf_defaults(rd->table, e->key, true, &v[n]);
	if ((r = kai_conf_rd_mapping(rd, e->key, disp, true, &v[n],
	    &seen)) != 0 ||
	    (r = kai_conf_rd_required(rd, e->key, disp, true, &seen,
	    &mark)) != 0)
		return r;
	return check_partition(rd, v, n, mark);
}

int
kai_conf_parse_partitions(struct kai_conf_rd *rd,
    const struct kai_conf_entry *e, const char *shown, void *base)
{
	struct kai_conf_partition *v = NULL;
	yaml_mark_t start;
	size_t i, n = 0, ndef = 0;
	int r;

	if ((r = kai_conf_rd_next(rd)) != 0)
		return r;
	if (rd->ev.type != YAML_SEQUENCE_START_EVENT)
		return kai_conf_rd_bad(rd, e, shown, "expected a list of "
		    "partitions");
	start = kai_conf_rd_mark(rd);
	for (;;) {
		if ((r = kai_conf_rd_next(rd)) != 0)
			goto fail;
		if (rd->ev.type == YAML_SEQUENCE_END_EVENT)
			break;
		if ((int64_t)n >= e->max) {
			r = kai_conf_rd_fail(rd, "more than %" PRId64
			    " partitions", e->max);
			goto fail;
		}
		v = kai_xreallocarray(v, n + 1, sizeof(*v));
		memset(&v[n], 0, sizeof(v[n]));
		/* Counted before parsing: a failed one's name needs freeing. */
		if ((r = parse_partition(rd, e, shown, v, n++)) != 0)
			goto fail;
		ndef += v[n - 1].is_default;
	}
	if (n == 0) {
		r = kai_conf_rd_fail_at(rd, start, "at least one partition "
		    "is required");
		goto fail;
	}
	if (n == 1)
		v[0].is_default = true;
	else if (ndef == 0) {
		r = kai_conf_rd_fail_at(rd, start, "no partition is marked "
		    "default: set \"default: true\" on one");
		goto fail;
	}
	kai_conf_release_partitions(e, base);
	*FIELD(base, e, struct kai_conf_partition *) = v;
	*COUNT(base, e) = n;
	return 0;
fail:
	for (i = 0; i < n; i++)
		kai_conf_release(rd->table, e->key, true, &v[i]);
	free(v);
	return r;
}

int
kai_conf_dump_partitions(struct kai_buf *b, const struct kai_conf_entry *e,
    const void *base, int indent)
{
	const struct kai_conf_partition *v = *CFIELD(base, e,
	    struct kai_conf_partition *);
	size_t i, j, n = *(const size_t *)(const void *)((const char *)base +
	    e->count_offset);
	const struct kai_conf_table *t = &kai_conf_daemon_table;
	const struct kai_conf_entry *f;
	int r = 0, first;

	for (i = 0; r == 0 && i < n; i++) {
		first = 1;
		for (j = 0; r == 0 && j < t->n; j++) {
			f = &t->entries[j];
			if (!kai_conf_in_scope(f, e->key, true))
				continue;
			r = kai_buf_addf(b, "\n%*s%s%s: ", indent, "",
			    first ? "- " : "  ", f->key + strlen(e->key) + 1);
			if (r == 0)
				r = kai_conf_types[f->type].dump(b, f, &v[i],
				    indent + 2);
			first = 0;
		}
	}
	return r;
}
