/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * submit_wait.h: ksubmit -W/--wait.
 */
#ifndef KAI_CLIENTS_SUBMIT_WAIT_H
#define KAI_CLIENTS_SUBMIT_WAIT_H

#include <stdint.h>

/*
 * Waits until job id (every task, for an array) has ended, asking kaid
 * at growing intervals (100 ms up to 2 s), and returns what sbatch --wait
 * exits with: the highest exit status of the job's records, 1 for one
 * ended by a signal.  While kaid cannot be reached it keeps trying (each
 * failure printed under prog).  Another failure returns its
 * CLIENT_EXIT_* code after printing it; a job kaid no longer knows gives
 * CLIENT_EXIT_REFUSED.
 */
int submit_wait(const char *prog, uint64_t id);

#endif /* KAI_CLIENTS_SUBMIT_WAIT_H */
