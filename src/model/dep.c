/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * dep.c: job dependencies.  See dep.h.
 *
 * The rules are Slurm's (sbatch(1), --dependency): afterok on a job that
 * failed, or afternotok on one that completed, can never be satisfied;
 * an array satisfies afterok only when every task completed, and fails
 * it as soon as one task did not.  "," needs every item, "?" any one.
 */
#include "config.h"

#include "model/dep.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "base/xmalloc.h"

static const char *const type_names[KAI_DEP_NTYPES] = {
    [KAI_DEP_AFTER] = "after",
    [KAI_DEP_AFTERANY] = "afterany",
    [KAI_DEP_AFTERNOTOK] = "afternotok",
    [KAI_DEP_AFTEROK] = "afterok",
    [KAI_DEP_SINGLETON] = "singleton",
};

const char *
kai_dep_type_name(enum kai_dep_type t)
{
	return (unsigned)t < KAI_DEP_NTYPES ? type_names[t] : "?";
}

static bool
num(const char **p, const char *end, uint64_t max, uint64_t *v)
{
	const char *s = *p;
	uint64_t x = 0;

	if (s == end || *s < '0' || *s > '9')
		return false;
	for (; s < end && *s >= '0' && *s <= '9'; s++) {
		x = x * 10 + (uint64_t)(*s - '0');
		if (x > max)
			return false;
	}
	*p = s;
	*v = x;
	return true;
}

/* "123", "123_4", "123+5" (after only) in [p, end) as one more item. */
static bool
job_item(struct kai_dep *d, enum kai_dep_type t, const char *p,
    const char *end, uint32_t grp)
{
	struct kai_dep_item it = {t, 0, KAI_DEP_TASK_ALL, 0, grp};
	uint64_t v;

	if (d->n >= KAI_DEP_ITEMS_MAX || !num(&p, end, UINT32_MAX, &v) ||
	    v == 0)
		return false;
	it.job = v;
	if (p < end && *p == '_') {
		p++;
		if (!num(&p, end, UINT32_MAX - 1, &v))
			return false;
		it.task = (uint32_t)v;
	}
	if (p < end && *p == '+' && t == KAI_DEP_AFTER) {
		p++;
		if (!num(&p, end, INT32_MAX, &v))
			return false;
		it.delay_min = (uint32_t)v;
	}
	if (p != end)
		return false;
	d->items = kai_xreallocarray(d->items, d->n + 1, sizeof(*d->items));
	d->items[d->n++] = it;
	return true;
}

/* One "type:job[:job...]", "singleton" or bare job id in [p, end). */
static int
group(const char *all, struct kai_dep *d, const char *p, const char *end,
    uint32_t grp, struct kai_err *err)
{
	size_t tlen = strcspn(p, ":,?");
	enum kai_dep_type t = KAI_DEP_NTYPES;
	const char *colon;
	size_t k;

	if (p < end && *p >= '0' && *p <= '9')
		return job_item(d, KAI_DEP_AFTERANY, p, end, grp) ? 0 :
		    kai_err_set(err, KAI_EINVAL, "invalid dependency \"%s\"",
			all);
	if (p + tlen > end)
		tlen = (size_t)(end - p);
	for (k = 0; k < KAI_DEP_NTYPES; k++)
		if (tlen == strlen(type_names[k]) &&
		    strncasecmp(p, type_names[k], tlen) == 0)
			t = (enum kai_dep_type)k;
	if (tlen == 16 && strncasecmp(p, "afterburstbuffer", 16) == 0)
		t = KAI_DEP_AFTERANY;
	if (tlen == 9 && strncasecmp(p, "aftercorr", 9) == 0)
		return kai_err_set(err, KAI_EINVAL, "invalid dependency "
		    "\"%s\": aftercorr is not supported", all);
	if (t == KAI_DEP_NTYPES)
		return kai_err_set(err, KAI_EINVAL,
		    "invalid dependency \"%s\"", all);
	p += tlen;
	if (t == KAI_DEP_SINGLETON) {
		struct kai_dep_item it = {t, 0, KAI_DEP_TASK_ALL, 0, grp};

		if (p != end || d->n >= KAI_DEP_ITEMS_MAX)
			return kai_err_set(err, KAI_EINVAL,
			    "invalid dependency \"%s\"", all);
		d->items = kai_xreallocarray(d->items, d->n + 1,
		    sizeof(*d->items));
		d->items[d->n++] = it;
		return 0;
	}
	if (p == end)
		return kai_err_set(err, KAI_EINVAL,
		    "invalid dependency \"%s\": %s needs a job id", all,
		    type_names[t]);
	while (p < end) {
		p++; /* the ':' */
		colon = memchr(p, ':', (size_t)(end - p));
		if (!job_item(d, t, p, colon != NULL ? colon : end, grp))
			return kai_err_set(err, KAI_EINVAL,
			    "invalid dependency \"%s\"", all);
		p = colon != NULL ? colon : end;
	}
	return 0;
}

int
kai_dep_parse(const char *s, struct kai_dep *out, struct kai_err *err)
{
	struct kai_dep d = {false, NULL, 0};
	const char *p = s, *end;
	uint32_t grp = 0;
	char sep;

	if (strchr(s, ',') != NULL && strchr(s, '?') != NULL)
		return kai_err_set(err, KAI_EINVAL, "invalid dependency "
		    "\"%s\": both \",\" and \"?\" are used", s);
	d.any = strchr(s, '?') != NULL;
	sep = d.any ? '?' : ',';
	for (;;) {
		end = strchr(p, sep);
		if (end == NULL)
			end = p + strlen(p);
		if (end == p) {
			kai_dep_fini(&d);
			return kai_err_set(err, KAI_EINVAL,
			    "invalid dependency \"%s\"", s);
		}
		if (group(s, &d, p, end, grp++, err) != 0) {
			kai_dep_fini(&d);
			return KAI_EINVAL;
		}
		if (*end == '\0')
			break;
		p = end + 1;
	}
	kai_dep_fini(out);
	*out = d;
	return 0;
}

void
kai_dep_fini(struct kai_dep *d)
{
	KAI_FREE(d->items);
	d->n = 0;
	d->any = false;
}

/* The canonical text, or with st, squeue's: the items not met, each
 * with its state. */
static bool
format(const struct kai_dep *d, const enum kai_dep_status *st, char *buf,
    size_t size)
{
	size_t i, at = 0;
	bool first = true;
	int w;

	if (size == 0)
		return false;
	buf[0] = '\0';
	for (i = 0; i < d->n; i++) {
		const struct kai_dep_item *it = &d->items[i];
		char task[16] = "", delay[16] = "";
		const char *sep = first ? "" : (d->any ? "?" : ",");
		const char *state = st == NULL ? "" :
		    st[i] == KAI_DEP_NEVER ? "(failed)" : "(unfulfilled)";

		if (st != NULL && st[i] == KAI_DEP_OK)
			continue;
		first = false;

		if (it->task != KAI_DEP_TASK_ALL)
			(void)snprintf(task, sizeof(task), "_%" PRIu32,
			    it->task);
		if (it->delay_min > 0)
			(void)snprintf(delay, sizeof(delay), "+%" PRIu32,
			    it->delay_min);
		if (it->type == KAI_DEP_SINGLETON)
			w = snprintf(buf + at, size - at, "%ssingleton%s", sep,
			    state);
		else
			w = snprintf(buf + at, size - at, "%s%s:%" PRIu64
			    "%s%s%s", sep, type_names[it->type], it->job, task,
			    delay, state);
		if (w < 0 || (size_t)w >= size - at) {
			buf[at] = '\0';
			return false;
		}
		at += (size_t)w;
	}
	return true;
}

bool
kai_dep_format(const struct kai_dep *d, char *buf, size_t size)
{
	return format(d, NULL, buf, size);
}

bool
kai_dep_format_left(const struct kai_dep *d, const struct kai_dep_target *t,
    int64_t now, char *buf, size_t size)
{
	enum kai_dep_status *st = kai_xcalloc(d->n + 1, sizeof(*st));
	size_t i;
	bool ok;

	for (i = 0; i < d->n; i++)
		st[i] = kai_dep_item_status(&d->items[i], &t[i], now);
	ok = format(d, st, buf, size);
	free(st);
	return ok;
}

enum kai_dep_status
kai_dep_item_status(const struct kai_dep_item *it,
    const struct kai_dep_target *t, int64_t now)
{
	switch (it->type) {
	case KAI_DEP_AFTER:
		if (!t->started && !t->ended)
			return KAI_DEP_WAIT;
		if (it->delay_min > 0 && t->start_time > 0 &&
		    now < t->start_time + (int64_t)it->delay_min * 60)
			return KAI_DEP_WAIT;
		return KAI_DEP_OK;
	case KAI_DEP_AFTERANY:
	case KAI_DEP_SINGLETON:
		return t->ended ? KAI_DEP_OK : KAI_DEP_WAIT;
	case KAI_DEP_AFTEROK:
		if (t->failed)
			return KAI_DEP_NEVER;
		return t->ended ? KAI_DEP_OK : KAI_DEP_WAIT;
	case KAI_DEP_AFTERNOTOK:
		if (!t->ended)
			return KAI_DEP_WAIT;
		return t->failed ? KAI_DEP_OK : KAI_DEP_NEVER;
	case KAI_DEP_NTYPES:
		break;
	}
	return KAI_DEP_NEVER;
}

enum kai_dep_status
kai_dep_eval(const struct kai_dep *d, const struct kai_dep_target *t,
    int64_t now)
{
	size_t i, ok = 0, never = 0;

	for (i = 0; i < d->n; i++) {
		enum kai_dep_status s = kai_dep_item_status(&d->items[i],
		    &t[i], now);

		ok += s == KAI_DEP_OK;
		never += s == KAI_DEP_NEVER;
	}
	if (d->any)
		return ok > 0 ? KAI_DEP_OK :
		    (d->n > 0 && never == d->n) ? KAI_DEP_NEVER : KAI_DEP_WAIT;
	return never > 0 ? KAI_DEP_NEVER :
	    ok == d->n ? KAI_DEP_OK : KAI_DEP_WAIT;
}
