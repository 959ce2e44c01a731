/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * fuzz-kube-node.c: a Node object from the API server as kube_json.c
 * reads it (allocatable quantities, GPU labels, taints, conditions).
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "kube/kube_int.h"

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *s = fuzz_strdup(data, size);
	struct kai_node node;
	struct kai_err err;

	memset(&node, 0, sizeof(node));
	if (kube_node_parse(s, &node, &err) == 0)
		kube_node_fini(&node);
	free(s);
	return 0;
}
