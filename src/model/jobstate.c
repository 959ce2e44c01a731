/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * jobstate.c: the state table and the transition table.  See jobstate.h.
 */
#include "config.h"

#include "model/jobstate.h"

#include <strings.h>

#include "base/compiler.h"

static const struct {
	const char *name;
	const char *code;
	bool terminal;
} state_table[KAI_JOB_NSTATES] = {
	[KAI_JOB_PENDING] = {"PENDING", "PD", false},
	[KAI_JOB_CONFIGURING] = {"CONFIGURING", "CF", false},
	[KAI_JOB_RUNNING] = {"RUNNING", "R", false},
	[KAI_JOB_COMPLETED] = {"COMPLETED", "CD", true},
	[KAI_JOB_FAILED] = {"FAILED", "F", true},
	[KAI_JOB_CANCELLED] = {"CANCELLED", "CA", true},
	[KAI_JOB_TIMEOUT] = {"TIMEOUT", "TO", true},
	[KAI_JOB_PREEMPTED] = {"PREEMPTED", "PR", true},
	[KAI_JOB_NODE_FAIL] = {"NODE_FAIL", "NF", true},
	[KAI_JOB_OUT_OF_MEMORY] = {"OUT_OF_MEMORY", "OOM", true},
	[KAI_JOB_REQUEUED] = {"REQUEUED", "RQ", true},
};

#define B(s) KAI_JOB_STATE_BIT(KAI_JOB_##s)
/*
 * Allowed successors of each state.  A pending job can be cancelled; a
 * placed (CONFIGURING) job can go back to PENDING when its pods could not
 * be created, or straight to a terminal state when its pod finished before
 * kaid saw it running; terminal states have no successor.
 */
static const uint32_t next_states[KAI_JOB_NSTATES] = {
	[KAI_JOB_PENDING] = B(CONFIGURING) | B(CANCELLED) | B(FAILED),
	[KAI_JOB_CONFIGURING] = B(PENDING) | B(RUNNING) | B(COMPLETED) |
	    B(FAILED) | B(CANCELLED) | B(TIMEOUT) | B(NODE_FAIL) |
	    B(OUT_OF_MEMORY) | B(PREEMPTED),
	[KAI_JOB_RUNNING] = B(PENDING) | B(COMPLETED) | B(FAILED) |
	    B(CANCELLED) | B(TIMEOUT) | B(NODE_FAIL) | B(OUT_OF_MEMORY) |
	    B(PREEMPTED),
};
#undef B

static bool
valid(enum kai_job_state s)
{
	return (unsigned)s < KAI_JOB_NSTATES;
}

const char *
kai_jobstate_name(enum kai_job_state s)
{
	return valid(s) ? state_table[s].name : "UNKNOWN";
}

const char *
kai_jobstate_code(enum kai_job_state s)
{
	return valid(s) ? state_table[s].code : "??";
}

bool
kai_jobstate_is_terminal(enum kai_job_state s)
{
	return valid(s) && state_table[s].terminal;
}

bool
kai_jobstate_can_move(enum kai_job_state from, enum kai_job_state to)
{
	if (!valid(from) || !valid(to))
		return false;
	return (next_states[from] & KAI_JOB_STATE_BIT(to)) != 0;
}

bool
kai_jobstate_can_resize(enum kai_job_state s)
{
	return s == KAI_JOB_CONFIGURING || s == KAI_JOB_RUNNING;
}

int
kai_jobstate_parse(const char *s, enum kai_job_state *out)
{
	unsigned i;

	for (i = 0; i < KAI_JOB_NSTATES; i++) {
		if (strcasecmp(s, state_table[i].name) == 0 ||
		    strcasecmp(s, state_table[i].code) == 0) {
			*out = (enum kai_job_state)i;
			return 0;
		}
	}
	return -1;
}
