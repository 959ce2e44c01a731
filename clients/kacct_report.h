/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * kacct_report.h: kacct --report, a summary per partition and user over
 * a period, the way sreport sums up usage (kacct_report.c).
 */
#ifndef KAI_CLIENTS_KACCT_REPORT_H
#define KAI_CLIENTS_KACCT_REPORT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "output.h"

struct kacct_report {
	int64_t start;		/* the period: [start, end) */
	int64_t end;
	uint32_t *uids;		/* -u; borrowed */
	size_t nuids;
	char **queues;		/* -r; borrowed */
	size_t nqueues;
	enum out_mode mode;
	bool json, noheader;
};

/* Asks kaid for the report and prints it; a CLIENT_EXIT_* code. */
int kacct_report_run(const char *prog, const struct kacct_report *r);

#endif /* KAI_CLIENTS_KACCT_REPORT_H */
