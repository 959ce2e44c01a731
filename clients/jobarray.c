/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * jobarray.c: kqueue -r.  kaid sends an array's pending tasks as one
 * record (it stores them as one); squeue -r shows one line per task, so
 * the client expands the index set with model/array.h, the parser kaid
 * itself uses.  Each copy is a full record of its own.
 */
#include "config.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/xmalloc.h"
#include "jobarray.h"
#include "model/array.h"
#include "model/jobfields.h"

static void
copy_info(struct kai_jobinfo *d, const struct kai_jobinfo *s)
{
	kai_jobinfo_copy(d, s);
	KAI_FREE(d->array_id);
}

/* "12_[3-9:2%2]" into 12 and the set; false for anything else. */
static bool
pending_set(const char *id, uint64_t *array, struct kai_array *a)
{
	const char *open = id != NULL ? strstr(id, "_[") : NULL;
	char buf[KAI_ARRAY_TEXT_MAX], *pct;
	struct kai_err err;
	size_t len;

	if (open == NULL || (len = strlen(open + 2)) < 2 ||
	    open[2 + len - 1] != ']' || len > sizeof(buf))
		return false;
	memcpy(buf, open + 2, len - 1);
	buf[len - 1] = '\0';
	if ((pct = strchr(buf, '%')) != NULL)
		*pct = '\0';
	*array = strtoull(id, NULL, 10);
	return kai_array_parse(buf, a, &err) == 0;
}

size_t
jobarray_expand(struct kai_jobinfo **jobs, size_t n)
{
	struct kai_jobinfo *in = *jobs, *out = NULL;
	size_t i, m = 0, k;
	uint64_t array;
	uint32_t x;

	for (i = 0; i < n; i++) {
		struct kai_array a = {NULL, 0, 0};

		if (!pending_set(in[i].array_id, &array, &a)) {
			out = kai_xreallocarray(out, m + 1, sizeof(*out));
			out[m++] = in[i];
			continue;
		}
		out = kai_xreallocarray(out, m + kai_array_count(&a) + 1,
		    sizeof(*out));
		for (k = 0; k < a.n; k++)
			for (x = a.r[k].lo; x <= a.r[k].hi; x += a.r[k].step) {
				copy_info(&out[m], &in[i]);
				out[m++].array_id = kai_xasprintf("%" PRIu64
				    "_%" PRIu32, array, x);
			}
		kai_array_fini(&a);
		kai_jobinfo_fini(&in[i]);
	}
	free(in);
	*jobs = out;
	return m;
}
