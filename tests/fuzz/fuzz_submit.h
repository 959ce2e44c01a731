/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * fuzz_submit.h: the rest of ksubmit's pipeline after the options are
 * read (fuzz_submit.c), shared by the directive and option harnesses.
 */
#ifndef KAI_TESTS_FUZZ_FUZZ_SUBMIT_H
#define KAI_TESTS_FUZZ_FUZZ_SUBMIT_H

struct submit_opts;

/* The working directory the harnesses pretend to run in. */
#define FUZZ_CWD "/home/fuzz/work"
/* Their clock: 2026-01-01 00:00:00 UTC, so that runs repeat. */
#define FUZZ_NOW 1767225600

/*
 * What ksubmit does with options that were read: the final checks, the
 * job spec, the --parse-only JSON, the warnings and refusals, and the
 * checks kaid makes on the spec it receives.
 */
void fuzz_submit_finish(struct submit_opts *o);

#endif /* KAI_TESTS_FUZZ_FUZZ_SUBMIT_H */
