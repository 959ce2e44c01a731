/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * clients-kctl: "kctl queue apply -f" files (kctl_apply.c).
 *
 * Each case writes a small YAML file and reads it with kctl_queue_file():
 * good files must give exactly the changes the scenario format means
 * (absent blocks, absent keys inside a block, null parents, decimals),
 * and bad ones one message naming FILE:LINE:COL and the reason.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/err.h"
#include "base/xmalloc.h"
#include "kctl.h"
#include "tap.h"

static char path[256];

static void
write_file(const char *text)
{
	FILE *f = fopen(path, "w");

	if (f == NULL || fputs(text, f) < 0 || fclose(f) != 0)
		diag("could not write %s", path);
}

/* Loads text; returns the changes (n set) or NULL with err set. */
static struct kai_queue_change *
load(const char *text, size_t *n, struct kai_err *err)
{
	struct kai_queue_change *c = NULL;

	write_file(text);
	kai_err_clear(err);
	*n = 0;
	if (kctl_queue_file(path, &c, n, err) != 0)
		return NULL;
	return c;
}

static void
refused(const char *text, const char *where_why, const char *what)
{
	struct kai_queue_change *c;
	struct kai_err err;
	char want[512];
	size_t n;

	c = load(text, &n, &err);
	ok(c == NULL && n == 0, "%s: refused", what);
	(void)snprintf(want, sizeof(want), "%s:%s", path, where_why);
	is_str(err.msg, want, "%s: message", what);
	kai_queue_changes_free(c, n);
}

static void
test_good(void)
{
	struct kai_queue_change *c;
	struct kai_err err;
	size_t n = 0;

	c = load("# a scenario's queues, as they are\n"
		 "- name: dept\n"
		 "  parent: null\n"
		 "  priority: 200\n"
		 "- name: team-a\n"
		 "  parent: dept\n"
		 "  gpu: {quota: 1.5, limit: 4, over_quota_weight: 0.25}\n"
		 "  cpu: {limit: 8000}\n"
		 "  memory: {quota: -1, limit: -1, over_quota_weight: 1}\n"
		 "  preempt_min_runtime_s: 600\n"
		 "  reclaim_min_runtime_s: -1\n",
	    &n, &err);
	if (c == NULL)
		diag("%s", err.msg);
	is_int((int64_t)n, 2, "two queues");
	if (c == NULL || n != 2)
		return;
	ok(c[0].op == KAI_QUEUE_REPLACE && c[0].set == KAI_QUEUE_SET_ALL &&
		c[1].op == KAI_QUEUE_REPLACE,
	    "each replaces its queue with every field set");
	ok(strcmp(c[0].q.name, "dept") == 0 && c[0].q.parent == NULL &&
		c[0].q.priority == 200,
	    "a null parent is a top-level queue");
	ok(c[0].q.res[KAI_QUEUE_GPU].quota == -1 &&
		c[0].q.res[KAI_QUEUE_GPU].limit == -1 &&
		c[0].q.res[KAI_QUEUE_GPU].weight == KAI_QUEUE_WEIGHT_UNIT,
	    "no block: quota -1, limit -1, weight 1");
	ok(strcmp(c[1].q.parent, "dept") == 0 &&
		c[1].q.res[KAI_QUEUE_GPU].quota == 1500000 &&
		c[1].q.res[KAI_QUEUE_GPU].limit == 4000000 &&
		c[1].q.res[KAI_QUEUE_GPU].weight == 250000,
	    "GPU decimals are exact micro-GPUs and millionths");
	ok(c[1].q.res[KAI_QUEUE_CPU].quota == 0 &&
		c[1].q.res[KAI_QUEUE_CPU].limit == 8000 &&
		c[1].q.res[KAI_QUEUE_CPU].weight == 0,
	    "inside a block: absent quota 0, absent weight 0");
	ok(c[1].q.res[KAI_QUEUE_MEM].quota == -1 &&
		c[1].q.res[KAI_QUEUE_MEM].weight == KAI_QUEUE_WEIGHT_UNIT,
	    "memory block as given");
	ok(c[1].q.priority == 100 && c[1].q.preempt_min_runtime_s == 600 &&
		c[1].q.reclaim_min_runtime_s == -1,
	    "priority 100 by default; min runtimes as given");
	kai_queue_changes_free(c, n);

	c = load("queues:\n  - name: solo\n", &n, &err);
	ok(c != NULL && n == 1 && strcmp(c[0].q.name, "solo") == 0,
	    "the list may stand under \"queues:\"");
	kai_queue_changes_free(c, n);
	c = load("- {name: child, parent: later}\n- {name: later}\n", &n,
	    &err);
	ok(c != NULL && n == 2,
	    "a parent may come after its child (kaid orders them)");
	kai_queue_changes_free(c, n);
}

static void
test_bad(void)
{
	refused("- name: a\n  gpu: {quota: 1, limitt: 2}\n",
	    "2:19: unrecognized key \"limitt\" in a queue's gpu block",
	    "a misspelt key in a block");
	refused("- name: a\n  prio: 3\n",
	    "2:3: unrecognized key \"prio\" in a queue", "a misspelt key");
	refused("- parent: x\n", "1:3: a queue needs a \"name\"",
	    "a queue without a name");
	refused("- name: Research\n",
	    "1:9: invalid queue name \"Research\": expected 1 to 63 "
	    "lower-case letters, digits, '_' and '-'",
	    "an upper-case name");
	refused("- name: a\n- name: b\n- name: a\n",
	    "3:9: queue \"a\" is listed twice", "a queue listed twice");
	refused("- name: a\n  gpu: {quota: 0.0000001}\n",
	    "2:16: invalid quota \"0.0000001\": at most 6 decimal places",
	    "a GPU quota finer than a micro-GPU");
	refused("- name: a\n  cpu: {quota: 1.5}\n",
	    "2:16: invalid quota \"1.5\": expected a whole number",
	    "a fraction of a millicore");
	refused("- name: a\n  memory: {over_quota_weight: -1}\n",
	    "2:31: invalid over_quota_weight \"-1\": expected a number of at "
	    "least 0", "a negative weight");
	refused("- name: a\n  gpu: {quota: 4, limit: 2}\n",
	    "1:3: queue \"a\": gpu limit 2 is below its quota 4",
	    "a limit below the quota");
	refused("- name: a\n  parent: a\n",
	    "1:3: queue \"a\" cannot be its own parent", "its own parent");
	refused("- name: a\n  priority: high\n",
	    "2:13: invalid priority \"high\": not a number",
	    "a priority that is not a number");
	refused("name: a\n", "1:1: unrecognized key \"name\" in a queue file",
	    "a single queue, not a list");
	refused("queues: []\n", "1:9: the list of queues is empty",
	    "an empty list");
	refused("- name: a\n  gpu: 4\n", "2:8: a queue's gpu block must be a map",
	    "a resource that is not a block");
	refused("- name: [a]\n", "1:9: name must be a value",
	    "a name that is a list");
}

/* gpu_types: the scenario format's, FORMAT's defaults for a type. */
static void
test_types(void)
{
	struct kai_queue_change *c;
	struct kai_err err;
	size_t n = 0;

	c = load("- name: a\n"
		 "  gpu_types:\n"
		 "    H100: {quota: 2, limit: 4, over_quota_weight: 3}\n"
		 "    A100: {limit: 1.5}\n",
	    &n, &err);
	if (c == NULL)
		diag("%s", err.msg);
	ok(c != NULL && n == 1 && c[0].q.ntypes == 2 &&
		strcmp(c[0].q.types[0].type, "A100") == 0 &&
		c[0].q.types[0].quota == 0 &&
		c[0].q.types[0].limit == 1500000 &&
		c[0].q.types[0].weight == -1 &&
		strcmp(c[0].q.types[1].type, "H100") == 0 &&
		c[0].q.types[1].quota == 2000000 &&
		c[0].q.types[1].limit == 4000000 &&
		c[0].q.types[1].weight == 3000000,
	    "types sorted; absent quota 0, limit -1, weight the GPU one");
	ok(c != NULL && (c[0].set & KAI_QUEUE_SET_GPU_TYPES) != 0,
	    "the file's list replaces the queue's");
	kai_queue_changes_free(c, n);
	refused("- name: a\n  gpu_types: {A100: {quota: 1, limitt: 2}}\n",
	    "2:32: unrecognized key \"limitt\" in a GPU type's block",
	    "a misspelt key in a type's block");
	refused("- name: a\n  gpu_types: [A100]\n",
	    "2:14: gpu_types must be a map of GPU types",
	    "a list of types without settings");
	refused("- name: a\n  gpu_types: {A100: {quota: 2, limit: 1}}\n",
	    "1:3: queue \"a\": A100 limit 1 is below its quota 2",
	    "a type's limit below its quota");
	refused("- name: a\n  gpu_types: {\"A 100\": {quota: 1}}\n",
	    "2:15: queue \"a\": invalid GPU type \"A 100\": expected 1 to 63 "
	    "letters, digits, '-', '_' and '.'",
	    "a type that is not a label value");
}

static void
test_syntax(void)
{
	struct kai_queue_change *c;
	struct kai_err err;
	size_t n;

	c = load("- name: a\n  gpu: {quota: 1\n", &n, &err);
	ok(c == NULL && strncmp(err.msg, path, strlen(path)) == 0 &&
		strstr(err.msg, "did not find expected") != NULL,
	    "YAML syntax errors name the file, line and column: %s",
	    err.msg);
	(void)unlink(path);
	kai_err_clear(&err);
	ok(kctl_queue_file(path, &c, &n, &err) == KAI_EINVAL &&
		strstr(err.msg, "could not open") != NULL,
	    "a missing file: %s", err.msg);
}

int
main(void)
{
	const char *tmp = getenv("TMPDIR");
	int fd;

	(void)snprintf(path, sizeof(path), "%s/kai-kctl-XXXXXX.yaml",
	    tmp != NULL && *tmp != '\0' ? tmp : "/tmp");
	if ((fd = mkstemps(path, 5)) < 0)
		skip_all("cannot create a temporary file");
	(void)close(fd);
	test_good();
	test_bad();
	test_types();
	test_syntax();
	(void)unlink(path);
	return done_testing();
}
