/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * fuzz-mem.c: the amount syntaxes: Slurm memory sizes (--mem and kin),
 * Kubernetes quantities (a node's allocatable CPU and memory) and kctl's
 * decimal queue units.  A memory size that parses is written back in MiB,
 * and that must parse to the same value.
 */
#include "config.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

#include "fuzz.h"
#include "kube/kube_int.h"
#include "model/job.h"
#include "proto/proto.h"

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *s = fuzz_strdup(data, size);
	uint64_t mib, again, bytes;
	int64_t milli, units;
	struct kai_err err;
	char out[32];

	if (kai_mem_parse(s, &mib, &err) == 0) {
		(void)snprintf(out, sizeof(out), "%" PRIu64, mib);
		if (kai_mem_parse(out, &again, &err) != 0 || again != mib)
			fuzz_fail("a memory size changes when written in MiB");
	}
	(void)!kube_qty_milli(s, &milli, &err);
	(void)!kube_qty_bytes(s, &bytes, &err);
	(void)!kai_queue_parse_units(s, KAI_QUEUE_GPU_UNIT, KAI_QUEUE_VALUE_MAX,
	    "gpu quota", &units, &err);
	free(s);
	return 0;
}
