/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * filters.c: comma-list parsers for the selection options.  See filters.h.
 */
#include "config.h"

#include "filters.h"

#include <ctype.h>
#include <pwd.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "base/strconv.h"
#include "base/xmalloc.h"
#include "model/array.h"
#include "model/jobstate.h"

/* One bounded item of a list, as a string. */
struct item {
	char s[256];
};

/* The comma that ends the item at p; one inside "[...]" ("7_[1,3]") does not. */
static const char *
next_comma(const char *p)
{
	int depth = 0;

	for (; *p != '\0'; p++) {
		if (*p == '[')
			depth++;
		else if (*p == ']' && depth > 0)
			depth--;
		else if (*p == ',' && depth == 0)
			return p;
	}
	return NULL;
}

/*
 * Calls fn for every comma-separated item of list; an empty item or one
 * longer than struct item allows is an error naming what the list holds.
 */
static int
each_item(const char *what, const char *list,
    int (*fn)(const char *item, void *ctx, struct kai_err *err), void *ctx,
    struct kai_err *err)
{
	struct item it;
	const char *p = list, *comma;
	size_t len;
	int r;

	for (;;) {
		comma = next_comma(p);
		len = comma != NULL ? (size_t)(comma - p) : strlen(p);
		if (len == 0)
			return kai_err_set(err, KAI_EINVAL,
			    "invalid %s list \"%s\": empty item", what, list);
		if (len >= sizeof(it.s))
			return kai_err_set(err, KAI_EINVAL,
			    "invalid %s \"%.*s...\": too long", what, 32, p);
		memcpy(it.s, p, len);
		it.s[len] = '\0';
		if ((r = fn(it.s, ctx, err)) != 0)
			return r;
		if (comma == NULL)
			return 0;
		p = comma + 1;
	}
}

struct ids {
	uint64_t **v;
	size_t *n;
};

static int
add_id(const char *s, void *ctx, struct kai_err *err)
{
	struct ids *ids = ctx;
	uint64_t id;

	if (kai_strtou64(s, UINT64_MAX, &id, "job id", NULL) != 0 || id == 0)
		return kai_err_set(err, KAI_EINVAL, "invalid job id \"%s\"", s);
	*ids->v = kai_xreallocarray(*ids->v, *ids->n + 1, sizeof(**ids->v));
	(*ids->v)[(*ids->n)++] = id;
	return 0;
}

int
filter_parse_ids(const char *list, uint64_t **ids, size_t *n,
    struct kai_err *err)
{
	struct ids ctx = {ids, n};

	return each_item("job id", list, add_id, &ctx, err);
}

struct uids {
	uint32_t **v;
	size_t *n;
};

static int
add_user(const char *s, void *ctx, struct kai_err *err)
{
	struct uids *u = ctx;
	struct passwd *pw;
	uint64_t uid;

	if (isdigit((unsigned char)s[0])) {
		if (kai_strtou64(s, UINT32_MAX - 1, &uid, "uid", NULL) != 0)
			return kai_err_set(err, KAI_EINVAL,
			    "invalid user \"%s\"", s);
	} else {
		if ((pw = getpwnam(s)) == NULL)
			return kai_err_set(err, KAI_EINVAL,
			    "invalid user \"%s\": no such user", s);
		uid = pw->pw_uid;
	}
	*u->v = kai_xreallocarray(*u->v, *u->n + 1, sizeof(**u->v));
	(*u->v)[(*u->n)++] = (uint32_t)uid;
	return 0;
}

int
filter_parse_users(const char *list, uint32_t **uids, size_t *n,
    struct kai_err *err)
{
	struct uids ctx = {uids, n};

	return each_item("user", list, add_user, &ctx, err);
}

struct names {
	char ***v;
	size_t *n;
};

static int
add_name(const char *s, void *ctx, struct kai_err *err)
{
	struct names *nm = ctx;

	(void)err;
	*nm->v = kai_xreallocarray(*nm->v, *nm->n + 1, sizeof(**nm->v));
	(*nm->v)[(*nm->n)++] = kai_xstrdup(s);
	return 0;
}

int
filter_parse_names(const char *what, const char *list, char ***names, size_t *n,
    struct kai_err *err)
{
	struct names ctx = {names, n};

	return each_item(what, list, add_name, &ctx, err);
}

void
filter_free_names(char **names, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		free(names[i]);
	free(names);
}

static int
add_state(const char *s, void *ctx, struct kai_err *err)
{
	uint32_t *mask = ctx;
	enum kai_job_state st;

	if (strcasecmp(s, "all") == 0) {
		*mask |= KAI_JOB_STATES_ALL;
		return 0;
	}
	if (kai_jobstate_parse(s, &st) != 0)
		return kai_err_set(err, KAI_EINVAL, "invalid job state \"%s\"",
		    s);
	*mask |= KAI_JOB_STATE_BIT(st);
	return 0;
}

int
filter_parse_states(const char *list, uint32_t *mask, struct kai_err *err)
{
	return each_item("job state", list, add_state, mask, err);
}

int
filter_match_name(char *const *names, size_t n, const char *s)
{
	size_t i;

	if (n == 0)
		return 1;
	for (i = 0; i < n; i++)
		if (strcmp(names[i], s != NULL ? s : "") == 0)
			return 1;
	return 0;
}

/* "123_4" or "123_[1-3,7]" into tasks; no throttle ("%N") allowed. */
int
filter_parse_task(const char *s, struct kai_task_ref **tasks, size_t *n,
    struct kai_err *err)
{
	struct kai_array a = {NULL, 0, 0};
	const char *us = strchr(s, '_'), *set;
	char buf[KAI_ARRAY_TEXT_MAX], *end;
	unsigned long long id;
	size_t i, len;
	uint32_t x;

	if (us == NULL || !isdigit((unsigned char)s[0]))
		return kai_err_set(err, KAI_EINVAL, "invalid job id \"%s\"", s);
	set = us + 1;
	id = strtoull(s, &end, 10);
	len = strlen(set);
	if (end != us || id == 0 || len == 0 || len >= sizeof(buf))
		return kai_err_set(err, KAI_EINVAL, "invalid job id \"%s\"", s);
	if (set[0] == '[' && set[len - 1] == ']') {
		set++;
		len -= 2;
	}
	memcpy(buf, set, len);
	buf[len] = '\0';
	if (strchr(buf, '%') != NULL || kai_array_parse(buf, &a, err) != 0)
		return kai_err_set(err, KAI_EINVAL, "invalid job id \"%s\"", s);
	for (i = 0; i < a.n; i++)
		for (x = a.r[i].lo; x <= a.r[i].hi; x += a.r[i].step) {
			*tasks = kai_xreallocarray(*tasks, *n + 1,
			    sizeof(**tasks));
			(*tasks)[*n].array_id = id;
			(*tasks)[(*n)++].task = x;
			if (a.r[i].step == 0 || x > UINT32_MAX - a.r[i].step)
				break;
		}
	kai_array_fini(&a);
	return 0;
}

struct refs {
	struct ids ids;
	struct kai_task_ref **tasks;
	size_t *ntasks;
};

static int
add_ref(const char *s, void *ctx, struct kai_err *err)
{
	struct refs *r = ctx;

	if (strchr(s, '_') == NULL)
		return add_id(s, &r->ids, err);
	return filter_parse_task(s, r->tasks, r->ntasks, err);
}

int
filter_parse_jobrefs(const char *list, uint64_t **ids, size_t *nids,
    struct kai_task_ref **tasks, size_t *ntasks, struct kai_err *err)
{
	struct refs ctx = {{ids, nids}, tasks, ntasks};

	return each_item("job id", list, add_ref, &ctx, err);
}
