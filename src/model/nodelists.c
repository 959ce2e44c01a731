/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * nodelists.c: -w and -x in one job field (nodelists.h), read and
 * checked with the one host list grammar (hostlist.c).
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/xmalloc.h"
#include "model/hostlist.h"
#include "model/nodelists.h"

/* s without spaces, tabs and newlines (a file's names, joined). */
static char *
squeeze(const char *s)
{
	char *out = kai_xstrdup(s != NULL ? s : ""), *w = out;
	const char *p;

	for (p = out; *p != '\0'; p++)
		if (*p != ' ' && *p != '\t' && *p != '\n')
			*w++ = *p;
	*w = '\0';
	return out;
}

static int
check(const char *list, struct kai_err *err)
{
	char **names;
	size_t n;
	int rc;

	if (*list == '\0')
		return 0;
	if (strchr(list, ';') != NULL)
		return kai_err_set(err, KAI_EINVAL, "invalid node list \"%s\": "
		    "a node name has no ';'", list);
	if ((rc = kai_hostlist_expand(list, &names, &n, err)) != 0)
		return rc;
	kai_hostlist_free(names, n);
	return 0;
}

int
kai_node_req_make(const char *nodelist, const char *exclude, char **out,
    struct kai_err *err)
{
	char *w = squeeze(nodelist), *x = squeeze(exclude);
	int rc;

	*out = NULL;
	if ((rc = check(w, err)) == 0 && (rc = check(x, err)) == 0 &&
	    (*w != '\0' || *x != '\0'))
		*out = kai_xasprintf("%s;%s", w, x);
	free(w);
	free(x);
	return rc;
}

const char *
kai_node_req_text(const char *req, enum kai_node_req_part part, char *buf,
    size_t size)
{
	const char *semi = req != NULL ? strchr(req, ';') : NULL;

	if (semi == NULL)
		(void)snprintf(buf, size, "%s",
		    req != NULL && part == KAI_NODE_REQ_ONLY ? req : "");
	else if (part == KAI_NODE_REQ_ONLY)
		(void)snprintf(buf, size, "%.*s", (int)(semi - req), req);
	else
		(void)snprintf(buf, size, "%s", semi + 1);
	return buf;
}

int
kai_node_req_names(const char *req, enum kai_node_req_part part,
    char ***names, size_t *n, struct kai_err *err)
{
	const char *semi = req != NULL ? strchr(req, ';') : NULL;
	char *part_text;
	int rc = 0;

	*names = NULL;
	*n = 0;
	if (req == NULL || *req == '\0')
		return 0;
	if (semi == NULL || strchr(semi + 1, ';') != NULL)
		return kai_err_set(err, KAI_EINVAL, "invalid node requirement "
		    "\"%s\": not NODELIST;EXCLUDE", req);
	part_text = part == KAI_NODE_REQ_ONLY
	    ? kai_xstrndup(req, (size_t)(semi - req))
	    : kai_xstrdup(semi + 1);
	if (*part_text != '\0')
		rc = kai_hostlist_expand(part_text, names, n, err);
	free(part_text);
	return rc;
}
