/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * srun_relay.h: srun's output where it is no file (srun_relay.c).
 */
#ifndef KAI_POD_SRUN_RELAY_H
#define KAI_POD_SRUN_RELAY_H

#include <sys/types.h>

/*
 * The path the tasks of a step write fd's output to: the
 * file behind fd, or a spool file in the job's directory whose growth a
 * child copies to fd (a terminal, a pipe) until srun_relay_end(); NULL:
 * the job's own files.  Caller frees the path.
 */
struct srun_relay {
	char *path;	/* the spool file, or NULL */
	pid_t pid;	/* its copier, or -1 */
};
char *srun_relay_target(int fd, struct srun_relay *rl);
void srun_relay_end(struct srun_relay *rl);

#endif /* KAI_POD_SRUN_RELAY_H */
