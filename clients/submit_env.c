/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * submit_env.c: the job environment ksubmit sends, from --export and the
 * submitter's environment.  See submit_env.h.
 *
 * The environment array is an input like any other, so this stays pure
 * and the unit tests give it a made-up one.
 */
#include "config.h"

#include "submit_env.h"

#include <ctype.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "base/xmalloc.h"

struct envv {
	char **v;
	size_t n;
};

static void
env_put(struct envv *e, const char *kv)
{
	size_t i, klen = strcspn(kv, "=");

	/* a later entry replaces an earlier one of the same name */
	for (i = 0; i < e->n; i++) {
		if (strncmp(e->v[i], kv, klen) == 0 && e->v[i][klen] == '=') {
			free(e->v[i]);
			e->v[i] = kai_xstrdup(kv);
			return;
		}
	}
	e->v = kai_xreallocarray(e->v, e->n + 1, sizeof(*e->v));
	e->v[e->n++] = kai_xstrdup(kv);
}

static const char *
env_lookup(char *const *envp, const char *name, size_t len)
{
	for (; envp != NULL && *envp != NULL; envp++)
		if (strncmp(*envp, name, len) == 0 && (*envp)[len] == '=')
			return *envp;
	return NULL;
}

static bool
env_name_ok(const char *s, size_t n)
{
	size_t i;

	if (n == 0 || isdigit((unsigned char)s[0]))
		return false;
	for (i = 0; i < n; i++)
		if (!isalnum((unsigned char)s[i]) && s[i] != '_')
			return false;
	return true;
}

/* One item of an --export list: "NAME" (from envp) or "NAME=value". */
static int
export_item(struct envv *e, const char *item, size_t len, char *const *envp,
    const char *export, struct kai_err *err)
{
	const char *eq = memchr(item, '=', len), *found;
	size_t nlen = eq != NULL ? (size_t)(eq - item) : len;
	char *kv;

	if (!env_name_ok(item, nlen))
		return kai_err_set(err, KAI_EINVAL,
		    "invalid --export \"%s\": \"%.*s\" is not a variable name",
		    export, (int)nlen, item);
	if (eq != NULL) {
		kv = kai_xstrndup(item, len);
		env_put(e, kv);
		free(kv);
	} else if ((found = env_lookup(envp, item, nlen)) != NULL) {
		env_put(e, found);
	}
	return 0;
}

static void
env_free(struct envv *e)
{
	size_t i;

	for (i = 0; i < e->n; i++)
		free(e->v[i]);
	free(e->v);
	e->v = NULL;
	e->n = 0;
}

int
submit_env_build(const char *export, char *const *envp, char ***env,
    size_t *nenv, struct kai_err *err)
{
	struct envv e = {NULL, 0};
	char *const *ep;
	const char *p, *comma;
	bool all, none;
	size_t len;
	int r;

	if (export == NULL)
		export = "ALL";
	if (*export == '\0')
		return kai_err_set(err, KAI_EINVAL, "invalid --export \"\"");
	len = strcspn(export, ",");
	all = len == 3 && strncasecmp(export, "ALL", 3) == 0;
	none = len == 4 && strncasecmp(export, "NONE", 4) == 0;
	if (none && export[len] != '\0')
		return kai_err_set(err, KAI_EINVAL,
		    "invalid --export \"%s\": NONE takes no list", export);
	for (ep = envp; ep != NULL && *ep != NULL; ep++)
		if (all || strncmp(*ep, "SLURM_", 6) == 0)
			env_put(&e, *ep);
	p = all ? export + len : export;
	while (!none && *p != '\0') {
		if (*p == ',')
			p++;
		comma = strchr(p, ',');
		len = comma != NULL ? (size_t)(comma - p) : strlen(p);
		if ((r = export_item(&e, p, len, envp, export, err)) != 0) {
			env_free(&e);
			return r;
		}
		p += len;
	}
	*env = e.v;
	*nenv = e.n;
	return 0;
}
