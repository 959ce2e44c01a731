/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * conf_qos.c: the list types of what Slurm keeps in its accounting
 * database and kaibatch in kaid.yaml: qualities of service (qos:) and
 * accounts (accounts:), and the two look-ups kaid makes in them at
 * submission.
 *
 * Each element is a mapping read by the table walker against the entries
 * "qos.*" and "accounts.*" flagged KAI_CONF_ITEM, as partitions are
 * (conf_lists.c); this file checks what ties the elements together (no
 * name twice, exactly one default QoS) and, like the other lists, builds
 * a list whole and replaces the field only when it passed.
 *
 * Names are what Slurm sites write (`qos_gpu-t3`, `six@a100`): letters,
 * digits and "_.@-", so that a name never needs quoting in a kqueue
 * column, a `kctl show qos` line or a SLURM_JOB_QOS value.
 */
#include "config.h"

#include <ctype.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/xmalloc.h"
#include "conf/conf.h"
#include "conf/conf_int.h"
#include "model/job.h"

#define NAME_CHARS "_.@-"

/* How one kind of element is set up and checked against the ones before. */
struct item_kind {
	size_t size;		/* of one element */
	const char *what;	/* "QoS", "account": for messages */
	/* Checks v[n] against v[0..n); may complete it. */
	int (*check)(struct kai_conf_rd *rd, void *v, size_t n,
	    yaml_mark_t mark);
};

static void
items_free(const struct kai_conf_entry *e, char *v, size_t size, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		kai_conf_release(&kai_conf_daemon_table, e->key, true,
		    v + i * size);
	free(v);
}

static bool
name_ok(const char *s)
{
	for (; *s != '\0'; s++)
		if (!isalnum((unsigned char)*s) && strchr(NAME_CHARS, *s) == NULL)
			return false;
	return true;
}

/* The name of element n: set, well formed, and not taken before. */
static int
check_name(struct kai_conf_rd *rd, const char *what, const char *name,
    const char *prev_name_at, size_t stride, size_t n, yaml_mark_t mark)
{
	size_t i;

	if (!name_ok(name))
		return kai_conf_rd_fail_at(rd, mark, "invalid %s name \"%s\": "
		    "use letters, digits and \"%s\"", what, name, NAME_CHARS);
	for (i = 0; i < n; i++)
		if (strcmp(*(char *const *)(const void *)(prev_name_at +
		    i * stride), name) == 0)
			return kai_conf_rd_fail_at(rd, mark, "duplicate %s "
			    "\"%s\"", what, name);
	return 0;
}

static int
check_qos(struct kai_conf_rd *rd, void *v, size_t n, yaml_mark_t mark)
{
	struct kai_conf_qos *q = v;

	return check_name(rd, "QoS", q[n].name, (const char *)&q[0].name,
	    sizeof(*q), n, mark);
}

static int
check_account(struct kai_conf_rd *rd, void *v, size_t n, yaml_mark_t mark)
{
	struct kai_conf_account *a = v;

	return check_name(rd, "account", a[n].name, (const char *)&a[0].name,
	    sizeof(*a), n, mark);
}

static const struct item_kind qos_kind = {sizeof(struct kai_conf_qos), "QoS",
    check_qos};
static const struct item_kind account_kind = {
    sizeof(struct kai_conf_account), "account", check_account};

/* A list of mappings into a new array; *out and *nout on success only. */
static int
parse_items(struct kai_conf_rd *rd, const struct kai_conf_entry *e,
    const char *shown, const struct item_kind *k, char **out, size_t *nout)
{
	char disp[KAI_CONF_KEY_MAX];
	struct kai_conf_seen seen;
	yaml_mark_t mark;
	char *v = NULL, *el;
	size_t n = 0;
	int r;

	if ((r = kai_conf_rd_next(rd)) != 0)
		return r;
	if (rd->ev.type != YAML_SEQUENCE_START_EVENT)
		return kai_conf_rd_bad(rd, e, shown, "expected a list");
	for (;;) {
		if ((r = kai_conf_rd_next(rd)) != 0)
			goto fail;
		if (rd->ev.type == YAML_SEQUENCE_END_EVENT)
			break;
		(void)snprintf(disp, sizeof(disp), "%s[%zu]", shown, n);
		if ((int64_t)n >= e->max) {
			r = kai_conf_rd_fail(rd, "\"%s\": more than %" PRId64
			    " elements", shown, e->max);
			goto fail;
		}
		if (rd->ev.type != YAML_MAPPING_START_EVENT) {
			r = kai_conf_rd_bad(rd, e, disp, "expected a mapping");
			goto fail;
		}
		mark = kai_conf_rd_mark(rd);
		v = kai_xreallocarray(v, n + 1, k->size);
		el = v + n * k->size;
		memset(el, 0, k->size);
		n++;	/* counted first: a failed one's strings need freeing */
		memset(&seen, 0, sizeof(seen));
		kai_conf_defaults(rd->table, e->key, true, el);
		if ((r = kai_conf_rd_mapping(rd, e->key, disp, true, el,
		    &seen)) != 0 ||
		    (r = kai_conf_rd_required(rd, e->key, disp, true, &seen,
		    &mark)) != 0 ||
		    (r = k->check(rd, v, n - 1, mark)) != 0)
			goto fail;
	}
	*out = v;
	*nout = n;
	return 0;
fail:
	items_free(e, v, k->size, n);
	return r;
}

/* The generic dump of a list of mappings, one "- key: value" block each. */
static int
dump_items(struct kai_buf *b, const struct kai_conf_entry *e,
    const void *base, int indent, size_t size)
{
	const char *v = *CFIELD(base, e, char *);
	size_t i, j, n = *(const size_t *)(const void *)((const char *)base +
	    e->count_offset);
	const struct kai_conf_table *t = &kai_conf_daemon_table;
	const struct kai_conf_entry *f;
	int r = 0, first;

	if (n == 0)
		return kai_buf_adds(b, " []"); /* after "key:", on its line */
	for (i = 0; r == 0 && i < n; i++) {
		first = 1;
		for (j = 0; r == 0 && j < t->n; j++) {
			f = &t->entries[j];
			if (!kai_conf_in_scope(f, e->key, true))
				continue;
			r = kai_buf_addf(b, "\n%*s%s%s: ", indent, "",
			    first ? "- " : "  ", f->key + strlen(e->key) + 1);
			if (r == 0)
				r = kai_conf_types[f->type].dump(b, f,
				    v + i * size, indent + 2);
			first = 0;
		}
	}
	return r;
}

void
kai_conf_release_qos(const struct kai_conf_entry *e, void *base)
{
	items_free(e, *FIELD(base, e, char *), sizeof(struct kai_conf_qos),
	    *COUNT(base, e));
	*FIELD(base, e, char *) = NULL;
	*COUNT(base, e) = 0;
}

/*
 * One QoS is the default whatever it says; of several, the one marked,
 * else the one named "normal" (Slurm's default QoS), else none: an error.
 */
static int
qos_default(struct kai_conf_rd *rd, struct kai_conf_qos *q, size_t n,
    yaml_mark_t start)
{
	size_t i, ndef = 0, normal = n;

	for (i = 0; i < n; i++) {
		ndef += q[i].is_default;
		if (strcmp(q[i].name, "normal") == 0)
			normal = i;
	}
	if (ndef > 1)
		return kai_conf_rd_fail_at(rd, start, "more than one QoS is "
		    "marked default");
	if (ndef == 1)
		return 0;
	if (n == 1)
		normal = 0;
	if (normal == n)
		return kai_conf_rd_fail_at(rd, start, "no QoS is marked "
		    "default and none is named \"normal\": set \"default: "
		    "true\" on one");
	q[normal].is_default = true;
	return 0;
}

int
kai_conf_parse_qos(struct kai_conf_rd *rd, const struct kai_conf_entry *e,
    const char *shown, void *base)
{
	struct kai_conf_qos *q;
	yaml_mark_t start;
	char *v;
	size_t n;
	int r;

	start = kai_conf_rd_mark(rd);
	if ((r = parse_items(rd, e, shown, &qos_kind, &v, &n)) != 0)
		return r;
	q = (struct kai_conf_qos *)(void *)v;
	if (n == 0)
		r = kai_conf_rd_fail_at(rd, start, "at least one QoS is "
		    "required");
	else
		r = qos_default(rd, q, n, start);
	if (r != 0) {
		items_free(e, v, sizeof(*q), n);
		return r;
	}
	kai_conf_release_qos(e, base);
	*FIELD(base, e, struct kai_conf_qos *) = q;
	*COUNT(base, e) = n;
	return 0;
}

int
kai_conf_dump_qos(struct kai_buf *b, const struct kai_conf_entry *e,
    const void *base, int indent)
{
	return dump_items(b, e, base, indent, sizeof(struct kai_conf_qos));
}

void
kai_conf_release_accounts(const struct kai_conf_entry *e, void *base)
{
	items_free(e, *FIELD(base, e, char *),
	    sizeof(struct kai_conf_account), *COUNT(base, e));
	*FIELD(base, e, char *) = NULL;
	*COUNT(base, e) = 0;
}

int
kai_conf_parse_accounts(struct kai_conf_rd *rd,
    const struct kai_conf_entry *e, const char *shown, void *base)
{
	char *v;
	size_t n;
	int r;

	if ((r = parse_items(rd, e, shown, &account_kind, &v, &n)) != 0)
		return r;
	kai_conf_release_accounts(e, base);
	*FIELD(base, e, char *) = v;
	*COUNT(base, e) = n;
	return 0;
}

int
kai_conf_dump_accounts(struct kai_buf *b, const struct kai_conf_entry *e,
    const void *base, int indent)
{
	return dump_items(b, e, base, indent, sizeof(struct kai_conf_account));
}

const struct kai_conf_qos *
kai_conf_qos(const struct kai_conf *conf, const char *name)
{
	size_t i;

	for (i = 0; i < conf->nqos; i++)
		if (name == NULL ? conf->qos[i].is_default :
		    strcmp(conf->qos[i].name, name) == 0)
			return &conf->qos[i];
	return NULL;
}

static bool
account_allows(const struct kai_conf_account *a, uint32_t uid)
{
	size_t i;

	if (a->nusers == 0)
		return true;
	for (i = 0; i < a->nusers; i++)
		if (a->users[i] == uid)
			return true;
	return false;
}

const char *
kai_conf_account(const struct kai_conf *conf, const char *name, uint32_t uid,
    bool *refused)
{
	size_t i;

	*refused = false;
	if (conf->naccounts == 0)
		return name;
	for (i = 0; i < conf->naccounts; i++) {
		const struct kai_conf_account *a = &conf->accounts[i];

		if (name != NULL && strcmp(a->name, name) != 0)
			continue;
		if (account_allows(a, uid))
			return a->name;
		if (name != NULL)
			break;
	}
	*refused = true;
	return NULL;
}
