/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * kube-gpushare: KAI's GPU-sharing annotations as kaid judges them
 * (src/kube/gpushare.c), one case per rule of KAI's validator and of
 * kaid's own, each from a Pod's JSON as the apiserver sends it.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "base/xmalloc.h"
#include "kube/gpushare.h"
#include "tap.h"

/* A pod with the annotations ann (JSON members) and containers ctrs. */
static int
judge(const char *ann, const char *ctrs, struct kai_gpushare *g,
    struct kai_err *err)
{
	char *text = kai_xasprintf("{\"metadata\":{\"name\":\"p\","
	    "\"annotations\":{%s}},\"spec\":{%s}}", ann, ctrs);
	struct json_object *o = json_tokener_parse(text);
	struct kai_gpushare_ann a;
	int r;

	if (o == NULL) {
		diag("test pod does not parse: %s", text);
		free(text);
		return -100;
	}
	kai_gpushare_from_json(o, &a);
	memset(g, 0, sizeof(*g));
	r = kai_gpushare_parse(&a, g, err);
	kai_gpushare_ann_fini(&a);
	json_object_put(o);
	free(text);
	return r;
}

#define ONE "\"containers\":[{\"name\":\"main\"}]"
#define TWO                                                                    \
	"\"containers\":[{\"name\":\"main\"},{\"name\":\"side\"}],"            \
	"\"initContainers\":[{\"name\":\"setup\"}]"
#define WHOLE                                                                  \
	"\"containers\":[{\"name\":\"main\",\"resources\":{\"limits\":"      \
	"{\"nvidia.com/gpu\":\"1\"}}}]"
#define WHOLE_INIT                                                             \
	"\"containers\":[{\"name\":\"main\"}],\"initContainers\":[{\"name\":"  \
	"\"i\",\"resources\":{\"limits\":{\"nvidia.com/gpu\":\"0\"}}}]"

static void
accepted(const char *ann, const char *ctrs, uint32_t frac, uint64_t mib,
    const char *what)
{
	struct kai_gpushare g;
	struct kai_err err;

	err.msg[0] = '\0';
	if (!is_int(judge(ann, ctrs, &g, &err), 0, "%s: accepted", what))
		diag("%s", err.msg);
	is_int(g.fraction, frac, "%s: %u micro-GPUs", what, frac);
	is_int((int64_t)g.memory_mib, (int64_t)mib, "%s: %llu MiB", what,
	    (unsigned long long)mib);
}

static void
refused(const char *ann, const char *ctrs, const char *msg)
{
	struct kai_gpushare g;
	struct kai_err err;

	err.msg[0] = '\0';
	is_int(judge(ann, ctrs, &g, &err), KAI_EINVAL, "refused: %s", ann);
	is_str(err.msg, msg, "message for %s", ann);
}

static void
test_fraction(void)
{
	accepted("\"gpu-fraction\":\"0.5\"", ONE, 500000, 0, "0.5");
	accepted("\"gpu-fraction\":\".25\"", ONE, 250000, 0, ".25");
	accepted("\"gpu-fraction\":\"5e-1\"", ONE, 500000, 0, "5e-1");
	accepted("\"gpu-fraction\":\"+0.1E0\"", ONE, 100000, 0, "+0.1E0");
	accepted("\"gpu-fraction\":\"0.3\"", ONE, 300000, 0, "0.3 rounds");
	accepted("\"gpu-fraction\":\"0.99999999\"", ONE, 999999, 0,
	    "just below 1 stays below 1");
	refused("\"gpu-fraction\":\"1.0\"", ONE,
	    "annotation \"gpu-fraction\" \"1.0\": must be above 0 and below 1");
	refused("\"gpu-fraction\":\"1\"", ONE,
	    "annotation \"gpu-fraction\" \"1\": must be above 0 and below 1");
	refused("\"gpu-fraction\":\"0\"", ONE,
	    "annotation \"gpu-fraction\" \"0\": must be above 0 and below 1");
	refused("\"gpu-fraction\":\"-0.5\"", ONE,
	    "annotation \"gpu-fraction\" \"-0.5\": must be above 0 and below "
	    "1");
	refused("\"gpu-fraction\":\"NaN\"", ONE,
	    "annotation \"gpu-fraction\" \"NaN\": must be a number written "
	    "with a decimal point or an exponent (\"0.5\", \"5e-1\")");
	refused("\"gpu-fraction\":\"500m\"", ONE,
	    "annotation \"gpu-fraction\" \"500m\": must be a number written "
	    "with a decimal point or an exponent (\"0.5\", \"5e-1\")");
	refused("\"gpu-fraction\":\"0x0.8p0\"", ONE,
	    "annotation \"gpu-fraction\" \"0x0.8p0\": must be a number "
	    "written with a decimal point or an exponent (\"0.5\", \"5e-1\")");
	refused("\"gpu-fraction\":\"half\"", ONE,
	    "annotation \"gpu-fraction\" \"half\": must be a number written "
	    "with a decimal point or an exponent (\"0.5\", \"5e-1\")");
	refused("\"gpu-fraction\":\"\"", ONE,
	    "annotation \"gpu-fraction\" \"\": must be a number written "
	    "with a decimal point or an exponent (\"0.5\", \"5e-1\")");
	refused("\"gpu-fraction\":\" 0.5\"", ONE,
	    "annotation \"gpu-fraction\" \" 0.5\": must be a number written "
	    "with a decimal point or an exponent (\"0.5\", \"5e-1\")");
	refused("\"gpu-fraction\":\"1e-9\"", ONE,
	    "annotation \"gpu-fraction\" \"1e-9\": is below kaid's unit of "
	    "one millionth of a GPU");
}

static void
test_memory(void)
{
	accepted("\"gpu-memory\":\"2000\"", ONE, 0, 2000, "2000 MiB");
	refused("\"gpu-memory\":\"0\"", ONE,
	    "annotation \"gpu-memory\" \"0\": must be a positive whole number "
	    "of MiB");
	refused("\"gpu-memory\":\"-5\"", ONE,
	    "annotation \"gpu-memory\" \"-5\": must be a positive whole number "
	    "of MiB");
	refused("\"gpu-memory\":\"2Gi\"", ONE,
	    "annotation \"gpu-memory\" \"2Gi\": must be a positive whole "
	    "number of MiB");
	refused("\"gpu-memory\":\"99999999999999999999999\"", ONE,
	    "annotation \"gpu-memory\" \"99999999999999999999999\": must be a "
	    "positive whole number of MiB");
	refused("\"gpu-memory\":\"999999999\"", ONE,
	    "annotation \"gpu-memory\" \"999999999\": is more MiB than one "
	    "GPU can have");
}

static void
test_exclusions(void)
{
	refused("\"gpu-fraction\":\"0.5\"", WHOLE,
	    "annotation \"gpu-fraction\" \"0.5\": excludes an nvidia.com/gpu "
	    "request or limit on the pod's containers");
	/* KAI looks for the limit's presence, in init containers too. */
	refused("\"gpu-fraction\":\"0.5\"", WHOLE_INIT,
	    "annotation \"gpu-fraction\" \"0.5\": excludes an nvidia.com/gpu "
	    "request or limit on the pod's containers");
	refused("\"gpu-memory\":\"100\",\"gpu-fraction\":\"0.5\"", ONE,
	    "annotation \"gpu-memory\" \"100\": excludes annotation "
	    "\"gpu-fraction\"");
	refused("\"gpu-memory\":\"100\"", WHOLE,
	    "annotation \"gpu-memory\" \"100\": excludes an nvidia.com/gpu "
	    "request or limit on the pod's containers");
	refused("\"mps\":\"true\"", ONE,
	    "annotation \"mps\" \"true\": MPS needs a \"gpu-fraction\" or "
	    "\"gpu-memory\" request");
	accepted("\"mps\":\"true\",\"gpu-fraction\":\"0.5\"", ONE, 500000, 0,
	    "mps beside a fraction");
	accepted("\"mps\":\"false\"", ONE, 0, 0, "mps false alone");
	accepted("", WHOLE, 0, 0, "whole GPUs without annotations");
	refused("\"gpu-fraction-num-devices\":\"2\"", ONE,
	    "annotation \"gpu-fraction-num-devices\" \"2\": needs a "
	    "\"gpu-fraction\" or \"gpu-memory\" request");
}

static void
test_devices_and_container(void)
{
	struct kai_gpushare g;
	struct kai_err err;

	accepted("\"gpu-fraction\":\"0.5\",\"gpu-fraction-num-devices\":\"1\"",
	    ONE, 500000, 0, "one device");
	refused("\"gpu-fraction\":\"0.5\",\"gpu-fraction-num-devices\":\"0\"",
	    ONE,
	    "annotation \"gpu-fraction-num-devices\" \"0\": must be a positive "
	    "whole number");
	refused("\"gpu-fraction\":\"0.5\",\"gpu-fraction-num-devices\":\"x\"",
	    ONE,
	    "annotation \"gpu-fraction-num-devices\" \"x\": must be a positive "
	    "whole number");
	is_int(judge("\"gpu-memory\":\"10\",\"gpu-fraction-num-devices\":\"2\"",
		   ONE, &g, &err),
	    0, "gpu-memory on 2 devices: accepted");
	is_int(g.num_devices, 2, "2 devices");
	is_int((int64_t)g.memory_mib, 10, "10 MiB on each");
	is_int(judge("\"gpu-fraction\":\"0.5\",\"gpu-fraction-num-devices\":"
		     "\"64\"",
		   ONE, &g, &err),
	    0, "64 devices (a node's most): accepted");
	is_int(g.num_devices, 64, "64 devices");
	is_int(g.fraction, 500000, "0.5 on each");
	is_int(judge("\"gpu-fraction\":\"0.5\"", ONE, &g, &err), 0,
	    "no gpu-fraction-num-devices");
	is_int(g.num_devices, 1, "one device when not asked");
	refused("\"gpu-fraction\":\"0.5\",\"gpu-fraction-num-devices\":\"65\"",
	    ONE,
	    "annotation \"gpu-fraction-num-devices\" \"65\": kaid places a "
	    "share on at most 64 devices of one node");
	refused("\"gpu-fraction\":\"0.5\",\"gpu-fraction-num-devices\":\"2.0\"",
	    ONE,
	    "annotation \"gpu-fraction-num-devices\" \"2.0\": must be a "
	    "positive whole number");
	refused("\"gpu-fraction\":\"0.5\",\"gpu-fraction-num-devices\":\"-2\"",
	    ONE,
	    "annotation \"gpu-fraction-num-devices\" \"-2\": must be a "
	    "positive whole number");
	is_int(judge("\"gpu-fraction\":\"0.5\"", TWO, &g, &err), 0,
	    "no container name: the first");
	ok(!g.init && g.container == 0, "the first regular container");
	is_int(judge("\"gpu-fraction\":\"0.5\","
		     "\"gpu-fraction-container-name\":\"side\"",
		   TWO, &g, &err),
	    0, "named regular container");
	ok(!g.init && g.container == 1, "container 1 (side)");
	is_int(judge("\"gpu-fraction\":\"0.5\","
		     "\"gpu-fraction-container-name\":\"setup\"",
		   TWO, &g, &err),
	    0, "named init container");
	ok(g.init && g.container == 0, "init container 0 (setup)");
	refused("\"gpu-fraction\":\"0.5\","
		"\"gpu-fraction-container-name\":\"nope\"",
	    TWO,
	    "annotation \"gpu-fraction-container-name\" \"nope\": names none "
	    "of the pod's containers or init containers");
	accepted("\"gpu-fraction-container-name\":\"nope\"", TWO, 0, 0,
	    "a container name alone asks for nothing");
}

int
main(void)
{
	test_fraction();
	test_memory();
	test_exclusions();
	test_devices_and_container();
	return done_testing();
}
