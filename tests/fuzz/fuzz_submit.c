/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * fuzz_submit.c: see fuzz_submit.h.  The encoder runs too: a spec that
 * ksubmit would send must be one kaid can decode.
 */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include <json-c/json.h>

#include "fuzz.h"
#include "fuzz_submit.h"
#include "model/job.h"
#include "proto/proto.h"
#include "submit_json.h"
#include "submit_opts.h"

static void
warning(const char *option, const char *msg, void *ctx)
{
	size_t *n = ctx;

	*n += strlen(option) + strlen(msg);
}

static void
check_wire(const struct kai_jobspec *js)
{
	struct kai_jobspec back;
	struct kai_buf b;
	struct kai_err err;

	kai_buf_init(&b, KAI_PROTO_BODY_MAX);
	memset(&back, 0, sizeof(back));
	if (kai_msg_submit_encode(&b, js) == 0 &&
	    kai_msg_submit_decode(b.data, b.len, &back, &err) != 0) {
		fprintf(stderr, "fuzz: %s\n", err.msg);
		fuzz_fail("a spec ksubmit encodes does not decode");
	}
	kai_jobspec_fini(&back);
	kai_buf_fini(&b);
}

void
fuzz_submit_finish(struct submit_opts *o)
{
	static char script[] = "#!/bin/sh\ntrue\n";
	struct json_object *j;
	struct kai_jobspec js;
	struct kai_err err;
	const char *names[64];
	size_t n = 0;

	if (submit_opts_finish(o, &err) != 0)
		return;
	(void)submit_opts_refusals(o, names, KAI_NELEM(names));
	submit_opts_warnings(o, warning, &n);
	memset(&js, 0, sizeof(js));
	if (submit_opts_to_spec(o, FUZZ_CWD, &js, &err) == 0) {
		j = submit_json_new(o, "job.sh", FUZZ_CWD, &js);
		(void)json_object_to_json_string(j);
		json_object_put(j);
		/* build_spec() adds the script; the spec is not valid without. */
		if (js.script == NULL)
			js.script = script;
		/* ksubmit sends only what passes the checks kaid makes */
		if (kai_jobspec_validate(&js, &err) == 0)
			check_wire(&js);
		if (js.script == script)
			js.script = NULL;
	}
	kai_jobspec_fini(&js);
}
