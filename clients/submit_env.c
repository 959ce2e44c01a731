/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * submit_env.c: --export and the job environment ksubmit sends.  See
 * submit_env.h.
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
env_lookup(char *const *envp, const char *name)
{
	size_t len = strlen(name);

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

static void
push(char ***v, size_t *n, char *s)
{
	*v = kai_xreallocarray(*v, *n + 1, sizeof(**v));
	(*v)[(*n)++] = s;
}

/* One item of an --export list: "NAME" or "NAME=value". */
static int
export_item(struct submit_export *e, const char *item, size_t len,
    const char *export, struct kai_err *err)
{
	const char *eq = memchr(item, '=', len);
	size_t nlen = eq != NULL ? (size_t)(eq - item) : len;

	if (!env_name_ok(item, nlen))
		return kai_err_set(err, KAI_EINVAL,
		    "invalid --export \"%s\": \"%.*s\" is not a variable name",
		    export, (int)nlen, item);
	if (eq != NULL)
		push(&e->set, &e->nset, kai_xstrndup(item, len));
	else
		push(&e->pass, &e->npass, kai_xstrndup(item, len));
	return 0;
}

int
submit_export_parse(const char *export, struct submit_export *e,
    struct kai_err *err)
{
	const char *p;
	size_t len;
	int r;

	memset(e, 0, sizeof(*e));
	if (export == NULL)
		return 0;
	if (*export == '\0')
		return kai_err_set(err, KAI_EINVAL, "invalid --export \"\"");
	len = strcspn(export, ",");
	if (len == 4 && strncasecmp(export, "NONE", 4) == 0) {
		if (export[len] != '\0')
			return kai_err_set(err, KAI_EINVAL,
			    "invalid --export \"%s\": NONE takes no list",
			    export);
		e->mode = SUBMIT_EXPORT_NONE;
		return 0;
	}
	e->mode = len == 3 && strncasecmp(export, "ALL", 3) == 0
	    ? SUBMIT_EXPORT_ALL
	    : SUBMIT_EXPORT_LIST;
	p = e->mode == SUBMIT_EXPORT_ALL ? export + len : export;
	while (*p != '\0') {
		if (*p == ',' && (e->mode == SUBMIT_EXPORT_ALL || p != export))
			p++;
		len = strcspn(p, ",");
		if ((r = export_item(e, p, len, export, err)) != 0) {
			submit_export_fini(e);
			return r;
		}
		p += len;
	}
	return 0;
}

static void
free_list(char ***v, size_t *n)
{
	size_t i;

	for (i = 0; i < *n; i++)
		free((*v)[i]);
	KAI_FREE(*v);
	*n = 0;
}

void
submit_export_fini(struct submit_export *e)
{
	free_list(&e->pass, &e->npass);
	free_list(&e->set, &e->nset);
}

void
submit_env_submit_host(char ***env, size_t *nenv, const char *host)
{
	struct envv e = {*env, *nenv};
	char *kv = kai_xasprintf("SLURM_SUBMIT_HOST=%s", host);

	env_put(&e, kv);
	free(kv);
	*env = e.v;
	*nenv = e.n;
}

int
submit_env_build(const char *export, char *const *envp, char ***env,
    size_t *nenv, struct kai_err *err)
{
	struct submit_export ex;
	struct envv e = {NULL, 0};
	char *const *ep;
	const char *found;
	size_t i;
	int r;

	if ((r = submit_export_parse(export, &ex, err)) != 0)
		return r;
	for (ep = envp; ep != NULL && *ep != NULL; ep++)
		if (ex.mode == SUBMIT_EXPORT_ALL ||
		    strncmp(*ep, "SLURM_", 6) == 0)
			env_put(&e, *ep);
	for (i = 0; i < ex.npass; i++)
		if ((found = env_lookup(envp, ex.pass[i])) != NULL)
			env_put(&e, found);
	for (i = 0; i < ex.nset; i++)
		env_put(&e, ex.set[i]);
	submit_export_fini(&ex);
	*env = e.v;
	*nenv = e.n;
	return 0;
}
