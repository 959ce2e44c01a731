/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * nodequery.h: what kinfo and kctl show node / partition share: the node
 * list round trip, sinfo's state words, GPU amounts, and Slurm's compact
 * host lists ("gpu-a[1-3,7],cpu-1").
 */
#ifndef KAI_CLIENTS_NODEQUERY_H
#define KAI_CLIENTS_NODEQUERY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "proto/msg_tools.h"

struct nodequery {
	struct kai_partinfo *parts;
	size_t nparts;
	struct kai_nodeinfo *nodes;
	size_t nnodes;
};

/*
 * Asks kaid for the partitions and nodes.  Returns a CLIENT_EXIT_* code;
 * errors are printed under prog's name.  Release with nodequery_fini().
 */
int nodequery_run(const char *prog, struct nodequery *q);
void nodequery_fini(struct nodequery *q);

/*
 * sinfo's long state word for a short one: idle -> idle, mix -> mixed,
 * alloc -> allocated, down -> down, drain -> drained, drng -> draining.
 */
const char *nodequery_state_long(const char *shrt);
/*
 * Parses sinfo -t's list (short or long words, any case, "all") into a
 * bit mask of NQ_STATE_* bits.  "drain" selects drained and draining
 * nodes, as in sinfo.  KAI_EINVAL naming the word otherwise.
 */
#define NQ_STATE_IDLE  0x01
#define NQ_STATE_MIX   0x02
#define NQ_STATE_ALLOC 0x04
#define NQ_STATE_DOWN  0x08
#define NQ_STATE_DRAIN 0x10
#define NQ_STATE_DRNG  0x20
#define NQ_STATE_ALL   0x3f
int
nodequery_parse_states(const char *list, uint32_t *mask, struct kai_err *err);
/* The NQ_STATE_* bit of a node's short state (0 for an unknown word). */
uint32_t nodequery_state_bit(const char *shrt);

/* micro-GPUs as a decimal: 1500000 -> "1.5". */
const char *nodequery_gpus(int64_t micro, char *buf, size_t size);

/*
 * Writes names[0..n) as sinfo writes a set of nodes: sorted, then folded
 * by kai_hostlist_compress() ("n3,n1,n2,n5" -> "n[1-3,5]"); zero-padded
 * numbers keep their width.  A list that does not fit is cut.  The
 * other way round (kinfo -n) is kai_hostlist_expand().
 */
void nodequery_hostlist(char *const *names, size_t n, char *buf, size_t size);

#endif /* KAI_CLIENTS_NODEQUERY_H */
