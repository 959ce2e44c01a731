/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * kube_lean.c: parsing pod lists and watch events without the parts kaid
 * never reads.
 *
 * A batch job's pod carries its submitter's whole environment (sbatch
 * exports everything by default), so the containers' `env` arrays are
 * most of a pod's bytes and, in json-c, most of its objects: each entry
 * is an object with a hash table and two strings.  kaid reads no pod's
 * environment, and parses every pod twice per job (created, bound) and
 * again at each status change, so json-c's allocations were the largest
 * part of kaid's CPU while it dispatched thousands of pods, time taken
 * from the API server on the same machine.  kube_json_parse_lean()
 * copies the text with every array under a key "env" emptied ("env":[])
 * and parses the copy.  The copy is valid JSON when the input is (only
 * whole array values go, keys and the rest stay); what such an array
 * held goes unchecked, everything else is checked by json-c as before.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "base/xmalloc.h"
#include "kube/kube_int.h"

static size_t
skip_space(const char *s, size_t n, size_t i)
{
	while (i < n && (s[i] == ' ' || s[i] == '\t' || s[i] == '\r' ||
	    s[i] == '\n'))
		i++;
	return i;
}

/* s[i] is '"': the index just past the string's closing quote, or n. */
static size_t
skip_string(const char *s, size_t n, size_t i)
{
	for (i++; i < n && s[i] != '"'; i++)
		if (s[i] == '\\' && i + 1 < n)
			i++;
	return i < n ? i + 1 : n;
}

/* s[i] is '[': the index just past the matching ']', or 0 if none. */
static size_t
skip_array(const char *s, size_t n, size_t i)
{
	size_t depth = 0;

	while (i < n) {
		if (s[i] == '"') {
			i = skip_string(s, n, i);
			continue;
		}
		if (s[i] == '[' || s[i] == '{')
			depth++;
		else if ((s[i] == ']' || s[i] == '}') && --depth == 0)
			return i + 1;
		i++;
	}
	return 0;
}

struct json_object *
kube_json_parse_lean(const char *s, size_t n, struct kai_err *err)
{
	struct json_object *o;
	char *c = kai_xmalloc(n + 1);
	size_t i = 0, k = 0, start, j, end;

	while (i < n) {
		if (s[i] != '"') {
			c[k++] = s[i++];
			continue;
		}
		start = i;
		i = skip_string(s, n, i);
		memcpy(c + k, s + start, i - start);
		k += i - start;
		if (i - start != 5 || memcmp(s + start, "\"env\"", 5) != 0)
			continue;
		j = skip_space(s, n, i);
		if (j >= n || s[j] != ':')
			continue;	/* a value "env", not a key */
		j = skip_space(s, n, j + 1);
		if (j >= n || s[j] != '[' || (end = skip_array(s, n, j)) == 0)
			continue;
		memcpy(c + k, ":[]", 3);
		k += 3;
		i = end;
	}
	c[k] = '\0';
	o = kube_json_parse(c, k, err);
	free(c);
	return o;
}
