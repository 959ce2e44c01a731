/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * kctl.h: what kctl's files share: reading a queue file for
 * "kctl queue apply -f" (kctl_apply.c).
 */
#ifndef KAI_CLIENTS_KCTL_H
#define KAI_CLIENTS_KCTL_H

#include <stddef.h>

#include "base/compiler.h"
#include "base/err.h"
#include "proto/proto.h"

/*
 * Reads path, a YAML list of queues in the shape of the scenario format's
 * `queues:` (or a map whose only key is `queues:` holding that list), and
 * turns each queue into a KAI_QUEUE_REPLACE change that sets every field:
 * the file says all there is to say about the queues it lists.  Absent
 * settings mean what they mean in a scenario: no resource block
 * guarantees and caps nothing (quota -1, limit -1, weight 1); inside a
 * block an absent quota is 0, an absent limit -1 and an absent weight 0;
 * priority 100; min runtimes -1.
 *
 * Every fault is KAI_EINVAL with err->msg "FILE:LINE:COL: reason": YAML
 * syntax, unknown keys, values, a queue listed twice, a queue's own
 * values (kai_queue_check()).  Caller owns *c (kai_queue_changes_free()).
 */
int kctl_queue_file(const char *path, struct kai_queue_change **c, size_t *n,
    struct kai_err *err) KAI_MUST_CHECK;

/* The hint of kctl's usage errors. */
#define KCTL_HINT "see \"kctl --help\""

/*
 * scontrol's verbs; argv[0] is the verb ("show", "hold", "release",
 * "update").  Each prints its own errors and returns a CLIENT_EXIT_*.
 */
int kctl_show(const char *prog, int argc, char **argv);        /* kctl_show.c */
int kctl_job_control(const char *prog, int argc, char **argv); /* kctl_job.c */
int kctl_job_update(const char *prog, int argc, char **argv);  /* kctl_job.c */
/* kctl show qos [NAME] (kctl_qos.c); name NULL: every QoS. */
int kctl_show_qos(const char *prog, const char *name);

#endif /* KAI_CLIENTS_KCTL_H */
