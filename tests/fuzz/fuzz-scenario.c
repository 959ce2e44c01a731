/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * fuzz-scenario.c: a ksim scenario file (clients/scenario*.c), then what
 * ksim does with one that loads: one scheduling cycle of the core, the
 * JSON result and the check against the expect: block.
 */
#include "config.h"

#include <stdio.h>

#include "fuzz.h"
#include "ksim.h"
#include "scenario.h"
#include "sched/sched_model.h"

static FILE *
sink(void)
{
	static FILE *f;

	if (f == NULL && (f = fopen("/dev/null", "w")) == NULL)
		fuzz_fail("cannot open /dev/null");
	return f;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *path = fuzz_file(data, size);
	struct kai_sched_result r;
	struct scenario sc;
	struct kai_err err;

	if (scenario_load(path, &sc, &err) != 0)
		return 0;
	if (kai_sched_cycle(&sc.snap, &r, &err) == 0) {
		ksim_json(sink(), &sc, &r);
		if (sc.expect.present)
			(void)!ksim_check(sink(), path, &sc, &r);
		kai_sched_result_fini(&r);
	}
	scenario_fini(&sc);
	return 0;
}
