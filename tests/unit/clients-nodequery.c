/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * clients-nodequery: what kinfo and kctl print about nodes: Slurm's
 * compact host lists (sorted, then folded by src/model/hostlist.c, where
 * expansion is tested), sinfo's state words and -t lists, GPU amounts.
 */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include "base/err.h"
#include "filters.h"
#include "nodequery.h"
#include "tap.h"

static const char *
hl(const char *const *names, size_t n, char *buf, size_t size)
{
	nodequery_hostlist((char *const *)(uintptr_t)names, n, buf, size);
	return buf;
}

static void
test_hostlist(void)
{
	static const char *const a[] = {"cpu-1", "gpu-a1", "gpu-a2", "gpu-h1"};
	static const char *const b[] = {"n3", "n1", "n2", "n5", "n10"};
	static const char *const c[] = {"n007", "n008", "n010", "login"};
	static const char *const d[] = {"x", "y1"};
	char buf[256], small[8];

	is_str(hl(a, 4, buf, sizeof(buf)), "cpu-1,gpu-a[1-2],gpu-h1",
	    "kubesim's nodes");
	is_str(hl(b, 5, buf, sizeof(buf)), "n[1-3,5,10]",
	    "numbers sorted and merged into ranges");
	is_str(hl(c, 4, buf, sizeof(buf)), "login,n[007-008,010]",
	    "sorted as sinfo sorts; zero padding kept; a name without a "
	    "number alone");
	is_str(hl(d, 2, buf, sizeof(buf)), "x,y1",
	    "one of a kind: no brackets");
	is_str(hl(a, 0, buf, sizeof(buf)), "", "no nodes: empty");
	is_str(hl(a, 4, small, sizeof(small)), "cpu-1,g", "cut to the buffer");
}

static void
test_states(void)
{
	struct kai_err err;
	uint32_t m;

	ok(nodequery_parse_states("idle,MIXED", &m, &err) == 0 &&
		m == (NQ_STATE_IDLE | NQ_STATE_MIX),
	    "short and long words, any case");
	ok(nodequery_parse_states("drain", &m, &err) == 0 &&
		m == (NQ_STATE_DRAIN | NQ_STATE_DRNG),
	    "drain selects draining too");
	ok(nodequery_parse_states("all", &m, &err) == 0 && m == NQ_STATE_ALL,
	    "all");
	ok(nodequery_parse_states("idle,,mix", &m, &err) == KAI_EINVAL &&
		strstr(err.msg, "empty state") != NULL,
	    "an empty word: %s", err.msg);
	ok(nodequery_parse_states("", &m, &err) == KAI_EINVAL, "empty list");
	ok(nodequery_parse_states("comp", &m, &err) == KAI_EINVAL &&
		strcmp(err.msg,
		    "invalid node state \"comp\": expected idle, mix, "
		    "alloc, down, drain, drng or all") == 0,
	    "unknown: %s", err.msg);
	is_str(nodequery_state_long("drng"), "draining", "long word");
	is_int(nodequery_state_bit("alloc"), NQ_STATE_ALLOC, "bit of a word");
	is_int(nodequery_state_bit("weird"), 0, "no bit for an unknown word");
}

static void
test_gpus(void)
{
	char buf[32];

	is_str(nodequery_gpus(8000000, buf, sizeof(buf)), "8", "whole GPUs");
	is_str(nodequery_gpus(1500000, buf, sizeof(buf)), "1.5", "a fraction");
	is_str(nodequery_gpus(250000, buf, sizeof(buf)), "0.25", "a quarter");
	is_str(nodequery_gpus(0, buf, sizeof(buf)), "0", "none");
}

int
main(void)
{
	test_hostlist();
	test_states();
	test_gpus();
	return done_testing();
}
